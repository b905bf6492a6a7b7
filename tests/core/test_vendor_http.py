"""Vendor requests on the library's long-lived httpx clients: what a vendor receives, where
it goes, what comes back, and how the clients are closed.

These check the request a vendor sees (query merging, value spelling, default headers, bodies,
Basic auth from a base URL), that compressed answers are read, that ``web.proxy`` and the
proxy environment are honoured with ``NO_PROXY`` read as curl reads it (host, domain suffix,
address, CIDR range), that transport failures become the usual error envelopes, that a
blocking wait of a sync call is cut to the time left, and that ``webproviders.close()`` /
``aclose()`` and the owner's context manager close the connections. Real HTTP servers on
loopback stand in for the vendor and for a forward proxy.
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import json
import os
import socket
import ssl
import struct
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest

import webproviders
from webproviders import adispatch_search, dispatch_extract, dispatch_search, get_registry
from webproviders.config import Config, ConfigError, config_from_dict
from webproviders.dispatch.state import state_for
from webproviders.errors import NetworkError, TooLargeError, WebTimeoutError
from webproviders.kit import get_client, request_json
from webproviders.vendorhttp.proxies import NoProxy


class Recorder:
    """A loopback HTTP server that answers every request with what it received, as JSON.

    ``gzip_answer`` compresses the answer; ``stall`` holds it that many seconds; ``results``
    makes the answer also look like SearXNG's, so a dispatch call through ``searxng`` reads it;
    ``tls`` (a server-side context) serves HTTPS.
    """

    def __init__(
        self,
        start: Any,
        *,
        gzip_answer: bool = False,
        stall: float = 0.0,
        results: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.seen: list[dict[str, Any]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                seen = {
                    "method": self.command,
                    "path": self.path,
                    "headers": {name.lower(): value for name, value in self.headers.items()},
                    "body": self.rfile.read(length).decode() if length else "",
                }
                recorder.seen.append(seen)
                if stall:
                    self.server.released.wait(stall)  # type: ignore[attr-defined]
                body: dict[str, Any] = {"seen": seen}
                if results:
                    body["results"] = [{"url": "https://example.org/a", "title": "A", "content": "from the vendor"}]
                raw = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if gzip_answer:
                    raw = gzip.compress(raw)
                    self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.port = start(Handler, tls=tls).server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"


@pytest.fixture
def recorder(http_server: Any) -> Any:
    return functools.partial(Recorder, http_server)


@pytest.fixture(autouse=True)
def _fresh_clients() -> Iterator[None]:
    """Clients read the proxy environment and the CA bundle when they are made: each test
    starts without any."""
    webproviders.close()
    yield
    webproviders.close()


def _config(**web: Any) -> Config:
    return config_from_dict({"web": {"retry": {"max_retries": 0}, **web}}, source="<test>")


def _call(url: str, config: Config | None = None, **kwargs: Any) -> Any:
    async def main() -> Any:
        return await request_json(kwargs.pop("method", "GET"), url, provider="probe", config=config, **kwargs)

    return asyncio.run(main())


def test_query_parameters_are_merged_into_the_url_s_own_and_spelled_as_httpx_spells_them(recorder: Any) -> None:
    """A base URL may carry parameters of its own (a token, a format); they are kept."""
    server = recorder()
    answer = _call(
        f"{server.url}/v1/search?format=json&page=1",
        params={"q": "rust & go", "page": 2, "safe": True, "raw": False, "engines": ["a", "b"], "skip": None},
    )
    assert answer["seen"]["path"] == "/v1/search?format=json&page=2&q=rust+%26+go&safe=true&raw=false&engines=a&engines=b"


def test_default_headers_are_sent_and_the_call_s_own_win(recorder: Any) -> None:
    server = recorder()
    config = _config(user_agent="ExampleAgent/2.0")
    answer = _call(f"{server.url}/x", config, headers={"accept": "application/json", "X-Subscription-Token": "k-123"})
    headers = answer["seen"]["headers"]
    assert headers["host"] == f"127.0.0.1:{server.port}"
    assert headers["user-agent"] == "ExampleAgent/2.0"
    assert headers["accept"] == "application/json"  # replaced, not sent twice
    assert headers["accept-encoding"] == "gzip, deflate"  # only what is decoded with a cap
    assert headers["x-subscription-token"] == "k-123"


def test_credentials_in_a_base_url_are_sent_as_basic_auth(recorder: Any) -> None:
    """A SearXNG behind basic auth, configured as ``https://user:pass@host``, keeps working."""
    server = recorder(results=True)
    base = server.url.replace("http://", "http://searx%40team:s3cret@")
    config = _config(providers={"searxng": {"base_url": base}})
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert envelope["success"], envelope
    assert server.seen[0]["headers"]["authorization"] == "Basic c2VhcnhAdGVhbTpzM2NyZXQ="  # searx@team:s3cret
    assert server.seen[0]["headers"]["host"] == f"127.0.0.1:{server.port}"


