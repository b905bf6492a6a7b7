"""With no DNS at all: ``stub`` and the ``local`` index answer, and ``[local, http]`` looks up
only the hosts of the pages it has to fetch.

The suite's DNS (``tests/conftest.py``) fails every lookup of an undeclared name and counts
lookups; the test guard also lists every connection to a non-loopback address.
"""

from __future__ import annotations

from typing import Any

from webproviders import dispatch_crawl, dispatch_extract, index_urls
from webproviders.config import Config


def test_stub_extracts_and_crawls_without_the_network(index_config: Config, dns: Any) -> None:
    extract = dispatch_extract(["https://example.com/", "https://docs.example.org/a"], backend="stub", config=index_config)
    crawl = dispatch_crawl("https://example.com/", backend="stub", config=index_config)
    assert extract["success"] is True and len(extract["data"]) == 2, extract
    assert crawl["success"] is True and crawl["data"], crawl
    assert sum(dns.lookups.values()) == 0 and dns.unreachable == []


def test_the_local_index_reads_a_page_without_the_network(index_config: Config, dns: Any) -> None:
    url = "https://offline.example.com/guide"
    assert index_urls(url, backend="stub", config=index_config)["data"]["indexed"] == [url]
    envelope = dispatch_extract(url, backend="local", config=index_config)
    assert envelope["success"] is True and envelope["provider"] == "local", envelope
    assert envelope["data"][0]["content"]
    missing = dispatch_extract("https://offline.example.com/other", backend="local", config=index_config)
    assert missing["error_code"] == "not_found"
    assert sum(dns.lookups.values()) == 0 and dns.unreachable == []


def test_a_chain_looks_up_only_the_host_it_fetches_from(make_index_config: Any, site: Any, dns: Any) -> None:
    """The indexed page comes from the index; the missing one from the site, one lookup."""
    dns.answer("pages.test", "127.0.0.1")
    config = make_index_config(allowed_hosts=["pages.test"])
    indexed = f"http://pages.test:{site.port}/articles/caching"
    missing = f"http://pages.test:{site.port}/articles/retries"
    index_urls(indexed, backend="http", config=config)
    site.reset()
    dns.lookups.clear()
    envelope = dispatch_extract([indexed, missing], backend=["local", "http"], config=config)
    assert [item["provider"] for item in envelope["data"]] == ["local", "http"], envelope
    assert site.paths() == ["/articles/retries"]
    assert dns.lookups == {"pages.test": 1}
