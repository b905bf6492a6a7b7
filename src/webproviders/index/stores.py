"""Which store the config names (``web.providers.local``), opened once per location.

``dsn`` set (or the environment variable the ``local`` plugin declares for it): a PostgreSQL
database (:mod:`.pg_store`), shared by every worker pointed at it; otherwise the SQLite file
at ``path``, by default ``$XDG_DATA_HOME/webproviders/index.sqlite3``
(``~/.local/share/webproviders/index.sqlite3``).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import threading
from pathlib import Path
from typing import Any

from .. import redact
from ..config import Config, ProviderSettings
from ..errors import NotConfiguredError
from ..homedir import expand_user, require_home, xdg_file
from .pages import PageStore

#: The config section (``web.providers.local``) and provider name of the index.
INDEX_PROVIDER = "local"
DEFAULT_SCHEMA = "webproviders"
#: Seconds a call to a PostgreSQL index may take when ``timeout`` is not set.
DEFAULT_TIMEOUT = 10.0
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

_stores: dict[tuple[Any, ...], PageStore] = {}
_lock = threading.Lock()


def default_path() -> Path:
    """``$XDG_DATA_HOME/webproviders/index.sqlite3`` (``~/.local/share`` by default)."""
    return xdg_file("XDG_DATA_HOME", "~/.local/share", "index.sqlite3")


def _problem(key: str, sentence: str) -> NotConfiguredError:
    return NotConfiguredError(f"web.providers.{INDEX_PROVIDER}.{key} {sentence}", provider=INDEX_PROVIDER)


def _text(settings: ProviderSettings, key: str) -> str | None:
    value = settings.option(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _problem(key, f"must be a string, not {value!r}.")
    return value.strip()


def _dsn(config: Config, settings: ProviderSettings) -> str | None:
    """``dsn`` from the section, else the variable the ``local`` plugin's manifest names for it."""
    dsn = _text(settings, "dsn")
    if dsn:
        return dsn
    from ..registry.providers import get_registry

    entry = get_registry(config).get(INDEX_PROVIDER)
    for var in entry.manifest.env if entry is not None else ():
        if var.config_key == "dsn":
            return var.value()
    return None


def _password_cut_short(dsn: str) -> str | None:
    """The password of a ``postgresql://`` DSN as its writer meant it, when it holds an ``@``
    or ``/`` that is not percent-encoded; else None.

    libpq ends such a password there and reads the rest as the host, port or database, which
    every message about the index names: the rest of the password would show in them.
    """
    _scheme, url, rest = dsn.partition("://")
    userinfo, at, _host = rest.split("?", 1)[0].rpartition("@")
    user, colon, password = userinfo.partition(":")
    if not (url and at and colon) or "/" in user or not ("@" in password or "/" in password):
        return None
    return password


#: libpq's words for an option it does not know, in a URL's query or in key=value pairs.
_UNKNOWN_OPTION = re.compile(r'^invalid (?:URI query parameter: |connection option )"(\w{1,40})"$')


def _unreadable_dsn(said: str) -> str:
    """Why libpq could not read the DSN, in words that hold no part of it but an option's
    name (its other messages quote the text around the fault, which may be the password)."""
    unknown = _UNKNOWN_OPTION.match(said.strip())
    if unknown:
        return (
            f"has an option PostgreSQL does not know ({unknown.group(1)}); remove it, or write it as one of "
            "libpq's connection parameters (host, port, dbname, user, password, sslmode, connect_timeout, ...)."
        )
    if said.startswith("invalid percent-encoded token"):
        return "holds a '%' that two hexadecimal digits do not follow; write a '%' of the password as %25."
    return "is not a PostgreSQL connection string (postgresql://user@host:5432/dbname, or key=value pairs)."


def _postgres(settings: ProviderSettings, dsn: str) -> tuple[tuple[Any, ...], Any]:
    """The key and maker of a PostgreSQL store; the password is never part of its name."""
    cut_short = _password_cut_short(dsn)
    if cut_short is not None:
        redact.remember(cut_short)
        raise _problem(
            "dsn",
            "is a postgresql:// URL whose password holds '@' or '/' as it is, which ends the password "
            "there (the rest is read as the host or database): write them percent-encoded (%40 for '@', "
            "%2F for '/'), or give the DSN as key=value pairs (password='...').",
        )
    if importlib.util.find_spec("psycopg") is None or importlib.util.find_spec("psycopg_pool") is None:
        raise _problem("dsn", "names a PostgreSQL database, which needs psycopg: pip install 'webproviders[postgres]'.")
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    from .pg_store import PostgresStore

    try:
        parts = conninfo_to_dict(dsn)
    except ProgrammingError as exc:
        raise _problem("dsn", _unreadable_dsn(str(exc))) from None
    redact.remember(str(parts.get("password") or ""))
    schema = _text(settings, "schema") or DEFAULT_SCHEMA
    if not _SCHEMA_NAME.match(schema):
        raise _problem("schema", f"may hold only lower-case letters, digits and '_' (63 at most); got {schema!r}.")
    timeout = settings.timeout or DEFAULT_TIMEOUT
    pool_size = settings.number("pool_size", 4)
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    location = f"postgresql://{user}{parts.get('host') or 'localhost'}{port}/{parts.get('dbname') or ''} (schema {schema})"
    key = ("postgres", dsn, schema, timeout, pool_size)
    return key, lambda: PostgresStore(dsn, location, schema, timeout, pool_size)


def open_store(config: Config) -> PageStore:
    """The index ``web.providers.local`` points at; raises ``not_configured`` for bad settings."""
    settings = config.provider(INDEX_PROVIDER)
    dsn = _dsn(config, settings)
    if dsn:
        key, make = _postgres(settings, dsn)
    else:
        from .sqlite_store import SQLiteStore

        text = _text(settings, "path")
        if text and "\x00" in text:
            raise _problem("path", f"must be a file's path; it holds a NUL character: {text!r}.")
        try:
            path = require_home(expand_user(text or default_path())).resolve()
        except OSError:
            raise _problem("path", "must be set: this process has no home directory for the default (set HOME or XDG_DATA_HOME).") from None
        busy = float(settings.number("busy_timeout", 5.0, whole=False))
        key, make = ("sqlite", str(path), busy), lambda: SQLiteStore(path, busy)
    with _lock:
        store = _stores.get(key)
        if store is None:
            store = _stores[key] = make()
        return store


def close_stores() -> None:
    """Close every store opened so far (their connections); the next use opens them anew."""
    with _lock:
        stores = list(_stores.values())
        _stores.clear()
    for store in stores:
        store.close()


def _forget_stores() -> None:
    """In a forked child, drop the parent's stores without closing them: their connections
    (and a PostgreSQL pool's threads) are the parent's; the child opens its own."""
    global _lock
    _stores.clear()
    _lock = threading.Lock()


atexit.register(close_stores)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_stores)