@pytest.mark.parametrize("provider", ["searxng", "kagi", "tavily", "firecrawl"])
def test_credentials_in_a_base_url_never_replace_a_key_sent_in_the_authorization_header(
    recorder: Any, provider: str
) -> None:
    """A gateway's ``user:pass@`` in the base URL of a vendor that takes its key in
    ``Authorization`` (raw HTTP or an SDK): both cannot be sent, so nothing is, and the
    setting is named (never the password). Before, the Basic header silently replaced the
    key: the vendor got none, answered 401, and the key was rested."""
    pytest.importorskip({"tavily": "tavily", "firecrawl": "firecrawl"}.get(provider, "httpx"))
    server = recorder(results=True)
    base = server.url.replace("http://", "http://gw:gw-pass-3a9c@")
    config = _config(providers={provider: {"base_url": base, "api_key": "vendor-key-000001"}}, health={"failures": 1})
    for _ in range(2):
        envelope = dispatch_search("q", backend=provider, config=config, cache=False)
        assert envelope["error_code"] == "not_configured", envelope
        assert f"web.providers.{provider}.base_url holds a user name and password" in envelope["error"], envelope
        assert "gw-pass-3a9c" not in json.dumps(envelope)
    assert server.seen == []


def test_credentials_in_a_base_url_go_with_a_key_sent_in_another_header(recorder: Any) -> None:
    """A vendor whose key has a header of its own gets both: the key, and Basic auth for the gateway."""
    server = recorder(results=True)
    base = server.url.replace("http://", "http://gw:gw-pass-3a9c@")
    config = _config(providers={"brave": {"base_url": base, "api_key": "vendor-key-000001"}})
    dispatch_search("q", backend="brave", config=config, cache=False)
    [seen] = server.seen
    assert seen["headers"]["x-subscription-token"] == "vendor-key-000001"
    assert seen["headers"]["authorization"] == "Basic Z3c6Z3ctcGFzcy0zYTlj"  # gw:gw-pass-3a9c


def test_a_json_body_is_sent_compact_with_its_type_and_length(recorder: Any) -> None:
    server = recorder()
    answer = _call(f"{server.url}/v1/search", method="POST", json={"query": "café", "n": 3})
    seen = answer["seen"]
    assert seen["method"] == "POST"
    assert seen["body"] == '{"query":"café","n":3}'
    assert seen["headers"]["content-type"] == "application/json"
    assert int(seen["headers"]["content-length"]) == len(seen["body"].encode())


def test_a_form_body_is_url_encoded(recorder: Any) -> None:
    server = recorder()
    seen = _call(f"{server.url}/form", method="POST", data={"q": "a b", "lucky": True})["seen"]
    assert seen["body"] == "q=a+b&lucky=true"
    assert seen["headers"]["content-type"] == "application/x-www-form-urlencoded"


def test_a_compressed_answer_is_read(recorder: Any) -> None:
    server = recorder(gzip_answer=True)
    assert _call(f"{server.url}/z")["seen"]["path"] == "/z"


def test_sync_and_async_dispatch_read_the_vendor_alike(recorder: Any) -> None:
    """The sync call runs on its thread's own loop, the async one on the caller's; same answer."""
    server = recorder(results=True)
    config = _config(providers={"searxng": {"base_url": server.url}})
    sync = dispatch_search("q", backend="searxng", config=config, cache=False, limit=1)
    async_ = asyncio.run(adispatch_search("q", backend="searxng", config=config, cache=False, limit=1))
    for envelope in (sync, async_):
        assert envelope["success"], envelope
        assert envelope["data"]["web"][0]["description"] == "from the vendor"
    assert [seen["path"].split("?")[0] for seen in server.seen] == ["/search", "/search"]


# -- proxies ---------------------------------------------------------------------------------


def test_web_proxy_carries_vendor_calls(recorder: Any) -> None:
    """The forward proxy gets the absolute URL in its request line and answers itself."""
    proxy = recorder(results=True)
    config = _config(proxy=proxy.url, providers={"searxng": {"base_url": "http://searx.internal:8888"}})
    for envelope in (
        dispatch_search("q", backend="searxng", config=config, cache=False, limit=1),
        asyncio.run(adispatch_search("q", backend="searxng", config=config, cache=False, limit=1)),
    ):
        assert envelope["success"], envelope
    assert [seen["path"].split("?")[0] for seen in proxy.seen] == ["http://searx.internal:8888/search"] * 2


