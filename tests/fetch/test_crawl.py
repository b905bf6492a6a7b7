"""The ``http`` provider's crawl against the real local site."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
import time
import tracemalloc
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from webproviders import adispatch_crawl, dispatch_crawl
from webproviders.config import Config

from .fetch_site import BOOK


def crawl(url: str, config: Config, **kwargs: Any) -> dict[str, Any]:
    envelope = dispatch_crawl(url, backend="http", config=config, **kwargs)
    assert envelope["success"] is True, envelope
    return envelope


def paths(envelope: dict[str, Any], site: Any) -> list[str]:
    prefix = site.url("")
    return [page["url"].replace(prefix, "") for page in envelope["data"]]


def test_breadth_first_in_discovery_order_with_depth(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/"), local)
    found = paths(envelope, site)
    depths = [page["metadata"]["depth"] for page in envelope["data"]]
    assert found[0] == "/" and depths[0] == 0
    assert depths == sorted(depths)
    # Depth 1 follows the order of the links on the home page (navigation first).
    order = [found.index(p) for p in ("/articles/caching", "/articles/retries", "/docs/", "/nofollow")]
    assert order == sorted(order)
    assert {"/docs/b", "/docs/deep/c", "/readme.md"} <= {p for p, d in zip(found, depths, strict=True) if d == 2}
    assert len(found) == len(set(found))


def test_pages_are_extracted_like_extract(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/"), local)
    caching = next(p for p in envelope["data"] if p["url"] == site.url("/articles/caching"))
    assert caching["title"] == "Caching in practice"
    assert "Caching keeps recently used answers close" in caching["content"]
    assert "Contact sales" not in caching["content"]
    assert caching["metadata"]["referrer"] == site.url("/")


def test_a_link_query_on_a_shift_jis_page_is_sent_in_shift_jis(site: Any, local: Config) -> None:
    """As browsers send it: in UTF-8 the site could not read the query (HTTP 400)."""
    envelope = crawl(site.url("/board/"), local, max_pages=2)
    results = envelope["data"][1]
    assert results["url"] == site.url("/board/search?q=%93%8C%8B%9E&page=1")
    assert "error" not in results, results
    assert "東京に関する投稿が三件見つかりました" in results["content"]


def test_spellings_of_one_url_that_rfc_3986_calls_equal_are_one_page(site: Any, local: Config) -> None:
    """``%7e``, ``%7E`` and ``~`` (an unreserved character encoded or not), and ``%2f`` and
    ``%2F``, were crawled as different pages; a page is read once, requested as its first link
    spelled it. A different letter is a different page."""
    envelope = crawl(site.url("/spellings/"), local, use_sitemap=False, include=["/spellings/*"])
    assert paths(envelope, site) == ["/spellings/", "/spellings/%7Euser/a%2fb", "/spellings/%7euser/a%2FB"]
    # each requested once, as spelled; two at a time, they may reach the server in either order
    assert sorted(p for p in site.paths() if p.startswith("/spellings/")) == sorted(paths(envelope, site))


def test_an_absolute_link_with_dot_segments_is_the_page_they_lead_to(site: Any, local: Config) -> None:
    """``/dots/old/../page`` is requested as ``/dots/page`` (and browsers go there too): each
    spelling cost the site a request for a page the crawl then dropped as one it had."""
    envelope = crawl(site.url("/dots/"), local, include=["/dots/*"])
    assert paths(envelope, site) == ["/dots/", "/dots/page"]
    assert sorted(p for p in site.paths() if p.startswith("/dots/")) == ["/dots/", "/dots/page"]


def test_a_crawl_option_it_does_not_take_is_named(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/"), local, max_pages=2, includ=["/docs/*"], limit=2, max_chars=50)
    assert envelope["meta"]["warnings"][0] == "http ignored the option(s) includ: it does not know them."
    assert len(envelope["data"]) == 2


def test_each_page_comes_back_once(site: Any, local: Config) -> None:
    """A tracking-parameter link, a fragment link and a redirect all lead to one page."""
    envelope = crawl(site.url("/"), local)
    found = paths(envelope, site)
    assert found.count("/articles/caching") == 1
    assert "/redirect/article" not in found
    fetched = site.paths()
    assert not any("utm_" in p or "#" in p for p in fetched)
    # Fetched once: the old address's redirect to it is not followed, the page being queued already.
    assert fetched.count("/articles/caching") == 1


def test_robots_txt_is_obeyed(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/"), local)
    assert "/private/secret" not in site.paths()
    assert "/robots.txt" in site.paths()
    assert any("robots.txt disallows" in w for w in envelope["meta"]["warnings"])


def test_respect_robots_false(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/"), local, respect_robots=False, max_pages=100)
    assert "/private/secret" in paths(envelope, site)
    assert "/robots.txt" not in site.paths()


def test_seed_disallowed_by_robots_is_blocked(site: Any, local: Config) -> None:
    envelope = dispatch_crawl(site.url("/private/secret"), backend="http", config=local)
    assert envelope["success"] is False
    assert envelope["error_code"] == "blocked"
    assert envelope["detail"] == "robots_txt"
    assert "/private/secret" not in site.paths()


def test_robots_group_of_a_bot_named_in_a_browser_style_user_agent_is_obeyed(
    site: Any, config_for: Any
) -> None:
    """``Mozilla/5.0 (compatible; BadBot/2.1)`` is BadBot to robots.txt, as to every crawler."""
    config = config_for(
        allow_private_networks=True,
        user_agent="Mozilla/5.0 (compatible; BadBot/2.1; +https://example.org/bot)",
    )
    envelope = dispatch_crawl(site.url("/"), backend="http", config=config)
    assert (envelope["error_code"], envelope["detail"]) == ("blocked", "robots_txt")
    assert site.paths() == ["/robots.txt"]


@pytest.mark.parametrize(
    ("seed", "code", "detail"),
    [("/image.png", "unsupported", None), ("/redirect/to?url=/private/secret", "blocked", "robots_txt")],
)
def test_a_seed_that_gives_no_page_fails_with_its_reason_and_never_cools_http_down(
    seed: str, code: str, detail: str | None, site: Any, local: Config
) -> None:
    for _ in range(6):  # more than web.health.failures (5)
        envelope = dispatch_crawl(site.url(seed), backend="http", config=local)
        assert (envelope["error_code"], envelope.get("detail")) == (code, detail), envelope
        assert [f["url"] for f in envelope["meta"]["failures"]] == [site.url(seed)]
    assert crawl(site.url("/docs/a"), local, max_depth=0)["data"][0]["title"] == "Getting started"


def test_a_site_whose_robots_txt_cannot_be_read_never_cools_http_down_with_sitemaps_on(
    site: Any, named: Config
) -> None:
    """Its robots.txt redirects to itself: its seed fails, and the sitemap step raised that again."""
    seed = f"http://loopbots.site.test:{site.port}/docs/a"
    for _ in range(6):  # more than web.health.failures (5)
        envelope = dispatch_crawl(seed, backend="http", config=named, use_sitemap=True)
        assert envelope["error_code"] == "provider_error", envelope
        assert [f["url"] for f in envelope["meta"]["failures"]] == [seed]
    other = f"http://www.site.test:{site.port}/docs/a"
    assert crawl(other, named, max_depth=0)["data"][0]["title"] == "Getting started"


def test_a_robots_txt_answering_429_allows_nothing(site: Any, named: Config) -> None:
    """A site too busy to serve its robots.txt was sent the whole crawl at once, as if it had none
    (nor is its sitemap asked for: nothing it lists could be read)."""
    seed = f"http://busybots.site.test:{site.port}/docs/"
    envelope = dispatch_crawl(seed, backend="http", config=named, use_sitemap=True)
    assert (envelope["error_code"], envelope["detail"]) == ("blocked", "robots_txt")
    assert "robots.txt answered HTTP 429" in envelope["error"]
    assert site.paths() == ["/robots.txt"]


def test_a_redirect_into_a_path_robots_txt_disallows_is_never_requested(site: Any, named: Config) -> None:
    """Each hop is checked against its own host's robots.txt before it is requested."""
    seed = f"http://www.site.test:{site.port}"
    envelope = dispatch_crawl(f"{seed}/redirect/to?url=/private/secret", backend="http", config=named)
    assert (envelope["error_code"], envelope["detail"]) == ("blocked", "robots_txt")
    assert "/private/secret" not in site.paths()

    # One request at a time: the hop's robots.txt does not wait for the slot its page holds.
    envelope = crawl(f"{seed}/moved-links", named, scope="any", max_depth=1, concurrency=1, per_host_concurrency=1)
    assert [page["url"] for page in envelope["data"]] == [f"{seed}/moved-links", f"{seed}/docs/a"]
    assert ("other.test", "/robots.txt") in site.hits and ("other.test", "/private/secret") not in site.hits
    assert "1 URL was skipped because robots.txt disallows it." in envelope["meta"]["warnings"]


