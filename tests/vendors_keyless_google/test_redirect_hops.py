"""ddg_html and baidu_html follow a redirect from the engine as a local fetch: every hop screened.

The engines are mocked with ``respx``; a canary server on 127.0.0.1 stands for an internal
service and must never be reached. A hop's host is resolved through the suite's DNS
(``tests/conftest.py``), once. Behind the environment's proxy (a real forward proxy on
127.0.0.1 that answers for the engine), a hop back to the engine's own origin goes through
that proxy as the first request did; a hop anywhere else is still a screened local fetch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search

ENGINES = {
    "ddg_html": ("POST", "https://html.duckduckgo.com/html/", "ddg_results.html"),
    "baidu_html": ("GET", "https://www.baidu.com/s", "baidu_results.html"),
}
PUBLIC = "93.184.216.34"


class Canary:
    def __init__(self) -> None:
        self.hits: list[str] = []
        self.port = 0


@pytest.fixture
def canary(http_server: Any) -> Iterator[Canary]:
    seen = Canary()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args: Any) -> None:
            return

    seen.port = http_server(Handler).server_address[1]
    yield seen
    assert seen.hits == [], f"a redirect reached the internal service: {seen.hits}"


def _hops(canary: Canary) -> list[str]:
    return [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/latest/meta-data/",
        "http://2852039166/latest/meta-data/",
        f"http://127.0.0.1:{canary.port}/",
        f"http://localhost:{canary.port}/",
        f"http://internal.test:{canary.port}/",  # resolves to the loopback
        "http://metadata.google.internal/computeMetadata/v1/",
        "file:///etc/passwd",
    ]


def _engine(mock: respx.MockRouter, name: str, status: int, location: str) -> None:
    method, url, _page = ENGINES[name]
    mock.route(method=method, url=url).respond(status, headers={"Location": location})


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_redirect_into_the_network_is_refused(name: str, canary: Canary, cfg: Any, dns: Any) -> None:
    dns.answer("internal.test", "127.0.0.1")
    for hop in _hops(canary):
        with respx.mock(assert_all_called=False) as mock:
            _engine(mock, name, 302, hop)
            metadata = mock.route(host="169.254.169.254")
            mock.route(host="127.0.0.1").pass_through()
            envelope = dispatch_search("python", 3, backend=name, config=cfg())
        assert envelope["success"] is False and envelope["error_code"] == "unsafe_url", (hop, envelope)
        assert "Refused" in envelope["error"]
        assert not metadata.called


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_second_hop_is_screened_too(name: str, canary: Canary, cfg: Any, dns: Any) -> None:
    dns.answer("hop.test", PUBLIC)
    with respx.mock(assert_all_called=False) as mock:
        _engine(mock, name, 301, "https://hop.test/next")
        mock.get("https://hop.test/next").respond(302, headers={"Location": f"http://127.0.0.1:{canary.port}/"})
        mock.route(host="127.0.0.1").pass_through()
        envelope = dispatch_search("python", 3, backend=name, config=cfg())
    assert envelope["error_code"] == "unsafe_url" and "redirect" in envelope["error"], envelope
    assert dns.lookups["hop.test"] == 1


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_public_hop_is_followed_with_one_lookup(name: str, cfg: Any, dns: Any, page: Any) -> None:
    _method, _url, saved = ENGINES[name]
    dns.answer("results.test", PUBLIC)
    with respx.mock(assert_all_called=False) as mock:
        _engine(mock, name, 303, "https://results.test/html/?q=python")
        results = mock.get("https://results.test/html/").respond(
            200, text=page(saved), headers={"Content-Type": "text/html; charset=utf-8"}
        )
        envelope = dispatch_search("python", 3, backend=name, config=cfg())
    assert envelope["success"] is True and envelope["data"]["web"], envelope
    assert results.called
    assert dns.lookups == {"results.test": 1}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_hop_within_the_engine_whose_location_is_not_utf8_is_requested_as_sent(
    name: str, cfg: Any, page: Any
) -> None:
    """Browsers percent-encode a ``Location``'s bytes as they came; read as Latin-1 and sent
    as UTF-8, a Shift_JIS ``/結果?wd=東京`` went out as ``/%C2%8C%C2%8B…``, a page of no engine."""
    method, url, saved = ENGINES[name]
    origin = f"https://{httpx.URL(url).host}"
    location = "/結果?wd=東京".encode("cp932")
    with respx.mock(assert_all_called=False) as mock:
        mock.route(method=method, url=url).mock(
            return_value=httpx.Response(302, headers=[(b"Location", location)])
        )
        results = mock.get(f"{origin}/%8C%8B%89%CA?wd=%93%8C%8B%9E").respond(
            200, text=page(saved), headers={"Content-Type": "text/html; charset=utf-8"}
        )
        envelope = dispatch_search("python", 3, backend=name, config=cfg())
    assert results.called, [str(call.request.url) for call in mock.calls]
    assert envelope["success"] is True and envelope["data"]["web"], envelope


#: Each engine behind the proxy: its configured address, and where it sends the first request.
PROXIED = {
    "ddg_html": ("http://ddg.proxied.test", "POST http://ddg.proxied.test/html/", "/html/?hop=1"),
    "baidu_html": ("http://baidu.proxied.test", "GET http://baidu.proxied.test/s?", "/s?hop=1&wd=python"),
}


class EngineProxy:
    """A forward proxy that answers for the engine itself: the first request is redirected to
    ``location``, a request whose path carries ``hop=1`` gets the results page."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.location = ""
        self.page = ""


