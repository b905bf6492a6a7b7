"""The SQLite store alone: the file (WAL, stamp, refusing other files untouched, upgrading an
older index), its settings, and how a question becomes an FTS5 expression."""

from __future__ import annotations

import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from webproviders import dispatch_search, index_urls
from webproviders.config import Config, config_from_dict
from webproviders.errors import NotConfiguredError
from webproviders.index.fts_query import match_expression, query_terms
from webproviders.index.pages import Filters
from webproviders.index.sqlite_store import APPLICATION_ID, SCHEMA_VERSION, SQLiteStore
from webproviders.index.stores import default_path, open_store

from .conftest import NOW, SQLITE_ONLY, page

#: An index file as the first schema made it: CJK text as given, URLs as canonicalize left them.
SCHEMA_1 = (
    """CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, host TEXT NOT NULL,
        title TEXT NOT NULL, content TEXT NOT NULL, digest TEXT NOT NULL, fetched_at REAL NOT NULL,
        provider TEXT, published_at TEXT)""",
    "CREATE INDEX pages_fetched_at ON pages (fetched_at)",
    """CREATE VIRTUAL TABLE pages_fts USING fts5(title, content, content='pages', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    "INSERT INTO pages_fts (pages_fts, rank) VALUES ('rank', 'bm25(4.0, 1.0)')",
    """CREATE TRIGGER pages_added AFTER INSERT ON pages BEGIN
        INSERT INTO pages_fts (rowid, title, content) VALUES (new.id, new.title, new.content); END""",
    """CREATE TRIGGER pages_removed AFTER DELETE ON pages BEGIN
        INSERT INTO pages_fts (pages_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
    END""",
    """CREATE TRIGGER pages_changed AFTER UPDATE OF title, content ON pages WHEN old.digest IS NOT new.digest BEGIN
        INSERT INTO pages_fts (pages_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
        INSERT INTO pages_fts (rowid, title, content) VALUES (new.id, new.title, new.content); END""",
    "PRAGMA user_version = 1",
    f"PRAGMA application_id = {APPLICATION_ID}",
)


def urls(hits: list[Any]) -> list[str]:
    return [hit.page.url for hit in hits]


#: The start of a script given an index file's path: the store open, what it raises importable.
_OPEN_STORE = (
    "import sys, time\n"
    "from webproviders.index.pages import IndexedPage\n"
    "from webproviders.index.sqlite_store import SQLiteStore\n"
    "from webproviders.errors import WebProviderError\n"
    "store = SQLiteStore(sys.argv[1])\n"
)


def _run_with_file_size_limit(script: str, index: Path, limit: int, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``index`` as its argument in a process that may write files of at
    most ``limit`` bytes (``ulimit -f``): a disk that fills up, without filling one."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return subprocess.run(
        [sys.executable, "-c", script, str(index)],
        capture_output=True, text=True, timeout=timeout, preexec_fn=cap, check=False,
    )


@SQLITE_ONLY
def test_the_file_is_in_wal_mode_and_stamped(filled: Config, index_path: Path) -> None:
    with sqlite3.connect(index_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


@pytest.mark.parametrize("making", ["CREATE TABLE orders (id INTEGER)", "PRAGMA application_id = 1234"])
def test_another_sqlite_database_is_refused_and_not_written_to(tmp_path: Path, making: str) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute(making)
    conn.close()
    before = path.read_bytes()
    store = SQLiteStore(path)
    calls = (lambda: store.search("x", 5, Filters()), lambda: store.add([page("https://a.example.com/", "A", "a")]),
             store.stats, lambda: store.get(["https://a.example.com/"]))
    for call in calls:
        with pytest.raises(NotConfiguredError) as refused:
            call()
        assert refused.value.message == (
            f"{path} is a SQLite database but not a webproviders page index; it is left as it is: "
            "point web.providers.local.path at another file."
        )
    store.close()
    assert path.read_bytes() == before  # the journal mode too: still a rollback journal
    assert not Path(f"{path}-wal").exists()


def test_a_file_where_the_index_folder_should_be_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder")
    store = SQLiteStore(tmp_path / "data" / "index.sqlite3")
    with pytest.raises(NotConfiguredError) as caught:
        store.add([page("https://docs.example.com/a", "A", "Some text.")])
    assert "cannot be created (a file stands where a folder of its path should be)" in caught.value.message
    assert "File exists" not in caught.value.message
    with pytest.raises(NotConfiguredError) as searched:  # before: "holds no pages yet; index some"
        store.search("some text", 5, Filters())
    assert searched.value.message == caught.value.message


def test_a_folder_given_as_the_index_path_is_named_as_such(tmp_path: Path) -> None:
    """``path: ~/indexes`` (a folder, not the file): every call said "cannot be opened; check the
    file's folder and permissions", which were fine."""
    store = SQLiteStore(tmp_path)
    for call in (lambda: store.add([page("https://docs.example.com/a", "A", "Some text.")]),
                 lambda: store.search("some text", 5, Filters()), store.stats):
        with pytest.raises(NotConfiguredError) as caught:
            call()
        assert caught.value.message == (
            f"The local index {tmp_path} is a folder; web.providers.local.path names the index file "
            f"itself, such as {tmp_path / 'index.sqlite3'}."
        )


def test_a_full_disk_is_named_not_hidden_by_a_failed_rollback(tmp_path: Path) -> None:
    """SQLite ends a transaction itself when the disk is full; the ROLLBACK that followed
    failed ("cannot rollback - no transaction is active"), and that was all the caller saw."""
    store = SQLiteStore(tmp_path / "index.sqlite3")
    store.add([page("https://docs.example.com/a", "A", "Some text.")])
    held = store._db(create=True)  # the store's own connection: SQLite's page cap stands in for the disk
    held.execute(f"PRAGMA max_page_count = {held.execute('PRAGMA page_count').fetchone()[0] + 2}")
    text = " ".join(f"word{i}" for i in range(20000))
    with pytest.raises(NotConfiguredError) as caught:
        store.add([page(f"https://docs.example.com/{i}", "Long", text) for i in range(5)])
    assert "cannot grow: its disk is full" in caught.value.message and "rollback" not in caught.value.message
    assert [p.url for p in store.get(["https://docs.example.com/a"]).values()] == ["https://docs.example.com/a"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="SQLite's error name reaches Python from 3.11 on")
def test_a_file_size_limit_or_quota_is_named(tmp_path: Path) -> None:
    """Past the file size limit (as past a disk quota) SQLite says only "disk I/O error", which
    the index passed on as a provider_error, as if the store itself had failed."""
    script = _OPEN_STORE + (
        "try:\n"
        "    for n in range(40):\n"
        "        store.add([IndexedPage(f'https://a.example/{n}', 'T', 'word ' * 5000, time.time())])\n"
        "except WebProviderError as exc:\n"
        "    print(exc.code, exc.message)\n"
    )

    done = _run_with_file_size_limit(script, tmp_path / "index.sqlite3", 128 * 1024, 60)
    assert done.stdout.startswith("not_configured "), done.stdout + done.stderr
    assert "file size limit (ulimit -f)" in done.stdout


@pytest.mark.skipif(sys.version_info < (3, 11), reason="SQLite's error name reaches Python from 3.11 on")
def test_a_removal_that_finds_no_room_does_not_advise_pruning(tmp_path: Path) -> None:
    """Out of room, the index advised pruning old pages; the prune, which needs room in the
    write-ahead log too, failed with the same advice."""
    script = _OPEN_STORE + (
        "try:\n"
        "    for n in range(400):\n"
        "        text = ' '.join(f'w{n}x{j}' for j in range(800))\n"
        "        store.add([IndexedPage(f'https://a.example/{n}', 'T', text, time.time() - 86400 * 60)])\n"
        "except WebProviderError as exc:\n"
        "    print(exc.code, 'prune old pages' in exc.message)\n"
        "try:\n"
        "    store.prune(time.time())\n"
        "except WebProviderError as exc:\n"
        "    print(exc.code, exc.message)\n"
    )

    done = _run_with_file_size_limit(script, tmp_path / "index.sqlite3", 512 * 1024, 120)
    wrote, pruned = done.stdout.splitlines()
    assert wrote == "not_configured True", done.stdout + done.stderr
    assert pruned.startswith("not_configured ") and "prune" not in pruned.split(" ", 1)[1]
    assert pruned.endswith("(removing pages takes room too: SQLite writes them to its write-ahead log first).")


@pytest.mark.parametrize("gone", ["deleted", "moved away"])
def test_an_index_file_deleted_or_moved_away_while_in_use_is_made_anew_on_the_next_write(
    make_config: Any, tmp_path: Path, gone: str
) -> None:
    """As a damaged index's message advises: the process went on with its connections to the
    old file, so the pages it then indexed (and said it indexed) went where no one could read
    them, and no new file was made."""
    path = tmp_path / "index" / "pages.sqlite3"
    config = make_config(web={"cache": False, "providers": {"local": {"path": str(path)}}})
    assert index_urls("https://stub.example.com/first", backend="stub", config=config)["success"] is True
    assert [hit["url"] for hit in dispatch_search("stub", backend="local", config=config)["data"]["web"]]
    if gone == "deleted":
        path.unlink()
    else:
        path.rename(tmp_path / "index" / "damaged.sqlite3")
    assert dispatch_search("stub", backend="local", config=config)["data"]["web"] == []  # not the old file's
    indexed = index_urls("https://stub.example.com/second", backend="stub", config=config)
    assert indexed["data"]["indexed"] == ["https://stub.example.com/second"]
    with sqlite3.connect(path) as conn:  # another process's view: the file at the path
        assert conn.execute("SELECT url FROM pages").fetchall() == [("https://stub.example.com/second",)]
    conn.close()
    hits = dispatch_search("stub", backend="local", config=config)["data"]["web"]
    assert [hit["url"] for hit in hits] == ["https://stub.example.com/second"]


def test_an_index_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(NotConfiguredError, match=rf"newer version of webproviders \(schema {SCHEMA_VERSION + 1}\)"):
        SQLiteStore(path).search("x", 5, Filters())


def test_an_index_of_the_first_schema_is_brought_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        for statement in SCHEMA_1:
            conn.execute(statement)
        rows = [
            ("https://ja.example.com/tokyo", "ja.example.com", "東京", "今日は東京都で雨", "d1", NOW - 10),
            ("https://docs.example.com/caf%c3%a9", "docs.example.com", "Old café", "old text", "d2", NOW - 20),
            ("https://docs.example.com/caf%C3%A9", "docs.example.com", "New café", "new text", "d3", NOW - 5),
            ("https://docs.example.com/plain", "docs.example.com", "Plain", "plain words", "d4", NOW),
        ]
        conn.executemany("INSERT INTO pages (url, host, title, content, digest, fetched_at) VALUES (?, ?, ?, ?, ?, ?)",
                         rows)
    conn.close()
    store = SQLiteStore(path)
    assert urls(store.search("東京", 5, Filters())) == ["https://ja.example.com/tokyo"]
    assert store.stats()["pages"] == 3  # the two spellings of one URL are one page: the later fetch
    [cafe] = store.get(["https://docs.example.com/café"]).values()
    assert cafe.title == "New café" and cafe.url == "https://docs.example.com/caf%C3%A9"
    assert urls(store.search("old", 5, Filters())) == []
    assert urls(store.search("plain", 5, Filters())) == ["https://docs.example.com/plain"]
    assert store.get(["https://ja.example.com/tokyo"])["https://ja.example.com/tokyo"].content == "今日は東京都で雨"
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        # Raises when the full-text index and the pages disagree.
        conn.execute("INSERT INTO pages_fts (pages_fts, rank) VALUES ('integrity-check', 1)")


def test_default_path_follows_xdg_data_home(_data_home: Path, make_config: Any) -> None:
    assert default_path() == _data_home / "webproviders" / "index.sqlite3"
    store = open_store(make_config())
    assert store.location == str(_data_home / "webproviders" / "index.sqlite3")


def test_default_path_without_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_path() == tmp_path / ".local" / "share" / "webproviders" / "index.sqlite3"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"busy_timeout": 0}, "busy_timeout must be a number above 0"),
        ({"path": 5}, "path must be a string"),
        ({"busy_timeout": float("inf")}, "busy_timeout must be a number above 0"),
        ({"busy_timeout": float("nan")}, "busy_timeout must be a number above 0"),
        ({"path": "/tmp/index\x00.sqlite3"}, "path must be a file's path; it holds a NUL character"),
    ],
)
def test_bad_settings_are_named(make_config: Any, settings: dict[str, Any], message: str) -> None:
    with pytest.raises(NotConfiguredError, match=message):
        open_store(make_config(web={"providers": {"local": settings}}))


