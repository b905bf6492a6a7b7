"""The SQLite FTS5 store: one page per canonical URL, BM25 ranking, snippets and filters."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from webproviders.config import Config
from webproviders.errors import NotConfiguredError
from webproviders.index.fts_query import match_expression, query_terms
from webproviders.index.pages import Filters
from webproviders.index.sqlite_store import SQLiteStore
from webproviders.index.stores import default_path, open_store

from .conftest import DAY, DOCS, NOW, page


def urls(hits: list[Any]) -> list[str]:
    return [hit.page.url for hit in hits]


def test_pages_are_stored_once_by_canonical_url(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://Docs.Example.com:443/a?utm_source=x#top", "A", "alpha text")])
    store.add([page("https://docs.example.com/a", "A", "alpha text")])
    assert store.stats()["pages"] == 1
    found = store.get(["https://DOCS.example.com/a#elsewhere"])
    assert list(found) == ["https://docs.example.com/a"]
    assert found["https://docs.example.com/a"].content == "alpha text"


def test_reindexing_a_url_replaces_its_text(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://docs.example.com/a", "Old title", "the zebra section", age_days=3)])
    store.add([page("https://docs.example.com/a", "New title", "the giraffe section")])
    assert urls(store.search("zebra", 5, Filters())) == []
    [hit] = store.search("giraffe", 5, Filters())
    assert hit.page.title == "New title"
    assert hit.page.fetched_at == pytest.approx(NOW)
    assert store.stats()["pages"] == 1


def test_reindexing_unchanged_text_moves_the_fetch_time(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://docs.example.com/a", "Same", "unchanged words", age_days=10)])
    store.add([page("https://docs.example.com/a", "Same", "unchanged words")])
    [hit] = store.search("unchanged", 5, Filters())
    assert hit.page.fetched_at == pytest.approx(NOW)
    assert urls(store.search("unchanged", 5, Filters(fetched_after=NOW - DAY))) == [hit.page.url]


def test_a_page_keeps_its_publication_date_when_a_refetch_lacks_one(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://docs.example.com/a", "A", "words", published_at="2025-02-01")])
    store.add([page("https://docs.example.com/a", "A", "other words")])
    assert store.get(["https://docs.example.com/a"])["https://docs.example.com/a"].published_at == "2025-02-01"


def test_ranking_puts_the_page_about_the_question_first(filled: Config) -> None:
    hits = open_store(filled).search("how do I configure retries?", 5, Filters())
    assert urls(hits)[0] == "https://docs.example.com/guide/retries"
    assert set(urls(hits)) == {
        "https://docs.example.com/guide/retries",
        "https://docs.example.com/guide/cache",  # "retries" in passing (porter stemming)
        "https://blog.example.org/posts/outages",
    }
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert hits[0].score > hits[-1].score


def test_a_title_match_outranks_a_passing_mention(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([
        page("https://a.example.com/1", "Notes", "Many things. " * 20 + "Kubernetes is mentioned once here."),
        page("https://a.example.com/2", "Kubernetes operators", "How operators manage clusters. " * 5),
    ])
    assert urls(store.search("kubernetes", 5, Filters()))[0] == "https://a.example.com/2"


def test_snippets_highlight_the_matched_words(filled: Config) -> None:
    [first, *_] = open_store(filled).search("backoff jitter", 5, Filters())
    assert "**backoff**" in first.snippet and "**jitter**" in first.snippet
    assert "\n" not in first.snippet


def test_limit_caps_the_hits(filled: Config) -> None:
    assert len(open_store(filled).search("retries", 1, Filters())) == 1


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (Filters(include_domains=("example.com",)), {"https://docs.example.com/guide/retries", "https://docs.example.com/guide/cache"}),
        (Filters(include_domains=("blog.example.org", "nowhere.test")), {"https://blog.example.org/posts/outages"}),
        (Filters(exclude_domains=("docs.example.com",)), {"https://blog.example.org/posts/outages"}),
        (Filters(include_domains=("ample.com",)), set()),  # a domain is a whole label, not a suffix
        (Filters(fetched_after=NOW - 30 * DAY), {"https://docs.example.com/guide/retries", "https://docs.example.com/guide/cache"}),
    ],
)
def test_filters(filled: Config, filters: Filters, expected: set[str]) -> None:
    assert set(urls(open_store(filled).search("retries", 10, filters))) == expected


def test_time_range_is_measured_on_the_fetch_time() -> None:
    assert Filters.from_options({"time_range": "week"}, now=1_000_000.0).fetched_after == 1_000_000.0 - 7 * DAY
    assert Filters.from_options({}).fetched_after is None


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        ("how do I configure retries?", '"configure" OR "retries"'),
        ('the "exact phrase" matters', '"exact phrase" OR "matters"'),
        ("what is it", '"what" OR "is" OR "it"'),  # only common words: keep them
        ('say "hi"" folks', '"hi" OR "say" OR "folks"'),
        ("retry_policy NEAR(a b) AND -x*", '"retry_policy" OR "near" OR "b" OR "x"'),
        ("?!", None),
    ],
)
def test_plain_questions_become_safe_match_expressions(query: str, expression: str | None) -> None:
    assert match_expression(query) == expression


def test_fts_operators_in_a_question_are_plain_words(filled: Config) -> None:
    store = open_store(filled)
    assert store.search('retries AND OR NOT "unterminated', 5, Filters())  # no syntax error
    assert store.search("?!", 5, Filters()) == []


def test_search_on_a_missing_file_is_empty_and_creates_nothing(index_config: Config, index_path: Path) -> None:
    store = open_store(index_config)
    assert store.search("anything", 5, Filters()) == []
    assert store.get(["https://docs.example.com/"]) == {}
    assert store.stats()["pages"] == 0
    assert not index_path.exists() and not index_path.parent.exists()


def test_the_file_is_in_wal_mode_and_stamped(filled: Config, index_path: Path) -> None:
    with sqlite3.connect(index_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x77706978


def test_another_sqlite_database_is_refused_not_altered(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER)")
    with pytest.raises(NotConfiguredError, match="not a webproviders page index"):
        SQLiteStore(path).search("x", 5, Filters())
    with sqlite3.connect(path) as conn:
        assert [row[0] for row in conn.execute("SELECT name FROM sqlite_master")] == ["orders"]


def test_remove_and_prune(filled: Config) -> None:
    store = open_store(filled)
    assert store.remove(["https://docs.example.com/guide/cache#x", "https://unknown.example/"]) == 1
    assert store.prune(NOW - 30 * DAY) == 2  # the 40- and 400-day-old pages
    stats = store.stats()
    assert stats["pages"] == 1
    assert stats["providers"] == {"http": 1}
    assert urls(store.search("outages reference", 5, Filters())) == []


def test_stats(filled: Config, index_path: Path) -> None:
    stats = open_store(filled).stats()
    assert stats["location"] == str(index_path)
    assert stats["pages"] == len(DOCS)
    assert stats["bytes"] > 0
    assert stats["oldest"] == pytest.approx(NOW - 400 * DAY)
    assert stats["newest"] == pytest.approx(NOW)
    assert stats["providers"] == {"http": 3, "tavily": 1}


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
        ({"busy_timeout": 0}, "busy_timeout must be a number of seconds above 0"),
        ({"path": 5}, "path must be a string"),
        ({"url": "ftp://meili.internal"}, "url must be an http"),
        ({"url": "http://127.0.0.1:7700", "index_name": "bad name!"}, "index_name may hold only"),
    ],
)
def test_bad_settings_are_named(make_config: Any, settings: dict[str, Any], message: str) -> None:
    with pytest.raises(NotConfiguredError, match=message):
        open_store(make_config(web={"providers": {"local": settings}}))


def test_common_words_do_not_crowd_out_pages_with_the_rare_ones(index_config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """With many pages holding a common word, only pages with the rarer word are scored, and
    the common word still lifts the page that has both."""
    import webproviders.index.sqlite_store as sqlite_store

    monkeypatch.setattr(sqlite_store, "CANDIDATE_BUDGET", 5)
    store = open_store(index_config)
    store.add([page(f"https://a.example.com/common-{i}", f"Page {i}", "widget widget widget text") for i in range(8)])
    store.add([page(f"https://a.example.com/other-{i}", f"Other {i}", "unrelated text") for i in range(12)])
    store.add([
        page("https://a.example.com/rare", "Rare", "the sprocket manual page"),
        page("https://a.example.com/both", "Both", "the sprocket widget page"),
    ])
    hits = store.search("widget sprocket", 2, Filters())
    assert urls(hits) == ["https://a.example.com/both", "https://a.example.com/rare"]
    terms = query_terms("widget sprocket")
    db = store._db(create=False)
    assert store._expression(db, terms, 2) == '("sprocket") AND ("widget" OR "sprocket")'
    assert store._expression(db, terms, 5) == '"widget" OR "sprocket"'
    # Fewer pages with the rare word than the limit asks for: every page is scored.
    assert len(store.search("widget sprocket", 5, Filters())) == 5