@pytest.mark.parametrize("options", [{}, {"scope": "any", "exclude": ["/private/*"]}])
def test_a_link_that_redirects_out_of_scope_or_into_an_excluded_path_is_never_requested(
    options: dict[str, Any], site: Any, named: Config
) -> None:
    """Each hop of a found link must be one the crawl would follow as a link: the other host
    (and its robots.txt) is never asked, as a link to it would not be."""
    seed = f"http://www.site.test:{site.port}"
    envelope = crawl(f"{seed}/moved-links", named, max_depth=1, **options)
    assert [page["url"] for page in envelope["data"]] == [f"{seed}/moved-links", f"{seed}/docs/a"]
    assert {host for host, _ in site.hits} == {"www.site.test"}


def test_a_link_that_redirects_out_of_scope_to_a_refused_address_is_skipped_too(site: Any, named: Config) -> None:
    """Out of scope, it is no page of the crawl whatever its address: it was an ``unsafe_url`` item.
    So was a link with a user name and password, which is never fetched (its robots.txt was
    named as the URL refused)."""
    seed = f"http://www.site.test:{site.port}"
    envelope = crawl(f"{seed}/sso-links", named, max_depth=1)
    assert [page["url"] for page in envelope["data"]] == [f"{seed}/sso-links", f"{seed}/docs/a"]
    assert "failed" not in envelope["meta"]


def test_each_host_is_paced_by_the_crawl_delay_of_its_own_robots_txt(site: Any, named: Config) -> None:
    """The seed redirects to delay.site.test, whose robots.txt asks for 0.5 s between requests."""
    moved = f"http://delay.site.test:{site.port}/docs/"
    started = time.monotonic()
    envelope = crawl(f"http://www.site.test:{site.port}/redirect/to?url={moved}", named, max_depth=1, max_pages=4)
    assert [page["url"] for page in envelope["data"]][0] == moved and len(envelope["data"]) == 4
    assert time.monotonic() - started >= 1.0  # the three pages after the seed: two gaps


def test_a_page_that_links_redirect_to_at_once_is_read_once(site: Any, local: Config) -> None:
    """Three old addresses of one page, followed at the same time: each hop went on to it, and
    it was read three times (returned once)."""
    envelope = crawl(site.url("/moving/"), local, max_depth=1, per_host_concurrency=3)
    assert paths(envelope, site).count("/moving/new") == 1
    assert site.paths().count("/moving/new") == 1


