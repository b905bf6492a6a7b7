"""The usage ledger: a row for each request that reached a vendor, written off the hot path.

Rows go to a SQLite file under the user's data directory by default, or to a Redis stream
(``web.usage.url: redis://...``) shared by a fleet. :func:`.report.usage_summary` and the
``webproviders usage`` command read them back as totals. Each store also keeps running
totals per period and scope, which is all a budget reads.

The ledger follows the one store policy (:mod:`webproviders.dependable.offload`): each
operation is bounded by ``web.usage.timeout``, and a ledger that stalls or fails is skipped
for a while; rows that come by meanwhile are dropped (and the calls say so).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...dependable.offload import StoreGuard, StoreUnavailable
from ...homedir import expand_user
from ...redact import get_logger, scrub
from ..periods import stamps
from .record import Unread, UsageRecord, running_totals
from .spool import spool

if TYPE_CHECKING:
    from ...config import UsageSettings

__all__ = ["Ledger", "UsageRecord"]

log = get_logger("webproviders.accounting.usage")

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
SQLITE_SCHEME = "sqlite:///"

#: Stores kept open; the least recently used beyond this is closed (tests make many).
_OPEN_STORES = 8
_stores: OrderedDict[tuple[str, str, str, int, float], Any] = OrderedDict()
_stores_lock = threading.Lock()


def _open_store(kind: str, location: str, settings: UsageSettings) -> Any:
    """The store for a location, shared by every ledger that writes there."""
    key = (kind, location, settings.namespace, settings.retention_days, settings.timeout)
    with _stores_lock:
        store = _stores.get(key)
        if store is not None:
            _stores.move_to_end(key)
        else:
            if kind == "redis":
                from .redis_store import RedisUsage

                store = RedisUsage(location, settings.namespace, settings.retention_days, settings.timeout)
                spool.submit(lambda: _add_older_rows(store))
            else:
                from .sqlite_store import SQLiteUsage

                store = SQLiteUsage(location, settings.retention_days, settings.timeout)
            _stores[key] = store
            while len(_stores) > _OPEN_STORES:
                _stores.popitem(last=False)[1].close()
        return store


def _add_older_rows(store: Any) -> None:
    """On the spool thread: totals for rows a Redis ledger holds from before they existed."""
    try:
        store.add_older_rows(stamps(time.time()))
    except Exception as exc:  # noqa: BLE001 - the totals stay as they are; budgets still work
        log.warning("Could not add older usage rows to the running totals: %s: %s", type(exc).__name__, scrub(str(exc)))


class _Unwritten:
    """Dollars of the rows queued for one ledger location and not written yet, per
    ``(period, scope)``: a budget counter that starts now counts them too."""

    def __init__(self) -> None:
        self._sums: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def add(self, rows: list[UsageRecord], sign: float) -> None:
        sums = running_totals(rows)
        if not sums:
            return
        with self._lock:
            for key, usd in sums.items():
                left = self._sums.get(key, 0.0) + sign * usd
                if abs(left) < 1e-9:
                    self._sums.pop(key, None)
                else:
                    self._sums[key] = left

    def get(self, key: tuple[str, str]) -> float:
        return self._sums.get(key, 0.0)


_unwritten: dict[tuple[str, str], _Unwritten] = {}


def _same_file(path: str) -> str:
    """``path`` as every spelling of its file gives it (a path whose ``~`` no home directory
    expands is left as written: it names no file)."""
    expanded = expand_user(path)
    return path if expanded.parts[:1] and expanded.parts[0].startswith("~") else os.path.realpath(expanded)


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
        self.guard = StoreGuard(f"the usage ledger ({self.kind})", settings.timeout, location=self.location)
        #: Why the latest write failed, until one succeeds: only the writer tries the ledger, so
        #: a call made once the skip window is over learns it here.
        self._failing: str | None = None
        with _stores_lock:
            self._unwritten = _unwritten.setdefault((self.kind, self.location), _Unwritten())

    @property
    def identity(self) -> tuple[str, str, str]:
        """Which ledger this is: configs that write to the same one share what they spent (a
        Redis ledger is one stream per namespace; a SQLite file is one ledger whatever it says,
        and however its path is written: ``~/u.sqlite3`` and ``/home/me/./u.sqlite3``, or a
        link to it, each spent the cap of the other again)."""
        if self.kind == "redis":
            return self.kind, self.location, self.settings.namespace
        return self.kind, _same_file(self.location), ""

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
        """Queue a row; the spool thread writes it.

        A priced row joins the unwritten sums before it is queued, so it is never written
        and taken off them before it was added.
        """
        if row.usd <= 0:
            spool.put_row(self, row)
        else:
            self._unwritten.add([row], 1.0)
            if not spool.put_row(self, row):
                self._unwritten.add([row], -1.0)

    def write(self, rows: list[UsageRecord]) -> None:
        """Write a batch (on the spool thread); a ledger that is down loses it, and says so.

        The batch leaves the unwritten sums only once written (or lost): a lookup in between
        counts it twice for a moment, never not at all.
        """
        try:
            self.guard.run(self.store().append, rows)
        except StoreUnavailable as problem:
            self._failing = self.guard.skipped_because() or str(problem)
            self.guard.warn(problem, f"{len(rows)} usage row(s) were not recorded")
        else:
            self._failing = None
        finally:
            self._unwritten.add(rows, -1.0)

    def outage(self) -> str | None:
        """A ``meta.warnings`` line while the ledger is being skipped (this call's rows will be
        lost), or, once that window is over, until a write succeeds again: the next write is
        the first to try it, so a ledger that stays broken loses the rows of calls made later too."""
        reason = self.guard.skipped_because()
        if reason is None and self._failing is None:
            return None  # every call asks: the sentence is written only when there is one to say
        what = self.guard.what
        subject = f"{what[0].upper()}{what[1:]}"
        if reason is not None:
            return f"{subject} is skipped for now: it {reason}; this call's usage is not recorded."
        return f"{subject} has not been written since it {self._failing}; this call's usage may not be recorded."

    def store(self) -> Any:
        return _open_store(self.kind, self.location, self.settings)

    def rows(self, since: float, until: float | None = None, unread: Unread | None = None) -> Iterator[UsageRecord]:
        """Rows recorded in ``[since, until)`` (wall-clock seconds), oldest first; entries
        holding no row this version reads are left out, counted in ``unread``."""
        spool.flush()
        return self.store().rows(since, until, unread)

    def totals(self, keys: list[tuple[str, str]]) -> list[float]:
        """The running total of dollars for each ``(period, scope)``: what is written, plus
        this process's rows still waiting in the spool."""
        written = self.store().totals(keys)
        return [float(total) + self._unwritten.get(key) for key, total in zip(keys, written, strict=True)]