def test_proxy_environment_variables_are_honoured_and_no_proxy_spares_a_host(
    recorder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy, direct = recorder(), recorder()
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "localhost")
    assert _call("http://vendor.internal/api")["seen"]["path"] == "http://vendor.internal/api"
    assert _call(f"http://localhost:{direct.port}/api")["seen"]["path"] == "/api"
    assert len(proxy.seen) == 1 and len(direct.seen) == 1


@pytest.mark.parametrize(
    ("no_proxy", "spared", "proxied"),
    [
        # a domain suffix (with or without a leading dot or *.) spares the domain and its subdomains
        ("corp.example", "http://api.corp.example/x", "http://api.notcorp.example/x"),
        (".corp.example", "http://corp.example/x", "http://corp.example.org/x"),
        ("*.corp.example", "http://deep.api.corp.example/x", "http://example/x"),
        # an address, and a CIDR range (httpx alone would send these through the proxy)
        ("10.1.2.3", "http://10.1.2.3:8080/x", "http://10.1.2.4/x"),
        ("10.0.0.0/8", "http://10.200.0.7/x", "http://11.0.0.1/x"),
        ("fd00::/8", "http://[fd12::1]:8443/x", "http://[fe80::1]/x"),
        # a port narrows a host entry to that port
        ("search.example:8080", "http://search.example:8080/x", "http://search.example:9090/x"),
        # ... also the scheme's own port, which a URL does not write
        ("search.example:80", "http://search.example/x", "http://search.example:8080/x"),
        # a name in its ASCII (IDNA) form spares the same name written in Unicode, and back
        ("xn--bcher-kva.example", "http://bücher.example/x", "http://buecher.example/x"),
        ("bücher.example", "http://xn--bcher-kva.example/x", "http://buecher.example/x"),
        # a fully qualified name (a trailing dot) is the same host
        ("search.example.", "http://search.example/x", "http://search.example.org/x"),
    ],
)
def test_no_proxy_is_read_as_curl_reads_it(
    recorder: Any, monkeypatch: pytest.MonkeyPatch, no_proxy: str, spared: str, proxied: str
) -> None:
    """A spared host is connected to directly, which fails here (only loopback may be reached,
    and only loopback names resolve): the proxy never sees it, so a key for an internal
    service never crosses the proxy."""
    proxy = recorder()
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", f"localhost,{no_proxy}")
    assert _call(proxied)["seen"]["method"] == "GET"  # the proxy answered it
    with pytest.raises((httpx.ConnectError, NetworkError)) as caught:  # an address is refused here,
        _call(spared)
    if isinstance(caught.value, NetworkError):  # and a name does not resolve
        assert "its name does not resolve on this machine" in caught.value.message
    assert len(proxy.seen) == 1


def test_a_cidr_range_spares_a_loopback_vendor_from_web_proxy(recorder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``NO_PROXY`` applies to ``web.proxy`` too, as curl applies it to ``--proxy``."""
    proxy, vendor = recorder(results=True), recorder(results=True)
    monkeypatch.setenv("NO_PROXY", "127.0.0.0/8")
    config = _config(proxy=proxy.url, providers={"searxng": {"base_url": vendor.url}})
    for envelope in (
        dispatch_search("q", backend="searxng", config=config, cache=False, limit=1),
        asyncio.run(adispatch_search("q", backend="searxng", config=config, cache=False, limit=1)),
    ):
        assert envelope["success"], envelope
    assert len(vendor.seen) == 2 and not proxy.seen


def test_no_proxy_entries_parse_as_curl_and_requests_read_them() -> None:
    rules = NoProxy.parse(" .corp.example, 192.168.0.0/16 ,[::1], search.test:8080,, ")
    assert rules.matches("corp.example", None) and rules.matches("a.b.corp.example", 443)
    assert not rules.matches("notcorp.example", None)
    assert rules.matches("192.168.44.2", 80) and not rules.matches("192.169.0.1", 80)
    assert rules.matches("::1", 80)
    assert rules.matches("search.test", 8080) and not rules.matches("search.test", 80)
    assert NoProxy.parse("*").matches("anything.example", None)
    assert not NoProxy.parse("").matches("anything.example", None)


@pytest.mark.parametrize("run", ["sync", "async"])
def test_an_https_vendor_is_reached_through_a_connect_tunnel_and_its_certificate_checked(
    run: str, tunnel_proxy: Any, recorder: Any, certificate: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HTTPS_PROXY`` with an https vendor: the proxy only sees ``CONNECT vendor.test:PORT``;
    TLS runs end to end through the tunnel and is verified for the vendor's name. A
    certificate refused inside the tunnel (a proxy that inspects TLS, its CA not trusted) is
    said to be one; before, it read as the proxy not taking the connection."""
    cert, key = certificate("vendor.test")
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    vendor_port = recorder(results=True, tls=tls).port
    asked: list[str] = []
    proxy = tunnel_proxy(vendor_port, asked)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy.server_address[1]}")
    config = _config(providers={"searxng": {"base_url": f"https://vendor.test:{vendor_port}"}})

    def search() -> dict[str, Any]:
        if run == "sync":
            return dispatch_search("q", backend="searxng", config=config, cache=False)
        return asyncio.run(adispatch_search("q", backend="searxng", config=config, cache=False))

    refused = search()  # the default CA bundle does not trust a self-signed certificate
    assert refused["success"] is False and refused["error_code"] == "network_error", refused
    assert (
        f"vendor.test could not be reached through the proxy at 127.0.0.1:{proxy.server_address[1]}: "
        "the TLS certificate of vendor.test could not be verified (CERTIFICATE_VERIFY_FAILED: self-signed certificate)"
    ) in refused["error"], refused
    assert "trust its CA with SSL_CERT_FILE or SSL_CERT_DIR" in refused["error"]
    assert "did not take the connection" not in refused["error"]

    webproviders.close()  # the next clients read the CA bundle again
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    envelope = search()
    assert envelope["success"], envelope
    assert envelope["data"]["web"][0]["description"] == "from the vendor"
    assert asked == [f"vendor.test:{vendor_port}"] * 2


