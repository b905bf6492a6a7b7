"""The usage ledger in one SQLite file: the embedded default, shared by processes on a host.

The spool thread writes through one connection it keeps open (closed by :meth:`close`);
reports open their own short-lived connections, which WAL mode lets run beside it.

Besides the rows, the file keeps a running total of dollars per ``(period, scope)`` (UTC day
or month; everything, one provider, one tag value), updated in the same transaction as the
rows it adds up, so a budget reads what was spent with one lookup however long the ledger.
A ledger written before the totals existed gets them once, from its recent rows.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...dependable.sqlite_file import Identity, SQLiteFile
from ...homedir import expand_user, xdg_file
from ..periods import KEEP, stamps
from .record import PRUNE_EVERY, Unread, UsageRecord, readable, running_totals

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS usage (time REAL NOT NULL, provider TEXT NOT NULL, capability TEXT NOT NULL, "
    "outcome TEXT NOT NULL, units REAL NOT NULL, unit TEXT NOT NULL, usd REAL NOT NULL, estimated INTEGER NOT NULL, "
    "latency_ms REAL NOT NULL, tags TEXT, query TEXT)",
    "CREATE INDEX IF NOT EXISTS usage_time ON usage (time)",
    "CREATE TABLE IF NOT EXISTS usage_totals (period TEXT NOT NULL, scope TEXT NOT NULL, usd REAL NOT NULL, "
    "PRIMARY KEY (period, scope)) WITHOUT ROWID",
)
_COLUMNS = "time, provider, capability, outcome, units, unit, usd, estimated, latency_ms, tags, query"
_ADD_TOTAL = (
    "INSERT INTO usage_totals (period, scope, usd) VALUES (?, ?, ?) "
    "ON CONFLICT (period, scope) DO UPDATE SET usd = usd + excluded.usd"
)
#: Rows per INSERT statement: 64 rows of 11 values stay under 999, the lowest limit on
#: parameters a SQLite build may have.
_CHUNK = 64
_ROW_PLACES = ("?",) * len(_COLUMNS.split(", "))
#: ``PRAGMA user_version`` once the running totals hold every row.
_TOTALS_VERSION = 1


def default_path() -> Path:
    """``$XDG_DATA_HOME/webproviders/usage.sqlite3`` (``~/.local/share`` by default)."""
    return xdg_file("XDG_DATA_HOME", "~/.local/share", "usage.sqlite3")


class SQLiteUsage:
    """Append, read back and total ledger rows in a SQLite file."""

    def __init__(self, path: str | os.PathLike[str] | None, retention_days: int, timeout: float = 10.0) -> None:
        self.path = expand_user(path) if path else default_path()
        self.retention = retention_days * 86400.0
        self._file = SQLiteFile(
            self.path, _SCHEMA, timeout, upgrade=_add_missing_totals,
            tables=frozenset({"usage", "usage_totals"}), setting="web.usage.path",
        )
        self._lock = threading.Lock()
        self._batches = 0
        self._writer: tuple[Any, Identity] | None = None
        #: One connection for running-total lookups (on the call path: no connect per lookup).
        self._reader: tuple[Any, Identity] | None = None
        self._read_lock = threading.Lock()

    def append(self, records: list[UsageRecord]) -> None:
        import sqlite3

        try:
            self._append(records)
        except sqlite3.OperationalError as exc:
            raise self._file.explained(exc) from None

    def _append(self, records: list[UsageRecord]) -> None:
        with self._lock:
            self._writer = self._fresh(self._writer)
            conn = self._writer[0]
            conn.execute("BEGIN")  # one transaction per batch (rows and their totals), not one per row
            try:
                _insert(conn, records)
                conn.executemany(_ADD_TOTAL, [(*key, usd) for key, usd in running_totals(records).items()])
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            self._batches += 1
            if self._batches % PRUNE_EVERY == 1 and records:
                newest = records[-1].time
                conn.execute("DELETE FROM usage WHERE time < ?", (newest - self.retention,))
                conn.execute("DELETE FROM usage_totals WHERE period < ?", (stamps(newest - KEEP["monthly"])[1],))

    def _fresh(self, kept: tuple[Any, Identity] | None) -> tuple[Any, Identity]:
        """:meth:`SQLiteFile.fresh`, with a file that is no database named and what to do
        about it: SQLite says only "file is not a database"."""
        import sqlite3

        try:
            return self._file.fresh(kept)
        except sqlite3.OperationalError as exc:
            raise self._file.explained(exc) from None
        except sqlite3.DatabaseError as exc:
            raise sqlite3.DatabaseError(
                f"{exc}: {self.path} is not a SQLite database, or is damaged; move it aside (a new "
                "ledger is made in its place) or point web.usage.path at another file"
            ) from None

    def close(self) -> None:
        """Close the kept connections (the next write or lookup opens new ones)."""
        with self._lock:
            if self._writer is not None:
                self._writer[0].close()
                self._writer = None
        with self._read_lock:
            if self._reader is not None:
                self._reader[0].close()
                self._reader = None

    def rows(self, since: float, until: float | None = None, unread: Unread | None = None) -> Iterator[UsageRecord]:
        if not self.path.exists():
            return
        conn = self._connect_to_read()
        try:
            cursor = conn.execute(
                f"SELECT {_COLUMNS} FROM usage WHERE time >= ? AND time < ? ORDER BY time",
                (since, float("inf") if until is None else until),
            )
            for entry in cursor:
                row = _record(entry)
                if row is not None:
                    yield row
                elif unread is not None:
                    unread.count += 1
        finally:
            conn.close()

    def _connect_to_read(self) -> Any:
        """A connection for a report. A ledger in a place this process may not write (a
        read-only mount, another user's folder) cannot be opened in WAL mode without the
        index file WAL keeps beside it; one closed cleanly (no ``-wal`` or ``-shm`` file:
        every row is in the file itself, and no one has it open) is then read as it is."""
        import sqlite3

        try:
            return self._fresh(None)[0]
        except sqlite3.OperationalError:
            if any(Path(f"{self.path}{tail}").exists() for tail in ("-wal", "-shm")):
                raise  # rows may wait in the WAL, or a writer has it open: reading past it would miss or tear them
            return sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, check_same_thread=False)

    def totals(self, keys: list[tuple[str, str]]) -> list[float]:
        """The running total of dollars for each ``(period, scope)``. A ledger not made yet
        holds nothing, unless it cannot be made (a read-only folder): that fails the lookup, as
        a ledger that cannot be read does, rather than reading as nothing spent in every new process."""
        if not self.path.exists():
            self._file.check_can_make()
            return [0.0] * len(keys)
        with self._read_lock:
            self._reader = self._fresh(self._reader)
            found = []
            for period, scope in keys:
                row = self._reader[0].execute(
                    "SELECT usd FROM usage_totals WHERE period = ? AND scope = ?", (period, scope)
                ).fetchone()
                found.append(float(row[0]) if row else 0.0)
            return found


def _insert(conn: Any, records: list[UsageRecord]) -> None:
    """Insert ``records`` ``_CHUNK`` to a statement.

    One statement per row (``executemany``) hands the interpreter lock back and forth with
    the callers' threads for every row; one per chunk does so a few times per batch, and
    costs the writer about a quarter less time per row.
    """
    values = [
        value
        for r in records
        for value in (r.time, r.provider, r.capability, r.outcome, r.units, r.unit, r.usd, int(r.estimated),
                      r.latency_ms, r.tags_json(), r.query)
    ]
    width = len(_ROW_PLACES)
    whole = len(records) - len(records) % _CHUNK
    for start in range(0, whole, _CHUNK):
        conn.execute(_INSERT_CHUNK, values[start * width : (start + _CHUNK) * width])
    if whole < len(records):
        conn.execute(_insert_sql(len(records) - whole), values[whole * width :])


def _insert_sql(rows: int) -> str:
    return f"INSERT INTO usage ({_COLUMNS}) VALUES " + ", ".join([f"({', '.join(_ROW_PLACES)})"] * rows)


_INSERT_CHUNK = _insert_sql(_CHUNK)


def _record(row: Any) -> UsageRecord | None:
    return readable(lambda: UsageRecord(
        row[0], row[1], row[2], row[3], row[4], row[5], row[6], bool(row[7]), row[8],
        UsageRecord.parse_tags(row[9]), row[10],
    ))


def _add_missing_totals(conn: Any) -> None:
    """Give a ledger written before running totals existed its totals, once, in one transaction.

    Only the periods a budget can still ask about (this month and the last) are summed.
    """
    if conn.execute("PRAGMA user_version").fetchone()[0] >= _TOTALS_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] < _TOTALS_VERSION:
            since = time.time() - 2 * KEEP["monthly"]
            rows = (_record(r) for r in conn.execute(f"SELECT {_COLUMNS} FROM usage WHERE time >= ? AND usd > 0", (since,)))
            sums = running_totals(rows)
            conn.executemany(_ADD_TOTAL, [(*key, usd) for key, usd in sums.items()])
            conn.execute(f"PRAGMA user_version = {_TOTALS_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
