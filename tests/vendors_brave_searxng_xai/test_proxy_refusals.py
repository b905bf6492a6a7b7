"""A proxy that refuses a vendor request, against a real loopback proxy: the envelope says it
was the proxy and what to change, names no password, and a refusal that would repeat is not
retried.

brave is reached through a ``CONNECT`` tunnel (an ``https://`` API), a SearXNG instance at an
``http://`` address as a plain forwarded request; a proxy answers both, so no vendor host is
ever looked up or reached.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_extract, dispatch_search

PASSWORD = "proxy-pass-5f1c9a"


class RefusingProxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(("127.0.0.1", 0), _Refuse)
        self.status, self.reason = status, reason
        self.asked: list[str] = []

    def url(self) -> str:
        return f"http://office:{PASSWORD}@127.0.0.1:{self.server_address[1]}"


class _Refuse(BaseHTTPRequestHandler):
    server: RefusingProxy

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_CONNECT(self) -> None:
        self.server.asked.append(f"{self.command} {self.path}")
        self.send_response(self.server.status, self.server.reason)
        if self.server.status == 407:
            self.send_header("Proxy-Authenticate", 'Basic realm="office"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_CONNECT


def _search(backend: str, proxy: RefusingProxy | _NoProxy, make_config: Callable[..., Any]) -> dict[str, Any]:
    config = make_config(web={
        "proxy": proxy.url(),
        "cache": False,
        "usage": False,
        "retry": {"backoff": 0},
        "providers": {"brave": {"api_key": "brave-key-for-test"}, "searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    return dispatch_search("proxy refusals", backend=backend, config=config, timeout=10)


@pytest.mark.parametrize("backend", ["brave", "searxng"])
def test_a_proxy_asking_for_credentials_is_named_and_not_retried(
    backend: str, serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    proxy = serve(RefusingProxy(407, "Proxy Authentication Required"))
    envelope = _search(backend, proxy, make_config)
    assert envelope["success"] is False
    assert envelope["error_code"] == "auth_error"
    assert "proxy" in envelope["error"] and "HTTP 407" in envelope["error"]
    assert "or correct the ones there" in envelope["error"]  # given credentials may be the wrong ones
    assert "user name and password" in envelope["error"] and "HTTPS_PROXY" in envelope["error"]
    assert len(proxy.asked) == 1  # the same credentials would be refused again
    assert "API_KEY" not in envelope["error"] and "api_key" not in envelope["error"]  # the vendor's key was not refused
    assert PASSWORD not in json.dumps(envelope)


@pytest.mark.parametrize("backend", ["brave", "searxng"])
def test_a_proxy_asking_for_credentials_does_not_cool_the_vendor_down(
    backend: str, serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    """The proxy on this side refused, and the vendor never saw the request: the failure is the
    user's setup, not the vendor's. Before, it counted, and (here after one failure) the
    vendor was skipped as cooling down even once the proxy was fixed."""
    proxy = serve(RefusingProxy(407, "Proxy Authentication Required"))
    config = make_config(web={
        "proxy": proxy.url(),
        "cache": False,
        "usage": False,
        "health": {"failures": 1},
        "providers": {"brave": {"api_key": "brave-key-for-test"}, "searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    for _ in range(2):
        envelope = dispatch_search("proxy refusals", backend=backend, config=config, timeout=10)
        assert envelope["error_code"] == "auth_error", envelope
        assert "HTTP 407" in envelope["error"] and "cooling down" not in envelope["error"], envelope
    assert len(proxy.asked) == 2  # the second call was sent, not skipped


class _KeyedProxy(BaseHTTPRequestHandler):
    """A forward proxy that asks for its credentials (407) while ``server.status`` says so,
    then answers the SearXNG search itself; it records the vendor key each request carried."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.keys.append((self.headers.get("Authorization") or "").removeprefix("Bearer "))
        body = json.dumps({"results": [{"title": "t", "url": "https://example.com/a", "content": "c"}]}).encode()
        self.send_response(self.server.status)
        if self.server.status == 407:
            self.send_header("Proxy-Authenticate", 'Basic realm="office"')
            body = b""
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_proxy_asking_for_credentials_rests_none_of_the_vendor_s_keys(
    run: str, serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    """A 407 is the proxy's: the key is not what it refused, and every key meets the same
    proxy. Before, each key of the ring was tried in turn and benched for an hour, so once
    the proxy was fixed every call went out with the one benched least long."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _KeyedProxy)
    server.daemon_threads = True
    server.status, server.keys = 407, []  # type: ignore[attr-defined]
    serve(server)
    config = make_config(web={
        "proxy": f"http://office:{PASSWORD}@127.0.0.1:{server.server_address[1]}",
        "cache": False,
        "usage": False,
        "retry": {"backoff": 0},
        "providers": {"searxng": {"base_url": "http://searx.corp.test:8080", "api_key": ["key-one", "key-two"]}},
    })

    def search() -> dict[str, Any]:
        if run == "sync":
            return dispatch_search("proxy refusals", backend="searxng", config=config, timeout=10)
        return asyncio.run(adispatch_search("proxy refusals", backend="searxng", config=config, timeout=10))

    envelope = search()
    assert envelope["error_code"] == "auth_error", envelope
    assert "HTTP 407" in envelope["error"] and "SEARXNG_API_KEY" not in envelope["error"], envelope
    assert server.keys == ["key-one"]  # type: ignore[attr-defined]  # the next key would meet the same proxy
    server.status = 200  # type: ignore[attr-defined]  # the proxy's credentials are fixed
    assert search()["success"] is True and search()["success"] is True
    assert server.keys[-2:] == ["key-two", "key-one"]  # type: ignore[attr-defined]  # both still in turn


class _EchoingRefusal(BaseHTTPRequestHandler):
    """A proxy refusing with a body that quotes the credentials it was sent (some do)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        got = (self.headers.get("Proxy-Authorization") or "").partition(" ")[2]
        body = f"Proxy authentication failed for credentials {got}".encode()
        self.send_response(407, "Proxy Authentication Required")
        self.send_header("Proxy-Authenticate", 'Basic realm="office"')
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.parametrize("given_by", ["web.proxy", "HTTP_PROXY"])
def test_a_proxy_quoting_its_credentials_back_shows_neither_password_nor_basic_form(
    given_by: str, serve: Callable[[Any], Any], make_config: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy from the environment is known to nothing but the request: its password (and
    its Basic form, which a proxy may quote back) must be masked as one in ``web.proxy`` is."""
    server = serve(ThreadingHTTPServer(("127.0.0.1", 0), _EchoingRefusal))
    password = {"web.proxy": "wp-pass-3e8d1b", "HTTP_PROXY": "env-pass-71c2e0"}[given_by]  # its own: a secret once known stays known
    url = f"http://office:{password}@127.0.0.1:{server.server_address[1]}"
    web: dict[str, Any] = {
        "cache": False, "usage": False, "providers": {"searxng": {"base_url": "http://searx.corp.test:8080"}},
    }
    if given_by == "web.proxy":
        web["proxy"] = url
    else:
        monkeypatch.setenv("HTTP_PROXY", url)
    envelope = dispatch_search("q", backend="searxng", config=make_config(web=web), timeout=10)
    assert envelope["error_code"] == "auth_error", envelope
    assert "Proxy authentication failed for credentials ***" in envelope["error"], envelope
    basic = base64.b64encode(f"office:{password}".encode()).decode()
    assert password not in json.dumps(envelope) and basic not in json.dumps(envelope)


class _DrippingRefusal(BaseHTTPRequestHandler):
    """A proxy refusing a forwarded request with 407, then sending its page a byte at a time
    until the test ends."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(407, "Proxy Authentication Required")
        self.send_header("Proxy-Authenticate", 'Basic realm="office"')
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            self.wfile.write(b"Sign in to the office proxy first. ")
            self.wfile.flush()
            while not self.server.done.wait(0.2):
                self.wfile.write(b"x")
                self.wfile.flush()
        except OSError:  # the client has gone
            pass


@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_proxy_dripping_the_page_of_its_407_is_still_an_auth_error(
    run: str, serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    """The refusal is in the status line: the body is only quoted, from what arrived. Before,
    the whole body was waited for, and the call ended as a ``timeout`` (slow answer)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _DrippingRefusal)
    server.daemon_threads, server.done = True, threading.Event()  # type: ignore[attr-defined]
    serve(server)
    config = make_config(web={
        "proxy": f"http://office:{PASSWORD}@127.0.0.1:{server.server_address[1]}",
        "cache": False,
        "usage": False,
        "providers": {"searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    try:
        if run == "sync":
            envelope = dispatch_search("q", backend="searxng", config=config, timeout=5)
        else:
            envelope = asyncio.run(adispatch_search("q", backend="searxng", config=config, timeout=5))
    finally:
        server.done.set()  # type: ignore[attr-defined]
    assert envelope["error_code"] == "auth_error", envelope
    assert "HTTP 407" in envelope["error"] and '"Sign in to the office proxy first."' in envelope["error"], envelope
    assert PASSWORD not in json.dumps(envelope)


def test_a_proxy_refusing_the_tunnel_says_so(serve: Callable[[Any], Any], make_config: Callable[..., Any]) -> None:
    proxy = serve(RefusingProxy(502, "Bad Gateway"))
    envelope = _search("brave", proxy, make_config)
    assert envelope["error_code"] == "network_error"
    assert "through the proxy, which answered 502 Bad Gateway" in envelope["error"]
    assert "web.proxy" in envelope["error"]
    assert PASSWORD not in json.dumps(envelope)


class _ForwardingRefusal(BaseHTTPRequestHandler):
    """A forward proxy refusing a plain-HTTP request by its own rules, with no body (or a text
    one) and the marks only a proxy's own answer carries."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.asked.append(self.path)  # type: ignore[attr-defined]
        self.send_response(*getattr(self.server, "status", (403, "Forbidden")))
        for name, value in self.server.marks.items():  # type: ignore[attr-defined]
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_GET


@pytest.mark.parametrize("backend", ["brave", "searxng"])
@pytest.mark.parametrize(
    ("marks", "why"),
    [
        ({"Server": "squid/6.10", "X-Squid-Error": "ERR_ACCESS_DENIED 0"}, "ERR_ACCESS_DENIED"),
        ({"Proxy-Status": 'egress.corp; error=http_request_denied; details="host not allowed"'}, "http_request_denied"),
    ],
)
def test_a_proxy_refusing_a_forwarded_request_itself_is_not_the_vendor_refusing_the_key(
    backend: str, marks: dict[str, str], why: str, serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    """A vendor at an ``http://`` address is reached by a request the proxy forwards, and a
    proxy's own 403 came back as an answer: read as the vendor's, it was "brave rejected the
    API key", and the vendor was cooled down for the proxy's rule."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ForwardingRefusal)
    server.daemon_threads = True
    server.asked, server.marks = [], marks  # type: ignore[attr-defined]
    serve(server)
    config = make_config(web={
        "proxy": f"http://office:{PASSWORD}@127.0.0.1:{server.server_address[1]}",
        "cache": False,
        "usage": False,
        "retry": {"max_retries": 0},
        "health": {"failures": 1},
        "providers": {
            "brave": {"api_key": "brave-key-for-test", "base_url": "http://brave.corp.test"},
            "searxng": {"base_url": "http://searx.corp.test:8080"},
        },
    })
    for _ in range(2):
        envelope = dispatch_search("proxy refusals", backend=backend, config=config, timeout=10)
        assert envelope["error_code"] == "network_error", envelope
        assert "through the proxy at 127.0.0.1" in envelope["error"] and why in envelope["error"], envelope
        assert "API key" not in envelope["error"] and "JSON format" not in envelope["error"], envelope
        assert PASSWORD not in json.dumps(envelope)
    assert len(server.asked) == 2  # type: ignore[attr-defined]  # the second call was sent, not skipped


def test_a_proxy_that_cannot_reach_a_forwarded_vendor_says_so_not_the_vendor(
    serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    """A proxy's own 503 for a host it could not look up (a typo in ``base_url``) read
    "searxng failed on its side (HTTP 503). Try again later." """
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ForwardingRefusal)
    server.daemon_threads = True
    server.asked, server.marks = [], {"X-Squid-Error": "ERR_DNS_FAIL 0"}  # type: ignore[attr-defined]
    server.status = (503, "Service Unavailable")  # type: ignore[attr-defined]
    serve(server)
    config = make_config(web={
        "proxy": f"http://office:{PASSWORD}@127.0.0.1:{server.server_address[1]}",
        "cache": False,
        "usage": False,
        "retry": {"max_retries": 0},
        "providers": {"searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    envelope = dispatch_search("proxy refusals", backend="searxng", config=config, timeout=10)
    assert envelope["error_code"] == "network_error", envelope
    assert envelope["error"].startswith(
        f"searx.corp.test could not be reached through the proxy at 127.0.0.1:{server.server_address[1]}, "
        "which answered HTTP 503 Service Unavailable itself (ERR_DNS_FAIL)."
    ), envelope
    assert "on its side" not in envelope["error"] and PASSWORD not in json.dumps(envelope)


def test_a_vendor_s_own_squid_answer_through_a_socks_proxy_is_the_vendor_s(
    serve: Callable[[Any], Any], socks_proxy: Callable[[str], Any], make_config: Callable[..., Any]
) -> None:
    """A SOCKS proxy answers no HTTP: a 403 marked by the instance's own Squid (in front of
    it) read "could not be reached through the proxy at …, which refused the request itself"."""
    pytest.importorskip("socksio")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ForwardingRefusal)
    server.daemon_threads = True
    server.asked, server.marks = [], {"X-Squid-Error": "ERR_ACCESS_DENIED 0"}  # type: ignore[attr-defined]
    proxy = socks_proxy("tunnel")
    proxy.upstream = serve(server).server_address[1]
    config = make_config(web={
        "proxy": f"socks5h://127.0.0.1:{proxy.server_address[1]}",
        "cache": False,
        "usage": False,
        "retry": {"max_retries": 0},
        "providers": {"searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    envelope = dispatch_search("proxy refusals", backend="searxng", config=config, timeout=10)
    assert envelope["success"] is False and server.asked, envelope  # type: ignore[attr-defined]
    assert "through the proxy" not in envelope["error"], envelope


class _NoProxy:
    """A proxy address where nothing listens (a port that was free a moment ago)."""

    def __init__(self) -> None:
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]

    def url(self) -> str:
        return f"http://office:{PASSWORD}@127.0.0.1:{self.port}"


@pytest.mark.parametrize("backend", ["brave", "searxng"])
def test_a_proxy_that_takes_no_connection_is_named(backend: str, make_config: Callable[..., Any]) -> None:
    proxy = _NoProxy()
    envelope = _search(backend, proxy, make_config)
    assert envelope["error_code"] == "network_error"
    assert f"the proxy at 127.0.0.1:{proxy.port} did not take the connection" in envelope["error"]
    assert "HTTPS_PROXY" in envelope["error"]
    assert PASSWORD not in json.dumps(envelope)


@pytest.mark.parametrize(("backend", "refusal"), [("brave", "no connection"), ("searxng", "no connection"), ("brave", "403")])
def test_a_proxy_that_is_down_or_refuses_the_tunnel_does_not_cool_the_vendor_down(
    backend: str, refusal: str, serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    """A proxy that takes no connection, or will not open a tunnel by its own policy (a 4xx),
    never let the request reach the vendor: every vendor would fail alike. Before, each
    counted, and once the proxy was back every vendor was skipped as cooling down."""
    proxy = _NoProxy() if refusal == "no connection" else serve(RefusingProxy(403, "Forbidden"))
    config = make_config(web={
        "proxy": proxy.url(),
        "cache": False,
        "usage": False,
        "retry": {"backoff": 0},
        "health": {"failures": 1},
        "providers": {"brave": {"api_key": "brave-key-for-test"}, "searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    for _ in range(2):
        envelope = dispatch_search("proxy refusals", backend=backend, config=config, timeout=10)
        assert envelope["error_code"] == "network_error", envelope
        assert "proxy" in envelope["error"] and "cooling down" not in envelope["error"], envelope


@pytest.mark.parametrize("backend", ["brave", "searxng"])
def test_a_proxy_whose_name_does_not_resolve_says_so(backend: str, make_config: Callable[..., Any]) -> None:
    """A proxy named by a host this machine cannot look up never ran out of anything: the
    sentence says its name does not resolve, not that it may not be running."""
    config = make_config(web={
        "proxy": f"http://office:{PASSWORD}@proxy.corp.invalid:3128",
        "cache": False,
        "usage": False,
        "providers": {"brave": {"api_key": "brave-key-for-test"}, "searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    envelope = dispatch_search("proxy refusals", backend=backend, config=config, timeout=10)
    assert envelope["error_code"] == "network_error", envelope
    assert "the proxy's name, proxy.corp.invalid, does not resolve on this machine" in envelope["error"], envelope
    assert "Check that it runs" not in envelope["error"] and "web.proxy" in envelope["error"]
    assert PASSWORD not in json.dumps(envelope)


def test_a_proxy_at_an_ipv6_address_is_named_with_brackets(make_config: Callable[..., Any]) -> None:
    """``::1:8`` reads as an address without a port; ``[::1]:8`` is the one to look for."""
    port = _NoProxy().port  # free on 127.0.0.1, and so most likely on ::1 (or IPv6 is off)
    config = make_config(web={
        "proxy": f"http://office:{PASSWORD}@[::1]:{port}",
        "cache": False,
        "usage": False,
        "providers": {"searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    envelope = dispatch_search("proxy refusals", backend="searxng", config=config, timeout=10)
    assert envelope["error_code"] == "network_error", envelope
    assert f"the proxy at [::1]:{port} did not take the connection" in envelope["error"], envelope


class _HoldingProxy(ThreadingHTTPServer):
    """A proxy that takes the connection and never answers ``CONNECT``."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Hold)
        self.asked: list[str] = []
        self.released = threading.Event()


class _Hold(BaseHTTPRequestHandler):
    server: _HoldingProxy

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_CONNECT(self) -> None:
        self.server.asked.append(self.path)
        self.server.released.wait(30)


def _through_holding_proxy(make_config: Callable[..., Any], proxy: Any, backend: str) -> Any:
    """A config sending ``backend``'s requests through ``proxy`` (with a password), no retry."""
    return make_config(web={
        "proxy": f"http://office:{PASSWORD}@127.0.0.1:{proxy.server_address[1]}",
        "cache": False,
        "usage": False,
        "retry": {"max_retries": 0},
        "providers": {backend: {"api_key": "key-for-test", "timeout": 3}},
    })


@pytest.mark.parametrize(("backend", "run"), [("brave", "sync"), ("brave", "async"), ("exa", "sync")])
def test_a_proxy_that_never_opens_the_tunnel_is_named_when_time_runs_out(
    backend: str, run: str, serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    """The vendor was never reached: the timeout says the proxy had not opened its tunnel,
    rather than blaming the vendor for not answering."""
    if backend == "exa":
        pytest.importorskip("exa_py")  # loaded now: its import can take seconds of a cold machine
    proxy = serve(_HoldingProxy())
    config = _through_holding_proxy(make_config, proxy, backend)
    try:
        if run == "sync":
            envelope = dispatch_search("proxy refusals", backend=backend, config=config, timeout=20)
        else:
            envelope = asyncio.run(adispatch_search("proxy refusals", backend=backend, config=config, timeout=20))
    finally:
        proxy.released.set()
    host = {"brave": "api.search.brave.com", "exa": "api.exa.ai"}[backend]
    assert envelope["error_code"] == "timeout", envelope
    assert f"the proxy at 127.0.0.1:{proxy.server_address[1]} had not opened its tunnel to {host}" in envelope["error"]
    assert "web.proxy" in envelope["error"] and PASSWORD not in json.dumps(envelope)
    assert proxy.asked and proxy.asked[0] == f"{host}:443"


@pytest.mark.parametrize(("backend", "host"), [("brave", "api.search.brave.com"), ("searxng", "searx.corp.test")])
def test_a_socks_proxy_that_never_opens_the_tunnel_is_named_when_time_runs_out(
    backend: str, host: str, socks_proxy: Callable[[str], Any], make_config: Callable[..., Any]
) -> None:
    """Every request through a SOCKS proxy, ``http://`` or ``https://``, waits for its handshake:
    one stuck there read "brave did not answer within 3.0 s.", blaming a vendor never reached."""
    pytest.importorskip("socksio")
    server = socks_proxy("silent")
    config = make_config(web={
        "proxy": f"socks5h://office:{PASSWORD}@127.0.0.1:{server.server_address[1]}",
        "cache": False,
        "usage": False,
        "retry": {"max_retries": 0},
        "providers": {"brave": {"api_key": "key-for-test", "timeout": 3}, "searxng": {"base_url": "http://searx.corp.test:8080", "timeout": 3}},
    })
    envelope = dispatch_search("proxy refusals", backend=backend, config=config, timeout=20)
    assert envelope["error_code"] == "timeout", envelope
    assert f"the proxy at 127.0.0.1:{server.server_address[1]} had not opened its tunnel to {host}" in envelope["error"]
    assert PASSWORD not in json.dumps(envelope)


@pytest.mark.parametrize("backend", ["brave", "searxng"])
def test_a_socks_address_that_is_no_socks_proxy_is_named_and_does_not_cool_the_vendor_down(
    backend: str, socks_proxy: Callable[[str], Any], make_config: Callable[..., Any]
) -> None:
    """``socks5://`` given for an HTTP proxy's port: its answer to the SOCKS greeting came up
    as "brave failed: ProtocolError: Malformed reply", a provider_error that cooled down every
    vendor behind that proxy."""
    pytest.importorskip("socksio")
    port = socks_proxy("not_socks").server_address[1]
    config = make_config(web={
        "proxy": f"socks5://office:{PASSWORD}@127.0.0.1:{port}",
        "cache": False,
        "usage": False,
        "retry": {"backoff": 0},
        "health": {"failures": 1},
        "providers": {"brave": {"api_key": "brave-key-for-test"}, "searxng": {"base_url": "http://searx.corp.test:8080"}},
    })
    for _ in range(2):
        envelope = dispatch_search("proxy refusals", backend=backend, config=config, timeout=10)
        assert envelope["error_code"] == "network_error", envelope
        assert f"the proxy at 127.0.0.1:{port} broke off its SOCKS5 handshake" in envelope["error"], envelope
        assert "web.proxy" in envelope["error"] and "cooling down" not in envelope["error"], envelope
        assert PASSWORD not in json.dumps(envelope)


@pytest.mark.parametrize(
    ("backend", "who", "host"),
    [("jina", "jina", "r.jina.ai"), ("firecrawl", "Firecrawl", "api.firecrawl.dev"), ("you", "You.com", "ydc-index.io")],
)
def test_a_page_whose_tunnel_the_proxy_never_opens_names_the_proxy(
    backend: str, who: str, host: str, serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    """Extracts that ask for each page on its own end each one a little before the deadline:
    such a page read "jina had not read this page by the call's deadline.", blaming a vendor
    that never saw the request."""
    if backend == "firecrawl":
        pytest.importorskip("firecrawl")
    proxy = serve(_HoldingProxy())
    config = _through_holding_proxy(make_config, proxy, backend)
    try:
        envelope = dispatch_extract("https://docs.example.com/page", backend=backend, config=config, timeout=20)
    finally:
        proxy.released.set()
    assert envelope["error_code"] == "timeout", envelope
    assert envelope["error"].startswith(
        f"{who} was not reached for this page by the call's deadline: the proxy at "
        f"127.0.0.1:{proxy.server_address[1]} had not opened its tunnel to {host}."
    ), envelope
    assert PASSWORD not in json.dumps(envelope)


class _HangUp(BaseHTTPRequestHandler):
    """A proxy (or something else listening where one is configured) that drops ``CONNECT``."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_CONNECT(self) -> None:
        self.close_connection = True  # no answer at all


def test_a_proxy_that_drops_the_tunnel_request_is_named_and_does_not_cool_the_vendor_down(
    serve: Callable[[Any], Any], make_config: Callable[..., Any]
) -> None:
    server = serve(ThreadingHTTPServer(("127.0.0.1", 0), _HangUp))
    port = server.server_address[1]
    config = make_config(web={
        "proxy": f"http://office:{PASSWORD}@127.0.0.1:{port}",
        "cache": False,
        "usage": False,
        "retry": {"backoff": 0},
        "health": {"failures": 1},
        "providers": {"brave": {"api_key": "brave-key-for-test"}},
    })
    for _ in range(2):
        envelope = dispatch_search("proxy refusals", backend="brave", config=config, timeout=10)
        assert envelope["error_code"] == "network_error", envelope
        assert f"the proxy at 127.0.0.1:{port} ended the connection before opening its tunnel" in envelope["error"]
        assert "cooling down" not in envelope["error"] and PASSWORD not in json.dumps(envelope)


@pytest.mark.parametrize("credentials", ["office:wrong-pass-0d1e@", ""])
def test_a_socks_proxy_refusing_its_credentials_is_the_proxy_s_refusal(
    credentials: str, socks_proxy: Callable[[str], Any], make_config: Callable[..., Any]
) -> None:
    """As a 407 is: ``auth_error`` naming the proxy settings, not retried, not held against
    the vendor. It read "brave could not be reached through the proxy, which answered Invalid
    username/password.", a network_error retried three times that cooled brave down, and a
    page's fetch said the same."""
    pytest.importorskip("socksio")
    server = socks_proxy("refusing_login")
    config = make_config(web={
        "proxy": f"socks5h://{credentials}127.0.0.1:{server.server_address[1]}",
        "cache": False,
        "usage": False,
        "retry": {"backoff": 0},
        "health": {"failures": 1},
        "proxy_resolves_names": True,
        "providers": {"brave": {"api_key": "brave-key-for-test"}},
    })
    for _ in range(2):
        envelope = dispatch_search("proxy refusals", backend="brave", config=config, timeout=10)
        assert envelope["error_code"] == "auth_error" and envelope["retryable"] is False, envelope
        assert envelope["error"].startswith(
            "A proxy on the way to brave refused the request for want of valid credentials (SOCKS5 user name and "
            "password). Put its user name and password in its URL"
        ), envelope
        assert "wrong-pass-0d1e" not in json.dumps(envelope)
    page = dispatch_extract("https://docs.example.com/page", backend="http", config=config, timeout=10)
    assert page["error_code"] == "auth_error" and "(SOCKS5 user name and password)" in page["error"], page
    assert server.logins == (["office"] * 3 if credentials else [])  # type: ignore[attr-defined]


def test_a_socks_proxy_that_cannot_reach_the_vendor_is_said_in_one_sentence(
    socks_proxy: Callable[[str], Any], make_config: Callable[..., Any]
) -> None:
    """httpx ends its words with a full stop: the sentence read "… which answered Proxy Server
    could not connect: Host unreachable.. Check the proxy …"."""
    pytest.importorskip("socksio")
    server = socks_proxy("unreachable")
    config = make_config(web={
        "proxy": f"socks5h://127.0.0.1:{server.server_address[1]}",
        "cache": False,
        "usage": False,
        "retry": {"max_retries": 0},
        "providers": {"brave": {"api_key": "brave-key-for-test"}},
    })
    envelope = dispatch_search("proxy refusals", backend="brave", config=config, timeout=10)
    assert envelope["error_code"] == "network_error", envelope
    assert envelope["error"] == (
        "brave could not be reached through the proxy, which answered Proxy Server could not connect: Host "
        "unreachable. Check the proxy in web.proxy, or HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY."
    )
