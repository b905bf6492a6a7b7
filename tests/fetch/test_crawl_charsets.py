"""What a crawl reads besides pages, served from 127.0.0.1 in the encodings sites use:
sitemaps whose charset only their ``Content-Type`` header states."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from webproviders import dispatch_crawl
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