def test_referrer_is_the_page_the_link_was_found_on_after_its_redirects(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/redirect/to?url=/docs/"), local, max_depth=1)
    seed, *found = envelope["data"]
    assert seed["url"] == site.url("/docs/") and seed["metadata"]["referrer"] is None
    assert found and {page["metadata"]["referrer"] for page in found} == {site.url("/docs/")}


def test_a_page_that_sends_its_reader_on_with_a_refresh_leads_the_crawl_there(site: Any, local: Config) -> None:
    """A site generator's alias (a Hugo site's root sends readers to ``/en/``) has no text and no
    link, and names its target as its canonical too: the crawl ended at it, with one empty page."""
    envelope = crawl(site.url("/alias/old"), local, max_depth=1, max_pages=3)
    assert paths(envelope, site)[:2] == ["/alias/old", "/articles/caching"]
    assert envelope["data"][1]["title"] == "Caching in practice"
    assert not any("script" in warning for warning in envelope["meta"].get("warnings", []))


def test_a_page_that_sends_its_reader_on_with_a_refresh_header_leads_the_crawl_there(site: Any, local: Config) -> None:
    """An empty body with ``Refresh: 0; url=...``: the crawl ended at it, one empty page."""
    envelope = crawl(site.url("/refresh-header/empty"), local, max_depth=1, max_pages=3)
    assert paths(envelope, site)[:2] == ["/refresh-header/empty", "/articles/caching"]
    assert envelope["data"][1]["title"] == "Caching in practice"
    assert not any("empty body" in warning for warning in envelope["meta"].get("warnings", []))


def test_nofollow_meta_is_obeyed(site: Any, local: Config) -> None:
    """And said: a crawl of the one page had no word of why, as one of a page without links."""
    envelope = crawl(site.url("/nofollow"), local)
    assert paths(envelope, site) == ["/nofollow"]
    assert envelope["meta"]["warnings"] == [
        "The links of 1 page were not followed: it asks crawlers not to (robots nofollow, in a <meta> tag or an "
        "X-Robots-Tag header); pass respect_robots=False if you have the site owner's permission."
    ]
    site.reset()
    followed = paths(crawl(site.url("/nofollow"), local, respect_robots=False), site)
    assert "/docs/a" in followed


@pytest.mark.parametrize("said", ["header", "header-for-us", "second-meta"])
def test_nofollow_in_an_x_robots_tag_header_or_a_second_robots_meta_is_obeyed(
    said: str, site: Any, local: Config
) -> None:
    assert paths(crawl(site.url(f"/nofollow/{said}"), local), site) == [f"/nofollow/{said}"]


def test_an_x_robots_tag_for_another_crawler_is_not_ours(site: Any, local: Config) -> None:
    assert "/docs/a" in paths(crawl(site.url("/nofollow/header-for-another"), local), site)


@pytest.mark.parametrize("depth", [0, 1])
def test_max_depth(depth: int, site: Any, local: Config) -> None:
    envelope = crawl(site.url("/"), local, max_depth=depth, max_pages=100)
    depths = {page["metadata"]["depth"] for page in envelope["data"]}
    assert max(depths) == depth
    if depth == 0:
        assert paths(envelope, site) == ["/"]
        assert [p for p in site.paths() if p != "/robots.txt"] == ["/"]


def test_a_crawl_that_stops_at_max_depth_with_deeper_links_says_how_many(site: Any, local: Config) -> None:
    """Before, a site deeper than max_depth read as one that had been read whole."""
    deeper = paths(crawl(site.url("/"), local, max_depth=2, max_pages=100), site)
    shallow = crawl(site.url("/"), local, max_depth=1, max_pages=100)
    past = {p for p in deeper if p not in paths(shallow, site)}
    assert past, deeper
    said = [w for w in shallow["meta"]["warnings"] if "max_depth (1)" in w]
    assert said and f"link to {len(past)} more pages past it" in said[0], shallow["meta"]["warnings"]
    whole = crawl(site.url("/docs/a"), local, max_depth=5, max_pages=100)
    assert not any("max_depth" in w for w in whole["meta"].get("warnings", []))


def test_max_pages_keeps_the_first_pages(site: Any, local: Config) -> None:
    full = paths(crawl(site.url("/"), local, max_pages=100), site)
    site.reset()
    few = crawl(site.url("/"), local, max_pages=4)
    assert paths(few, site) == full[:4]
    assert len([p for p in site.paths() if p != "/robots.txt"]) == 4


def test_a_crawl_that_stops_at_max_pages_with_pages_left_says_so(site: Any, local: Config) -> None:
    """Before, it looked like a crawl that had read the whole site."""
    cut = crawl(site.url("/"), local, max_pages=2)
    assert any("stopped at max_pages (2) with more pages found" in w for w in cut["meta"]["warnings"])
    whole = crawl(site.url("/docs/a"), local, max_depth=0)
    assert not any("max_pages" in w for w in whole["meta"].get("warnings", []))


def test_limit_is_max_pages_as_for_every_crawling_backend(site: Any, local: Config) -> None:
    full = paths(crawl(site.url("/"), local, max_pages=100), site)
    site.reset()
    assert paths(crawl(site.url("/"), local, limit=3), site) == full[:3]
    assert len([p for p in site.paths() if p != "/robots.txt"]) == 3


def test_max_pages_has_a_hard_cap(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/docs/a"), local, max_pages=5000)
    assert any("limit of 1000" in w for w in envelope["meta"]["warnings"])


def test_a_crawl_holds_only_max_chars_of_each_page_while_it_runs(site: Any, local: Config) -> None:
    """40 books of a megabyte each, max_chars 1,000: before, the crawl held all 40 MB of text
    until the dispatcher cut each page to its first 1,000 characters at the end."""
    tracemalloc.start()
    try:
        envelope = crawl(site.url("/books/"), local, max_pages=60, max_depth=1, max_chars=1_000)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    books = [page for page in envelope["data"] if page["url"].endswith(".txt")]
    assert len(books) == 40 and peak < 20_000_000
    book = books[0]
    assert len(book["content"]) <= 1_000
    assert book["metadata"]["truncated"] is True and book["metadata"]["content_chars"] == len(BOOK) - 1


def test_only_html_pages_are_followed(site: Any, local: Config) -> None:
    """The markdown file links to /orphan; it is returned, but its links are not followed."""
    envelope = crawl(site.url("/docs/"), local)
    found = paths(envelope, site)
    assert "/readme.md" in found
    assert "/orphan" not in found
    assert "/image.png" not in site.paths()


def test_a_linked_page_that_cannot_be_read_is_an_item_and_no_page_is_none(site: Any, local: Config) -> None:
    """A page in a coding that cannot be decoded here (or a locked PDF) is ``unsupported`` in an
    extract, and was dropped from a crawl without a word, as an image is."""
    envelope = crawl(site.url("/unreadable/"), local, max_depth=1, include=["/unreadable/*"])
    assert paths(envelope, site) == ["/unreadable/", "/unreadable/page"]
    assert envelope["data"][1]["error_code"] == "unsupported" and envelope["meta"]["failed"] == 1
    assert "/unreadable/logo" in site.paths()


def test_a_linked_pdf_that_is_no_pdf_is_an_item_saying_so(site: Any, local: Config) -> None:
    """A report's link answering with a sign-in page under the PDF's type is a page that cannot be
    read here, as a locked PDF is: it was passed by without a word, as an image is."""
    envelope = crawl(site.url("/reports/"), local, max_depth=1, include=["/reports/*"])
    assert paths(envelope, site) == ["/reports/", "/reports/annual.pdf"]
    assert envelope["data"][1]["error_code"] == "unsupported" and envelope["meta"]["failed"] == 1
    assert "its bytes are not a PDF" in envelope["data"][1]["error"]


def test_sitemap_seeding(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/docs/a"), local, use_sitemap=True)
    found = paths(envelope, site)
    assert "/orphan" in found
    orphan = envelope["data"][found.index("/orphan")]
    assert orphan["metadata"]["depth"] == 1
    assert "/sitemap.xml" in site.paths()
    assert "/media/photo/1" not in site.paths()  # the <image:loc> of its picture is no page


def test_no_sitemap_is_read_when_the_seed_is_all_max_pages_allows(site: Any, local: Config) -> None:
    """Nothing it lists could be read: its requests (and its host's Crawl-delay) were spent for nothing."""
    assert paths(crawl(site.url("/docs/a"), local, use_sitemap=True, max_pages=1), site) == ["/docs/a"]
    assert "/sitemap.xml" not in site.paths()


@pytest.mark.parametrize(
    ("host", "warning"),
    [
        ("gz.site.test", None),
        ("gzbomb.site.test", "the URLs in its first 5,000,000 bytes were read"),
        ("nomap.site.test", "is not a sitemap"),
        ("relmap.site.test", None),  # ``Sitemap: /sitemap.xml``: read from the robots.txt's host
        ("loopmap.site.test", None),  # an index listing itself ten times before its sitemap
        ("badloc.site.test", None),  # a <loc> that is no URL (``http://[::1``) is passed over
        ("tmplmap.site.test", None),  # so is a ``Sitemap:`` line that is none (``https://[site-url]/``)
        ("relloc.site.test", None),  # a <loc> that is a path is read against its sitemap's URL
    ],
)
def test_a_gzipped_sitemap_is_read_and_one_that_cannot_be_is_named(
    host: str, warning: str | None, site: Any, named: Config
) -> None:
    """``Sitemap: /sitemap.xml.gz`` is read within the body cap (a bomb stops at it)."""
    envelope = crawl(f"http://{host}:{site.port}/docs/a", named, use_sitemap=True)
    found = [page["url"].rsplit(str(site.port), 1)[1] for page in envelope["data"]]
    said = [w for w in envelope["meta"].get("warnings", []) if "sitemap" in w]
    if warning is None:
        assert "/orphan" in found and said == []
        assert [path for host_seen, path in site.hits if host_seen == host].count("/sitemap-loop.xml") <= 1
    else:
        assert "/orphan" not in found and len(said) == 1 and warning in said[0], said


def test_without_robots_rules_the_sitemap_robots_txt_lists_is_still_read(site: Any, named: Config) -> None:
    """``respect_robots=False`` sets robots.txt's rules aside (its Crawl-delay too), not its sitemaps."""
    envelope = crawl(f"http://gz.site.test:{site.port}/docs/a", named, use_sitemap=True, respect_robots=False)
    assert ("gz.site.test", "/sitemap.xml.gz") in site.hits
    assert f"http://gz.site.test:{site.port}/orphan" in [page["url"] for page in envelope["data"]]
    # slowmap.site.test's robots.txt asks for 10 s between requests.
    envelope = crawl(
        f"http://slowmap.site.test:{site.port}/docs/a", named, use_sitemap=True, respect_robots=False,
        max_pages=3, timeout=5,
    )
    said = envelope["meta"].get("warnings", [])
    assert len(envelope["data"]) == 3 and not any("time limit" in w for w in said), envelope["meta"]


def test_the_sitemaps_read_are_those_of_the_host_the_seed_redirects_to(site: Any, named: Config) -> None:
    """The site moved to gz.site.test: its robots.txt names its sitemap; the old host's is not read."""
    moved = f"http://gz.site.test:{site.port}/docs/a"
    envelope = crawl(f"http://www.site.test:{site.port}/redirect/to?url={moved}", named, use_sitemap=True)
    assert ("gz.site.test", "/sitemap.xml.gz") in site.hits
    assert not [path for host, path in site.hits if host == "www.site.test" and "sitemap" in path]
    assert f"http://gz.site.test:{site.port}/orphan" in [page["url"] for page in envelope["data"]]


def test_a_robots_txt_that_redirects_to_another_hosts_is_read_once(site: Any, config_for: Any) -> None:
    """moved.site.test sends every address to site.test, its robots.txt too: that answer is
    site.test's, which was asked for again when the crawl got there."""
    config = config_for(allowed_hosts=["moved.site.test", "site.test"])
    envelope = crawl(f"http://moved.site.test:{site.port}/docs/a", config, max_depth=0)
    assert envelope["data"][0]["url"] == f"http://site.test:{site.port}/docs/a"
    assert site.hits.count(("site.test", "/robots.txt")) == 1


def test_a_sitemap_of_many_pages_queues_only_what_max_pages_can_use(site: Any, named: Config) -> None:
    """Queueing all 20,000 listed URLs held up the event loop for seconds, past the deadline."""
    events: list[dict[str, Any]] = []
    seed = f"http://bigmap.site.test:{site.port}/docs/a"
    envelope = crawl(seed, named, use_sitemap=True, max_pages=3, progress=events.append)
    assert len(envelope["data"]) == 3
    # The pages' own links, and a few times max_pages of the sitemap's.
    assert max(event["queued"] for event in events) < 100


def test_a_sitemap_longer_than_the_body_cap_gives_the_urls_at_its_beginning(site: Any, config_for: Any) -> None:
    """Of the 20,000 pages listed, a crawl takes a few: a sitemap over the cap gave none before."""
    config = config_for(allowed_hosts=["*.site.test"], max_response_bytes=100_000)
    envelope = crawl(f"http://bigmap.site.test:{site.port}/docs/a", config, use_sitemap=True, max_pages=3, include=["/listed/*"])
    assert [page["url"].rsplit("/", 2)[-2:] for page in envelope["data"]] == [["docs", "a"], ["listed", "0"], ["listed", "1"]]
    assert envelope["meta"]["warnings"][0] == (
        f"The sitemap http://bigmap.site.test:{site.port}/sitemap-big.xml is longer than web.max_response_bytes "
        "(100,000 bytes); the URLs in its first 100,000 bytes were read."
    )


def test_the_sitemap_urls_taken_are_those_the_crawl_would_follow(site: Any, named: Config) -> None:
    """The first URLs listed, left out by ``include``, used up what was taken; the page after
    them was never read, and a warning said that no link matched."""
    seed = f"http://bigmap.site.test:{site.port}/docs/a"
    envelope = crawl(seed, named, use_sitemap=True, max_pages=3, include=["/orphan"])
    assert [page["url"] for page in envelope["data"]] == [seed, f"http://bigmap.site.test:{site.port}/orphan"]
    assert "warnings" not in envelope["meta"]


def test_a_sitemap_still_waiting_for_its_crawl_delay_at_the_deadline_keeps_the_pages_read(
    site: Any, named: Config
) -> None:
    """The sitemap waits 10 s for the host's Crawl-delay; the call's 3 s deadline comes first:
    it is not requested (before, the crawl waited for it until the deadline)."""
    seed = f"http://slowmap.site.test:{site.port}/docs/a"
    envelope = crawl(seed, named, use_sitemap=True, timeout=3)
    assert [page["url"] for page in envelope["data"]] == [seed]
    said = envelope["meta"]["warnings"]
    assert f"The sitemap http://slowmap.site.test:{site.port}/sitemap.xml was not requested: requests to its host are kept 10 s apart" in said[0], said
    assert any("would have started past the call's time limit" in warning for warning in said), said
    assert "/sitemap.xml" not in site.paths()


def test_sitemaps_slow_to_come_leave_half_the_time_to_the_links_pages(site: Any, named: Config) -> None:
    """Ten sitemaps of 1.5 s each held the crawl until its deadline: the pages its seed links
    to were never read."""
    seed = f"http://slowmaps.site.test:{site.port}/docs/"
    envelope = crawl(seed, named, use_sitemap=True, max_depth=1, timeout=8)
    read = [page["url"].replace(f"http://slowmaps.site.test:{site.port}", "") for page in envelope["data"]]
    assert {"/docs/", "/docs/a", "/docs/b"} <= set(read), envelope["meta"]
    said = [w for w in envelope["meta"]["warnings"] if w.startswith("The sitemaps of")]
    assert said and "half the time the crawl had left" in said[0]
    assert sum(path.startswith("/sitemap-slow.xml") for path in site.paths()) < 10


def test_a_sitemap_that_takes_seconds_to_parse_ends_by_the_deadline(site: Any, config_for: Any) -> None:
    """It was parsed on the event loop, which nothing could interrupt: 20 MB of short entries
    held a 3 s crawl for seconds past its deadline."""
    roomy = config_for(allowed_hosts=["*.site.test"], max_response_bytes=25_000_000)
    seed = f"http://hugemap.site.test:{site.port}/docs/a"
    started = time.monotonic()
    envelope = crawl(seed, roomy, use_sitemap=True, max_depth=1, timeout=3)
    assert time.monotonic() - started < 3 + 1
    assert envelope["data"][0]["url"] == seed


def test_a_sitemap_index_of_fifty_thousand_sitemaps_half_of_another_site_ends_by_the_deadline(
    site: Any, config_for: Any
) -> None:
    """Each of its own sitemaps was looked for in a list of the others, on the event loop,
    which nothing could interrupt: an index of 50,000 held a 4 s crawl for many seconds."""
    roomy = config_for(allowed_hosts=["*.site.test"], max_response_bytes=25_000_000)
    seed = f"http://wideindex.site.test:{site.port}/docs/a"
    started = time.monotonic()
    envelope = crawl(seed, roomy, use_sitemap=True, max_depth=1, timeout=4)
    assert time.monotonic() - started < 4 + 1
    assert envelope["data"][0]["url"] == seed
    said = [w for w in envelope["meta"]["warnings"] if w.startswith("The sitemap index")]
    assert said and "lists 25,000 sitemaps of other sites (http://elsewhere.test/sitemap-0.xml, ...)" in said[0]


def test_a_crawl_stopped_by_its_deadline_names_the_crawl_delay_that_paced_it(site: Any, named: Config) -> None:
    """Its robots.txt asks for 10 s between requests: one page in 4 s read as a slow crawler."""
    seed = f"http://slowmap.site.test:{site.port}/docs/"
    envelope = crawl(seed, named, timeout=4)
    assert [page["url"] for page in envelope["data"]] == [seed]
    said = [w for w in envelope["meta"]["warnings"] if "time limit" in w]
    assert said and "Crawl-delay, kept between requests to a host: slowmap.site.test 10 s" in said[0], said
    # It ended at once, saying why, rather than waiting out the deadline for a turn past it.
    assert "the next request to slowmap.site.test would have started past the call's time limit" in said[0], said


def test_an_endless_site_keeps_a_queue_of_a_few_urls_per_page_to_read(site: Any, local: Config) -> None:
    """Every day of the calendar links to the next 200 days: the crawl holds no more than it can use."""
    events: list[dict[str, Any]] = []
    options = {"max_pages": 3, "max_depth": 20, "include": ["/calendar/*"], "progress": events.append}
    envelope = crawl(site.url("/calendar"), local, **options)
    assert paths(envelope, site) == ["/calendar", "/calendar/1", "/calendar/2"]
    assert max(event["queued"] for event in events) <= 2 * 4 * 3


def test_session_ids_in_links_do_not_make_one_page_many(site: Any, local: Config) -> None:
    """Each answer puts a new session id into every link: each page came back under every one."""
    envelope = crawl(site.url("/jsp/0"), local, max_pages=20, max_depth=5, include=["/jsp/*"])
    assert paths(envelope, site) == ["/jsp/0", "/jsp/1", "/jsp/2"]


def test_a_page_that_failed_is_named_as_requested_as_pages_read_are(site: Any, local: Config) -> None:
    """A link written with a raw space: its 404 item kept the space, where every page read is
    named percent-encoded, as requested."""
    envelope = crawl(site.url("/spaced-links"), local, max_depth=1)
    named = {page["url"]: page.get("error_code") for page in envelope["data"]}
    assert named.get(site.url("/gone%20page")) == "not_found", named
    assert not any(" " in url for url in named), named


def test_a_page_not_requested_for_its_hosts_pause_is_named_as_its_item_is(site: Any, local: Config) -> None:
    """Its item was named percent-encoded, its sentence with the link's raw space."""
    envelope = crawl(site.url("/busy-links?spaced=1"), local, timeout=4, **ONE_AT_A_TIME)
    unasked = [page for page in envelope["data"] if "was not requested" in page.get("error", "")]
    assert site.url("/docs/old%20page") in [page["url"] for page in unasked], envelope["data"]
    for page in unasked:
        assert page["error"].startswith(f"{page['url']} was not requested"), page


def test_links_longer_than_the_url_limit_are_not_followed(site: Any, local: Config) -> None:
    """A query that doubles on every page, and links under a long ``<base href>``: such URLs
    were requested (5,000 of them under a 60 KB base held 600 MB in the calling process)."""
    envelope = crawl(site.url("/grow?q=" + "a" * 300), local, max_pages=20, max_depth=20, include=["/grow*"])
    assert [len(page["url"]) - len(site.url("/grow?q=")) for page in envelope["data"]] == [300, 600, 1200]
    envelope = crawl(site.url("/long-base"), local, max_depth=1)
    assert "/docs/a" in paths(envelope, site) and all("bbb" not in path for path in paths(envelope, site))
    # A <base> that names no parsable URL (a template's ``https://[site-url]/``) is passed by, as in browsers.
    envelope = crawl(site.url("/placeholder/base"), local, max_depth=1)
    assert paths(envelope, site)[0] == "/placeholder/base" and "/docs/a" in paths(envelope, site)
    # Nor is one of a scheme no page is fetched with: links read against it were followed nowhere.
    envelope = crawl(site.url("/placeholder/script-base"), local, max_depth=1)
    assert paths(envelope, site)[0] == "/placeholder/script-base" and "/docs/a" in paths(envelope, site)
    assert max(len(path) for path in site.paths()) <= 2_048


def test_a_frameset_site_is_crawled_through_its_frames(site: Any, local: Config) -> None:
    """A frameset page has no links of its own but its frames: the crawl ended at its seed."""
    envelope = crawl(site.url("/frames/"), local, max_depth=1)
    assert paths(envelope, site) == ["/frames/", "/docs/a", "/docs/b"]
    assert not any("frame" in w for w in envelope["meta"].get("warnings", []))  # they were read: nothing to tell


def test_pages_of_thousands_of_links_end_by_the_deadline_with_the_pages_read(site: Any, config_for: Any) -> None:
    """Each page links to 5,000 new ones: handling them held the crawl past its deadline, and the
    call failed with timeout, every page read lost. (Their text is read whole, which is quick,
    so that many pages arrive together.)"""
    config = config_for(allow_private_networks=True, extraction={"max_html_elements": 100})
    options = {"max_pages": 1000, "max_depth": 20, "per_host_concurrency": 8, "timeout": 8}
    envelope = crawl(site.url("/facets/0"), config, **options)
    assert envelope["data"][0]["url"] == site.url("/facets/0")
    assert "time limit was nearly reached" in envelope["meta"]["warnings"][0]


def test_include_patterns_that_match_no_link_are_named(site: Any, local: Config) -> None:
    """``/docs`` matches that path alone, not the section: a crawl of the seed alone says why."""
    envelope = crawl(site.url("/"), local, include=["/docs"])
    assert paths(envelope, site) == ["/"]
    assert envelope["meta"]["warnings"][-1] == (
        "No link found matched include ['/docs']: a pattern that starts with '/' matches a link's "
        "whole path and query ('/docs/*' for a section), any other its whole URL."
    )
    assert "No link" not in str(crawl(site.url("/"), local, include=["/docs/*"])["meta"])


def test_include_and_exclude_patterns(site: Any, local: Config) -> None:
    only_docs = paths(crawl(site.url("/"), local, include=["/docs/*"], max_pages=100), site)
    assert only_docs[0] == "/"
    assert all(p.startswith("/docs/") for p in only_docs[1:]) and "/docs/b" in only_docs
    site.reset()
    no_articles = paths(crawl(site.url("/"), local, exclude=["*/articles/*"], max_pages=100), site)
    assert not any(p.startswith("/articles/") for p in no_articles)
    assert "/docs/" in no_articles
    assert "/articles/retries" not in site.paths()


def test_only_a_star_is_a_wildcard_in_patterns(site: Any, local: Config) -> None:
    """A filter's brackets and query mark stand for themselves: as a glob's class, ``[0]``
    matched no link, and the exclude left every filter page in."""
    filters = ["/shoes?f[0]=color:red", "/shoes?f[0]=color:blue"]
    assert set(filters) <= set(paths(crawl(site.url("/shoes"), local, max_depth=1, max_pages=100), site))
    site.reset()
    excluded = crawl(site.url("/shoes"), local, max_depth=1, max_pages=100, exclude=["*f[0]=*"])
    assert not set(filters) & set(paths(excluded, site))
    site.reset()
    red = paths(crawl(site.url("/shoes"), local, max_depth=1, include=["/shoes?f[0]=color:r*"]), site)
    assert red == ["/shoes", filters[0]]


@pytest.fixture
def named(config_for: Any) -> Config:
    return config_for(allowed_hosts=["*.site.test", "other.test"])


def hosts(envelope: dict[str, Any]) -> set[str]:
    """Hosts of the pages that were read."""
    from urllib.parse import urlsplit

    return {urlsplit(page["url"]).hostname for page in envelope["data"] if "error" not in page}


def test_scope_host_is_the_default(site: Any, named: Config) -> None:
    envelope = crawl(f"http://www.site.test:{site.port}/", named, max_pages=100)
    assert hosts(envelope) == {"www.site.test"}
    assert {host for host, _ in site.hits} == {"www.site.test"}


@pytest.mark.parametrize("name", ["münchen", "xn--mnchen-3ya"])
def test_a_host_outside_ascii_is_one_host_however_a_link_spells_it(name: str, site: Any, named: Config) -> None:
    """``münchen.site.test`` and ``xn--mnchen-3ya.site.test`` are one host, the second how it is
    sent: a crawl of the ASCII spelling passed by every link written the other way, and one of
    the other read each page twice."""
    envelope = crawl(f"http://{name}.site.test:{site.port}/idn/", named, max_depth=1, include=["/docs/a", "/docs/b"])
    seen = [page["url"].replace(f":{site.port}", "") for page in envelope["data"]]
    assert seen == [f"http://xn--mnchen-3ya.site.test{path}" for path in ("/idn/", "/docs/a", "/docs/b")]
    assert sorted(path for _, path in site.hits) == ["/docs/a", "/docs/b", "/idn/", "/robots.txt"]


def test_a_crawl_kept_to_its_host_names_the_other_hosts_of_the_site_it_links_to(site: Any, named: Config) -> None:
    """A site whose links all name ``www.`` (or its blog's host) read as a site of one page."""
    envelope = crawl(f"http://www.site.test:{site.port}/", named, max_pages=100)
    said = [w for w in envelope["meta"]["warnings"] if "other hosts of the site" in w]
    assert said == [
        "1 page linked on other hosts of the site (blog.site.test) was not followed: scope 'host' keeps to "
        f"www.site.test:{site.port}; pass scope='domain' to crawl them too."  # the port is not http's own
    ]
    wider = crawl(f"http://www.site.test:{site.port}/", named, scope="domain", max_pages=100)
    assert not any("other hosts" in w for w in wider["meta"]["warnings"])


def test_scope_domain(site: Any, named: Config) -> None:
    envelope = crawl(f"http://www.site.test:{site.port}/", named, scope="domain", max_pages=100)
    assert hosts(envelope) == {"www.site.test", "blog.site.test"}


def test_scope_any(site: Any, named: Config) -> None:
    envelope = crawl(f"http://www.site.test:{site.port}/", named, scope="any", max_pages=100)
    assert hosts(envelope) == {"www.site.test", "blog.site.test", "other.test"}
    # The article's external reference does not resolve (the test resolver knows no such name).
    external = next(p for p in envelope["data"] if p["url"] == "https://external.example/ttl")
    assert external["error_code"] == "network_error"


def test_scope_any_still_refuses_unsafe_links(site: Any, config_for: Any) -> None:
    """A page may link anywhere; a link to a host that is not allowed is an unsafe_url item."""
    config = config_for(allowed_hosts=["www.site.test"])
    envelope = crawl(f"http://www.site.test:{site.port}/", config, scope="any", max_pages=100)
    refused = {p["url"] for p in envelope["data"] if p.get("error_code") == "unsafe_url"}
    assert f"http://blog.site.test:{site.port}/articles/retries" in refused
    assert {host for host, _ in site.hits} == {"www.site.test"}


def test_failing_pages_do_not_fail_the_crawl(site: Any, local: Config) -> None:
    envelope = crawl(site.url("/"), local)
    missing = next(p for p in envelope["data"] if p["url"] == site.url("/missing"))
    assert missing["error_code"] == "not_found"
    assert missing["metadata"]["depth"] == 1
    assert sum("error" not in p for p in envelope["data"]) >= 8


def test_progress_events(site: Any, local: Config) -> None:
    events: list[dict[str, Any]] = []
    envelope = crawl(site.url("/"), local, max_pages=6, progress=events.append)
    assert [e["pages"] for e in events] == [1, 2, 3, 4, 5, 6]
    assert all(e["max_pages"] == 6 for e in events)
    assert {e["url"] for e in events} == {p["url"] for p in envelope["data"]}


@pytest.mark.parametrize("failure", [RuntimeError("terminal gone"), SystemExit(2)], ids=["error", "exit"])
def test_a_broken_progress_callback_does_not_end_the_crawl(site: Any, local: Config, failure: BaseException) -> None:
    """The callback is the caller's: one that fails, or calls ``sys.exit()``, is switched off
    and the crawl goes on (an exit ended it as the provider's failure, which cooled ``http`` down)."""

    def broken(event: dict[str, Any]) -> None:
        raise failure

    envelope = crawl(site.url("/docs/"), local, progress=broken)
    assert len(envelope["data"]) > 1
    assert any("progress callback failed" in w for w in envelope["meta"]["warnings"])


@pytest.mark.skipif(sys.version_info < (3, 11), reason="a task's own cancellation is told apart from 3.11 on")
def test_a_progress_callback_raising_a_cancellation_of_its_own_does_not_end_the_crawl(
    site: Any, local: Config
) -> None:
    """A coroutine callback awaiting a task of the caller's that was cancelled raises
    ``CancelledError``: taken for the crawl's own end, it failed the crawl as ``http``'s
    ``provider_error``, every page lost (five such cooled ``http`` down)."""

    async def awaits_a_cancelled_task(event: dict[str, Any]) -> None:
        task = asyncio.ensure_future(asyncio.sleep(10))
        task.cancel()
        await task

    envelope = crawl(site.url("/docs/"), local, progress=awaits_a_cancelled_task)
    assert len(envelope["data"]) > 1
    assert any("progress callback failed (CancelledError)" in w for w in envelope["meta"]["warnings"])


def test_a_progress_callback_that_never_returns_keeps_the_pages_read(site: Any, local: Config) -> None:
    """The crawl stops waiting for it at its deadline, as for a page, and returns what it has."""
    events: list[dict[str, Any]] = []

    async def stuck(event: dict[str, Any]) -> None:
        events.append(event)
        if len(events) == 2:
            await asyncio.sleep(60)

    envelope = crawl(site.url("/docs/"), local, max_depth=1, progress=stuck, timeout=3)
    assert len(events) == 2 and {event["url"] for event in events} <= {page["url"] for page in envelope["data"]}
    assert "The progress callback did not return before the call's time limit; it was switched off." in (
        envelope["meta"]["warnings"]
    )


ONE_AT_A_TIME = {"max_depth": 1, "concurrency": 1, "per_host_concurrency": 1}


@pytest.mark.parametrize(("status", "code"), [(429, "rate_limited"), (503, "bad_gateway")])
def test_a_host_that_answers_with_retry_after_gets_no_request_before_it(
    status: int, code: str, site: Any, local: Config
) -> None:
    envelope = crawl(site.url(f"/busy-links?after=1&status={status}"), local, **ONE_AT_A_TIME)
    arrived = dict(zip(site.paths(), site.times, strict=True))
    assert arrived["/docs/a"] - arrived[f"/busy?after=1&status={status}"] >= 1.0
    assert [(page["url"], page.get("error_code")) for page in envelope["data"]] == [
        (site.url(f"/busy-links?after=1&status={status}"), None),
        (site.url(f"/busy?after=1&status={status}"), code),
        (site.url("/docs/a"), None),
        (site.url("/docs/b"), None),
    ]


@pytest.mark.parametrize("header", ["RateLimit-Reset", "X-RateLimit-Reset"])
def test_a_host_that_answers_503_with_a_rate_limit_reset_alone_is_not_paused(
    header: str, site: Any, local: Config
) -> None:
    """Its reset says when a quota renews: it was taken for the outage's Retry-After, and the
    host's other pages were never requested (``rate_limited`` items)."""
    busy = f"/busy?status=503&after=none&reset=30&reset_header={header}"
    envelope = crawl(site.url(f"/busy-links?status=503&after=none&reset=30&reset_header={header}"), local,
                     timeout=10, **ONE_AT_A_TIME)
    assert [(page["url"], page.get("error_code")) for page in envelope["data"]] == [
        (site.url(f"/busy-links?status=503&after=none&reset=30&reset_header={header}"), None),
        (site.url(busy), "bad_gateway"),
        (site.url("/docs/a"), None),
        (site.url("/docs/b"), None),
    ]
    assert "retry_after" not in envelope["data"][1] and site.paths().count(busy) == 1


def test_a_host_that_answers_429_without_retry_after_is_slowed_down_and_asked_again(
    site: Any, local: Config
) -> None:
    """It serves one page per 0.5 s: before, the crawl went on at full speed, and most of its
    pages were rate_limited items."""
    envelope = crawl(site.url("/throttled/"), local, max_depth=1, timeout=30)
    assert [page.get("error_code") for page in envelope["data"]] == [None] * 7
    assert site.paths().count("/throttled/") == 1


def test_a_sitemap_of_a_host_paused_past_the_deadline_is_not_waited_for(site: Any, local: Config) -> None:
    """The seed asks for an hour's pause: its sitemap waited for it, and held the call until its
    deadline, which a warning then blamed for a crawl that had ended at once."""
    started = time.monotonic()
    envelope = dispatch_crawl(site.url("/busy?after=3600"), backend="http", config=local, use_sitemap=True, timeout=10)
    assert time.monotonic() - started < 5
    assert (envelope["error_code"], envelope["retry_after"]) == ("rate_limited", 3600)
    assert envelope["meta"]["warnings"] == [
        f"The sitemap {site.url('/sitemap.xml')} was not requested: its host asked for a pause (Retry-After) "
        "that lasts 3600 s more, past the call's time limit; crawling from links only."
    ]


def test_pages_of_a_host_paused_past_the_deadline_are_not_requested(site: Any, local: Config) -> None:
    """/busy asks for 7 s; the call has 4: its host's other pages say so without being asked for."""
    envelope = crawl(site.url("/busy-links"), local, timeout=4, **ONE_AT_A_TIME)
    assert [page.get("error_code") for page in envelope["data"]] == [None, "rate_limited", "rate_limited", "rate_limited"]
    unasked = envelope["data"][2]
    assert "was not requested: its host asked for a pause (Retry-After)" in unasked["error"]
    assert unasked["retry_after"] > 5
    assert "/docs/a" not in site.paths() and "/docs/b" not in site.paths()
    assert "warnings" not in envelope["meta"]


def test_deadline_returns_what_was_crawled(site: Any, local: Config) -> None:
    envelope = dispatch_crawl(
        site.url("/slowlinks"), backend="http", config=local, timeout=2, per_host_concurrency=3, max_depth=1
    )
    assert envelope["success"] is True
    found = paths(envelope, site)
    assert found == ["/slowlinks", "/docs/a"]
    assert any("time limit" in w for w in envelope["meta"]["warnings"])


def test_a_crawl_cut_short_by_its_deadline_is_not_cached(site: Any, config_for: Any) -> None:
    """Its warning says to pass a larger timeout: that call must not get the same pages back."""
    cached = config_for(allow_private_networks=True, cache={"ttl": {"crawl": 600}})
    for _ in range(2):
        envelope = crawl(site.url("/slowlinks"), cached, timeout=4, per_host_concurrency=3, max_depth=1)
        assert "cached" not in envelope["meta"] and any("time limit" in w for w in envelope["meta"]["warnings"])
    assert site.paths().count("/slowlinks") == 2
    whole = [crawl(site.url("/docs/a"), cached, max_depth=0) for _ in range(2)]
    assert whole[1]["meta"]["cached"] is True  # a crawl that ended of itself still is


def test_a_seed_that_does_not_arrive_in_time_is_a_timeout_of_that_page(site: Any, config_for: Any) -> None:
    # Before, the crawl returned nothing and the call was a provider_error, which counted
    # towards http's cool-down: a few slow sites cooled it down for every caller. One failure
    # cools http down here, so a second call (and the last crawl) shows whether it counted.
    local = config_for(allow_private_networks=True, health={"failures": 1})
    for _ in range(2):
        envelope = dispatch_crawl(site.url("/slow?n=1"), backend="http", config=local, timeout=1)
        assert envelope["error_code"] == "timeout" and envelope["retryable"] is True
        assert envelope["meta"]["failures"] == [{
            "url": site.url("/slow?n=1"),
            "error": f"{site.url('/slow?n=1')} could not be read before the call's time limit.",
            "error_code": "timeout",
        }]
    assert crawl(site.url("/docs/a"), local, max_depth=0)["data"][0]["title"] == "Getting started"


def test_a_seed_whose_robots_txt_does_not_arrive_in_time_says_so(site: Any, named: Config) -> None:
    """The page itself answers at once: the timeout named only the page, which a person then
    found quick in a browser."""
    seed = f"http://slowbots.site.test:{site.port}/docs/a"
    envelope = dispatch_crawl(seed, backend="http", config=named, timeout=1)
    assert envelope["error_code"] == "timeout", envelope
    assert envelope["error"] == (
        f"{seed} could not be read before the call's time limit "
        "(its site's robots.txt, asked for first, had not arrived)."
    )


@pytest.mark.parametrize("respect_robots", [True, False])
def test_a_seed_behind_a_proxy_that_never_opens_its_tunnel_names_the_proxy(
    stalled_proxy: int, config_for: Any, respect_robots: bool
) -> None:
    """Neither robots.txt nor the page itself was reached: the timeout said robots.txt (or
    the page) had not arrived, where an extract of the same page names the proxy."""
    port = stalled_proxy
    config = config_for(proxy=f"http://user:Pw0rdSecret@127.0.0.1:{port}", proxy_resolves_names=True)
    seed = "https://docs.unresolvable.org/"
    envelope = dispatch_crawl(seed, backend="http", config=config, timeout=2, respect_robots=respect_robots)
    assert envelope["error_code"] == "timeout", envelope
    robots = " (its site's robots.txt, asked for first, had not arrived)" if respect_robots else ""
    assert envelope["error"] == (
        f"{seed} could not be read before the call's time limit{robots}: the proxy at 127.0.0.1:{port} "
        "had not opened its tunnel to docs.unresolvable.org. Check the proxy in web.proxy."
    ), envelope
    assert "Pw0rdSecret" not in str(envelope)


@pytest.mark.parametrize("respect_robots", [True, False])
def test_a_seed_whose_name_the_proxy_cannot_resolve_names_the_proxy_not_robots_txt(
    http_server: Any, config_for: Any, respect_robots: bool
) -> None:
    """An ``http://`` site is asked for through the proxy, which answers 503 itself when it
    cannot look the name up (Squid's ``ERR_DNS_FAIL``): the crawl read "robots.txt does not
    allow crawling … pass respect_robots=False", and without robots "failed on its side"."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(503, "Service Unavailable")
            self.send_header("X-Squid-Error", "ERR_DNS_FAIL 0")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    port = http_server(Handler).server_address[1]
    config = config_for(proxy=f"http://user:Pw0rdSecret@127.0.0.1:{port}", proxy_resolves_names=True)
    envelope = dispatch_crawl("http://docs.unresolvable.org/", backend="http", config=config, respect_robots=respect_robots)
    assert envelope["error_code"] == "network_error", envelope
    assert f"through the proxy at 127.0.0.1:{port}, which answered HTTP 503 Service Unavailable itself (ERR_DNS_FAIL)" in (
        envelope["error"]
    ), envelope
    assert "robots.txt does not allow" not in envelope["error"] and "Pw0rdSecret" not in str(envelope)


@pytest.mark.parametrize(
    "options",
    [
        {"scope": "planet"}, {"max_pages": 0}, {"max_depth": -1}, {"include": 5}, {"progress": "bar"}, {"delay": -1},
        # Every link is matched against every pattern: 5,000 held a crawl seconds past its deadline.
        {"exclude": [f"/nothing{n}/*" for n in range(101)]}, {"include": ["/" + "a" * 2_048 + "*"]},
    ],
)
def test_bad_options_are_invalid_input(options: dict[str, Any], site: Any, local: Config) -> None:
    envelope = dispatch_crawl(site.url("/"), backend="http", config=local, **options)
    assert envelope["success"] is False
    assert envelope["error_code"] == "invalid_input"
    assert site.paths() == []


def test_async_twin(site: Any, local: Config) -> None:
    envelope = asyncio.run(adispatch_crawl(site.url("/docs/"), backend="http", config=local, max_depth=1))
    assert envelope["success"] is True
    found = paths(envelope, site)
    assert found[0] == "/docs/"
    assert found.index("/docs/a") < found.index("/docs/b") < found.index("/readme.md")


def test_cli_progress_bar(site: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``webproviders crawl URL`` on a terminal draws progress from the crawl's events."""
    from webproviders import cli

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    config = tmp_path / "config.yaml"
    config.write_text("web:\n  allow_private_networks: true\n")
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = cli.main(["--config", str(config), "crawl", site.url("/docs/"), "--max-pages", "3"])
    assert code == 0
    assert "crawled 1/3 pages" in terminal.getvalue()
    assert "crawled 3/3 pages" in terminal.getvalue()
    assert "Everything you need to run the service" in capsys.readouterr().out


def test_cli_crawl_takes_a_timeout(site: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, a crawl from the command line had web.timeout and nothing else: the config
    file was edited for one longer (or shorter) crawl."""
    import json

    from webproviders import cli

    config = tmp_path / "config.yaml"
    config.write_text("web:\n  allow_private_networks: true\n  timeout: 60\n")
    started = time.monotonic()
    argv = ["--config", str(config), "crawl", site.url("/slowlinks"), "--max-depth", "1", "--timeout", "2", "--json"]
    code = cli.main(argv)
    assert time.monotonic() - started < 2 + 1.5
    envelope = json.loads(capsys.readouterr().out)
    assert code == 0 and envelope["data"][0]["url"] == site.url("/slowlinks")
    assert any("time limit" in warning for warning in envelope["meta"]["warnings"])
    assert cli.main(["--config", str(config), "crawl", site.url("/docs/a"), "--timeout", "0", "--json"]) == 2
    assert "timeout must be a number of seconds above 0" in json.loads(capsys.readouterr().out)["error"]


def test_a_big_robots_txt_is_read_off_the_event_loop(site: Any, named: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """protego took 330 ms to parse a robots.txt of 20,000 rules (500 KiB, which some large
    sites serve) and 15 ms to match each URL against it, all on the crawl's event loop: every
    other call on that loop stood still meanwhile. A big file is read on a thread now; a small
    one where it arrives. Which thread protego works on is watched, not timed."""

    from protego import Protego

    threads: dict[str, set[str]] = {"parse": set(), "match": set()}
    parse, can_fetch = Protego.parse.__func__, Protego.can_fetch  # type: ignore[attr-defined]

    def watched_parse(cls: Any, content: str) -> Any:
        threads["parse"].add(threading.current_thread().name)
        return parse(cls, content)

    def watched_can_fetch(self: Any, url: str, user_agent: str) -> bool:
        threads["match"].add(threading.current_thread().name)
        return bool(can_fetch(self, url, user_agent))

    monkeypatch.setattr(Protego, "parse", classmethod(watched_parse))
    monkeypatch.setattr(Protego, "can_fetch", watched_can_fetch)

    async def crawl_on_a_loop(seed: str) -> tuple[dict[str, Any], str]:
        envelope = await adispatch_crawl(seed, backend="http", config=named, max_pages=10, timeout=60)
        return envelope, threading.current_thread().name

    envelope, loop_thread = asyncio.run(crawl_on_a_loop(f"http://bigbots.site.test:{site.port}/"))
    assert envelope["success"] is True, envelope
    read = [page["url"] for page in envelope["data"]]
    assert len(read) == 10 and not any("/private/" in url for url in read)
    assert threads["parse"] and threads["match"] and loop_thread not in threads["parse"] | threads["match"]
    threads["parse"].clear()
    threads["match"].clear()
    envelope, loop_thread = asyncio.run(crawl_on_a_loop(f"http://www.site.test:{site.port}/"))  # 1 KiB: no thread hop
    assert envelope["success"] is True, envelope
    assert threads["parse"] == threads["match"] == {loop_thread}


class _Site(BaseHTTPRequestHandler):
    """A small site on 127.0.0.1 (see :func:`small_site`)."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.seen.append(self.path)  # type: ignore[attr-defined]
        answer = self.server.answer(self)  # type: ignore[attr-defined]
        kind, text = answer or ("text/plain", "User-agent: *\nAllow: /\n")
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def small_site(serve: Any, answer: Any) -> Any:
    """A site on 127.0.0.1 whose every path is answered 200 with ``answer(handler)``'s
    ``(content type, text)``; None is a robots.txt that allows everything. The paths asked
    are in the server's ``seen``."""
    from http.server import ThreadingHTTPServer

    server = serve(ThreadingHTTPServer(("127.0.0.1", 0), _Site))
    server.seen, server.answer = [], answer
    return server


def _links_page(path: str, links: Any, head: str = "") -> tuple[str, str]:
    """An HTML page of a small site about crawling, its ``links`` listed."""
    items = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    text = f"This page at {path} is part of a small site that talks about crawling politely. " * 3
    return "text/html", f"<html><head>{head}</head><body><article><h1>Page</h1><p>{text}</p><ul>{items}</ul></article></body></html>"


def test_scope_host_keeps_to_the_seeds_port(serve: Any, local: Config) -> None:
    """A link to another port of the seed's host is another service (an administrator's
    console, a search engine's API), not more of the site: scope ``host`` read it as the
    site's own. Scope ``domain`` is the whole site, every port of it."""

    def server() -> Any:
        made = small_site(serve, lambda page: None if page.path == "/robots.txt" else _links_page(page.path, made.links))
        made.links = []
        return made

    site, console = server(), server()
    site.links = ["/about", f"http://127.0.0.1:{console.server_address[1]}/admin"]
    seed = f"http://127.0.0.1:{site.server_address[1]}/"
    envelope = crawl(seed, local, max_pages=10)
    assert [page["url"] for page in envelope["data"]] == [seed, f"{seed}about"]
    assert console.seen == []
    wide = crawl(seed, local, max_pages=10, scope="domain")
    assert f"http://127.0.0.1:{console.server_address[1]}/admin" in [page["url"] for page in wide["data"]]


def test_a_page_queued_under_the_canonical_address_another_page_names_is_not_read_again(serve: Any, local: Config) -> None:
    """A copy of a page (``/c?ref=home``) names ``/c`` its canonical address: ``/c``, queued by
    then behind the pages before it, was still requested, and the same page came back twice."""

    def answer(page: Any) -> tuple[str, str] | None:
        head = '<link rel="canonical" href="/c">' if page.path.startswith("/c") else ""
        return None if page.path == "/robots.txt" else _links_page(page.path, ("/c?ref=home", "/x", "/y", "/c"), head)

    site = small_site(serve, answer)
    seed = f"http://127.0.0.1:{site.server_address[1]}/"
    envelope = crawl(seed, local, max_depth=1, concurrency=1)
    assert [page["url"] for page in envelope["data"]] == [seed, f"{seed}c?ref=home", f"{seed}x", f"{seed}y"]
    assert "/c" not in site.seen


def test_a_pattern_names_a_page_however_its_link_spells_its_characters(serve: Any, local: Config) -> None:
    """A wiki writes its links percent-encoded (``/wiki/Sp%C3%A9cial:Recherche``): an exclude
    written as a reader spells it, ``/wiki/Spécial:*``, left every such page in, and an include
    written as the links are, in lower-case escapes, matched a link spelled ``Café`` nowhere."""
    links = ("/wiki/Sp%C3%A9cial:Recherche", "/wiki/Spécial:Historique", "/wiki/Café", "/wiki/Caf%C3%A9_noir", "/wiki/Th%C3%A9")

    def answer(page: Any) -> tuple[str, str] | None:
        if page.path == "/robots.txt":
            return None
        items = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
        text = "Une page d'un petit wiki qui parle de cuisine et de boissons chaudes. " * 3
        html = f'<html><head><meta charset="utf-8"></head><body><article><h1>Wiki</h1><p>{text}</p><ul>{items}</ul></article></body></html>'
        return "text/html; charset=utf-8", html

    seed = f"http://127.0.0.1:{small_site(serve, answer).server_address[1]}/"

    def read(**patterns: Any) -> list[str]:
        envelope = crawl(seed, local, max_depth=1, **patterns)
        return [page["url"].removeprefix(seed[:-1]) for page in envelope["data"][1:]]

    assert read(exclude=["/wiki/Spécial:*"]) == ["/wiki/Caf%C3%A9", "/wiki/Caf%C3%A9_noir", "/wiki/Th%C3%A9"]
    assert read(include=["/wiki/Caf%c3%a9*"]) == ["/wiki/Caf%C3%A9", "/wiki/Caf%C3%A9_noir"]


def test_a_sitemap_index_listing_another_sites_sitemaps_does_not_send_the_crawl_there(serve: Any, named: Config) -> None:
    """An index names only its own site's sitemaps (the protocol): one that listed another
    site's sent a crawl kept to its host there. One on another host of its own site is read."""

    def answer(page: Any) -> tuple[str, str]:
        here = f"http://{page.headers['Host']}"
        pages = {
            "/robots.txt": ("text/plain", "User-agent: *\nAllow: /\nSitemap: /index.xml\n"),
            "/index.xml": ("application/xml", "<sitemapindex>" + "".join(
                f"<sitemap><loc>{loc}</loc></sitemap>" for loc in (f"{here}/pages.xml", *page.server.elsewhere)
            ) + "</sitemapindex>"),
            "/pages.xml": ("application/xml", f"<urlset><url><loc>{here}/listed</loc></url></urlset>"),
        }
        return pages.get(page.path, ("text/html", f"<html><body><article><h1>{page.path}</h1><p>{'A page of the site. ' * 20}</p></article></body></html>"))

    site, other = small_site(serve, answer), small_site(serve, answer)
    other.elsewhere = []
    site.elsewhere = [f"http://other.test:{other.server_address[1]}/pages.xml", f"http://blog.site.test:{other.server_address[1]}/pages.xml"]
    seed = f"http://www.site.test:{site.server_address[1]}/"
    envelope = crawl(seed, named, use_sitemap=True)
    assert [page["url"] for page in envelope["data"]] == [seed, f"{seed}listed"]
    assert other.seen == ["/pages.xml"]  # blog.site.test's: what it lists is another host's, not crawled
    assert "lists 1 sitemap of other sites (http://other.test:" in " ".join(envelope["meta"]["warnings"])


def test_a_page_that_arrives_after_a_copy_naming_it_its_canonical_address_is_not_returned_again(serve: Any, local: Config) -> None:
    """``/c?ref=home`` and ``/c`` are fetched at once, and the copy, read first, names ``/c``
    its canonical address: ``/c`` came back too, the same page twice. Here ``/c`` answers only
    once a page linked from the copy is asked for, so the copy has been read by then."""
    after = threading.Event()

    def answer(page: Any) -> tuple[str, str] | None:
        if page.path == "/robots.txt":
            return None
        if page.path == "/after":
            after.set()
        if page.path == "/c":
            after.wait(10)
        links = {"/": ("/c?ref=home", "/c"), "/c?ref=home": ("/after",), "/c": ("/after",)}.get(page.path, ())
        head = '<link rel="canonical" href="/c">' if page.path.startswith("/c") else ""
        return _links_page(page.path.split("?")[0], links, head)

    seed = f"http://127.0.0.1:{small_site(serve, answer).server_address[1]}/"
    envelope = crawl(seed, local, max_depth=2)
    assert [page["url"] for page in envelope["data"]] == [seed, f"{seed}c?ref=home", f"{seed}after"]


def test_a_sitemap_in_the_protocols_text_form_is_read(serve: Any, local: Config) -> None:
    """``Sitemap: /sitemap.txt``, one URL a line, as the protocol allows and site generators
    write: it was 'not a sitemap', and the page only it lists was never read."""

    def answer(page: Any) -> tuple[str, str]:
        here = f"http://{page.headers['Host']}"
        pages = {
            "/robots.txt": ("text/plain", "User-agent: *\nAllow: /\nSitemap: /sitemap.txt\n"),
            "/sitemap.txt": ("text/plain; charset=utf-8", f"{here}/\n{here}/listed\n"),
        }
        return pages.get(page.path, ("text/html", f"<html><body><article><h1>{page.path}</h1><p>{'A page of the site. ' * 20}</p></article></body></html>"))

    seed = f"http://127.0.0.1:{small_site(serve, answer).server_address[1]}/"
    envelope = crawl(seed, local, use_sitemap=True)
    assert [page["url"] for page in envelope["data"]] == [seed, f"{seed}listed"]
    assert "warnings" not in envelope["meta"] or not envelope["meta"]["warnings"], envelope["meta"]


def test_a_link_naming_a_pages_query_parameters_in_another_order_is_that_page(serve: Any, local: Config) -> None:
    """A shop's filter links name their parameters in every order (``?color=red&size=m``,
    ``?size=m&color=red``): each order was read as a page. The page is asked for as the first
    link spelled it; a name given twice keeps its values' order (``?tag=a&tag=b`` is not ``?tag=b&tag=a``)."""
    links = ("/shoes?color=red&size=m", "/shoes?size=m&color=red", "/shoes?tag=a&tag=b", "/shoes?tag=b&tag=a")

    def answer(page: Any) -> tuple[str, str] | None:
        if page.path == "/robots.txt":
            return None
        items = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links) if page.path == "/" else ""
        text = "Shoes for every season, in every colour and size, delivered to your door. " * 3
        return "text/html", f"<html><body><article><h1>Shoes</h1><p>{text}</p><ul>{items}</ul></article></body></html>"

    shop = small_site(serve, answer)
    seed = f"http://127.0.0.1:{shop.server_address[1]}/"
    envelope = crawl(seed, local, max_depth=1)
    read = [page["url"].removeprefix(seed[:-1]) for page in envelope["data"]]
    assert read == ["/", "/shoes?color=red&size=m", "/shoes?tag=a&tag=b", "/shoes?tag=b&tag=a"]
    assert sorted(shop.seen) == sorted(["/robots.txt", *read])


def test_a_copy_of_a_page_read_that_names_it_its_canonical_address_is_not_returned_again(serve: Any, local: Config) -> None:
    """A static site's ``/index.html`` is its ``/``, and says so: it came back as a second page,
    the same text. A page that names another by mistake (``/about``, its text its own) is kept."""

    def answer(page: Any) -> tuple[str, str] | None:
        if page.path == "/robots.txt":
            return None
        text = ("Who we are and what we do. " if page.path == "/about" else "Welcome to a small site about gardening. ") * 5
        return "text/html", ('<html><head><link rel="canonical" href="/"></head><body><article><h1>Garden</h1>'
                             f'<p>{text}</p><a href="/index.html">Home</a> <a href="/about">About</a></article></body></html>')

    site = small_site(serve, answer)
    seed = f"http://127.0.0.1:{site.server_address[1]}/"
    envelope = crawl(seed, local, max_depth=1)
    assert [page["url"] for page in envelope["data"]] == [seed, f"{seed}about"]
    assert "/index.html" in site.seen


def test_each_page_after_the_first_takes_a_slot_of_the_request_budget(site: Any, config_for: Any) -> None:
    """With two requests a minute, the crawl reads two pages, asks the site for no third, and
    says why. Before, a crawl took one slot of http's rate_limit whatever it read."""
    config = config_for(allow_private_networks=True, cache=False, providers={"http": {"rate_limit": "2/min"}})
    envelope = crawl(site.url("/"), config, max_pages=5, respect_robots=False, use_sitemap=False, timeout=5)
    assert len(envelope["data"]) == 2
    assert [path for path in site.paths() if path != "/robots.txt"] == paths(envelope, site)
    [said] = [w for w in envelope["meta"]["warnings"] if w.startswith("The crawl stopped after 2 pages")]
    assert "(2/min)" in said and "rate_limit" in said
