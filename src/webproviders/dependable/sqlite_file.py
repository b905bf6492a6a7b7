"""Opening a SQLite file that threads and processes share: WAL mode, a busy timeout, a schema.

The answer cache and the usage ledger both keep their data this way; readers run beside a
writer, and a writer waits (``timeout``, 10 s unless the owner says otherwise; the cache
uses ``web.cache.timeout``) for another instead of failing. A file deleted or replaced while
a process keeps connections to it (a cache cleared by hand) is set up again and reconnected
to (:meth:`SQLiteFile.fresh`), not written on unseen.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..homedir import require_home

T = TypeVar("T")


#: Which file a path names: its device and inode (None when there is none).
Identity = tuple[int, int] | None
#: What SQLite says of a write the disk had no room for, and of one it may not make (the index
#: file WAL keeps beside a database could not be made, in the second): neither names the file.
_FULL = "database or disk is full"
_NOT_WRITTEN = frozenset({"attempt to write a readonly database", "unable to open database file"})


def file_identity(path: Path) -> Identity:
    """The file at ``path`` now (None when there is none)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


class ForeignDatabase(Exception):
    """The file is a SQLite database holding another program's tables: it is left unaltered."""


class SQLiteFile:
    """Connections to one file, its schema applied by the first of them (and again to a new
    file at the same path); ``upgrade`` then runs once per file, as the schema does.

    ``tables`` are the tables the schema makes; a file holding any other (the path set to
    another program's database, or to another of these stores' files, by mistake) is refused
    with :class:`ForeignDatabase` naming ``setting``, before anything is written to it."""

    def __init__(
        self,
        path: Path,
        schema: Sequence[str],
        timeout: float = 10.0,
        upgrade: Callable[[Any], None] | None = None,
        *,
        tables: frozenset[str],
        setting: str,
    ) -> None:
        self.path = path
        self._schema = schema
        self._upgrade = upgrade
        self._tables = tables
        self._setting = setting
        #: Seconds a statement waits for another connection's lock before it fails.
        self.timeout = timeout
        #: The file the schema was applied to (another one at the path needs it again).
        self._prepared: Identity = None
        self._lock = threading.Lock()

    def identity(self) -> Identity:
        """The file at the path now."""
        return file_identity(self.path)

    def explained(self, exc: Exception, room: str = "") -> Exception:
        """``exc`` with the file named and what to do, when SQLite said only what failed (a
        warning "database or disk is full" left the user to guess which file, and why);
        ``room``: what else the owner's settings can free on a full disk."""
        import sqlite3

        said = str(exc)
        if said == _FULL:
            advice = (f"the disk holding {self.path} is full; free space there{room}, or point {self._setting} "
                      "at a file on another disk")
        elif said in _NOT_WRITTEN and not self._writable():  # else out of file handles, say: not the folder's doing
            advice = (f"{self.path} may not be written (a read-only file, folder or file system); let this process "
                      f"write it, or point {self._setting} at a file it may write")
        else:
            return exc
        return sqlite3.OperationalError(f"{said}: {advice}")

    def _writable(self) -> bool:
        """Whether this process may write the file and its folder (where the WAL's files go)."""
        return all(os.access(place, os.W_OK) for place in (self.path, self.path.parent) if place.exists())

    def connect(self) -> Any:
        """A new autocommit connection usable from any thread (the caller keeps or closes it)."""
        import sqlite3

        folder = self._folder()
        if self.path.is_dir():  # SQLite says only "unable to open database file"
            raise IsADirectoryError(f"{self.path} is a folder; {self._setting} names the file itself (one inside it will do)")
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.OperationalError as exc:  # SQLite names neither the file nor why
            raise self._unwritable(exc, folder) from None
        conn.execute(f"PRAGMA busy_timeout = {max(1, round(self.timeout * 1000))}")
        if self._prepared is None or self._prepared != self.identity():
            with self._lock:
                if self._prepared is None or self._prepared != self.identity():
                    self._prepare(conn)
                    self._prepared = self.identity()
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def check_can_make(self) -> None:
        """Raise what :meth:`connect` would, were the file (not made yet) made now: its folder
        cannot be, or may not be written. Cheaper than making it, for a lookup on a call's path."""
        import sqlite3

        folder = self._folder()
        if not os.access(folder, os.W_OK | os.X_OK):
            raise self._unwritable(sqlite3.OperationalError("unable to open database file"), folder)

    def _folder(self) -> Path:
        """The file's folder, made when missing."""
        folder = require_home(self.path).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # Python names the file, and says only that it exists
            raise NotADirectoryError(
                f"{self.path} cannot be made: a file stands where one of its folders should be; "
                f"point {self._setting} at a file in a folder"
            ) from None
        return folder

    def _unwritable(self, exc: Exception, folder: Path) -> Exception:
        import sqlite3

        return sqlite3.OperationalError(
            f"{exc} {self.path}: this process may not create or write it there (a read-only folder "
            f"or file system); let it write to {folder}, or point {self._setting} at a file it may write"
        )

    def fresh(self, kept: tuple[Any, Identity] | None) -> tuple[Any, Identity]:
        """``kept`` (a connection and the file it opened) while that file is still the one at
        the path; else a new connection. One kept across a deletion would go on writing to a
        file no one else can open, and a new file at the path has none of the tables."""
        if kept is not None:
            if kept[1] is not None and kept[1] == self.identity():
                return kept  # the kept connection holds its file open: no other can take its inode
            kept[0].close()
            with self._lock:  # the new file may have the number of one closed just now
                self._prepared = None
        conn = self.connect()
        return conn, self.identity()

    def _prepare(self, conn: Any) -> None:
        def apply() -> None:
            self._refuse_others(conn)
            conn.execute("PRAGMA journal_mode = WAL")
            for statement in self._schema:
                conn.execute(statement)
            if self._upgrade is not None:
                self._upgrade(conn)

        retry_while_locked(apply, self.timeout)

    def _refuse_others(self, conn: Any) -> None:
        """Raise :class:`ForeignDatabase` when the file holds tables its schema does not make."""
        names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        others = sorted(name for name in names - self._tables if not name.startswith("sqlite_"))
        if others:
            held = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
            raise ForeignDatabase(
                f"{self.path} is a SQLite database holding tables of another program ({held}); "
                f"it is left as it is: point {self._setting} at another file"
            )


