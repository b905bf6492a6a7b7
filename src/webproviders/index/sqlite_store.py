"""The page index in one SQLite file: a table of pages and an FTS5 index over it.

WAL mode lets searches run beside a writer, in this process or another; each thread keeps
its own connection. The FTS5 table reads its text from ``pages`` (external content), so text
is stored once; triggers keep the two in step, and re-indexing a page whose title and
content did not change only moves its fetch time. The file is stamped with an application
id and a schema version: a path that points at some other SQLite database, or at an index
made by a newer version, is refused before anything is written to it; an older index is
brought up to date on first use.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..context import remaining_time
from ..dependable.sqlite_file import PerThread, file_identity, retry_while_locked
from ..errors import NotConfiguredError, ProviderError, WebProviderError, WebTimeoutError
from ..homedir import expand_user
from .fts_query import query_terms
from .long_pages import LONG_PAGE, TOKENIZE, best_piece
from .pages import (
    Filters,
    Hit,
    IndexedPage,
    held,
    never_filled,
    no_words,
    page_keys,
    page_url,
    still_searching,
)
from .snippets import ELLIPSIS, END, START, snippet
from .text import CJK_CHARS, shown, stored

#: ``PRAGMA application_id`` of an index file ("wpix").
APPLICATION_ID = 0x77706978
#: ``PRAGMA user_version``: 2 keeps CJK text segmented and URLs with one spelling of escapes;
#: 3 sets CJK characters apart from the Latin words and digits they touch too; 4 sets Thai,
#: Lao, Myanmar and Khmer text apart as CJK text is.
SCHEMA_VERSION = 4
#: Title matches weigh more than body matches in the BM25 ranking.
RANK = "bm25(4.0, 1.0)"
#: Pages BM25 scores at most, roughly, when a question mixes rare and common words (below).
CANDIDATE_BUDGET = 600
_TRIGGERS = (
    """CREATE TRIGGER pages_added AFTER INSERT ON pages BEGIN
        INSERT INTO pages_fts (rowid, title, content) VALUES (new.id, new.title, new.content);
    END""",
    """CREATE TRIGGER pages_removed AFTER DELETE ON pages BEGIN
        INSERT INTO pages_fts (pages_fts, rowid, title, content)
        VALUES ('delete', old.id, old.title, old.content);
    END""",
    """CREATE TRIGGER pages_changed AFTER UPDATE OF title, content ON pages
    WHEN old.digest IS NOT new.digest BEGIN
        INSERT INTO pages_fts (pages_fts, rowid, title, content)
        VALUES ('delete', old.id, old.title, old.content);
        INSERT INTO pages_fts (rowid, title, content) VALUES (new.id, new.title, new.content);
    END""",
)
_SCHEMA = (
    """CREATE TABLE pages (
        id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, host TEXT NOT NULL,
        title TEXT NOT NULL, content TEXT NOT NULL, digest TEXT NOT NULL,
        fetched_at REAL NOT NULL, provider TEXT, published_at TEXT, language TEXT)""",
    "CREATE INDEX pages_fetched_at ON pages (fetched_at)",
    f"""CREATE VIRTUAL TABLE pages_fts USING fts5(title, content, content='pages',
        content_rowid='id', tokenize='{TOKENIZE}')""",
    f"INSERT INTO pages_fts (pages_fts, rank) VALUES ('rank', '{RANK}')",
    # Merge index segments early: fewer segments make every search cheaper.
    "INSERT INTO pages_fts (pages_fts, rank) VALUES ('automerge', 2)",
    *_TRIGGERS,
    f"PRAGMA user_version = {SCHEMA_VERSION}",
    f"PRAGMA application_id = {APPLICATION_ID}",
)
_UPSERT = """INSERT INTO pages (url, host, title, content, digest, fetched_at, provider, published_at, language)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (url) DO UPDATE SET host = excluded.host, title = excluded.title,
        content = excluded.content, digest = excluded.digest, fetched_at = excluded.fetched_at,
        provider = excluded.provider, published_at = coalesce(excluded.published_at, published_at),
        language = coalesce(excluded.language, language)
    WHERE excluded.fetched_at >= pages.fetched_at"""
#: Bounded merge work after each write (about 100 pages of 4 KB): the small index segments
#: every write adds are merged early, so a search reads a term from fewer of them.
_MERGE = "INSERT INTO pages_fts (pages_fts, rank) VALUES ('merge', 100)"
_COLUMNS = "p.url, p.title, p.content, p.fetched_at, p.provider, p.published_at, p.language"
#: Pages holding a term, counted up to a bound (the budget and one more is enough to choose).
_COUNT = "SELECT count(*) FROM (SELECT 1 FROM pages_fts WHERE pages_fts MATCH ? LIMIT ?)"
_DOMAIN_MATCH = "(p.host = ? OR substr(p.host, -length(?) - 1) = '.' || ?)"
_HOLDS_CJK = re.compile(f"[{CJK_CHARS}]")


def _any_of(conditions: list[str]) -> str:
    """``conditions`` joined by ``OR`` as a balanced tree: SQLite refuses an expression nested
    more than 1,000 deep, and the chain of a filter of 1,000 domains (2,000 are
    taken) failed the search with "Expression tree is too large"."""
    if len(conditions) == 1:
        return conditions[0]
    middle = len(conditions) // 2
    return f"({_any_of(conditions[:middle])} OR {_any_of(conditions[middle:])})"


def digest(page: IndexedPage) -> str:
    """What says whether a page's text changed (re-indexing the same text rewrites nothing)."""
    text = f"{page.title}\0{page.content}"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()  # a lone surrogate too


