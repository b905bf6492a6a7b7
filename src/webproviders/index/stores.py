"""Which store the config names (``web.providers.local``), opened once per location.

``url`` set: a Meilisearch server (:mod:`.meili_store`); otherwise the SQLite file at
``path``, by default ``$XDG_DATA_HOME/webproviders/index.sqlite3``
(``~/.local/share/webproviders/index.sqlite3``).
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

from .. import redact
from ..config import Config, ProviderSettings
from ..errors import NotConfiguredError
from .pages import PageStore

#: The config section (``web.providers.local``) and provider name of the index.
INDEX_PROVIDER = "local"
#: Environment variable holding the Meilisearch key (``api_key`` in the section wins).
KEY_ENV = "MEILISEARCH_API_KEY"
DEFAULT_INDEX_NAME = "webproviders_pages"
_INDEX_NAME = re.compile(r"^[A-Za-z0-9_-]{1,400}$")

_stores: dict[tuple[Any, ...], PageStore] = {}
_lock = threading.Lock()


def default_path() -> Path:
    """``$XDG_DATA_HOME/webproviders/index.sqlite3`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or "~/.local/share"
    return Path(base).expanduser() / "webproviders" / "index.sqlite3"


def _seconds(settings: ProviderSettings, key: str, default: float) -> float:
    value = settings.option(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise NotConfiguredError(
            f"web.providers.{INDEX_PROVIDER}.{key} must be a number of seconds above 0, not {value!r}.",
            provider=INDEX_PROVIDER,
        )
    return float(value)


def _text(settings: ProviderSettings, key: str) -> str | None:
    value = settings.option(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise NotConfiguredError(
            f"web.providers.{INDEX_PROVIDER}.{key} must be a string, not {value!r}.", provider=INDEX_PROVIDER
        )
    return value.strip()


def _meili(settings: ProviderSettings, url: str) -> tuple[tuple[Any, ...], Any]:
    from .meili_store import MeiliStore

    if not url.startswith(("http://", "https://")):
        raise NotConfiguredError(
            f"web.providers.{INDEX_PROVIDER}.url must be an http(s) URL of a Meilisearch server, not {url!r}.",
            provider=INDEX_PROVIDER,
        )
    index = _text(settings, "index_name") or DEFAULT_INDEX_NAME
    if not _INDEX_NAME.match(index):
        raise NotConfiguredError(
            f"web.providers.{INDEX_PROVIDER}.index_name may hold only letters, digits, '-' and '_'; "
            f"got {index!r}.",
            provider=INDEX_PROVIDER,
        )
    keys = settings.api_keys() or [k for k in [(os.environ.get(KEY_ENV) or "").strip()] if k]
    redact.remember(*keys)
    key = keys[0] if keys else None
    timeout = settings.timeout or 10.0
    return ("meili", url.rstrip("/"), index, key, timeout), lambda: MeiliStore(url, index, key, timeout)


def open_store(config: Config) -> PageStore:
    """The index ``web.providers.local`` points at; raises ``not_configured`` for bad settings."""
    settings = config.provider(INDEX_PROVIDER)
    url = _text(settings, "url")
    if url:
        key, make = _meili(settings, url)
    else:
        from .sqlite_store import SQLiteStore

        path = Path(_text(settings, "path") or default_path()).expanduser().resolve()
        busy = _seconds(settings, "busy_timeout", 5.0)
        key, make = ("sqlite", str(path), busy), lambda: SQLiteStore(path, busy)
    with _lock:
        store = _stores.get(key)
        if store is None:
            store = _stores[key] = make()
        return store
