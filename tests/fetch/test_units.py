"""The small pieces: URL checks, canonical URLs, robots.txt, sitemaps, sniffing, charsets."""

from __future__ import annotations

import asyncio
import ipaddress
import time
from typing import Any

import pytest

from webproviders.errors import UnsafeURLError
from webproviders.fetching.charset import decode
from webproviders.fetching.pages import truncate
from webproviders.fetching.politeness import HostLimiter
from webproviders.fetching.robots import RobotsCache, parse
from webproviders.fetching.robotsmeta import says_nofollow
from webproviders.fetching.sitemap import parse_sitemap
from webproviders.fetching.sniff import sniff
from webproviders.fetching.urlsafety import (
    ADDRESS_TABLE,
    AddressPolicy,
    address_problem,
    check_destination,
    embedded_ipv4,
    nat64_local_readings,
    resolve_checked,
)
from webproviders.urls import canonicalize, page_identity, registrable_domain

from .fetch_site import pdf_bytes, png_bytes

# -- URL safety -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["https://example.com/a?b=1", "http://example.com:8080/", "https://[2606:4700:4700::1111]/", "http://93.184.216.34/"],
)
def test_public_urls_pass(url: str) -> None:
    target = check_destination(url, AddressPolicy())
    assert target.scheme in ("http", "https")


def test_target_port_defaults() -> None:
    assert check_destination("https://example.com/", AddressPolicy()).port == 443
    assert check_destination("http://example.com/", AddressPolicy()).port == 80


@pytest.mark.parametrize(
    ("address", "inner"),
    [
        ("::ffff:10.1.2.3", "10.1.2.3"),
        ("::ffff:0:a01:203", "10.1.2.3"),
        ("64:ff9b::a01:203", "10.1.2.3"),
        ("2002:a01:203::1", "10.1.2.3"),
        ("::a01:203", "10.1.2.3"),
        ("2001:0:4136:e378:8000:63bf:f5fe:fdfc", "10.1.2.3"),
    ],
)
def test_embedded_ipv4_forms(address: str, inner: str) -> None:
    assert str(embedded_ipv4(ipaddress.IPv6Address(address))) == inner
    assert address_problem(ipaddress.ip_address(address), AddressPolicy()) is not None


@pytest.mark.parametrize("row", ADDRESS_TABLE, ids=lambda row: str(row.network))
def test_every_row_of_the_address_table_is_enforced(row: Any) -> None:
    """Default policy refuses every row; the opt-in lifts exactly the ``private`` ones."""
    assert row.source and row.what
    inside = row.network[0] if row.network.num_addresses == 1 else row.network[1]
    assert address_problem(inside, AddressPolicy()) is not None
    opened = address_problem(inside, AddressPolicy(allow_private=True))
    assert (opened is None) == (row.kind == "private"), opened


def test_local_use_nat64_readings_follow_rfc_6052() -> None:
    readings = nat64_local_readings(ipaddress.IPv6Address("64:ff9b:1:a01:2:300::"))
    assert ipaddress.IPv4Address("10.1.2.3") in readings  # the /48 layout skips bits 64-71
    assert nat64_local_readings(ipaddress.IPv6Address("64:ff9b:1::a01:203"))[-1] == ipaddress.IPv4Address("10.1.2.3")
    opened = AddressPolicy(allow_private=True)
    assert address_problem(ipaddress.ip_address("64:ff9b:1:5db8:d822::"), opened) is None
    assert "169.254.169.254" in (address_problem(ipaddress.ip_address("64:ff9b:1:a9fe:a9:fe00::"), opened) or "")


def test_private_opt_in_lifts_private_but_not_metadata() -> None:
    opened = AddressPolicy(allow_private=True)
    assert address_problem(ipaddress.ip_address("10.0.0.1"), opened) is None
    assert address_problem(ipaddress.ip_address("127.0.0.1"), opened) is None
    assert "metadata" in (address_problem(ipaddress.ip_address("169.254.169.254"), opened) or "")
    assert address_problem(ipaddress.ip_address("224.0.0.1"), opened) is not None