def _page(row: Sequence[Any]) -> IndexedPage:
    return IndexedPage(row[0], shown(row[1]), shown(row[2]), row[3], row[4], row[5], row[6])


def _upgrade_from_1(conn: Any) -> None:
    """Schema 1 to 2: a language column, URL escapes in one spelling (of two rows that become
    one URL, the later fetch stays); the text is set apart by the step after."""
    conn.execute("ALTER TABLE pages ADD COLUMN language TEXT")
    for row_id, url, fetched_at in conn.execute("SELECT id, url, fetched_at FROM pages").fetchall():
        new_url = page_url(url)
        if new_url == url:
            continue
        other = conn.execute("SELECT id, fetched_at FROM pages WHERE url = ?", (new_url,)).fetchone()
        if other is not None and other[1] >= fetched_at:
            conn.execute("DELETE FROM pages WHERE id = ?", (row_id,))
            continue
        if other is not None:
            conn.execute("DELETE FROM pages WHERE id = ?", (other[0],))
        conn.execute("UPDATE pages SET url = ? WHERE id = ?", (new_url, row_id))


def _set_apart(conn: Any) -> None:
    """Schema 2 to 3, and 3 to 4: text holding CJK characters kept as this version sets them
    apart (:func:`.text.stored`: from the Latin words and digits they touch too; Thai, Lao,
    Myanmar and Khmer as well), and indexed so. Pages whose stored text stays are not touched."""
    # Told apart here, not by SQLite's GLOB: matching a class of characters, GLOB read 67 MB of
    # pages in 14 s, which the first call after an upgrade waited for (this: 0.7 s).
    changes = [
        (row_id, title, content, stored(title), stored(content))
        for row_id, title, content in conn.execute("SELECT id, title, content FROM pages")
        if _HOLDS_CJK.search(title) or _HOLDS_CJK.search(content)
    ]
    for row_id, title, content, new_title, new_content in changes:
        if (new_title, new_content) == (title, content):
            continue
        # The triggers see no new digest: the full-text index is told by hand.
        conn.execute("INSERT INTO pages_fts (pages_fts, rowid, title, content) VALUES ('delete', ?, ?, ?)",
                     (row_id, title, content))
        conn.execute("UPDATE pages SET title = ?, content = ? WHERE id = ?", (new_title, new_content, row_id))
        conn.execute("INSERT INTO pages_fts (rowid, title, content) VALUES (?, ?, ?)", (row_id, new_title, new_content))


#: How to bring a file of each older schema version up to the next one.
_UPGRADES = {1: _upgrade_from_1, 2: _set_apart, 3: _set_apart}


