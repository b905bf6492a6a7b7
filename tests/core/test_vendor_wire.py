"""Vendor requests on the lean wire: what a vendor receives, and what comes back.

The wire skips ``httpx.Client`` on the vendor path, so these check that the request a vendor
sees is the one httpx would send (query merging, value spelling, default headers, bodies),
that compressed answers are read, that ``web.proxy`` and the proxy environment variables
are honoured, and that transport failures become the usual error envelopes. Real HTTP
servers on loopback stand in for the vendor and for a forward proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import json
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest

from webproviders import adispatch_search, dispatch_search
from webproviders.config import Config, config_from_dict
from webproviders.kit import request_json, wire


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
                    body["results"] = [{"url": "https://example.org/a", "title": "A", "content": "via the wire"}]
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


def _config(**web: Any) -> Config:
    return config_from_dict({"web": {"retry": {"max_retries": 0}, **web}}, source="<test>")


def _call(url: str, config: Config | None = None, **kwargs: Any) -> Any:
    async def main() -> Any:
        return await request_json(kwargs.pop("method", "GET"), url, provider="probe", config=config, **kwargs)

    return asyncio.run(main())


def test_query_parameters_are_merged_and_spelled_as_httpx_spells_them(recorder: Any) -> None:
    server = recorder()
    answer = _call(
        f"{server.url}/v1/search?format=json&page=1",
        params={"q": "rust & go", "page": 2, "safe": True, "raw": False, "engines": ["a", "b"], "skip": None},
    )
    assert answer["seen"]["path"] == "/v1/search?format=json&q=rust+%26+go&page=2&safe=true&raw=false&engines=a&engines=b"


def test_default_headers_are_sent_and_the_call_s_own_win(recorder: Any) -> None:
    server = recorder()
    config = _config(user_agent="ExampleAgent/2.0")
    answer = _call(f"{server.url}/x", config, headers={"accept": "application/json", "X-Subscription-Token": "k-123"})
    headers = answer["seen"]["headers"]
    assert headers["host"] == f"127.0.0.1:{server.port}"
    assert headers["user-agent"] == "ExampleAgent/2.0"
    assert headers["accept"] == "application/json"  # replaced, not sent twice
    assert headers["accept-encoding"] == "gzip, deflate"
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
    """The sync call waits on the socket itself, the async one awaits it; same answer."""
    server = recorder(results=True)
    config = _config(providers={"searxng": {"base_url": server.url}})
    sync = dispatch_search("q", backend="searxng", config=config, cache=False)
    async_ = asyncio.run(adispatch_search("q", backend="searxng", config=config, cache=False))
    for envelope in (sync, async_):
        assert envelope["success"], envelope
        assert envelope["data"]["web"][0]["description"] == "via the wire"
    assert [seen["path"].split("?")[0] for seen in server.seen] == ["/search", "/search"]


# -- proxies ---------------------------------------------------------------------------------


def test_web_proxy_carries_vendor_calls(recorder: Any) -> None:
    """The forward proxy gets the absolute URL in its request line and answers itself."""
    proxy = recorder(results=True)
    config = _config(proxy=proxy.url, providers={"searxng": {"base_url": "http://searx.internal:8888"}})
    for envelope in (
        dispatch_search("q", backend="searxng", config=config, cache=False),
        asyncio.run(adispatch_search("q", backend="searxng", config=config, cache=False)),
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


def _tunnel_proxy(http_server: Any, upstream_port: int, asked: list[str]) -> Any:
    """A forward proxy for ``CONNECT``: it records the target and pipes bytes to ``upstream_port``
    on loopback (every name resolves there), as a corporate proxy tunnels HTTPS."""

    class Tunnel(BaseHTTPRequestHandler):
        def do_CONNECT(self) -> None:
            asked.append(self.path)
            upstream = socket.create_connection(("127.0.0.1", upstream_port))
            self.send_response(200, "Connection established")
            self.end_headers()
            back = threading.Thread(target=_pump, args=(upstream, self.connection), daemon=True)
            back.start()
            _pump(self.connection, upstream)
            back.join(5)
            upstream.close()
            self.close_connection = True

        def log_message(self, *args: Any) -> None:
            pass

    return http_server(Tunnel)


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


def test_an_https_vendor_is_reached_through_a_connect_tunnel_and_its_certificate_checked(
    http_server: Any, recorder: Any, certificate: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HTTPS_PROXY`` with an https vendor: the proxy only sees ``CONNECT vendor.test:PORT``;
    TLS runs end to end through the tunnel and is verified for the vendor's name."""
    cert, key = certificate("vendor.test")
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    vendor_port = recorder(results=True, tls=tls).port
    asked: list[str] = []
    proxy = _tunnel_proxy(http_server, vendor_port, asked)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy.server_address[1]}")
    config = _config(providers={"searxng": {"base_url": f"https://vendor.test:{vendor_port}"}})

    def search() -> dict[str, Any]:
        return asyncio.run(adispatch_search("q", backend="searxng", config=config, cache=False))

    monkeypatch.setattr(wire, "_ssl_context", functools.cache(wire._ssl_context.__wrapped__))
    refused = search()  # the default CA bundle does not trust a self-signed certificate
    assert refused["success"] is False and refused["error_code"] == "network_error", refused

    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    monkeypatch.setattr(wire, "_ssl_context", functools.cache(wire._ssl_context.__wrapped__))
    envelope = search()
    assert envelope["success"], envelope
    assert envelope["data"]["web"][0]["description"] == "via the wire"
    assert asked == [f"vendor.test:{vendor_port}"] * 2


# -- failures --------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_refused_connection_is_a_network_error() -> None:
    with pytest.raises(httpx.ConnectError):  # what httpx.Client raises; dispatch maps it
        _call(f"http://127.0.0.1:{_closed_port()}/x")
    config = _config(providers={"searxng": {"base_url": f"http://127.0.0.1:{_closed_port()}"}})
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert envelope["success"] is False
    assert envelope["error_code"] == "network_error", envelope


def test_a_vendor_that_does_not_answer_in_time_is_a_timeout(recorder: Any) -> None:
    server = recorder(stall=30)
    with pytest.raises(httpx.ReadTimeout):
        _call(f"{server.url}/slow", timeout=0.5)
    config = _config(providers={"searxng": {"base_url": server.url, "timeout": 0.5}})
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert envelope["success"] is False
    assert envelope["error_code"] == "timeout", envelope


def test_a_base_url_that_is_not_http_is_an_error_envelope() -> None:
    config = _config(providers={"searxng": {"base_url": "ftp://searx.example"}})
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert envelope["success"] is False
    assert "ftp" in envelope["error"], envelope