def test_allowed_hosts_matching() -> None:
    policy = AddressPolicy(allowed_hosts=frozenset({"wiki.corp", "*.intra.example", "10.0.0.9"}))
    assert policy.host_allowed("WIKI.corp.")
    assert policy.host_allowed("a.b.intra.example")
    assert not policy.host_allowed("intra.example")
    assert not policy.host_allowed("wiki.corp.evil.com")
    assert check_destination("http://10.0.0.9/", policy).host == "10.0.0.9"
    with pytest.raises(UnsafeURLError):
        check_destination("http://10.0.0.10/", policy)


def test_resolution_refuses_if_any_answer_is_internal(fake_dns: Any) -> None:
    with pytest.raises(UnsafeURLError, match="mixed.test"):
        asyncio.run(resolve_checked("mixed.test", 80, AddressPolicy()))
    assert asyncio.run(resolve_checked("public.test", 80, AddressPolicy())) == ["93.184.216.34"]


def test_config_builds_the_policy(config_for: Any) -> None:
    policy = AddressPolicy.from_config(config_for(allow_private_networks=True, allowed_hosts=["Wiki.Corp."]))
    assert policy == AddressPolicy(True, frozenset({"wiki.corp"}))


# -- canonical URLs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("HTTP://Example.COM:80", "http://example.com/"),
        ("https://example.com:443/a#section", "https://example.com/a"),
        ("https://example.com/a?utm_source=x&id=7&fbclid=y&gclid=z", "https://example.com/a?id=7"),
        ("https://example.com/a?b=2&a=1", "https://example.com/a?b=2&a=1"),
        # Dropping a tracking parameter leaves the others as they were written.
        ("http://h.example/list?q=a%20b&utm_source=x", "http://h.example/list?q=a%20b"),
        ("http://h.example/list?flag&utm_medium=y", "http://h.example/list?flag"),
        ("http://h.example/list?utm_term=z&q=caf%C3%A9+au+lait&&x=%2F", "http://h.example/list?q=caf%C3%A9+au+lait&&x=%2F"),
        ("http://h.example/list?utm%5Fsource=x&q=1", "http://h.example/list?q=1"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("http://[2001:db8::1]:80/x", "http://[2001:db8::1]/x"),
        ("http://Example.com./p", "http://example.com/p"),
        # Session ids of a server that sees no cookie: one page, a new URL on every visit.
        ("http://h.example/shop/item.jsp;jsessionid=0A1B2C?id=7", "http://h.example/shop/item.jsp?id=7"),
        ("http://h.example/;JSESSIONID=0A1B2C", "http://h.example/"),
        ("http://h.example/forum.php?PHPSESSID=9f8e7d&t=5", "http://h.example/forum.php?t=5"),
        ("http://h.example/a.cfm?CFID=12&CFTOKEN=34&x=1", "http://h.example/a.cfm?x=1"),
        # Shops that write their own: osCommerce, Zen Cart.
        ("http://h.example/product_info.php?products_id=28&osCsid=5f1c2e", "http://h.example/product_info.php?products_id=28"),
        ("http://h.example/index.php?main_page=index&cPath=3&zenid=a81b", "http://h.example/index.php?main_page=index&cPath=3"),
    ],
)
def test_canonicalize(url: str, canonical: str) -> None:
    assert canonicalize(url) == canonical


@pytest.mark.parametrize(
    ("url", "identity"),
    [
        ("https://x.test/%7euser/a%2fb?q=%7E%2b", "https://x.test/~user/a%2Fb?q=~%2B"),  # RFC 3986 §6.2.2
        ("https://x.test/caf%c3%a9/A%2DZ", "https://x.test/caf%C3%A9/A-Z"),
        ("https://x.test/café?q=a b", "https://x.test/caf%C3%A9?q=a%20b"),  # as it is requested
        ("https://x.test/100%/a", "https://x.test/100%25/a"),  # a % that starts no escape
        ("https://x.test/a/b?q=1&r=(2)", "https://x.test/a/b?q=1&r=(2)"),
        ("mailto:a%7eb@x.test", "mailto:a%7eb@x.test"),
    ],
)
def test_page_identity(url: str, identity: str) -> None:
    assert page_identity(url) == identity


