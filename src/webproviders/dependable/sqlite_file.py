"""Opening a SQLite file that threads and processes share: WAL mode, a busy timeout, a schema.

The answer cache and the usage ledger both keep their data this way; readers run beside a
writer, and a writer waits (``timeout``, 10 s unless the owner says otherwise; the cache
uses ``web.cache.timeout``) for another instead of failing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..homedir import require_home

T = TypeVar("T")


class SQLiteFile:
    """Connections to one file, its schema applied by the first of them."""

    def __init__(self, path: Path, schema: Sequence[str], timeout: float = 10.0) -> None:
        self.path = path
        self._schema = schema
        #: Seconds a statement waits for another connection's lock before it fails.
        self.timeout = timeout
        self._ready = False
        self._lock = threading.Lock()

    def connect(self) -> Any:
        """A new autocommit connection usable from any thread (the caller keeps or closes it)."""
        import sqlite3

        require_home(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {max(1, round(self.timeout * 1000))}")
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self._prepare(conn)
                    self._ready = True
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def _prepare(self, conn: Any) -> None:
        def apply() -> None:
            conn.execute("PRAGMA journal_mode = WAL")
            for statement in self._schema:
                conn.execute(statement)

        retry_while_locked(apply, self.timeout)


def retry_while_locked(step: Callable[[], T], timeout: float) -> T:
    """Run a file's set-up ``step``, again while another process is setting the file up too.

    Switching a new file to WAL takes an exclusive lock, and SQLite answers "database is
    locked" at once (without its busy handler) when two processes race to do it.
    """
    import sqlite3
    import time

    give_up = time.monotonic() + timeout
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= give_up:
                raise
            time.sleep(0.01)
