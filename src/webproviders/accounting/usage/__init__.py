"""The usage ledger: a row for each request that reached a vendor, written off the hot path.

Rows go to a SQLite file under the user's data directory by default, or to a Redis stream
(``web.usage.url: redis://...``) shared by a fleet. :func:`.report.usage_summary` and the
``webproviders usage`` command read them back as totals.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .record import UsageRecord
from .spool import spool

if TYPE_CHECKING:
    from ...config import UsageSettings

__all__ = ["Ledger", "UsageRecord"]

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
SQLITE_SCHEME = "sqlite:///"

#: Stores kept open; the least recently used beyond this is closed (tests make many).
_OPEN_STORES = 8
_stores: OrderedDict[tuple[str, str, str, int], Any] = OrderedDict()
_stores_lock = threading.Lock()


def _open_store(kind: str, location: str, settings: UsageSettings) -> Any:
    """The store for a location, shared by every ledger that writes there."""
    key = (kind, location, settings.namespace, settings.retention_days)
    with _stores_lock:
        store = _stores.get(key)
        if store is not None:
            _stores.move_to_end(key)
        else:
            if kind == "redis":
                from .redis_store import RedisUsage

                store = RedisUsage(location, settings.namespace, settings.retention_days)
            else:
                from .sqlite_store import SQLiteUsage

                store = SQLiteUsage(location, settings.retention_days)
            _stores[key] = store
            while len(_stores) > _OPEN_STORES:
                _stores.popitem(last=False)[1].close()
        return store


class Ledger:
    """Where one config's usage rows go, and where reports read them from."""

    def __init__(self, settings: UsageSettings) -> None:
        from .sqlite_store import default_path

        self.settings = settings
        url = settings.url or ""
        if url.startswith(REDIS_SCHEMES):
            self.kind, self.location = "redis", url
        elif url.startswith(SQLITE_SCHEME):
            self.kind, self.location = "sqlite", url[len(SQLITE_SCHEME) - 1 :]
        else:
            self.kind, self.location = "sqlite", str(settings.path or default_path())

    @property
    def record_queries(self) -> bool:
        return self.settings.record_queries

    def describe(self) -> str:
        """Where the rows live, for messages (a Redis URL without its password)."""
        if self.kind == "sqlite":
            return self.location
        from urllib.parse import urlsplit

        parts = urlsplit(self.location)
        return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"

    def record(self, row: UsageRecord) -> None:
        """Queue a row; the spool thread writes it."""
        spool.put_row(self, row)

    def write(self, rows: list[UsageRecord]) -> None:
        """Write a batch (on the spool thread)."""
        self.store().append(rows)

    def store(self) -> Any:
        return _open_store(self.kind, self.location, self.settings)

    def rows(self, since: float, until: float | None = None) -> Iterator[UsageRecord]:
        """Rows recorded in ``[since, until)`` (wall-clock seconds), oldest first."""
        spool.flush()
        return self.store().rows(since, until)

    def spent(self, since: float, provider: str | None = None, tag: tuple[str, str] | None = None) -> float:
        """Dollars recorded since ``since`` (for one provider or one tag value when given)."""
        spool.flush()
        return float(self.store().spent(since, provider, tag))