def test_canonicalize_keeps_user_info_for_the_safety_check() -> None:
    assert canonicalize("http://a.example@127.0.0.1/").startswith("http://a.example@")


def test_registrable_domain() -> None:
    assert registrable_domain("docs.python.org") == "python.org"
    assert registrable_domain("a.b.example.co.uk") == "example.co.uk"
    assert registrable_domain("www.site.test") == "site.test"
    assert registrable_domain("127.0.0.1") == "127.0.0.1"


# -- robots.txt ---------------------------------------------------------------------------

ROBOTS = """
User-agent: *
Disallow: /private/
Allow: /private/public$
Disallow: /*.pdf$
Disallow: /search?
Crawl-delay: 3

User-agent: webproviders
User-agent: OtherBot
Disallow: /nobots/
Allow: /nobots/ok
Crawl-delay: 0.5

Sitemap: https://example.com/sitemap.xml
"""


def test_robots_group_for_our_product_token_replaces_star() -> None:
    rules = parse(ROBOTS, "webproviders/0.1.0")
    assert not rules.allowed("https://example.com/nobots/x")
    assert rules.allowed("https://example.com/nobots/ok/x")  # longest match wins
    assert rules.allowed("https://example.com/private/x")  # the * group does not apply
    assert rules.crawl_delay == 0.5
    assert rules.sitemaps == ["https://example.com/sitemap.xml"]


def test_robots_star_group_wildcards_and_anchors() -> None:
    rules = parse(ROBOTS, "SomeCrawler/1.0")
    assert not rules.allowed("https://example.com/private/x")
    assert rules.allowed("https://example.com/private/public")
    assert not rules.allowed("https://example.com/private/publicity")
    assert not rules.allowed("https://example.com/files/report.pdf")
    assert rules.allowed("https://example.com/files/report.pdf?download=1")
    assert not rules.allowed("https://example.com/search?q=x")
    assert rules.allowed("https://example.com/search")
    assert rules.allowed("https://example.com/robots.txt")
    assert rules.crawl_delay == 3


def test_robots_percent_encoding_and_empty_rules() -> None:
    rules = parse("User-agent: *\nDisallow: /caf%C3%A9\nDisallow:\n", "x")
    assert not rules.allowed("https://example.com/caf\u00e9/menu")
    assert not rules.allowed("https://example.com/caf%C3%A9/menu")
    assert parse("", "x").allowed("https://example.com/anything")


def test_robots_group_named_inside_a_browser_style_user_agent() -> None:
    """The group whose product token the User-Agent carries rules, wherever it stands in it."""
    rules = parse(ROBOTS, "Mozilla/5.0 (compatible; OtherBot/2.1; +https://example.org/bot)")
    assert not rules.allowed("https://example.com/nobots/x")
    assert rules.allowed("https://example.com/private/x")
    assert rules.crawl_delay == 0.5


@pytest.mark.parametrize(
    ("status", "allowed"),
    [(200, False), (404, True), (401, True), (429, False), (500, False), (503, False)],
)
def test_robots_fetch_outcomes(status: int, allowed: bool) -> None:
    async def fetcher(url: str) -> tuple[int, str]:
        assert url == "https://example.com/robots.txt"
        return status, "User-agent: *\nDisallow: /\n"

    cache = RobotsCache(fetcher, "webproviders/0.1")
    assert asyncio.run(cache.allowed("https://example.com/page")) is allowed


def test_robots_fetched_once_per_origin() -> None:
    calls: list[str] = []

    async def fetcher(url: str) -> tuple[int, str]:
        calls.append(url)
        await asyncio.sleep(0.01)
        return 200, "User-agent: *\nDisallow: /x\n"

    async def ask() -> list[bool]:
        cache = RobotsCache(fetcher, "webproviders/0.1")
        return await asyncio.gather(*(cache.allowed(f"https://example.com/{p}") for p in ("a", "x", "b")))

    assert asyncio.run(ask()) == [True, False, True]
    assert calls == ["https://example.com/robots.txt"]