@contextmanager
def _transaction(conn: Any) -> Iterator[None]:
    """A write transaction. On failure it is rolled back only if SQLite has not done so itself
    (a full disk ends it at once): a ROLLBACK then would fail and hide the real cause."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


#: SQLite virtual-machine steps between two looks at the clock during a search (about a
#: millisecond of work: the look itself costs nothing beside it).
_STEPS_PER_CHECK = 10_000


@contextmanager
def _until_deadline(db: Any) -> Iterator[None]:
    """The connection's statements interrupted at the current call's deadline: a search the
    dispatcher gave up on ends then, rather than holding its worker thread (and, counted as
    hung, the provider) for as long as SQLite takes."""
    left = remaining_time()
    if left is None:
        yield
        return
    end = time.monotonic() + left
    db.set_progress_handler(lambda: time.monotonic() >= end, _STEPS_PER_CHECK)
    try:
        yield
    finally:
        db.set_progress_handler(None, _STEPS_PER_CHECK)


class SQLiteStore:
    """The :class:`~webproviders.index.pages.PageStore` in a local file (created on first write)."""

    def __init__(self, path: str | os.PathLike[str], busy_timeout: float = 5.0) -> None:
        self.path = expand_user(path)
        self.location = str(self.path)
        self.busy_timeout = busy_timeout
        self._conns = PerThread()
        self._lock = threading.Lock()

    # -- connections -------------------------------------------------------------------

    def _connect(self) -> Any:
        import sqlite3

        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            with self._lock:  # one thread of this process sets the file up; others wait
                self._prepare(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            conn.close()
            raise
        return conn

    def _prepare(self, conn: Any) -> None:
        """WAL mode and the schema on a new file, an older index brought up to date (each
        retried while another process does the same); anything else refused unaltered."""
        if self._marks(conn) != (APPLICATION_ID, SCHEMA_VERSION):
            retry_while_locked(lambda: self._set_up(conn), self.busy_timeout)

    @staticmethod
    def _marks(conn: Any) -> tuple[int, int]:
        """The file's application id and schema version (-1: not ours, though unstamped).

        One statement, so one snapshot: read apart, another process creating the index could
        commit between the reads and a new index would look like someone else's file."""
        app_id, objects, version = conn.execute(
            "SELECT (SELECT application_id FROM pragma_application_id),"
            " (SELECT count(*) FROM sqlite_master), (SELECT user_version FROM pragma_user_version)"
        ).fetchone()
        if app_id == 0 and objects:
            return 0, -1
        return app_id, version

    def _refuse_others(self, marks: tuple[int, int]) -> None:
        """Raise unless the file is new (nothing in it) or an index this version can use."""
        app_id, version = marks
        if marks == (0, 0) or (app_id == APPLICATION_ID and (version == SCHEMA_VERSION or version in _UPGRADES)):
            return
        if app_id == APPLICATION_ID and version > SCHEMA_VERSION:
            problem = f"was made by a newer version of webproviders (schema {version}); upgrade webproviders, or"
        else:  # "..., or point ..." after this read as if a remedy were missing before it
            problem = "is a SQLite database but not a webproviders page index; it is left as it is:"
        raise NotConfiguredError(
            f"{self.path} {problem} point web.providers.local.path at another file.", provider="local"
        )

    def _set_up(self, conn: Any) -> None:
        """Read first, write only to a new file or an index of ours."""
        marks = self._marks(conn)
        self._refuse_others(marks)
        if marks[0] == 0:
            conn.execute("PRAGMA journal_mode = WAL")  # an empty file: nobody else's
        with _transaction(conn):  # another process may be creating it right now
            marks = self._marks(conn)
            self._refuse_others(marks)
            if marks[0] == 0:
                for statement in _SCHEMA:
                    conn.execute(statement)
            for version in range(marks[1], SCHEMA_VERSION) if marks[0] else ():
                _UPGRADES[version](conn)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        """Close this thread's connection (other threads' close when those threads end)."""
        self._conns.close()

    def _db(self, create: bool) -> Any | None:
        """This thread's connection; None when the file does not exist and ``create`` is False.
        A read of a file this process may not write goes to a snapshot of it (:mod:`.snapshot`).

        A connection to a file that is no longer the one at the path (deleted or moved away,
        as a damaged index is) is replaced: it would go on reading and writing a file no one
        else can open, and the next write would not make the new file."""
        conn = self._conns.get()
        if conn is not None and (
            self._conns.identity() != file_identity(self.path)
            or (getattr(conn, "stale", None) is not None and (create or conn.stale()))
        ):
            self._conns.close()
            conn = None
        if conn is None:
            if not create and not self.path.exists():
                self._check_creatable()
                return None
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = self._connect() if create else self._connect_to_read()
            conn = self._conns.keep(conn, file_identity(self.path))  # held open: its inode stays its own
        return conn

    def _connect_to_read(self) -> Any:
        import sqlite3

        try:
            return self._connect()
        except sqlite3.Error as exc:
            from .snapshot import open_snapshot, unwritable_here

            if not unwritable_here(self.path, exc):
                raise
            snapshot = open_snapshot(self.path)
            app_id, version = self._marks(snapshot)
            if (app_id, version) != (APPLICATION_ID, SCHEMA_VERSION):  # it could not be brought up to date
                snapshot.close()
                if app_id == APPLICATION_ID and version in _UPGRADES:
                    raise NotConfiguredError(
                        f"The local index {self.path} was made by an older version of webproviders "
                        f"(schema {version}) and is brought up to date on first use, which needs a write "
                        f"this process may not make ({exc}); open it once where it can be written (a "
                        "process of its owner, or a writable copy), or set web.providers.local.path.",
                        provider="local",
                    ) from None
                raise exc from None
            return snapshot

    def _check_creatable(self) -> None:
        """Raise as a write would when a file stands where a folder of the path should be, or
        the folder it would be made in may not be written by this process (a read-only
        filesystem, another user's folder): a search of a missing index would otherwise
        advise indexing pages, which cannot work."""
        folder = next((p for p in self.path.parents if p.exists()), None)
        if folder is not None and not folder.is_dir():
            raise FileExistsError(errno.EEXIST, "File exists", str(folder))
        effective = os.access in os.supports_effective_ids  # the ids files are made with
        if folder is not None and not os.access(folder, os.W_OK | os.X_OK, effective_ids=effective):
            raise PermissionError(errno.EACCES, f"this process may not write in {folder}", str(folder))

    @contextmanager
    def _errors(self, removing: bool = False) -> Iterator[None]:
        """SQLite's errors as ours, each saying what to do about this file (``removing``: for
        a removal, which cannot be told to remove pages to make room)."""
        import sqlite3

        try:
            yield
        except WebProviderError:
            raise
        except sqlite3.Error as exc:
            raise self._mapped(exc, removing) from None
        except OSError as exc:
            # mkdir of a folder where a file is: "File exists", which reads as if all were well
            reason = "a file stands where a folder of its path should be" if isinstance(exc, FileExistsError) else exc.strerror
            raise NotConfiguredError(
                f"The local index {self.path} cannot be created ({reason}); check the folder, "
                "or set web.providers.local.path.",
                provider="local",
            ) from None

    def _mapped(self, exc: Exception, removing: bool = False) -> WebProviderError:
        text = str(exc)
        # Pruning frees room for writes; a removal that failed for want of room was told to
        # prune, which failed the same way.
        prune, why = (
            ("", " (removing pages takes room too: SQLite writes them to its write-ahead log first)")
            if removing
            else ("prune old pages (webproviders index --prune --older-than 30d), ", "")
        )
        name = getattr(exc, "sqlite_errorname", "")  # from Python 3.11 on; its message before
        if name == "SQLITE_INTERRUPT" or text == "interrupted":
            return still_searching(self.location)
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text or "busy" in text:
            return WebTimeoutError(
                f"The local index {self.path} stayed locked by another connection for "
                f"{self.busy_timeout:g} s ({text}); try again, or find the process holding it.",
                provider="local",
            )
        if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text or "not a database" in text:
            return NotConfiguredError(
                f"The local index {self.path} is damaged ({text}); move it away or delete it and "
                "index the pages again (a new file is made on the next write).",
                provider="local",
            )
        if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")) or "unable to open" in text or "readonly database" in text:
            # "check the file's folder and permissions" would send one looking elsewhere
            if self.path.is_dir():
                return NotConfiguredError(
                    f"The local index {self.path} is a folder; web.providers.local.path names the "
                    f"index file itself, such as {self.path / 'index.sqlite3'}.",
                    provider="local",
                )
            return NotConfiguredError(
                f"The local index {self.path} cannot be opened ({text}); check the file's folder "
                "and permissions, or set web.providers.local.path.",
                provider="local",
            )
        if name.startswith("SQLITE_FULL") or "disk is full" in text:
            return NotConfiguredError(
                f"The local index {self.path} cannot grow: its disk is full ({text}); free some space, "
                f"{prune}or set web.providers.local.path{why}.",
                provider="local",
            )
        if name.startswith("SQLITE_IOERR_WRITE"):  # EFBIG, EDQUOT, EIO: SQLite tells them apart from ENOSPC only
            return NotConfiguredError(
                f"The local index {self.path} cannot be written ({text}): a disk quota or this process's "
                f"file size limit (ulimit -f) is reached, or the disk is failing; raise the limit, {prune}or "
                f"set web.providers.local.path{why}.",
                provider="local",
            )
        return ProviderError(f"The local index {self.path} failed: {text}.", provider="local")

    # -- the store ---------------------------------------------------------------------

    def add(self, pages: Sequence[IndexedPage]) -> int:
        rows = [
            (p.url, p.host, stored(p.title), stored(p.content), digest(p), p.fetched_at, p.provider,
             p.published_at, p.language)
            for p in pages
        ]
        if not rows:
            return 0
        with self._errors():
            db = self._db(create=True)
            assert db is not None
            with _transaction(db):
                db.executemany(_UPSERT, rows)
                db.execute(_MERGE)
        return len(rows)

    def get(self, urls: Sequence[str]) -> dict[str, IndexedPage]:
        wanted = list(dict.fromkeys(key for url in urls for key in page_keys(url)))
        with self._errors():
            db = self._db(create=False)
            if db is None or not wanted:
                return {}
            marks = ",".join("?" * len(wanted))
            rows = db.execute(f"SELECT {_COLUMNS} FROM pages p WHERE p.url IN ({marks})", wanted).fetchall()
        return held(urls, {row[0]: _page(row) for row in rows})

    @staticmethod
    def _expressions(db: Any, terms: list[str]) -> list[str]:
        """The ``MATCH`` expressions to rank with, tried in turn until one gives enough hits:
        every term, over a bounded set of pages first.

        Scoring is what costs (each matched page's positions are read), and a common word
        matches most pages while adding little to BM25. So when the rarer terms together
        match at most :data:`CANDIDATE_BUDGET` pages, only pages holding one of them are
        scored, still by every term: ``(rare OR ...) AND (rare OR ... OR common ...)`` (the
        rare terms, named twice, count twice). When even the rarest term (of those in any
        page) is in more pages than that, the pages holding every term are scored first.
        Either way, when those are too few, every page holding any term is.

        A term is counted only up to one page past the budget (:data:`_COUNT`): a term in
        more pages than that is never among the rare ones, and counting a common word's
        every page took longer than the rest of the search.
        """
        everything = " OR ".join(terms)
        if len(terms) < 2:
            return [everything]
        counted = sorted((db.execute(_COUNT, (term, CANDIDATE_BUDGET + 1)).fetchone()[0], term) for term in terms)
        found = [term for count, term in counted if count]  # a term in no page picks nothing
        rare: list[str] = []
        matched = 0
        for count, term in counted:
            if count == 0:
                continue
            if matched + count > CANDIDATE_BUDGET:
                break
            rare.append(term)
            matched += count
        if len(rare) == len(found):
            return [everything]
        first = f"({' OR '.join(rare)}) AND ({everything})" if rare else " AND ".join(found)
        return [first, everything]

    def search(self, query: str, limit: int, filters: Filters) -> list[Hit]:
        terms = query_terms(query)
        if not terms:
            return no_words(query)
        where, params = ["pages_fts MATCH ?"], [""]
        if filters.fetched_after is not None:
            where.append("p.fetched_at >= ?")
            params.append(filters.fetched_after)  # type: ignore[arg-type]
        if filters.include_domains:
            where.append(_any_of([_DOMAIN_MATCH] * len(filters.include_domains)))
            params += [d for domain in filters.include_domains for d in (domain,) * 3]
        if filters.exclude_domains:
            where.append(f"NOT {_any_of([_DOMAIN_MATCH] * len(filters.exclude_domains))}")
            params += [d for domain in filters.exclude_domains for d in (domain,) * 3]
        sql = (
            f"SELECT p.url, p.title, '', p.fetched_at, p.provider, p.published_at, p.language, "
            f"CASE WHEN length(p.content) <= {LONG_PAGE} THEN highlight(pages_fts, 1, ?, ?) END, pages_fts.rank "
            f"FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid "
            f"WHERE {' AND '.join(where)} ORDER BY pages_fts.rank LIMIT ?"
        )
        with self._errors():
            db = self._db(create=False)
            if db is None:
                return never_filled(self.location)
            rows: list[Any] = []
            with _until_deadline(db):
                for expression in self._expressions(db, terms):
                    params[0] = expression
                    rows = db.execute(sql, [START, END, *params, limit]).fetchall()
                    if len(rows) >= limit:
                        break
                snippets = [snippet(row[7]) if row[7] is not None else self._long_snippet(db, row[0], terms)
                            for row in rows]
            if not rows and db.execute("SELECT 1 FROM pages LIMIT 1").fetchone() is None:
                return never_filled(self.location, emptied=True)
        return [Hit(_page(row), text, -row[8]) for row, text in zip(rows, snippets, strict=True)]

    @staticmethod
    def _long_snippet(db: Any, url: str, terms: list[str]) -> str:
        """The snippet of a page too long to highlight whole (:mod:`.long_pages`)."""
        row = db.execute("SELECT content FROM pages WHERE url = ?", (url,)).fetchone()
        if row is None:  # removed since the search read it
            return ""
        marked, cut_before, cut_after = best_piece(row[0], " OR ".join(terms), START, END)
        line = snippet(marked)
        if cut_before and not line.startswith(ELLIPSIS):
            line = ELLIPSIS + line
        if cut_after and not line.endswith(ELLIPSIS):
            line += ELLIPSIS
        return line

    def remove(self, urls: Sequence[str]) -> int:
        wanted = list(dict.fromkeys(key for url in urls for key in page_keys(url)))
        with self._errors(removing=True):
            db = self._db(create=False)
            if db is None or not wanted:
                return 0
            marks = ",".join("?" * len(wanted))
            return int(db.execute(f"DELETE FROM pages WHERE url IN ({marks})", wanted).rowcount)

    def prune(self, before: float) -> int:
        with self._errors(removing=True):
            db = self._db(create=False)
            if db is None:
                return 0
            return int(db.execute("DELETE FROM pages WHERE fetched_at < ?", (before,)).rowcount)

    def stats(self) -> dict[str, Any]:
        """Pages, bytes on disk (WAL included), oldest and newest fetch, pages per provider."""
        with self._errors():
            db = self._db(create=False)
            if db is None:
                return {"location": self.location, "pages": 0, "bytes": 0, "oldest": None, "newest": None,
                        "providers": {}}
            count, oldest, newest = db.execute(
                "SELECT count(*), min(fetched_at), max(fetched_at) FROM pages"
            ).fetchone()
            providers = dict(
                db.execute(
                    "SELECT coalesce(provider, '?'), count(*) FROM pages GROUP BY 1 ORDER BY 2 DESC"
                ).fetchall()
            )
        size = sum(
            Path(f"{self.path}{suffix}").stat().st_size
            for suffix in ("", "-wal")
            if Path(f"{self.path}{suffix}").exists()
        )
        return {"location": self.location, "pages": count, "bytes": size, "oldest": oldest, "newest": newest,
                "providers": providers}
