"""The usage ledger in one SQLite file: the embedded default, shared by processes on a host.

The spool thread writes through one connection it keeps open (closed by :meth:`close`);
reports open their own short-lived connections, which WAL mode lets run beside it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...dependable.sqlite_file import SQLiteFile
from .record import UsageRecord

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS usage (time REAL NOT NULL, provider TEXT NOT NULL, capability TEXT NOT NULL, "
    "outcome TEXT NOT NULL, units REAL NOT NULL, unit TEXT NOT NULL, usd REAL NOT NULL, estimated INTEGER NOT NULL, "
    "latency_ms REAL NOT NULL, tags TEXT, query TEXT)",
    "CREATE INDEX IF NOT EXISTS usage_time ON usage (time)",
)
_COLUMNS = "time, provider, capability, outcome, units, unit, usd, estimated, latency_ms, tags, query"
#: Every this many batches, rows older than the retention period are deleted.
_PRUNE_EVERY = 64


def default_path() -> Path:
    """``$XDG_DATA_HOME/webproviders/usage.sqlite3`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or "~/.local/share"
    return Path(base).expanduser() / "webproviders" / "usage.sqlite3"


class SQLiteUsage:
    """Append, read back and sum ledger rows in a SQLite file."""

    def __init__(self, path: str | os.PathLike[str] | None, retention_days: int) -> None:
        self.path = Path(path).expanduser() if path else default_path()
        self.retention = retention_days * 86400.0
        self._file = SQLiteFile(self.path, _SCHEMA)
        self._lock = threading.Lock()
        self._batches = 0
        self._writer: Any = None

    def append(self, records: list[UsageRecord]) -> None:
        with self._lock:
            if self._writer is None:
                self._writer = self._file.connect()
            conn = self._writer
            conn.execute("BEGIN")  # one transaction per batch, not one per row
            try:
                conn.executemany(
                    f"INSERT INTO usage ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (r.time, r.provider, r.capability, r.outcome, r.units, r.unit, r.usd, int(r.estimated),
                         r.latency_ms, r.tags_json(), r.query)
                        for r in records
                    ],
                )
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            self._batches += 1
            if self._batches % _PRUNE_EVERY == 1 and records:
                conn.execute("DELETE FROM usage WHERE time < ?", (records[-1].time - self.retention,))

    def close(self) -> None:
        """Close the writing connection (the next write opens a new one)."""
        with self._lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    def rows(self, since: float, until: float | None = None) -> Iterator[UsageRecord]:
        if not self.path.exists():
            return
        conn = self._file.connect()
        try:
            cursor = conn.execute(
                f"SELECT {_COLUMNS} FROM usage WHERE time >= ? AND time < ? ORDER BY time",
                (since, float("inf") if until is None else until),
            )
            for row in cursor:
                yield UsageRecord(
                    row[0], row[1], row[2], row[3], row[4], row[5], row[6], bool(row[7]), row[8],
                    UsageRecord.parse_tags(row[9]), row[10],
                )
        finally:
            conn.close()

    def spent(self, since: float, provider: str | None = None, tag: tuple[str, str] | None = None) -> float:
        """Dollars recorded since ``since``, optionally for one provider or one tag value."""
        if not self.path.exists():
            return 0.0
        sql, args = "SELECT coalesce(sum(usd), 0) FROM usage WHERE time >= ?", [since]
        if provider is not None:
            sql, args = sql + " AND provider = ?", [*args, provider]
        if tag is not None:
            sql, args = sql + " AND json_extract(tags, ?) = ?", [*args, f'$."{tag[0]}"', tag[1]]
        conn = self._file.connect()
        try:
            return float(conn.execute(sql, args).fetchone()[0])
        finally:
            conn.close()