def test_settings_from_variables_are_read_as_numbers(tmp_path: Path) -> None:
    """A ``${VAR}`` gives text: ``busy_timeout: ${INDEX_WAIT}`` was refused (``not '2'``), and
    one left unset (``''``) too, where configuration.md says it is not set."""
    section = {"path": str(tmp_path / "index.sqlite3"), "busy_timeout": "${WAIT}"}
    for environ in ({"WAIT": "2"}, {}):
        config = config_from_dict({"web": {"providers": {"local": section}}}, environ=environ)
        open_store(config).close()


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        ("how do I configure retries?", '"configure" OR "retries"'),
        ('the "exact phrase" matters', '"exact phrase" OR "matters"'),
        ("what is it", '"what" OR "is" OR "it"'),  # only common words: keep them
        ('say "hi"" folks', '"hi" OR "say" OR "folks"'),
        ("retry_policy NEAR(a b) AND -x*", '"retry_policy" OR "NEAR" OR "b" OR "x"'),
        ("東京 tower", '"東\x1f京" OR "tower"'),
        ("?!", None),
    ],
)
def test_plain_questions_become_safe_match_expressions(query: str, expression: str | None) -> None:
    assert match_expression(query) == expression


@SQLITE_ONLY
def test_only_pages_with_the_rarer_words_are_scored(index_config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    import webproviders.index.sqlite_store as sqlite_store

    monkeypatch.setattr(sqlite_store, "CANDIDATE_BUDGET", 5)
    store = open_store(index_config)
    store.add([page(f"https://a.example.com/common-{i}", "Title", "widget gadget text") for i in range(8)])
    store.add([page("https://a.example.com/rare", "Title", "the sprocket page")])
    db = store._db(create=False)
    assert store._expressions(db, query_terms("widget sprocket")) == [
        '("sprocket") AND ("widget" OR "sprocket")', '"widget" OR "sprocket"']
    # Every term too common: the pages holding all of them first.
    assert store._expressions(db, query_terms("widget gadget")) == ['"gadget" AND "widget"', '"widget" OR "gadget"']
    assert store._expressions(db, query_terms("sprocket page")) == ['"sprocket" OR "page"']  # few enough
    assert len(store.search("widget sprocket", 5, Filters())) == 5  # the first set was short: widened


def test_an_index_of_schema_2_gets_words_touching_cjk_text_set_apart(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite3"
    SQLiteStore(path).add([page("https://ja.example.com/py", "Python入門", "2024年に更新。人々")])
    with sqlite3.connect(path) as conn:  # the page as schema 2 kept it: only CJK pairs set apart
        conn.execute("INSERT INTO pages_fts (pages_fts, rowid, title, content) SELECT 'delete', id, title, content FROM pages")
        conn.execute("UPDATE pages SET title = ?, content = ?", ("Python入\x1f門", "2024年\x1fに\x1f更\x1f新。人々"))
        conn.execute("INSERT INTO pages_fts (rowid, title, content) SELECT id, title, content FROM pages")
        conn.execute("PRAGMA user_version = 2")
    conn.close()
    store = SQLiteStore(path)
    for question in ["Python", "2024", "人", "Python入門"]:
        assert urls(store.search(question, 5, Filters())) == ["https://ja.example.com/py"], question
    [kept] = store.get(["https://ja.example.com/py"]).values()
    assert (kept.title, kept.content) == ("Python入門", "2024年に更新。人々")
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        conn.execute("INSERT INTO pages_fts (pages_fts, rank) VALUES ('integrity-check', 1)")


def test_an_index_of_schema_3_gets_thai_text_set_apart(tmp_path: Path) -> None:
    path = tmp_path / "v3.sqlite3"
    SQLiteStore(path).add([page("https://th.example.com/a", "ไทย", "เมืองหลวงของประเทศไทย"),
                           page("https://en.example.com/b", "Retries", "Configure retries.")])
    with sqlite3.connect(path) as conn:  # the Thai page as schema 3 kept it: as given
        conn.execute("INSERT INTO pages_fts (pages_fts, rowid, title, content) "
                     "SELECT 'delete', id, title, content FROM pages WHERE url LIKE '%th.example%'")
        conn.execute("UPDATE pages SET title = ?, content = ? WHERE url LIKE '%th.example%'",
                     ("ไทย", "เมืองหลวงของประเทศไทย"))
        conn.execute("INSERT INTO pages_fts (rowid, title, content) "
                     "SELECT id, title, content FROM pages WHERE url LIKE '%th.example%'")
        conn.execute("PRAGMA user_version = 3")
    conn.close()
    store = SQLiteStore(path)
    assert urls(store.search("ประเทศไทย", 5, Filters())) == ["https://th.example.com/a"]
    assert urls(store.search("retries", 5, Filters())) == ["https://en.example.com/b"]
    [kept] = store.get(["https://th.example.com/a"]).values()
    assert (kept.title, kept.content) == ("ไทย", "เมืองหลวงของประเทศไทย")
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        conn.execute("INSERT INTO pages_fts (pages_fts, rank) VALUES ('integrity-check', 1)")


@SQLITE_ONLY
def test_a_long_page_naming_a_word_many_times_is_searched_in_time(index_config: Config) -> None:
    # FTS5's highlight() costs the square of a page's matches: a 3.6 MB page naming "lorem"
    # 200,000 times took over half a minute to highlight, so every search for it timed out.
    text = "lorem ipsum dolor " * 100_000 + "a needle here " + "lorem ipsum dolor " * 100_000
    open_store(index_config).add([page("https://big.example.com/dump", "Data dump", text)])
    started = time.monotonic()
    envelope = dispatch_search("lorem", backend="local", config=index_config, timeout=10)
    assert envelope["success"] is True, envelope
    assert time.monotonic() - started < 5
    [hit] = envelope["data"]["web"]
    assert hit["description"].startswith("**lorem** ipsum dolor **lorem**") and hit["description"].endswith("…")
    [hit] = dispatch_search("needle", backend="local", config=index_config, timeout=10)["data"]["web"]
    # The match deep in the page is shown, cut on both sides.
    assert "**needle** here" in hit["description"]
    assert hit["description"].startswith("…") and hit["description"].endswith("…")


@SQLITE_ONLY
def test_a_very_long_page_is_searched_within_the_deadline(index_config: Config) -> None:
    # Each search that hit a long page indexed all of it again to pick its snippet's piece: this
    # 52 MB page took 5 s a search here (a 60 MB one 12 s), so every search for it timed out.
    filler = " ".join(f"word{i % 5000} item{i % 3001}" for i in range(1_000_000)) + "\n"
    text = filler + "the needle is here at last " + filler + "lorem needles " * 2_000 + filler
    open_store(index_config).add([page("https://big.example.com/dump", "Data dump", text)])
    envelope = dispatch_search("needle", backend="local", config=index_config, timeout=3)
    assert envelope["success"] is True, envelope
    [hit] = envelope["data"]["web"]
    assert "lorem **needles** lorem" in hit["description"] and hit["description"].startswith("…")


@SQLITE_ONLY
def test_a_very_long_cjk_page_gets_its_snippet_where_the_word_asked_for_is(index_config: Config) -> None:
    # Of a page over 1 MB only the pieces likeliest to match are ranked: told by each character
    # of 東京, every piece of this page was as likely as the one holding 東京.
    filler = "東の空と京の町。" * 150_000
    text = filler + "東京タワーの話。" + filler
    open_store(index_config).add([page("https://ja.example.com/long", "長い", text)])
    [hit] = dispatch_search("東京", backend="local", config=index_config, timeout=10)["data"]["web"]
    assert "**東京**タワーの話" in hit["description"]


#: Builds an index, closes it, then searches it from a process that may not write it (root
#: first takes another user id, once a first search has imported what searching needs).
_READ_ONLY_SCRIPT = """
import json, os, sys
from webproviders.errors import NotConfiguredError
from webproviders.index.pages import Filters, IndexedPage
from webproviders.index.sqlite_store import SQLiteStore
import webproviders.context, webproviders.index.snapshot  # from folders the other user may not read

folder = sys.argv[1]
path = os.path.join(folder, "index.sqlite3")
builder = SQLiteStore(path)
builder.add([IndexedPage("https://docs.example.com/a", "Tokyo weather", "Sunny in Tokyo today.", 1.0)])
builder.search("tokyo", 5, Filters())
builder.close()  # the last connection: SQLite removes the -wal and -shm files
os.chmod(path, 0o444)
os.chmod(folder, 0o555)
if os.geteuid() == 0:
    os.setegid(65534)
    os.seteuid(65534)
reader = SQLiteStore(path)
hits = [hit.page.url for hit in reader.search("tokyo", 5, Filters())]
try:
    reader.add([IndexedPage("https://docs.example.com/b", "B", "More text.", 2.0)])
    refused = None
except NotConfiguredError as exc:
    refused = exc.message
try:
    SQLiteStore(os.path.join(folder, "more", "index.sqlite3")).search("tokyo", 5, Filters())
    missing = None
except NotConfiguredError as exc:
    missing = exc.message
files = sorted(os.listdir(folder))
print(json.dumps({"files": files, "hits": hits, "refused": refused, "missing": missing}))
"""


def _read_only() -> dict[str, Any]:
    """What ``_READ_ONLY_SCRIPT`` found, and the folder it ran in."""
    folder = tempfile.mkdtemp()  # one the other user can reach: tmp_path's parents are private
    os.chmod(folder, 0o755)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _READ_ONLY_SCRIPT, folder],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder)
    assert done.returncode == 0, done.stderr[-3000:]
    return {**json.loads(done.stdout), "folder": folder}