def test_a_tunnel_to_a_host_that_does_not_speak_tls_says_the_handshake_failed(
    tunnel_proxy: Any, recorder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proxy opened the tunnel, but what answers in it is plain HTTP: the handshake is
    named, not the proxy as one that took no connection."""
    asked: list[str] = []
    proxy = tunnel_proxy(recorder().port, asked)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy.server_address[1]}")
    config = _config(providers={"searxng": {"base_url": "https://vendor.test"}})
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert envelope["error_code"] == "network_error", envelope
    assert "through the proxy at 127.0.0.1" in envelope["error"], envelope
    assert "the TLS handshake with vendor.test failed" in envelope["error"], envelope
    assert asked == ["vendor.test:443"]


# -- failures --------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_refused_connection_is_a_network_error() -> None:
    with pytest.raises(httpx.ConnectError):  # what httpx.Client raises; dispatch maps it
        _call(f"http://127.0.0.1:{_closed_port()}/x")
    port = _closed_port()
    config = _config(providers={"searxng": {"base_url": f"http://user:Pw0rdSecret@127.0.0.1:{port}"}})
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert envelope["success"] is False
    assert envelope["error_code"] == "network_error", envelope
    # "searxng could not be reached: ConnectError: All connection attempts failed" named neither
    # the address nor the setting: a base_url's wrong port read as a vendor that is down.
    assert envelope["error"] == (
        f"searxng could not be reached at 127.0.0.1:{port}: Connection refused. Check that it answers "
        "there, or its address in web.providers.searxng."
    )


class _Resetting(BaseHTTPRequestHandler):
    """A vendor (or a load balancer before it) that reads the request and resets the connection."""

    def do_GET(self) -> None:
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.rfile.close()
        self.wfile.close()
        self.connection.close()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_vendor_that_resets_the_connection_is_said_to_have_been_reached(http_server: Any) -> None:
    """It read "brave could not be reached: ReadError: ": a sentence cut short, saying a vendor
    that took the connection and then reset it could not be reached."""
    server = http_server(_Resetting)
    config = _config(providers={"brave": {"api_key": "BSA-key-123", "base_url": f"http://127.0.0.1:{server.server_address[1]}"}})
    for envelope in (
        dispatch_search("q", backend="brave", config=config, cache=False),
        asyncio.run(adispatch_search("q", backend="brave", config=config, cache=False)),
    ):
        assert envelope["error_code"] == "network_error", envelope
        said = envelope["error"]
        assert said.startswith("brave was reached, but the connection broke before its answer was read (ReadError: ")
        assert said.endswith("Connection reset by peer)."), said


def test_a_vendor_that_does_not_answer_in_time_is_a_timeout(recorder: Any) -> None:
    server = recorder(stall=30)
    with pytest.raises(WebTimeoutError):  # the request's timeout bounds the whole exchange
        _call(f"{server.url}/slow", timeout=0.5)
    config = _config(providers={"searxng": {"base_url": server.url, "timeout": 0.5}})
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert envelope["success"] is False
    assert envelope["error_code"] == "timeout", envelope


def test_a_vendor_whose_name_lookup_never_answers_says_so_not_that_it_was_slow(dns: Any) -> None:
    """Where the DNS server's answers never come (a firewall dropping them), every vendor's
    call ran to its deadline as "brave did not answer within 2.0 s", as if each were slow."""
    import threading
    import time

    dns.silent = threading.Event()
    config = _config(providers={"brave": {"api_key": "k-test-000001"}})
    started = time.monotonic()
    envelope = dispatch_search("q", backend="brave", config=config, cache=False, timeout=2)
    assert time.monotonic() - started < 15  # ended by its deadline, not by the lookup
    assert envelope["error_code"] == "timeout", envelope
    assert envelope["error"].startswith("brave did not answer within "), envelope
    assert (
        " s: the connection to api.search.brave.com was not open yet (looking up its name or connecting "
        "took the time"
    ) in envelope["error"]
    assert "set it: web.proxy, or HTTPS_PROXY" in envelope["error"]


@pytest.mark.parametrize("provider", ["searxng", "serper", "brave", "bocha", "you", "jina"])
def test_a_vendor_that_redirects_is_an_error_not_an_empty_answer(http_server: Any, provider: str) -> None:
    """An API that answers a redirect (a moved endpoint, a login page in front of it) with a
    JSON body gave no results: the call fails, says why, and the redirect is not followed."""
    followed: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.startswith("/moved"):
                followed.append(self.path)
            body = b'{"message": "moved"}'
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{self.server.server_address[1]}/moved")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(Handler).server_address[1]}"
    config = _config(providers={provider: {"base_url": url, "api_key": "key-for-the-test-0001"}})
    envelope = dispatch_search("q", backend=provider, config=config, cache=False)
    assert envelope["success"] is False, envelope
    assert envelope["error_code"] == "provider_error", envelope
    assert "302" in envelope["error"] and f"web.providers.{provider}.base_url" in envelope["error"], envelope
    assert envelope["meta"]["attempts"][0].get("cost") is None, envelope
    assert followed == []


def _vendors_with_a_base_url() -> list[str]:
    """Every built-in search provider built on :class:`VendorProvider` (which reads ``base_url``)."""
    from webproviders import VendorProvider

    registry = get_registry(config_from_dict({}))
    return [
        entry.manifest.name for entry in registry.entries()
        if "search" in entry.manifest.capabilities and isinstance(entry.provider, VendorProvider)
    ]


@pytest.mark.parametrize(
    ("base_url", "why"),
    [
        ("ftp://user:Pw0rdSecret@searx.example", "is not an http:// or https:// URL with a host"),
        ("api.vendor.example/v1", "is not an http:// or https:// URL with a host: it has no scheme, so write http:// or https:// before its host"),
        ("localhost:8888", "is not an http:// or https:// URL with a host: it has no scheme, so write http://"),
        ("https://user:Pw0rdSecret@127.0.0.1:99999/v1", "cannot be read as a URL (its port is outside 0 to 65535)"),
        ("https://127.0.0.1:80a/v1", "cannot be read as a URL (its port is not a number)"),
        ("https://[::1/v1", "cannot be read as a URL (its host in [ ] is not an IP address)"),
        # A '/' in the password ends the host early; the URL library's words would quote it.
        ("https://user:Pw0rd/Secret@127.0.0.1/v1", "cannot be read as a URL (its port is not a number; a '/', '?' or '#' in a user name"),
    ],
)
def test_a_base_url_no_request_can_go_to_makes_the_vendor_not_configured(base_url: str, why: str) -> None:
    """A typo in a base URL is the operator's: every vendor says which setting and what is
    wrong (never the URL, which may hold a password), as ``not_configured``, which moves a
    chain on and is not counted against the vendor's health. Before, each answered
    ``provider_error`` with httpx's words (for port 99999, "unhandled errors in a TaskGroup")."""
    vendors = _vendors_with_a_base_url()
    assert len(vendors) >= 15, vendors
    settings = {"api_key": "k-test-000001", "cx": "engine"}
    # One config for every vendor (health is kept per vendor within it): a config per vendor
    # built a registry and its HTTP clients each time, most of this test's time.
    config = _config(providers={name: {**settings, "base_url": base_url} for name in vendors}, health={"failures": 1})
    fixed = _config(providers={name: {**settings, "base_url": "http://127.0.0.1:9"} for name in vendors}, health={"failures": 1})
    for name in vendors:
        for _ in range(2):
            envelope = dispatch_search("q", backend=name, config=config, cache=False)
            assert envelope["error_code"] == "not_configured", envelope
            assert f"web.providers.{name}.base_url {why}" in envelope["error"], envelope
            assert "Pw0rd" not in json.dumps(envelope)
            assert envelope["meta"]["attempts"] == [] or envelope["meta"]["attempts"][0]["error_code"] == "not_configured"
        assert state_for(get_registry(config)).health.cooling(name) is None  # one counted failure would start one
        envelope = dispatch_search("q", backend=name, config=fixed, cache=False)  # a base URL it can use: tried
        assert envelope["error_code"] == "network_error", envelope


@pytest.mark.parametrize("key", ["\u201ck-test-000001\u201d", "k-test\u00a0000001", "k-test-000001,k-\u00e9t\u00e9"])
def test_a_key_no_request_can_carry_makes_the_vendor_not_configured(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Typographic quotes or a non-breaking space pasted with a key: before, every call failed
    as ``provider_error`` ("UnicodeEncodeError: 'ascii' codec can't encode ..."), counted
    against the vendor's health. Now the vendor is unavailable and the sentence names where
    the key came from, without it."""
    vendors = _vendors_with_a_base_url()
    # One config for every vendor: a config per vendor built a registry for each.
    config = _config(providers={name: {"api_key": key, "base_url": "http://127.0.0.1:9", "cx": "engine"} for name in vendors})
    for name in vendors:
        envelope = dispatch_search("q", backend=name, config=config, cache=False)
        assert envelope["error_code"] == "not_configured", (name, envelope)
        assert f"an API key in web.providers.{name}.api_key holds a character" in envelope["error"], envelope
        assert "k-test" not in json.dumps(envelope) and "\u00e9" not in envelope["error"]
    monkeypatch.setenv("TAVILY_API_KEY", key)
    envelope = dispatch_search("q", backend="tavily", config=_config(providers={"tavily": {"base_url": "http://127.0.0.1:9"}}), cache=False)
    assert "an API key in TAVILY_API_KEY holds a character" in envelope["error"], envelope


def test_a_socks_proxy_without_socksio_is_not_configured_not_the_vendor_s_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """httpx speaks SOCKS only with the optional socksio. Before, every vendor call through
    such a proxy failed as ``provider_error`` (an ImportError), counted against the vendor."""
    monkeypatch.setitem(sys.modules, "socksio", None)  # as where it is not installed
    with pytest.raises(ConfigError, match=r"'web.proxy'.*pip install 'webproviders\[socks\]'"):
        config_from_dict({"web": {"proxy": "socks5://127.0.0.1:1080"}})
    monkeypatch.setenv("HTTPS_PROXY", "socks5://127.0.0.1:1080")
    config = _config(providers={"searxng": {"base_url": "https://searx.vendor.example"}}, health={"failures": 1})
    for _ in range(2):
        envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
        assert envelope["error_code"] == "not_configured", envelope
        assert "a SOCKS proxy needs the socksio package: pip install 'webproviders[socks]'" in envelope["error"], envelope
        assert "cooling down" not in envelope["error"]


@pytest.mark.parametrize(
    ("proxy", "why"),
    [
        ("http://", "must be an http://, https://, socks5:// or socks5h:// URL with a host"),
        ("ftp://proxy.internal:21", "must be an http://, https://, socks5:// or socks5h:// URL"),
        ("http://user:Pw0rdSecret@proxy.internal:31x8", "cannot be read as a URL (its port is not a number"),
        ("http://user:Pw0rd/Secret@proxy.internal:3128", "cannot be read as a URL (its port is not a number; a '/', '?' or '#'"),
        (" http://user:Pw0rdSecret@proxy.internal:3128", "begins or ends with a space, which no URL may"),
        ("http://user:Pw0rdSecret@proxy.internal:3128 ", "begins or ends with a space, which no URL may"),
        ("  ", "begins or ends with a space, which no URL may"),
        # a byte that is not UTF-8 (a variable set from a Latin-1 file) reads as a lone surrogate
        ("http://user:Pw0rd\udce9Secret@proxy.internal:3128", "holds a character that is not text"),
    ],
)
def test_a_proxy_variable_no_request_could_use_is_not_configured_not_the_vendor_s_failure(
    monkeypatch: pytest.MonkeyPatch, proxy: str, why: str
) -> None:
    """Before, ``HTTPS_PROXY=http://`` failed every call as "the proxy at None:80 did not take
    the connection", a network error counted against the vendor; another scheme or a broken
    port failed as the HTTP library's exception."""
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    config = _config(providers={"searxng": {"base_url": "https://searx.vendor.example"}}, health={"failures": 1})
    for _ in range(2):
        envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
        assert envelope["error_code"] == "not_configured", envelope
        assert f"The proxy for this request cannot be used: the proxy {why}" in envelope["error"], envelope
        assert "HTTPS_PROXY" in envelope["error"] and "cooling down" not in envelope["error"]
        assert "Pw0rd" not in json.dumps(envelope)


def test_a_proxy_or_base_url_read_with_its_line_break_is_trimmed_or_named(
    recorder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``proxy: ${PROXY}`` or ``base_url: ${URL}`` from a file ends with its line break: the URL
    parser dropped it without a word, so the config loaded, and every call then failed as the
    caller's invalid_input ("this call's request would not be a URL that can be sent ...
    shorten the query"). The config's own values are trimmed; a variable is named."""
    server = recorder(results=True)
    config = _config(providers={"searxng": {"base_url": f"{server.url}\n"}})
    assert config.provider("searxng").base_url == server.url
    assert dispatch_search("q", backend="searxng", config=config, cache=False)["success"] is True
    assert _config(proxy="http://proxy.internal:3128\n").web.proxy == "http://proxy.internal:3128"
    monkeypatch.setenv("HTTPS_PROXY", "http://user:Pw0rdSecret@proxy.internal:3128\n")
    config = _config(providers={"brave": {"api_key": "k-test-000001"}})
    envelope = dispatch_search("q", backend="brave", config=config, cache=False)
    assert envelope["error_code"] == "not_configured", envelope
    assert "the proxy holds a line break, a tab or another control character, which no URL may" in envelope["error"]
    assert "Pw0rdSecret" not in str(envelope)


def test_a_vendor_whose_name_does_not_resolve_here_says_a_proxy_is_needed() -> None:
    """On a machine without DNS of its own (a sandbox that reaches the internet only through
    a proxy), every vendor's failure says so and names the proxy settings. Before, it read
    "brave could not be reached: ConnectError: [Errno -2] Name or service not known". The
    tests' resolver answers no public name, as such a machine's does."""
    vendors = _vendors_with_a_base_url()
    providers: dict[str, dict[str, str]] = {name: {"api_key": "k-test-000001", "cx": "engine"} for name in vendors}
    # searxng has no default: an instance's address is always given.
    providers["searxng"]["base_url"] = "https://searx.vendor.example"
    config = _config(providers=providers)  # one for every vendor: a config per vendor built a registry for each
    for name in vendors:
        envelope = dispatch_search("q", backend=name, config=config, cache=False)
        assert envelope["error_code"] == "network_error", (name, envelope)
        assert "could not be reached: its name does not resolve on this machine" in envelope["error"], envelope
        assert "set it: web.proxy, or HTTPS_PROXY" in envelope["error"], envelope


def test_jina_s_reader_url_is_checked_as_its_base_url_is() -> None:
    config = _config(providers={"jina": {"reader_url": "r.jina.ai"}})
    envelope = dispatch_extract("https://example.org/", backend="jina", config=config, cache=False)
    assert envelope["error_code"] == "not_configured", envelope
    assert "web.providers.jina.reader_url is not an http:// or https:// URL with a host" in envelope["error"]


def test_a_base_url_from_the_environment_is_named_by_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARXNG_URL", "localhost:8080")
    envelope = dispatch_search("q", backend="searxng", config=_config(), cache=False)
    assert envelope["error_code"] == "not_configured", envelope
    assert "SEARXNG_URL is not an http:// or https:// URL with a host" in envelope["error"], envelope


def test_a_sync_call_is_cut_off_by_its_deadline_while_the_headers_drip(http_server: Any) -> None:
    """A vendor dripping its status line and headers a byte at a time (so no single read ever
    waits long) still ends a sync call at its deadline: its I/O is awaited, and cancelled."""

    class DripHeaders(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            try:
                for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000:
                    if self.server.released.wait(0.1):  # type: ignore[attr-defined]
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(DripHeaders).server_address[1]}"
    config = _config(providers={"searxng": {"base_url": url}})
    started = time.monotonic()
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False, timeout=1.5)
    assert time.monotonic() - started < 2.0, envelope
    assert envelope["error_code"] == "timeout", envelope


# -- clients and their lifetime ---------------------------------------------------------------


class Connections:
    """A vendor that answers like SearXNG and counts the connections open to it."""

    def __init__(self, start: Any) -> None:
        self.open = 0
        self.opened = 0
        counter = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                counter.open += 1
                counter.opened += 1

            def finish(self) -> None:
                super().finish()
                counter.open -= 1

            def do_GET(self) -> None:
                raw = json.dumps({"results": [{"url": "https://example.org/a", "title": "A"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.url = f"http://127.0.0.1:{start(Handler).server_address[1]}"

    def closed(self) -> bool:
        """Whether every connection has been closed by the client (waits up to 5 s)."""
        until = time.monotonic() + 5
        while self.open and time.monotonic() < until:
            time.sleep(0.01)
        return self.open == 0


@pytest.fixture
def connections(http_server: Any) -> Connections:
    return Connections(http_server)


def test_connections_are_reused_between_calls_and_closed_by_close(connections: Connections) -> None:
    config = _config(providers={"searxng": {"base_url": connections.url}})
    for _ in range(3):
        assert dispatch_search("q", backend="searxng", config=config, cache=False)["success"]
    assert connections.opened == 1 and connections.open == 1
    webproviders.close()
    assert connections.closed()
    assert dispatch_search("q", backend="searxng", config=config, cache=False)["success"]  # opens anew
    assert connections.opened == 2


def test_aclose_closes_the_running_loop_s_connections(connections: Connections) -> None:
    config = _config(providers={"searxng": {"base_url": connections.url}})

    async def main() -> bool:
        for _ in range(2):
            assert (await adispatch_search("q", backend="searxng", config=config, cache=False))["success"]
        assert connections.opened == 1
        await webproviders.aclose()
        return await asyncio.to_thread(connections.closed)

    assert asyncio.run(main())


def test_the_owner_closes_its_clients_when_a_block_ends(connections: Connections) -> None:
    config = _config(providers={"searxng": {"base_url": connections.url}})
    with webproviders.http_clients(config):
        assert dispatch_search("q", backend="searxng", config=config, cache=False)["success"]
        assert connections.open == 1
    assert connections.closed()

    async def main() -> bool:
        async with webproviders.http_clients(config):
            assert (await adispatch_search("q", backend="searxng", config=config, cache=False))["success"]
        return await asyncio.to_thread(connections.closed)

    assert asyncio.run(main())


def test_close_reaches_clients_of_a_loop_running_in_another_thread(connections: Connections) -> None:
    """A sync call made inside a running loop runs on the background loop; close() closes its
    connections there."""
    config = _config(providers={"searxng": {"base_url": connections.url}})

    async def inside_a_loop() -> dict[str, Any]:
        return dispatch_search("q", backend="searxng", config=config, cache=False)

    assert asyncio.run(inside_a_loop())["success"]
    assert connections.open == 1
    webproviders.close()
    assert connections.closed()


def test_get_client_keeps_one_client_per_set_of_options_and_caps_answers(
    http_server: Any, make_config: Any
) -> None:
    class Endless(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                while not self.server.released.is_set():  # type: ignore[attr-defined]
                    self.wfile.write(b"10000\r\n" + b"x" * 65536 + b"\r\n")
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(Endless).server_address[1]}"
    config = make_config(web={"user_agent": "scraper-tests/1.0"})

    async def main() -> None:
        plain, redirecting = get_client(config), get_client(config, follow_redirects=True)
        assert plain is get_client(config) and redirecting is get_client(config, follow_redirects=True)
        assert plain is not redirecting and redirecting.follow_redirects
        assert plain.headers["user-agent"] == "scraper-tests/1.0"
        with pytest.raises(TooLargeError, match="33,554,432-byte cap"):
            await plain.get(url)
        with pytest.raises(TypeError, match="proxy"):
            get_client(config, proxy="http://127.0.0.1:1")

    asyncio.run(main())


def test_get_client_for_a_provider_holds_answers_to_that_provider_s_cap(http_server: Any, make_config: Any) -> None:
    """A scraper plugin's client (``get_client(config)``) read 32 MiB whatever its
    ``web.providers.<name>.max_response_bytes``: a cap built-in scrapers keep was out of a
    plugin's reach. Named with ``provider=``, its client keeps the provider's cap and says
    which setting raises it."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"x" * 5000
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(Page).server_address[1]}/"
    config = make_config(web={"providers": {"acme": {"max_response_bytes": 2000}}})

    async def main() -> None:
        with pytest.raises(TooLargeError, match=r"2,000-byte cap .*web\.providers\.acme\.max_response_bytes"):
            await get_client(config, provider="acme").get(url)
        assert len((await get_client(config).get(url)).content) == 5000

    asyncio.run(main())


def test_configs_share_the_certificates_read_once_per_trust_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each config (a tenant's, an MCP client's) read the CA bundle again for its first vendor
    call, about 40 ms. It is read once per trust setting now, and a new setting is read."""
    read: list[tuple[str | None, str | None]] = []
    create = httpx.create_ssl_context

    def reading(*args: Any, **kwargs: Any) -> Any:
        read.append((os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")))
        return create(*args, **kwargs)

    monkeypatch.setattr(httpx, "create_ssl_context", reading)
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))  # a setting no earlier test used
    for _ in range(3):  # three tenants' configs
        config = _config(providers={"searxng": {"base_url": "http://127.0.0.1:9"}})
        assert dispatch_search("q", backend="searxng", config=config, cache=False)["error_code"] == "network_error"
    assert read == [(os.environ.get("SSL_CERT_FILE"), str(tmp_path))]
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setenv("SSL_CERT_DIR", str(other))
    config = _config(providers={"searxng": {"base_url": "http://127.0.0.1:9"}})
    dispatch_search("q", backend="searxng", config=config, cache=False)
    assert read[1:] == [(os.environ.get("SSL_CERT_FILE"), str(other))]