class PerThread:
    """One connection per thread, closed when its thread ends or this object is dropped:
    one the garbage collector finds open is a ``ResourceWarning`` on Python 3.13+."""

    def __init__(self) -> None:
        self._local = threading.local()

    def get(self) -> Any | None:
        """This thread's connection, or None before :meth:`keep`."""
        held = getattr(self._local, "held", None)
        return None if held is None else held.conn

    def identity(self) -> Identity:
        """The file this thread's connection opened (None before :meth:`fresh`)."""
        held = getattr(self._local, "held", None)
        return None if held is None else held.identity

    def keep(self, conn: Any, identity: Identity = None) -> Any:
        """Make ``conn`` this thread's connection (to the file ``identity``, when known)."""
        self._local.held = _Held(conn, identity)
        return conn

    def fresh(self, file: SQLiteFile) -> Any:
        """This thread's connection to ``file``: a new one when it has none, or when the file
        at the path is no longer the one it opened (:meth:`SQLiteFile.fresh`)."""
        held = getattr(self._local, "held", None)
        conn, identity = file.fresh(None if held is None else (held.conn, held.identity))
        if held is None or conn is not held.conn:
            self._local.held = _Held(conn, identity)
        return conn

    def close(self) -> None:
        """Close this thread's connection (the next :meth:`get` answers None)."""
        held = getattr(self._local, "held", None)
        if held is not None:
            self._local.held = None
            held.close()


class _Held:
    """A connection that is closed when this holder goes (with its thread's locals), not at
    interpreter exit, where a daemon thread may still be using it."""

    __slots__ = ("__weakref__", "close", "conn", "identity")

    def __init__(self, conn: Any, identity: Identity = None) -> None:
        self.conn = conn
        #: The file ``conn`` opened (for :meth:`PerThread.fresh`).
        self.identity = identity
        self.close = weakref.finalize(self, conn.close)
        self.close.atexit = False


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