def test_an_index_this_process_may_not_write_is_still_searched() -> None:
    """An index built into a container image, read on a read-only filesystem or by a user who
    does not own it: SQLite cannot open a WAL file whose -shm it cannot make, and the search
    answered "cannot be opened" until the folder was made writable."""
    result = _read_only()
    assert result["files"] == ["index.sqlite3"]
    assert result["hits"] == ["https://docs.example.com/a"]
    assert "cannot be opened" in result["refused"]


def test_a_missing_index_where_this_process_may_not_write_is_named_as_such() -> None:
    """Before, the search was an empty success advising to index pages, which could never be
    written there."""
    result = _read_only()
    assert result["missing"] == (
        f"The local index {result['folder']}/more/index.sqlite3 cannot be created (this process "
        f"may not write in {result['folder']}); check the folder, or set web.providers.local.path."
    )


#: Makes an index of schema 1, then searches it from a process that may not write it.
_OLD_READ_ONLY_SCRIPT = """
import json, os, sqlite3, sys
from webproviders.errors import NotConfiguredError
from webproviders.index.pages import Filters
from webproviders.index.sqlite_store import SQLiteStore
import webproviders.context, webproviders.index.snapshot  # from folders the other user may not read

folder, schema = sys.argv[1], json.loads(sys.argv[2])
path = os.path.join(folder, "index.sqlite3")
conn = sqlite3.connect(path)
for statement in schema:
    conn.execute(statement)
conn.commit()
conn.close()
os.chmod(path, 0o444)
os.chmod(folder, 0o555)
if os.geteuid() == 0:
    os.setegid(65534)
    os.seteuid(65534)
try:
    SQLiteStore(path).search("tokyo", 5, Filters())
except NotConfiguredError as exc:
    print(exc.message)
"""


def test_an_older_index_this_process_may_not_write_says_it_needs_one_write() -> None:
    """It said only "cannot be opened (attempt to write a readonly database); check the
    file's folder and permissions", though reading it needs the upgrade a write makes."""
    folder = tempfile.mkdtemp()
    os.chmod(folder, 0o755)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _OLD_READ_ONLY_SCRIPT, folder, json.dumps(SCHEMA_1)],
            capture_output=True, text=True, timeout=60, check=False,
        )
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder)
    assert "made by an older version of webproviders (schema 1)" in done.stdout, done.stdout + done.stderr
    assert "open it once where it can be written" in done.stdout
