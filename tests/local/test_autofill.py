"""``web.local.index: true``: every successful extract and crawl fills the index, off the hot path."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest

from webproviders import dispatch_crawl, dispatch_extract, dispatch_search
from webproviders.config import Config
from webproviders.index.autofill import index_envelope, wait_for_writes
from webproviders.index.pages import Filters, IndexedPage
from webproviders.index.stores import open_store

from .conftest import created, spoil


@pytest.fixture
def filling(make_index_config: Any) -> Config:
    return make_index_config(local={"index": True})


def stored(config: Config) -> dict[str, Any]:
    assert wait_for_writes(10)
    return open_store(config).stats()


def test_extract_and_crawl_results_are_indexed(filling: Config) -> None:
    assert dispatch_extract(["https://a.example.com/x", "https://b.example.com/y"], backend="stub", config=filling)["success"]
    assert dispatch_crawl("https://c.example.com/", backend="stub", config=filling, max_pages=3)["success"]
    assert stored(filling)["pages"] == 5
    envelope = dispatch_search("offline content", 10, backend="local", config=filling)
    hits = {hit["url"]: hit for hit in envelope["data"]["web"]}
    assert "https://c.example.com/page-2" in hits
    assert hits["https://a.example.com/x"]["source_provider"] == "stub"


def test_nothing_is_written_when_filling_is_off(index_config: Config) -> None:
    dispatch_extract("https://a.example.com/x", backend="stub", config=index_config)
    assert wait_for_writes(10)
    assert not created(index_config)


def test_search_results_are_not_pages(filling: Config) -> None:
    dispatch_search("anything", backend="stub", config=filling)
    assert wait_for_writes(10)
    assert not created(filling)


def test_failed_items_cached_answers_and_the_index_itself_are_skipped(filling: Config) -> None:
    envelope = {"success": True, "provider": "http", "meta": {}, "data": [
        {"url": "https://a.example.com/ok", "title": "Fine", "content": "Read well.", "metadata": {"date": "2025-05-01"}},
        {"url": "https://a.example.com/gone", "title": "", "content": "", "error": "HTTP 404", "error_code": "invalid_input"},
        {"url": "https://a.example.com/empty", "title": "Empty", "content": "  "},
        {"url": "https://a.example.com/mine", "title": "Mine", "content": "From the index.", "provider": "local"},
    ]}
    assert index_envelope(filling, "extract", envelope) == 1
    assert index_envelope(filling, "extract", {**envelope, "meta": {"cached": True}}) == 0
    assert index_envelope(filling, "search", envelope) == 0
    assert index_envelope(filling, "extract", {"success": False, "error": "x", "error_code": "timeout"}) == 0
    assert stored(filling)["pages"] == 1
    page = open_store(filling).get(["https://a.example.com/ok"])["https://a.example.com/ok"]
    assert page.published_at == "2025-05-01" and page.provider == "http"


def test_a_call_does_not_wait_for_the_write(filling: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    store_class = type(open_store(filling))
    real_add = store_class.add

    def held_add(self: Any, pages: Any) -> int:
        assert gate.wait(30)
        return real_add(self, pages)

    monkeypatch.setattr(store_class, "add", held_add)
    envelope = dispatch_extract("https://a.example.com/x", backend="stub", config=filling)
    assert envelope["success"] is True  # returned while the write is still held
    assert open_store(filling).stats()["pages"] == 0
    gate.set()
    assert stored(filling)["pages"] == 1


def test_a_broken_index_never_fails_the_call(filling: Config, caplog: pytest.LogCaptureFixture) -> None:
    refusal = spoil(filling)
    with caplog.at_level(logging.WARNING, logger="webproviders.index"):
        envelope = dispatch_extract("https://a.example.com/x", backend="stub", config=filling)
        assert wait_for_writes(10)
    assert envelope["success"] is True
    assert any("Could not add 1 page(s) to the local index" in r.getMessage() and refusal in r.getMessage()
               for r in caplog.records)


def test_disabling_the_plugin_stops_the_filling(make_config: Any, index_section: dict[str, Any]) -> None:
    web = {"local": {"index": True}, "providers": {"local": index_section}}
    config = make_config(web=web, plugins={"disabled": ["local"]})
    dispatch_extract("https://a.example.com/x", backend="stub", config=config)
    assert wait_for_writes(10)
    assert not created(config)


def test_a_page_holding_nul_or_a_lone_surrogate_does_not_keep_its_batch_out(filling: Config) -> None:
    # A vendor's JSON can carry "\u0000" and "\ud800"; PostgreSQL's text refuses NUL, and
    # neither is UTF-8: the whole batch was left out of the index.
    envelope = {"success": True, "provider": "tavily", "meta": {}, "data": [
        {"url": "https://a.example.com/fine", "title": "Zebra stripes", "content": "A zebra has stripes."},
        {"url": "https://a.example.com/nul", "title": "Zebra\x00 herds", "content": "Zebra\x00 herds roam."},
        {"url": "https://a.example.com/half", "title": "Zebra \ud800 foals", "content": "Zebra foals \udc00 run."},
    ]}
    assert index_envelope(filling, "extract", envelope) == 3
    assert stored(filling)["pages"] == 3
    envelope = dispatch_search("zebra", 10, backend="local", config=filling)
    hits = {hit["url"]: hit for hit in envelope["data"]["web"]}
    assert set(hits) == {"https://a.example.com/fine", "https://a.example.com/nul", "https://a.example.com/half"}
    assert hits["https://a.example.com/nul"]["title"] == "Zebra herds"
    assert hits["https://a.example.com/half"]["title"] == "Zebra \ufffd foals"


def test_a_page_whose_url_carries_a_credential_is_not_indexed(filling: Config) -> None:
    """A signed or shared link is one caller's: the index answers every caller, and a hit
    would hand them its key (and the page it opens)."""
    token = "Tok-0123456789-abcdefghij"
    urls = ["https://a.example.com/open", f"https://a.example.com/report?api_key={token}&page=2"]
    envelope = dispatch_extract(urls, backend="stub", config=filling)
    # the caller reads both, the key masked in the URL given back
    assert [item["url"] for item in envelope["data"]] == [urls[0], "https://a.example.com/report?api_key=***&page=2"]
    assert stored(filling)["pages"] == 1
    hits = dispatch_search("offline content", 10, backend="local", config=filling)["data"]["web"]
    assert [hit["url"] for hit in hits] == ["https://a.example.com/open"]


def test_a_page_now_gone_is_removed_by_the_read_that_finds_it_gone(make_index_config: Any, site: Any) -> None:
    """A fresh read answered 404 left the stored copy in the index, which served it on."""
    site.reset()
    config = make_index_config(local={"index": True}, allow_private_networks=True)
    gone, kept = site.url("/missing"), site.url("/articles/caching")
    store = open_store(config)
    store.add([IndexedPage(gone, "Old", "an old copy of the zeppelin page", time.time())])
    envelope = dispatch_extract([gone, kept], backend="http", config=config)
    assert envelope["success"] and envelope["data"][0]["error_code"] == "not_found"
    assert wait_for_writes(10)
    assert list(store.get([gone, kept])) == [kept] and store.search("zeppelin", 5, Filters()) == []
    store.add([IndexedPage(gone, "Old", "an old copy of the zeppelin page", time.time())])
    assert dispatch_extract(gone, backend="http", config=config)["error_code"] == "not_found"  # the call fails
    assert wait_for_writes(10)
    assert store.get([gone]) == {}
    store.add([IndexedPage(gone, "Old", "an old copy of the zeppelin page", time.time())])
    assert dispatch_extract(gone, backend="local", config=config)["success"]  # the index's own answers
    assert dispatch_extract(site.url("/elsewhere"), backend="local", config=config)["error_code"] == "not_found"
    assert wait_for_writes(10)
    assert list(store.get([gone])) == [gone]


def test_a_page_cut_to_max_chars_is_not_indexed_in_place_of_the_whole(filling: Config) -> None:
    """A page read with ``max_chars`` was indexed as its first characters, which the index then
    served as the whole page (no ``truncated`` said), in place of the whole copy it held."""
    url = "https://a.example.com/x"
    assert dispatch_extract(url, backend="stub", config=filling, max_chars=20)["success"]
    assert stored(filling)["pages"] == 0
    assert dispatch_extract(url, backend="stub", config=filling)["success"]
    assert stored(filling)["pages"] == 1
    whole = dispatch_extract(url, backend="local", config=filling)["data"][0]["content"]
    assert dispatch_crawl("https://a.example.com/", backend="stub", config=filling, max_pages=2, max_chars=20)["success"]
    assert stored(filling)["pages"] == 1
    assert dispatch_extract(url, backend="local", config=filling)["data"][0]["content"] == whole
    assert len(whole) > 20


def test_a_page_read_as_plain_text_is_not_indexed_as_the_markdown_the_index_serves(
    make_index_config: Any, site: Any
) -> None:
    """A ``format="text"`` reading was indexed, and the index then served it to a markdown
    extract (headings, links and lists gone), in place of the markdown copy it held."""
    site.reset()
    config = make_index_config(local={"index": True}, allow_private_networks=True)
    url = site.url("/articles/caching")
    assert dispatch_extract(url, backend="http", config=config, format="text")["success"]
    assert dispatch_crawl(site.url("/"), backend="http", config=config, format="text", max_pages=3)["success"]
    assert stored(config)["pages"] == 0
    markdown = dispatch_extract(url, backend="http", config=config)["data"][0]["content"]
    assert dispatch_extract(url, backend="http", config=config, format="text")["success"]
    assert stored(config)["pages"] == 1
    assert dispatch_extract(url, backend="local", config=config)["data"][0]["content"] == markdown
    assert dispatch_extract(url, backend="http", config=config, format="text")["data"][0]["content"] != markdown