@pytest.mark.parametrize(
    ("values", "nofollow"),
    [
        (["noindex, nofollow"], True),
        (["NONE"], True),
        (["index", "nofollow"], True),
        (["unavailable_after: 25 Jun 2030 15:00:00 PST, nofollow"], True),
        (["googlebot: nofollow"], False),
        (["noindex", "max-snippet: 20"], False),
        ([], False),
    ],
)
def test_robots_directives_that_forbid_following_links(values: list[str], nofollow: bool) -> None:
    assert says_nofollow(values) is nofollow


def test_robots_directives_addressed_to_this_crawler_are_obeyed() -> None:
    agent = "Mozilla/5.0 (compatible; MyBot/1.0)"
    assert says_nofollow(["mybot: noindex, nofollow"], agent)
    assert not says_nofollow(["bot: nofollow", "MyBotX: nofollow", "googlebot: nofollow"], agent)


# -- sitemaps -----------------------------------------------------------------------------


def test_sitemap_urlset_and_index() -> None:
    urlset = parse_sitemap(
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc> https://example.com/a </loc></url><url><loc>https://example.com/b</loc></url></urlset>"
    )
    assert urlset.pages == ["https://example.com/a", "https://example.com/b"]
    index = parse_sitemap(
        b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<sitemap><loc>https://example.com/s1.xml</loc></sitemap></sitemapindex>"
    )
    assert index.children == ["https://example.com/s1.xml"] and index.pages == []


def test_the_beginning_of_a_sitemap_gives_its_whole_urls() -> None:
    """The first bytes of a longer file: its last entry may stop mid-URL (``/lon``)."""
    head = b"<urlset><url><loc>https://example.com/a</loc></url><url><loc>https://example.com/lon"
    assert parse_sitemap(head, cut=True).pages == ["https://example.com/a"]


def test_a_sitemap_entry_referring_to_half_a_utf16_pair_is_left_out_alone() -> None:
    """``&#xD800;`` names no character lxml can hand over: reading that entry raised, and the
    crawl dropped the whole sitemap with a provider_error warning."""
    body = (
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a&#xD800;</loc>'
        b"</url><url><loc>https://example.com/b</loc></url></urlset>"
    )
    assert parse_sitemap(body).pages == ["https://example.com/b"]


def test_sitemap_entities_are_not_expanded(tmp_path: Any) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    xxe = (
        f'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x SYSTEM "file://{secret}">]>'
        '<urlset><url><loc>https://example.com/&x;</loc></url></urlset>'
    ).encode()
    assert not any("TOP-SECRET" in url for url in parse_sitemap(xxe).pages)
    assert parse_sitemap(b"not xml at all") is None


def test_a_sitemap_in_the_protocols_text_form_lists_its_urls() -> None:
    """``sitemap.txt``, one full URL a line, is a sitemap to the protocol and to search
    engines: it was 'not a sitemap', and none of its pages was queued."""
    text = "\ufeffhttps://example.com/a\r\nhttps://example.com/b?x=1\n\nhttps://example.com/lo".encode()
    assert parse_sitemap(text).pages == ["https://example.com/a", "https://example.com/b?x=1", "https://example.com/lo"]
    assert parse_sitemap(text, cut=True).pages == ["https://example.com/a", "https://example.com/b?x=1"]
    assert parse_sitemap(b"Not found\nhttps://example.com/a\n") is None
    assert parse_sitemap(b"https://example.com/a has moved\n") is None


