"""What is read from a site besides a page's text, served from 127.0.0.1 in the encodings sites
use: the addresses a page in a legacy encoding names, sitemaps whose charset only their
``Content-Type`` header states."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from webproviders import dispatch_crawl, dispatch_extract
from webproviders.config import config_from_dict

from .fetch_site import serve


class Site(BaseHTTPRequestHandler):
    """``ROUTES[path] = (content_type, body)``; the paths asked for in ``asked``."""

    ROUTES: ClassVar[dict[str, tuple[str, bytes]]] = {}
    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.asked.append(self.path)
        content_type, body = self.ROUTES.get(self.path, ("text/plain", b"not here"))
        self.send_response(200 if self.path in self.ROUTES else 404)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def origin() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    server.daemon_threads = True
    serve(server)
    Site.ROUTES, Site.asked = {}, []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _page(text: str) -> tuple[str, bytes]:
    return "text/html; charset=utf-8", f"<html><body><p>{text}</p></body></html>".encode()


@pytest.mark.parametrize("declaration", ["", '<?xml version="1.0" encoding="UTF-8"?>\n'])
def test_a_sitemap_in_the_charset_its_header_names_lists_the_pages_it_names(origin: str, declaration: str) -> None:
    """Its header's charset comes first, as for any document: lxml went by the XML declaration
    (else UTF-8) alone, and the crawl asked for ``/na%EF%BF%BDve`` instead of ``/na%C3%AFve``."""
    urlset = (f'{declaration}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
              f"<url><loc>{origin}/naïve</loc></url><url><loc>{origin}/café</loc></url></urlset>")
    Site.ROUTES.update({
        "/robots.txt": ("text/plain", b"User-agent: *\nDisallow:\n"),
        "/": _page("Accueil"),
        "/sitemap.xml": ("application/xml; charset=iso-8859-1", urlset.encode("latin-1")),
        "/na%C3%AFve": _page("Naïve"),
        "/caf%C3%A9": _page("Café"),
    })
    config = config_from_dict({"web": {"allow_private_networks": True}}, source="<test>")
    envelope = dispatch_crawl(f"{origin}/", backend="http", config=config, use_sitemap=True, limit=10, timeout=60)
    assert envelope["success"] is True, envelope
    assert {item["url"] for item in envelope["data"]} == {f"{origin}/", f"{origin}/na%C3%AFve", f"{origin}/caf%C3%A9"}
    assert not [path for path in Site.asked if "%EF%BF%BD" in path]


def test_the_frames_of_a_shift_jis_page_are_named_as_a_browser_requests_them(origin: str) -> None:
    """A browser sends a frame's query in its page's encoding (as a crawl sends a link's):
    ``metadata.frames`` and the warning named ``?cat=東京``, which an extract sends as UTF-8."""
    frameset = ('<html><head><meta charset="shift_jis"><title>目次</title></head><frameset cols="30%,70%">'
                '<frame src="menu.cgi?cat=東京㈱"><frame src="/本文.html"></frameset></html>')
    Site.ROUTES.update({
        "/": ("text/html", frameset.encode("cp932")),
        "/menu.cgi?cat=%93%8C%8B%9E%87%8A": ("text/html; charset=shift_jis", "<p>東京㈱の目次です。</p>".encode("cp932")),
    })
    config = config_from_dict({"web": {"allow_private_networks": True}}, source="<test>")
    envelope = dispatch_extract([f"{origin}/"], backend="http", config=config, timeout=60)
    frames = envelope["data"][0]["metadata"]["frames"]
    assert frames == [f"{origin}/menu.cgi?cat=%93%8C%8B%9E%87%8A", f"{origin}/本文.html"]
    assert frames[0] in envelope["meta"]["warnings"][0]
    menu = dispatch_extract(frames[:1], backend="http", config=config, timeout=60)["data"][0]
    assert "東京㈱の目次です。" in menu["content"], menu


def test_a_shift_jis_page_read_under_another_address_is_not_read_again_under_its_canonical_one(origin: str) -> None:
    """Its ``<link rel="canonical">`` is compared with the links a crawl follows, whose query is
    sent in the page's encoding: compared as UTF-8, it matched none, and the page was read twice."""
    article = ('<html><head><meta charset="shift_jis"><title>天気</title><link rel="canonical" href="/tenki?city=東京">'
               '</head><body><p>東京都の天気は晴れです。</p><a href="/tenki?city=東京">天気</a></body></html>')
    Site.ROUTES.update({
        "/robots.txt": ("text/plain", b"User-agent: *\nDisallow:\n"),
        "/tenki?city=%93%8C%8B%9E&from=top": ("text/html", article.encode("cp932")),
        "/tenki?city=%93%8C%8B%9E": ("text/html", article.encode("cp932")),
    })
    config = config_from_dict({"web": {"allow_private_networks": True}}, source="<test>")
    envelope = dispatch_crawl(f"{origin}/tenki?city=%93%8C%8B%9E&from=top", backend="http", config=config, timeout=60)
    assert envelope["success"] is True, envelope
    assert envelope["data"][0]["metadata"]["canonical_url"] == f"{origin}/tenki?city=%93%8C%8B%9E"
    assert [path for path in Site.asked if path != "/robots.txt"] == ["/tenki?city=%93%8C%8B%9E&from=top"]


def test_the_links_in_the_markdown_of_a_shift_jis_page_are_the_addresses_a_browser_requests(origin: str) -> None:
    """``[詳細](…/detail?city=東京)``, followed by an extract, asked for the query in UTF-8: a
    page the Shift_JIS site does not have (``%E6%9D%B1%E4%BA%AC`` for ``%93%8C%8B%9E``)."""
    paragraph = "<p>東京都の天気は晴れです。明日は曇りのち雨となるでしょう。詳しくは<a href='{}'>詳細</a>をご覧ください。</p>"
    links = ["/detail?city=東京", f"{origin}/detail?city=東京&full=1"]
    article = ('<html><head><meta charset="shift_jis"><title>天気</title></head><body><article><h1>天気</h1>'
               + "".join(paragraph.format(link) for link in links * 3) + "</article></body></html>")
    Site.ROUTES.update({
        "/": ("text/html", article.encode("cp932")),
        "/detail?city=%93%8C%8B%9E": ("text/html; charset=shift_jis", "<p>東京の詳しい予報です。</p>".encode("cp932")),
    })
    config = config_from_dict({"web": {"allow_private_networks": True}}, source="<test>")
    content = dispatch_extract([f"{origin}/"], backend="http", config=config, timeout=60)["data"][0]["content"]
    assert f"[詳細]({origin}/detail?city=%93%8C%8B%9E)" in content, content
    assert f"[詳細]({origin}/detail?city=%93%8C%8B%9E&full=1)" in content, content
    detail = dispatch_extract([f"{origin}/detail?city=%93%8C%8B%9E"], backend="http", config=config, timeout=60)
    assert "東京の詳しい予報です。" in detail["data"][0]["content"]


def test_the_links_of_an_iso_2022_kr_page_send_their_query_in_utf8(origin: str) -> None:
    """Browsers read no page in ISO-2022-KR and send UTF-8 from one, as from a UTF-8 page; sent in
    its own encoding, the query would be escape sequences no site reads (``?city=%1B%24%29C%0E...``)."""
    paragraph = "<p>서울의 날씨는 맑습니다. 내일은 흐리고 비가 오겠습니다. 자세한 것은 <a href='/detail?city=서울'>여기</a>를 보십시오.</p>"
    article = ('<html><head><meta charset="iso-2022-kr"><title>날씨</title></head><body><article><h1>날씨</h1>'
               + paragraph * 3 + "</article></body></html>")
    Site.ROUTES["/"] = ("text/html", article.encode("iso2022_kr"))
    config = config_from_dict({"web": {"allow_private_networks": True}}, source="<test>")
    content = dispatch_extract([f"{origin}/"], backend="http", config=config, timeout=60)["data"][0]["content"]
    assert "서울의 날씨는 맑습니다." in content, content
    assert f"[여기]({origin}/detail?city=서울)" in content, content
