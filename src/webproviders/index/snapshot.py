"""Reading an index this process may not write: a read-only filesystem, or a file another
user owns (an index built into a container image, served by an unprivileged user).

SQLite opens a WAL-mode file only when it can create the ``-shm`` file beside it, or find
it there; a file whose writers have all closed has none. Such a file is read as a snapshot
(``immutable=1``): no lock, no ``-shm``. It is used only while the file stays as it was
opened and no writer has it open (no ``-wal`` beside it); else the next read opens it anew.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

#: SQLite's codes for a file that cannot be opened, or written, here.
_REFUSED = ("SQLITE_CANTOPEN", "SQLITE_READONLY")


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


class Snapshot(sqlite3.Connection):
    """A read-only connection to a file as it was when opened."""

    path: Path
    identity: tuple[int, int, int] | None

    def stale(self) -> bool:
        """Whether the file changed, or a writer has it open, since this was opened."""
        wal = self.path.with_name(self.path.name + "-wal")
        return wal.exists() or _identity(self.path) != self.identity


def unwritable_here(path: Path, error: sqlite3.Error) -> bool:
    """Whether ``error`` opening ``path`` comes from this process not being allowed to
    write the file or its folder (then a snapshot may still be read)."""
    code, text = getattr(error, "sqlite_errorname", ""), str(error)  # the code's name from 3.11 on
    refused = code.startswith(_REFUSED) or "unable to open" in text or "readonly database" in text
    effective = os.access in os.supports_effective_ids  # the ids files are opened with
    writable = all(os.access(p, os.W_OK, effective_ids=effective) for p in (path, path.parent))
    return refused and path.is_file() and not writable


def open_snapshot(path: Path) -> Snapshot:
    """A :class:`Snapshot` of the index at ``path``."""
    identity = _identity(path)
    conn = sqlite3.connect(
        f"file:{quote(str(path))}?mode=ro&immutable=1",
        uri=True,
        factory=Snapshot,
        isolation_level=None,
        check_same_thread=False,
    )
    conn.path, conn.identity = path, identity
    return conn