# -- sniffing and charsets ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "body", "kind"),
    [
        ("text/html; charset=utf-8", b"<!doctype html><p>x", "html"),
        ("text/html", png_bytes(), "binary"),
        ("application/octet-stream", pdf_bytes(), "pdf"),
        ("application/pdf", b"<br />\n<b>Notice</b>: stray output\n" + pdf_bytes(), "pdf"),
        ("text/html", b"<p>A page on the %PDF- header</p>", "html"),
        ("application/pdf", b"<html>not a pdf</html>", "binary"),
        ("", b"  <!DOCTYPE html><html>", "html"),
        ("", b"<script>var x = 1;</script><h1>Title</h1>", "html"),
        ("", b"<TABLE border=1><tr><td>cell", "html"),
        ("", b'<p class="lead">Text', "html"),
        ("application/octet-stream", b"<h1>Title</h1><p>Text", "html"),
        ("", b"<abbr>not a start a browser knows</abbr>", "text"),
        ("", b'{"a": 1}', "json"),
        ("application/ld+json", b'{"a": 1}', "json"),
        ("application/rss+xml", b"<?xml version='1.0'?><rss/>", "xml"),
        ("text/xml", b"<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><body>", "html"),
        ("application/xml", b'<html lang="en" xmlns="http://www.w3.org/1999/xhtml"><head>', "html"),
        ("application/xml", b"<doc><html>not a page</html></doc>", "xml"),
        ("text/plain", b"just words", "text"),
        ("text/markdown; charset=utf-8", b"# Title", "markdown"),
        ("image/svg+xml", b"<svg/>", "binary"),
        ("application/zip", b"PK\x03\x04rest", "binary"),
        ("", b"\x00\x01\x02binary", "binary"),
        # A page that starts as one is a page, stray NUL bytes and all (browsers show it).
        ("text/html; charset=utf-8", b"<!doctype html><p>a byte\x00 of nothing</p>", "html"),
        ("text/html", b"\x01\x02\x03\x00" * 64 + b"<html>", "binary"),
        ("text/plain", b"GIF89a\x01\x00", "binary"),
        ("text/plain", b"BMW and MZ are just words here", "text"),
        ("text/html; charset=utf-8", b'<?xml version="1.0"?>\n<?xml-stylesheet href="s.xsl"?><rss version="2.0">', "xml"),
        ("text/plain", b'<feed xmlns="http://www.w3.org/2005/Atom">', "xml"),
        ("text/html", b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">', "html"),
        # Bytes that are no UTF-16 (a lone surrogate) are judged as bytes, whatever the label says.
        pytest.param("text/html; charset=utf-16", b"\x01\xd8<\x00p\x00" * 64, "binary", id="not-utf16"),
        pytest.param("text/html; charset=utf-16", "<p>\U0001f600</p>".encode("utf-16"), "html", id="utf16"),
    ],
)
def test_sniff(content_type: str, body: bytes, kind: str) -> None:
    assert sniff(content_type, body)[0] == kind


@pytest.mark.parametrize(
    ("body", "content_type", "kind", "text", "codec"),
    [
        ("caf\u00e9".encode(), "text/plain; charset=utf-8", "text", "caf\u00e9", "utf-8"),
        ("caf\u00e9 \u20ac".encode("cp1252"), "text/html; charset=ISO-8859-1", "html", "caf\u00e9 \u20ac", "cp1252"),
        ('<meta charset="windows-1252"><p>\u201chi\u201d'.encode("cp1252"), "text/html", "html", '<meta charset="windows-1252"><p>\u201chi\u201d', "cp1252"),
        (b"\xef\xbb\xbfcaf\xc3\xa9", "text/plain; charset=latin-1", "text", "caf\u00e9", "utf-8-sig"),
        ("caf\u00e9".encode(), None, "text", "caf\u00e9", "utf-8"),
        ('<meta charset="utf-16"><p>caf\u00e9'.encode(), "text/html", "html", '<meta charset="utf-16"><p>caf\u00e9', "utf-8"),
        ("<?xml version='1.0' encoding='iso-8859-15'?><r>\u20ac</r>".encode("iso-8859-15"), "", "xml", "<?xml version='1.0' encoding='iso-8859-15'?><r>\u20ac</r>", "iso8859-15"),
        # ISO-2022-JP's half-width katakana (ESC ( I), which browsers read.
        (b"\x1b$B$\"\x1b(I1234\x1b(B!", "text/plain; charset=iso-2022-jp", "text", "\u3042\uff71\uff72\uff73\uff74!", "iso2022_jp_ext"),
        # A pair the codec does not know is one U+FFFD, and the characters after it stay whole.
        (b"\x87\xa1\xa4\xa4\xa4\xe5", "text/plain; charset=big5", "text", "\ufffd\u4e2d\u6587", "big5hkscs"),
        (b"\x81\xad\x82\xa0\x82\xa2", "text/plain; charset=shift_jis", "text", "\ufffd\u3042\u3044", "cp932"),
        (b"\x81\xfe\x82\xa0", "text/plain; charset=shift_jis", "text", "\ufffd\u3042", "cp932"),
        (b"\xa9\xa1\xa4\xa2\xa4\xa4", "text/plain; charset=euc-jp", "text", "\ufffd\u3042\u3044", "euc_jp"),
    ],
)
def test_decode(body: bytes, content_type: str | None, kind: str, text: str, codec: str) -> None:
    assert decode(body, content_type, kind) == (text, codec)


