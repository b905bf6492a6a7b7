"""Every SDK vendor's requests go where the library's own go: through ``web.proxy`` (or past it
for a ``NO_PROXY`` host), with ``web.user_agent``, on the library's long-lived transport.

A forward proxy on loopback answers each vendor's endpoint with the vendor's own response
shape and records the absolute URL and the headers it was asked with; the vendors' hosts do
not resolve, so an answer proves the request went through the proxy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import webproviders

from .bodies import EXA_SEARCH, FIRECRAWL_SCRAPE, PARALLEL_SEARCH, TAVILY_SEARCH
from .conftest import settings
from .loopback import JsonVendor

AGENT = "proxy-tests/3.1"
#: Each vendor: its base URL (a name that does not resolve), what the proxy answers, the call.
VENDORS: dict[str, tuple[str, dict[str, Any], str]] = {
    "tavily": ("http://api.tavily.test", TAVILY_SEARCH, "search"),
    "exa": ("http://api.exa.test", EXA_SEARCH, "search"),
    "parallel": ("http://api.parallel.test", PARALLEL_SEARCH, "search"),
    "firecrawl": ("http://api.firecrawl.test", FIRECRAWL_SCRAPE, "extract"),
}


class ForwardProxy:
    """Answers every absolute-URL request with ``answer`` and records what it was asked."""

    def __init__(self, http_server: Any, answer: dict[str, Any]) -> None:
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        proxy = self

        class Handler(JsonVendor):
            def reply(self) -> tuple[int, bytes]:
                proxy.seen.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                return 200, json.dumps(answer).encode()

        self.url = f"http://127.0.0.1:{http_server(Handler).server_address[1]}"


@pytest.fixture(autouse=True)
def _fresh_clients(dns: Any) -> Iterator[None]:
    """The proxy environment is read when clients are made: each test starts with none."""
    # A vendor endpoint on this machine (a self-hosted Firecrawl) makes its URLs screened here.
    dns.answer("example.com", "93.184.216.34")
    webproviders.close()
    yield
    webproviders.close()


def _config(make_config: Any, vendor: str, **web: Any) -> Any:
    base, _, _ = VENDORS[vendor]
    section = settings(vendor, base_url=base, api_key=f"{vendor}-test-key-0001")
    section["web"].update(user_agent=AGENT, **web)
    return make_config(**section)


@pytest.mark.parametrize("vendor", list(VENDORS))
def test_an_sdk_vendor_goes_through_web_proxy_with_our_user_agent(
    http_server: Any, make_config: Any, run: Any, vendor: str
) -> None:
    base, answer, capability = VENDORS[vendor]
    proxy = ForwardProxy(http_server, answer)
    config = _config(make_config, vendor, proxy=proxy.url)
    if capability == "search":
        envelope = run("search", config, "transformer supply", backend=vendor)
    else:
        envelope = run("extract", config, ["https://example.com/page"], backend=vendor)
    assert envelope["success"] is True, envelope
    method, target, headers = proxy.seen[-1]
    assert method == "POST" and target.startswith(base + "/"), proxy.seen
    assert headers["user-agent"] == AGENT
    assert headers["accept-encoding"] == "gzip, deflate"


@pytest.mark.parametrize("vendor", list(VENDORS))
def test_an_sdk_vendor_follows_the_proxy_environment_and_no_proxy(
    http_server: Any, make_config: Any, monkeypatch: pytest.MonkeyPatch, run: Any, vendor: str
) -> None:
    """``HTTP_PROXY`` carries the call; the same vendor named in ``NO_PROXY`` (as a domain
    suffix) is sent direct, which fails here because its name does not resolve: the sentence
    said to set a proxy, which was set."""
    base, answer, capability = VENDORS[vendor]
    proxy = ForwardProxy(http_server, answer)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    config = _config(make_config, vendor)
    args = ("q",) if capability == "search" else (["https://example.com/page"],)
    assert run(capability, config, *args, backend=vendor)["success"] is True
    assert len(proxy.seen) == 1

    webproviders.close()  # the environment is read again by the next clients
    monkeypatch.setenv("NO_PROXY", "localhost, .test")
    direct = run(capability, config, *args, backend=vendor)
    assert direct["success"] is False and direct["error_code"] == "network_error", direct
    assert len(proxy.seen) == 1
    # The sentence names NO_PROXY, not "set a proxy", which is already set.
    host = base.split("://")[1]
    assert f"NO_PROXY names it, so it went direct instead of through the proxy; where only the proxy reaches the internet, take {host} out of NO_PROXY." in direct["error"], direct
    assert "set it:" not in direct["error"]


@pytest.mark.parametrize("vendor", list(VENDORS))
def test_an_sdk_vendor_refused_by_the_proxy_says_it_was_the_proxy(
    http_server: Any, make_config: Any, run: Any, vendor: str
) -> None:
    """An SDK wraps a transport failure in its own exception; the envelope still says what a
    raw-HTTP vendor's says: the proxy answered, with what, and which setting to check."""
    asked: list[str] = []

    class Refusing(BaseHTTPRequestHandler):
        def _refuse(self) -> None:
            asked.append(self.path)
            self.send_response(502, "Bad Gateway")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_CONNECT = _refuse

        def log_message(self, *args: Any) -> None:
            pass

    proxy = f"http://127.0.0.1:{http_server(Refusing).server_address[1]}"
    base, _, capability = VENDORS[vendor]
    # An https API is reached through a CONNECT tunnel, which is what the proxy refuses.
    section = settings(vendor, base_url=base.replace("http://", "https://"), api_key=f"{vendor}-test-key-0001")
    section["web"].update(proxy=proxy)
    config = make_config(**section)
    args = ("q",) if capability == "search" else (["https://example.com/page"],)
    envelope = run(capability, config, *args, backend=vendor)
    assert envelope["success"] is False and envelope["error_code"] == "network_error", envelope
    assert "through the proxy, which answered 502 Bad Gateway" in envelope["error"], envelope
    assert "web.proxy" in envelope["error"]
    assert asked, "the call never reached the proxy"
