"""The ``http`` path resolves each host once per call: the screen's answer is the one used to
connect, and a redirect to a new host costs exactly one more lookup.

``fake_dns.lookups`` counts the lookups the operating system's resolver was asked for
(``socket.getaddrinfo``, see ``tests/conftest.py``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from webproviders import dispatch_crawl, dispatch_extract
from webproviders.config import Config


def _names(config_for: Any) -> Config:
    return config_for(allowed_hosts=["site.test", "other.test", "www.site.test"])


def test_a_batch_on_one_host_is_one_lookup(site: Any, config_for: Any, fake_dns: Any) -> None:
    urls = [site.url(path, host="site.test") for path in ("/articles/caching", "/articles/retries", "/docs/a")]
    envelope = dispatch_extract(urls, backend="http", config=_names(config_for))
    assert envelope["success"] is True and "failed" not in envelope["meta"], envelope
    assert fake_dns.lookups == {"site.test": 1}


def test_each_host_of_a_batch_is_looked_up_once(site: Any, config_for: Any, fake_dns: Any) -> None:
    urls = [
        site.url("/articles/caching", host="site.test"),
        site.url("/docs/a", host="other.test"),
        site.url("/articles/retries", host="site.test"),
        site.url("/docs/b", host="other.test"),
    ]
    envelope = dispatch_extract(urls, backend="http", config=_names(config_for))
    assert envelope["success"] is True and "failed" not in envelope["meta"], envelope
    assert fake_dns.lookups == {"site.test": 1, "other.test": 1}


def test_a_redirect_to_a_new_host_adds_one_lookup(site: Any, config_for: Any, fake_dns: Any) -> None:
    target = site.url("/articles/caching", host="other.test")
    hop = site.url("/redirect/to?url=" + quote(target, safe=""), host="www.site.test")
    start = site.url("/redirect/to?url=" + quote(hop, safe=""), host="site.test")
    envelope = dispatch_extract([start], backend="http", config=_names(config_for))
    assert envelope["success"] is True and envelope["data"][0]["content"], envelope
    assert fake_dns.lookups == {"site.test": 1, "www.site.test": 1, "other.test": 1}


def test_a_redirect_back_to_a_known_host_adds_none(site: Any, config_for: Any, fake_dns: Any) -> None:
    urls = [site.url("/redirect/article", host="site.test"), site.url("/redirect/chain/3", host="site.test")]
    envelope = dispatch_extract(urls, backend="http", config=_names(config_for))
    assert envelope["success"] is True and "failed" not in envelope["meta"], envelope
    assert fake_dns.lookups == {"site.test": 1}


def test_a_crawl_looks_its_site_up_once(site: Any, config_for: Any, fake_dns: Any) -> None:
    """The seed's screen, robots.txt, the sitemap and every page share one lookup."""
    envelope = dispatch_crawl(site.url("/", host="site.test"), backend="http", config=_names(config_for), max_pages=8, use_sitemap=True)
    assert envelope["success"] is True and len(envelope["data"]) > 3, envelope
    assert "/robots.txt" in site.paths() and "/sitemap.xml" in site.paths()
    assert fake_dns.lookups == {"site.test": 1}


def test_every_call_looks_up_afresh(site: Any, config_for: Any, fake_dns: Any) -> None:
    url = site.url("/articles/caching", host="site.test")
    config = config_for(allowed_hosts=["site.test"], cache=False)
    for _ in range(3):
        assert dispatch_extract(url, backend="http", config=config)["success"] is True
    assert fake_dns.lookups == {"site.test": 3}