@pytest.fixture
def engine_proxy(http_server: Any, monkeypatch: pytest.MonkeyPatch) -> EngineProxy:
    proxy = EngineProxy()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            proxy.seen.append(f"{self.command} {self.path}")
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if "hop=1" in self.path:
                body = proxy.page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
            else:
                body = b""
                self.send_response(302)
                self.send_header("Location", proxy.location)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET

        def log_message(self, *args: Any) -> None:
            return

    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{http_server(Handler).server_address[1]}")
    return proxy


def _proxied(name: str, cfg: Any) -> Any:
    return cfg(web={"providers": {name: {"base_url": PROXIED[name][0]}}})


@pytest.mark.parametrize("run", ["sync", "async"])
@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_hop_to_the_engine_s_own_origin_goes_through_its_proxy(
    name: str, run: str, engine_proxy: EngineProxy, cfg: Any, dns: Any, page: Any
) -> None:
    """A machine that reaches the engine only through a proxy reaches its redirect the same way:
    the engine's name is never looked up here."""
    base, first, location = PROXIED[name]
    engine_proxy.location, engine_proxy.page = location, page(ENGINES[name][2])
    config = _proxied(name, cfg)
    if run == "sync":
        envelope = dispatch_search("python", 3, backend=name, config=config)
    else:
        envelope = asyncio.run(adispatch_search("python", 3, backend=name, config=config))
    assert envelope["success"] is True and envelope["data"]["web"], envelope
    assert len(envelope["meta"]["attempts"]) == 1
    assert engine_proxy.seen[0].startswith(first)
    assert engine_proxy.seen[1:] == [f"GET {base}{location}"]
    assert not dns.lookups


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_hop_elsewhere_from_a_proxied_engine_is_still_a_screened_fetch(
    name: str, engine_proxy: EngineProxy, canary: Canary, cfg: Any, dns: Any
) -> None:
    """Only the engine's own origin is trusted: an internal hop is refused, and a public name
    is looked up here and fetched as a page (through web.proxy only), never given to the
    environment's proxy."""
    engine_proxy.location = f"http://127.0.0.1:{canary.port}/?hop=1"
    refused = dispatch_search("python", 3, backend=name, config=_proxied(name, cfg))
    assert refused["error_code"] == "unsafe_url", refused
    engine_proxy.location = "http://elsewhere.test/?hop=1"
    unresolved = dispatch_search("python", 3, backend=name, config=_proxied(name, cfg))
    assert unresolved["error_code"] == "network_error", unresolved
    assert "pages are fetched through web.proxy only" in unresolved["error"]
    assert dns.lookups == {"elsewhere.test": 1}
    assert len(engine_proxy.seen) == 2 and not any("hop=1" in seen for seen in engine_proxy.seen)


def test_an_engine_that_keeps_redirecting_to_itself_is_given_up_on(engine_proxy: EngineProxy, cfg: Any) -> None:
    engine_proxy.location = "/html/?again=1"
    envelope = dispatch_search("python", 3, backend="ddg_html", config=_proxied("ddg_html", cfg))
    assert envelope["error_code"] == "provider_error" and "redirected more than 5 times" in envelope["error"], envelope
    assert len(engine_proxy.seen) == 6
