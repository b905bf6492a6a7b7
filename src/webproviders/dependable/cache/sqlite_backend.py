"""A persistent cache in one SQLite file: survives restarts, shared by processes on a host.

WAL mode lets readers run beside a writer; each thread keeps its own connection. Claims (a
row per key being fetched) give single flight across processes.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...homedir import expand_user, xdg_file
from ..sqlite_file import PerThread, SQLiteFile

#: Every this many writes, expired rows are deleted and the table trimmed to size.
_PRUNE_EVERY = 256
_SCHEMA = (
    ("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, "
    "expires REAL NOT NULL, stored REAL NOT NULL)"),
    "CREATE INDEX IF NOT EXISTS entries_stored ON entries (stored)",
    "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, token TEXT NOT NULL, expires REAL NOT NULL)",
)


def default_path() -> Path:
    """``$XDG_CACHE_HOME/webproviders/cache.sqlite3`` (``~/.cache`` by default)."""
    return xdg_file("XDG_CACHE_HOME", "~/.cache", "cache.sqlite3")


class SQLiteCache:
    """``get`` / ``set`` / ``claim`` on a SQLite file; every call blocks briefly."""

    shared = True

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.time,
        timeout: float = 1.0,
    ) -> None:
        self.path = expand_user(path) if path else default_path()
        self.max_entries = max_entries
        self.clock = clock
        self._conns = PerThread()
        self._writes = 0
        #: Each operation waits at most ``timeout`` seconds for another connection's lock.
        self._file = SQLiteFile(self.path, _SCHEMA, timeout)

    @staticmethod
    def encode(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    @staticmethod
    def decode(payload: str | bytes) -> Any:
        return json.loads(payload)

    def _db(self) -> Any:
        return self._conns.fresh(self._file)

    def get(self, key: str) -> str | None:
        row = self._db().execute(
            "SELECT value FROM entries WHERE key = ? AND expires > ?", (key, self.clock())
        ).fetchone()
        return None if row is None else row[0]

    def set(self, key: str, payload: str, ttl: float) -> None:
        now = self.clock()
        db = self._db()
        db.execute(
            "INSERT OR REPLACE INTO entries (key, value, expires, stored) VALUES (?, ?, ?, ?)",
            (key, payload, now + ttl, now),
        )
        self._writes += 1
        if self._writes % _PRUNE_EVERY == 0:
            self.prune()

    def prune(self) -> None:
        """Delete expired rows, then the oldest beyond ``max_entries``."""
        db = self._db()
        db.execute("DELETE FROM entries WHERE expires <= ?", (self.clock(),))
        db.execute(
            "DELETE FROM entries WHERE key IN (SELECT key FROM entries ORDER BY stored DESC LIMIT -1 OFFSET ?)",
            (self.max_entries,),
        )

    def claim(self, key: str, seconds: float) -> str | None:
        """Take the right to fetch ``key`` for ``seconds``; a token, or None if someone has it."""
        token = uuid.uuid4().hex
        now = self.clock()
        db = self._db()
        db.execute("DELETE FROM claims WHERE key = ? AND expires <= ?", (key, now))
        cursor = db.execute(
            "INSERT OR IGNORE INTO claims (key, token, expires) VALUES (?, ?, ?)", (key, token, now + seconds)
        )
        return token if cursor.rowcount == 1 else None

    def claimed(self, key: str) -> bool:
        row = self._db().execute(
            "SELECT 1 FROM claims WHERE key = ? AND expires > ?", (key, self.clock())
        ).fetchone()
        return row is not None

    def release(self, key: str, token: str) -> None:
        self._db().execute("DELETE FROM claims WHERE key = ? AND token = ?", (key, token))

    def __len__(self) -> int:
        return int(self._db().execute("SELECT count(*) FROM entries WHERE expires > ?", (self.clock(),)).fetchone()[0])
