"""A persistent cache in one SQLite file: survives restarts, shared by processes on a host.

WAL mode lets readers run beside a writer; each thread keeps its own connection. Claims (a
row per key being fetched) give single flight across processes. A damaged file is replaced
by a new one: a cache holds nothing that cannot be asked for again, and the damaged file
would fail every call until someone deleted it.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...homedir import expand_user, xdg_file
from ...redact import get_logger
from ..sqlite_file import Identity, PerThread, SQLiteFile

T = TypeVar("T")

log = get_logger("webproviders.dependable.cache")

#: What SQLite says of a file that is not (or no longer) a database it can read.
_DAMAGED = frozenset({"file is not a database", "database disk image is malformed"})
#: The first bytes of every SQLite database file.
_MAGIC = b"SQLite format 3\x00"
#: Every this many writes to the file (by any process: counted by the rows' numbers, which
#: every insert raises), expired rows are deleted and the table trimmed to size; also once the
#: answers this process wrote since its last trim weigh this share of ``max_bytes``.
_PRUNE_EVERY = 256
_PRUNE_SHARE = 0.125
_SCHEMA = (
    ("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, "
    "expires REAL NOT NULL, stored REAL NOT NULL)"),
    "CREATE INDEX IF NOT EXISTS entries_stored ON entries (stored)",
    "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, token TEXT NOT NULL, expires REAL NOT NULL)",
)


def default_path() -> Path:
    """``$XDG_CACHE_HOME/webproviders/cache.sqlite3`` (``~/.cache`` by default)."""
    return xdg_file("XDG_CACHE_HOME", "~/.cache", "cache.sqlite3")


def _sqlite_file(path: Path) -> bool:
    """Whether ``path`` begins as every SQLite database does."""
    try:
        with open(path, "rb") as file:
            return file.read(len(_MAGIC)) == _MAGIC
    except OSError:
        return False


class SQLiteCache:
    """``get`` / ``set`` / ``claim`` on a SQLite file; every call blocks briefly."""

    shared = True

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.time,
        timeout: float = 1.0,
        max_bytes: int = 256 * 2**20,
    ) -> None:
        self.path = expand_user(path) if path else default_path()
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.clock = clock
        self._conns = PerThread()
        self._written = 0  # bytes of answers written since the last trim
        #: Each operation waits at most ``timeout`` seconds for another connection's lock.
        self._file = SQLiteFile(self.path, _SCHEMA, timeout, tables=frozenset({"entries", "claims"}), setting="web.cache.path")

    @staticmethod
    def encode(value: Any) -> bytes:
        # Stored as a BLOB: SQLite gives its length without reading it (the trim to max_bytes).
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    @staticmethod
    def decode(payload: str | bytes) -> Any:
        return json.loads(payload)

    def _run(self, work: Callable[[Any], T]) -> T:
        """``work`` on this thread's connection; on a damaged file, once more on a new one."""
        import sqlite3

        try:
            return work(self._conns.fresh(self._file))
        except sqlite3.DatabaseError as exc:
            if str(exc) not in _DAMAGED:
                raise self._file.explained(exc, room=", lower web.cache.max_mb") from None
            self._remove(self._conns.identity() or self._file.identity(), exc)  # none held: it failed opening
        return work(self._conns.fresh(self._file))  # the file is gone: a new one is set up

    def _remove(self, damaged: Identity, problem: Exception) -> None:
        """Delete the damaged file with its WAL, unless another thread or process already
        put a new one in its place, or it is no SQLite file at all: a path set to some
        other file by mistake must not cost its owner that file."""
        if damaged is None or damaged != self._file.identity() or not _sqlite_file(self.path):
            return
        log.warning("The cache file %s is damaged (%s); a new one is set up in its place.", self.path, problem)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{self.path}{suffix}")

    def get(self, key: str) -> str | bytes | None:
        row = self._run(
            lambda db: db.execute("SELECT value FROM entries WHERE key = ? AND expires > ?", (key, self.clock())).fetchone()
        )
        return None if row is None else row[0]

    def set(self, key: str, payload: bytes, ttl: float) -> None:
        if len(payload) > self.max_bytes:  # it would push out every other answer and still not fit
            return
        now = self.clock()
        written = self._run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO entries (key, value, expires, stored) VALUES (?, ?, ?, ?)",
                (key, payload, now + ttl, now),
            )
        )
        self._written += len(payload)
        # The row's number counts the file's writes, not this process's: a count of its own
        # never came round in processes that store a few answers each (a CLI call, a job, a
        # config made per request), and the file outgrew max_entries, its expired rows kept.
        if written.lastrowid % _PRUNE_EVERY == 0 or self._written > self.max_bytes * _PRUNE_SHARE:
            self.prune()

    def prune(self) -> None:
        """Delete expired rows, then the oldest beyond ``max_entries`` or ``max_bytes``; and
        lapsed claims, which only a claim on the same key deleted: one a worker killed while
        fetching, or one its release could not reach, stayed in the file for good."""

        def work(db: Any) -> None:
            db.execute("DELETE FROM entries WHERE expires <= ?", (self.clock(),))
            db.execute("DELETE FROM claims WHERE expires <= ?", (self.clock(),))
            db.execute(
                "DELETE FROM entries WHERE key IN (SELECT key FROM entries ORDER BY stored DESC LIMIT -1 OFFSET ?)",
                (self.max_entries,),
            )
            db.execute(
                "DELETE FROM entries WHERE key IN (SELECT key FROM (SELECT key, SUM(length(value)) "
                "OVER (ORDER BY stored DESC) AS total FROM entries) WHERE total > ?)",
                (self.max_bytes,),
            )

        self._run(work)
        self._written = 0

    def claim(self, key: str, seconds: float) -> str | None:
        """Take the right to fetch ``key`` for ``seconds``; a token, or None if someone has it."""
        token = uuid.uuid4().hex

        def work(db: Any) -> bool:
            now = self.clock()
            db.execute("DELETE FROM claims WHERE key = ? AND expires <= ?", (key, now))
            cursor = db.execute(
                "INSERT OR IGNORE INTO claims (key, token, expires) VALUES (?, ?, ?)", (key, token, now + seconds)
            )
            return bool(cursor.rowcount == 1)

        return token if self._run(work) else None

    def claimed(self, key: str) -> bool:
        row = self._run(
            lambda db: db.execute("SELECT 1 FROM claims WHERE key = ? AND expires > ?", (key, self.clock())).fetchone()
        )
        return row is not None

    def renew(self, key: str, token: str, seconds: float) -> None:
        """Hold the claim ``token`` on ``key`` for ``seconds`` from now, if it is still ours."""
        self._run(lambda db: db.execute(
            "UPDATE claims SET expires = ? WHERE key = ? AND token = ?", (self.clock() + seconds, key, token)
        ))

    def release(self, key: str, token: str) -> None:
        self._run(lambda db: db.execute("DELETE FROM claims WHERE key = ? AND token = ?", (key, token)))

    def __len__(self) -> int:
        return int(
            self._run(lambda db: db.execute("SELECT count(*) FROM entries WHERE expires > ?", (self.clock(),)).fetchone()[0])
        )
