"""A vendor whose TLS certificate is refused, against a real HTTPS server on loopback.

What a user depends on: the failure says it is the certificate and where trusted CAs come
from (SSL_CERT_FILE / SSL_CERT_DIR); it is not retried (the same handshake would be refused
again); a chain moves on to the next provider; and a certificate this machine does not trust
(the user's trust store) does not cool the vendor down, while one that is wrong in itself
(issued for another name) does.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import webproviders
from webproviders import dispatch_extract, dispatch_search
from webproviders.config import Config, config_from_dict


@pytest.fixture(autouse=True)
def _fresh_clients() -> Any:
    """Clients read SSL_CERT_FILE when they are made: each test starts without any."""
    webproviders.close()
    yield
    webproviders.close()


@pytest.fixture
def tls_vendor(http_server: Any, certificate: Callable[[str], Any]) -> tuple[int, list[str], Any]:
    """An HTTPS server on 127.0.0.1 with a self-signed certificate for ``vendor.test``:
    its port, the paths it was asked for, and the certificate's file."""
    cert, key = certificate("vendor.test")
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"results": []}')

        def log_message(self, *args: Any) -> None:
            pass

    return http_server(Handler, tls=tls).server_address[1], asked, cert


def _config(port: int, fallback: str) -> Config:
    return config_from_dict(
        {
            "web": {
                "retry": {"max_retries": 2, "backoff": 0},
                "health": {"failures": 2},
                "providers": {
                    "searxng": {"base_url": f"https://127.0.0.1:{port}"},
                    "brave": {"api_key": "k-test-000001", "base_url": fallback},
                },
            }
        },
        source="<test>",
    )


def _searxng_attempts(envelope: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in envelope["meta"]["attempts"] if a["provider"] == "searxng"]


def test_an_untrusted_certificate_is_said_not_retried_and_does_not_cool_the_vendor_down(
    tls_vendor: tuple[int, list[str], Any], http_server: Any
) -> None:
    port, asked, _ = tls_vendor
    config = _config(port, "http://127.0.0.1:9")
    for _ in range(3):  # more than health.failures: were they counted, the third would be skipped
        envelope = dispatch_search("q", backend="searxng", config=config, cache=False)
        assert envelope["error_code"] == "network_error", envelope
        assert "cooling down" not in envelope["error"], envelope
        assert (
            "the TLS certificate of 127.0.0.1 could not be verified (CERTIFICATE_VERIFY_FAILED"
            in envelope["error"]
        )
        assert "trust its CA with SSL_CERT_FILE or SSL_CERT_DIR" in envelope["error"], envelope
        assert envelope.get("detail") == "untrusted_certificate", envelope
        assert len(_searxng_attempts(envelope)) == 1, envelope  # one handshake, no retry
    assert asked == []


def test_a_certificate_for_another_name_counts_against_the_vendor_and_a_chain_moves_on(
    tls_vendor: tuple[int, list[str], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, asked, cert = tls_vendor
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trusted, but issued for vendor.test
    config = _config(port, "http://127.0.0.1:9")
    alone = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert "the TLS certificate of 127.0.0.1 could not be verified" in alone["error"], alone
    assert (
        "The certificate itself is wrong" in alone["error"] and "SSL_CERT_FILE" in alone["error"]
    ), alone
    assert alone.get("detail") == "invalid_certificate" and len(_searxng_attempts(alone)) == 1, (
        alone
    )
    chain = dispatch_search("q", backend=["searxng", "brave"], config=config, cache=False)
    tried = [a["provider"] for a in chain["meta"]["attempts"]]
    assert tried[0] == "searxng" and set(tried[1:]) == {"brave"}, chain  # not retried; moved on
    # Two such failures (health.failures) cool searxng down: the next call skips it.
    after = dispatch_search("q", backend=["searxng", "brave"], config=config, cache=False)
    assert _searxng_attempts(after)[0]["outcome"] == "skipped", after
    assert asked == []


def test_a_page_whose_certificate_is_refused_says_so(
    tls_vendor: tuple[int, list[str], Any],
) -> None:
    """Before, a page read "Could not fetch ...: ConnectError: [SSL: CERTIFICATE_VERIFY_FAILED] ..."."""
    port, asked, _ = tls_vendor
    config = config_from_dict({"web": {"allow_private_networks": True}}, source="<test>")
    envelope = dispatch_extract(
        f"https://127.0.0.1:{port}/page", backend="http", config=config, cache=False
    )
    [failure] = envelope["meta"]["failures"]
    assert failure["error_code"] == "network_error", envelope
    assert "the TLS certificate of 127.0.0.1 could not be verified" in failure["error"], failure
    assert "SSL_CERT_FILE or SSL_CERT_DIR" in failure["error"], failure
    assert asked == []


@pytest.fixture
def tls_proxy(http_server: Any, certificate: Callable[[str], Any]) -> tuple[str, list[str], Any]:
    """An ``https://`` forward proxy on 127.0.0.1 (a certificate of its own, self-signed)
    that answers every forwarded request itself: its URL, the URLs it was asked for, and the
    certificate's file."""
    cert, key = certificate("127.0.0.1")
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    asked: list[str] = []

    class Forward(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            if "search" in self.path:
                body, kind = (
                    b'{"results": [{"url": "https://example.org/a", "title": "A", "content": "c"}]}',
                    "application/json",
                )
            else:
                body, kind = (
                    b"<html><head><title>Through</title></head><body><p>Read through the proxy.</p></body></html>",
                    "text/html",
                )
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    port = http_server(Forward, tls=tls).server_address[1]
    return f"https://127.0.0.1:{port}", asked, cert


def test_an_https_proxy_s_own_certificate_is_checked_against_ssl_cert_file(
    tls_proxy: tuple[str, list[str], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy whose certificate is signed by an internal CA: trusting that CA with SSL_CERT_FILE
    lets vendor calls and page fetches through it (httpx checks a proxy's certificate with
    OpenSSL's default paths, which read SSL_CERT_FILE / SSL_CERT_DIR, and certifi's bundle)."""
    proxy, asked, cert = tls_proxy
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    config = config_from_dict(
        {
            "web": {
                "proxy": proxy,
                "allow_private_networks": True,
                "retry": {"max_retries": 0},
                "providers": {"searxng": {"base_url": "http://searx.corp.test:8080"}},
            }
        },
        source="<test>",
    )
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False, limit=1)
    assert envelope["success"], envelope
    page = dispatch_extract("http://127.0.0.1:9/a", backend="http", config=config, cache=False)
    assert page["success"], page
    assert "Read through the proxy." in page["data"][0]["content"]
    assert [url.split("?")[0] for url in asked] == [
        "http://searx.corp.test:8080/search",
        "http://127.0.0.1:9/a",
    ]
