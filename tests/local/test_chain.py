"""``[local, http]`` against a real HTTP server on 127.0.0.1: the index first, the site for the rest;
and ``{fuse: [local, brave]}`` with Brave mocked."""

from __future__ import annotations

from typing import Any

import pytest
import respx

from webproviders import dispatch_extract, dispatch_search, index_urls
from webproviders.config import Config
from webproviders.index.stores import open_store

from .conftest import page, sibling

brave_bodies = sibling("vendors_brave_searxng_xai/bodies.py")
brave_helpers = sibling("vendors_brave_searxng_xai/helpers.py")
BRAVE_KEY, BRAVE_URL = brave_helpers.BRAVE_KEY, brave_helpers.BRAVE_URL


@pytest.fixture
def config(make_index_config: Any, site: Any) -> Config:
    site.reset()
    return make_index_config(allow_private_networks=True)


def test_a_chain_reads_the_index_first_and_fetches_only_what_is_missing(config: Config, site: Any) -> None:
    caching, retries = site.url("/articles/caching"), site.url("/articles/retries")
    assert index_urls(caching, backend="http", config=config)["data"]["indexed"] == [caching]
    site.reset()
    envelope = dispatch_extract([caching, retries], backend=["local", "http"], config=config)
    assert envelope["success"] is True, envelope
    assert site.paths() == ["/articles/retries"]  # the indexed page was not fetched again
    from_index, fetched = envelope["data"]
    assert from_index["url"] == caching and from_index["provider"] == "local"
    assert from_index["title"] == "Caching in practice"
    assert "time to live" in from_index["content"]
    assert fetched["url"] == retries and fetched["provider"] == "http"
    assert "error" not in fetched and fetched["metadata"]["status_code"] == 200
    assert envelope["provider"] == "local"
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [("local", "ok"), ("http", "ok")]


def test_a_url_neither_has_keeps_the_last_providers_error(config: Config, site: Any) -> None:
    missing = site.url("/missing")
    envelope = dispatch_extract([missing], backend=["local", "http"], config=config)
    assert envelope["success"] is False and envelope["provider"] == "http"
    assert envelope["error_code"] == "not_found"
    assert [(f["url"], f["error_code"]) for f in envelope["meta"]["failures"]] == [(missing, "not_found")]
    assert [(a["provider"], a.get("error_code")) for a in envelope["meta"]["attempts"]] == [
        ("local", "not_found"),
        ("http", "not_found"),
    ]
    assert site.paths() == ["/missing"]


def test_everything_indexed_means_no_request_at_all(config: Config, site: Any) -> None:
    urls = [site.url("/articles/caching"), site.url("/docs/a")]
    index_urls(urls, backend="http", config=config)
    site.reset()
    envelope = dispatch_extract(urls, backend=["local", "http"], config=config)
    assert [item["provider"] for item in envelope["data"]] == ["local", "local"]
    assert site.paths() == []
    assert [a["provider"] for a in envelope["meta"]["attempts"]] == ["local"]


def test_auto_filled_chain_fetches_each_page_once(make_index_config: Any, site: Any) -> None:
    from webproviders.index.autofill import wait_for_writes

    site.reset()
    config = make_index_config(allow_private_networks=True, local={"index": True})
    urls = [site.url("/articles/caching"), site.url("/articles/retries")]
    first = dispatch_extract(urls, backend=["local", "http"], config=config)
    assert [item["provider"] for item in first["data"]] == ["http", "http"]
    assert wait_for_writes(10)
    site.reset()
    second = dispatch_extract(urls, backend=["local", "http"], config=config)
    assert [item["provider"] for item in second["data"]] == ["local", "local"]
    assert site.paths() == []


def test_local_fuses_with_brave(make_index_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", BRAVE_KEY)
    config = make_index_config()
    open_store(config).add([
        page("https://tokio.rs/", "Tokio", "Tokio is an asynchronous Rust runtime for network applications."),
        page("https://notes.example.com/runtime", "My runtime notes", "Notes on the async Rust runtime we picked."),
    ])
    with respx.mock(assert_all_called=True) as mock:
        mock.get(BRAVE_URL).respond(200, json=brave_bodies.BRAVE_SUCCESS)
        envelope = dispatch_search("rust async runtime", backend={"fuse": ["local", "brave"]}, config=config)
    assert envelope["success"] is True, envelope
    assert envelope["provider"] == "fuse" and envelope["meta"]["fused"] == ["local", "brave"]
    hits = {hit["url"]: hit for hit in envelope["data"]["web"]}
    assert set(hits) == {"https://tokio.rs/", "https://notes.example.com/runtime", "https://async.rs/"}
    assert envelope["data"]["web"][0]["url"] == "https://tokio.rs/"  # both ranked it first
    assert sorted(hits["https://tokio.rs/"]["providers"]) == ["brave", "local"]
    assert hits["https://notes.example.com/runtime"]["providers"] == ["local"]
    assert hits["https://async.rs/"]["providers"] == ["brave"]
    brave_helpers.assert_no_secret(envelope, BRAVE_KEY)


def test_a_url_carrying_a_credential_is_read_but_not_indexed(config: Config, site: Any) -> None:
    """Every search of the index would hand out the key with the page's URL, as the filling
    from every call already knows."""
    signed, retries = site.url("/articles/caching") + "?api_key=sk-live-a1b2c3d4e5", site.url("/articles/retries")
    envelope = index_urls([signed, retries], backend="http", config=config)
    assert envelope["success"] is True, envelope
    assert envelope["data"]["indexed"] == [retries]
    [refused] = envelope["data"]["failed"]
    assert refused["error_code"] == "invalid_input" and "carries a credential" in refused["error"]
    assert "sk-live" not in str(envelope)
    assert list(open_store(config).get([signed])) == []
    hits = dispatch_search("caching time to live", backend="local", config=config)["data"]["web"]
    assert "sk-live" not in str(hits)


def test_indexing_a_crawl_says_what_the_crawl_said(config: Config, site: Any) -> None:
    """A crawl that stopped with pages left (at max_pages, or its deadline) read as a whole
    site indexed: its warnings were left out of the answer and the command's output."""
    envelope = index_urls(site.url("/"), crawl=True, max_pages=2, backend="http", config=config)
    assert envelope["success"] is True and envelope["data"]["indexed"] == [site.url("/")]
    assert any("stopped at max_pages (2)" in warning for warning in envelope["meta"]["warnings"])
