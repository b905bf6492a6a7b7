"""ddg_html and baidu_html follow a redirect from the engine as a local fetch: every hop screened.

The engines are mocked with ``respx``; a canary server on 127.0.0.1 stands for an internal
service and must never be reached. A hop's host is resolved through the suite's DNS
(``tests/conftest.py``), once.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
import respx

from webproviders import dispatch_search

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