def test_decode_of_a_body_of_unknown_pairs_stays_quick() -> None:
    """Each unknown pair costs a Python call: millions of them (a 5 MB body) are read with ``replace``."""
    started = time.monotonic()
    text, _codec = decode(b"\xad\xa1" * 2_500_000, "text/html; charset=euc-jp", "html")
    assert time.monotonic() - started < 4  # 12 s when every pair was read one by one
    assert len(text) >= 2_500_000


def test_decode_undeclared_legacy_text_is_detected() -> None:
    sample = ("Le caf\u00e9 cr\u00e8me co\u00fbte trois euros au comptoir, " * 20).encode("cp1252")
    text, codec = decode(sample, "text/plain", "text")
    assert "caf\u00e9 cr\u00e8me co\u00fbte" in text
    assert codec != "utf-8"


# -- small helpers ------------------------------------------------------------------------


def test_truncate_prefers_a_paragraph_break() -> None:
    text = "First paragraph here.\n\n" + "Second paragraph " * 10
    assert truncate(text, 25) == "First paragraph here."
    assert truncate(text, 35) == "First paragraph here.\n\nSecond"
    assert truncate("short", 30) == "short"
    assert len(truncate("x" * 100, 30)) == 30


def test_host_delay_spaces_request_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three requests to one host at once start 50 ms apart (on a frozen clock, so load cannot skew it)."""
    starts: list[float] = []
    now = 100.0

    async def record_wait(seconds: float) -> None:
        starts.append(now + seconds)  # where this request's start was put

    async def run() -> None:
        loop = asyncio.get_running_loop()
        monkeypatch.setattr(loop, "time", lambda: now)
        monkeypatch.setattr(asyncio, "sleep", record_wait)
        limiter = HostLimiter(concurrency=4, per_host=4, delay=0.05)

        async def one() -> None:
            async with limiter.slot("example.com"):
                pass

        await asyncio.gather(*(one() for _ in range(3)))

    asyncio.run(run())
    assert starts == pytest.approx([100.05, 100.10])  # the first starts at once, the others wait their turn


def test_robots_fetch_failure_reaches_every_asker() -> None:
    from webproviders.errors import NetworkError

    async def fetcher(url: str) -> tuple[int, str]:
        raise NetworkError("Could not fetch https://example.com/robots.txt: ConnectError.")

    async def ask() -> list[Any]:
        cache = RobotsCache(fetcher, "webproviders/0.1")
        return await asyncio.gather(cache.allowed("https://example.com/a"), cache.allowed("https://example.com/b"), return_exceptions=True)

    assert [type(r).__name__ for r in asyncio.run(ask())] == ["NetworkError", "NetworkError"]


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("sub\\page.html", "https://a.example/site/sub/page.html"),
        ("\\docs\\intro.html", "https://a.example/docs/intro.html"),
        ("x.html?path=a\\b#part\\c", "https://a.example/site/x.html?path=a\\b#part\\c"),
    ],
)
def test_a_backslash_in_a_link_is_a_slash_before_its_query(href: str, expected: str) -> None:
    """Browsers read ``\\`` in an http(s) link's path as ``/``; a crawl requested
    ``/site/sub\\page.html`` and found nothing where the page's reader finds its next page."""
    from webproviders.urls import join_url

    assert join_url("https://a.example/site/index.html", href) == expected
