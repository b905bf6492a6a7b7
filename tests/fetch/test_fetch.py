"""The safe fetcher: pinned connections, TLS to the name, limits, redirects, status mapping."""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import quote

import pytest

from webproviders import adispatch_extract, dispatch_extract
from webproviders.config import Config
from webproviders.errors import (
    BadGatewayError,
    BlockedError,
    NetworkError,
    NotFoundError,
    ProviderError,
    RateLimitedError,
    TooLargeError,
    UnsafeURLError,
    WebTimeoutError,
)
from webproviders.fetching.fetch import FetchResult, fetch, status_error

from .conftest import PUBLIC


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_connection_goes_to_the_vetted_address_with_the_host_header_kept(
    site: Any, config_for: Any, fake_dns: Any
) -> None:
    config = config_for(allowed_hosts=["a.hosts.test"])
    result = run(fetch(f"http://a.hosts.test:{site.port}/echo-host", config))
    assert result.status_code == 200
    assert f"a.hosts.test:{site.port}".encode() in result.content
    assert site.hits == [("a.hosts.test", "/echo-host")]
    # Resolved once: the check's answer is the one the connection used.
    assert fake_dns.lookups["a.hosts.test"] == 1


def test_allowed_hosts_is_per_host(site: Any, config_for: Any) -> None:
    config = config_for(allowed_hosts=["a.hosts.test"])
    with pytest.raises(UnsafeURLError):
        run(fetch(f"http://b.hosts.test:{site.port}/echo-host", config))
    assert site.hits == []


def test_allowed_hosts_wildcard(site: Any, config_for: Any) -> None:
    config = config_for(allowed_hosts=["*.hosts.test"])
    result = run(fetch(f"http://c.hosts.test:{site.port}/echo-host", config))
    assert result.status_code == 200


def test_configured_user_agent_is_sent(http_server: Any, config_for: Any) -> None:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("User-Agent", ""))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    port = http_server(Handler).server_address[1]
    config = config_for(allow_private_networks=True, user_agent="ResearchBot/2.0 (+https://example.org/bot)")
    run(fetch(f"http://127.0.0.1:{port}/", config))
    default = config_for(allow_private_networks=True)
    run(fetch(f"http://127.0.0.1:{port}/", default))
    assert seen[0] == "ResearchBot/2.0 (+https://example.org/bot)"
    assert seen[1].startswith("webproviders/")


def test_a_cookie_a_page_sets_goes_with_its_own_redirects_and_no_later_fetch(http_server: Any, config_for: Any) -> None:
    seen: list[tuple[str, str | None]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append((self.path, self.headers.get("Cookie")))
            self.send_response(302 if self.path == "/sign-in?link=abc" else 200)
            if self.path == "/sign-in?link=abc":  # a sign-in link: a session, then the account page
                self.send_header("Set-Cookie", "sessionid=alice-session-0123456789; Path=/; HttpOnly")
                self.send_header("Location", "/account")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    base = f"http://127.0.0.1:{http_server(Handler).server_address[1]}"
    config = config_for(allow_private_networks=True)

    async def two_callers() -> None:  # one event loop: one pooled client for both
        await fetch(f"{base}/sign-in?link=abc", config)
        await fetch(f"{base}/account", config)

    run(two_callers())
    assert seen == [
        ("/sign-in?link=abc", None),
        ("/account", "sessionid=alice-session-0123456789"),
        ("/account", None),  # another call's fetch of the site: the session is not sent
    ]


def test_the_cookies_a_page_sets_are_masked_in_the_debug_log(
    http_server: Any, config_for: Any, caplog: pytest.LogCaptureFixture
) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Set-Cookie", "laravel_session=sess-value-0123456789; Path=/; HttpOnly")
            self.send_header("Set-Cookie", "connect.sid=s%3Asid-value-0123456789; Path=/")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    port = http_server(Handler).server_address[1]
    with caplog.at_level(logging.DEBUG):
        run(fetch(f"http://127.0.0.1:{port}/sign-in?link=abc", config_for(allow_private_networks=True)))
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "(b'Set-Cookie', b'laravel_session=***; Path=/; HttpOnly')" in logged  # httpcore's line
    assert "sess-value" not in logged and "sid-value" not in logged


@pytest.mark.parametrize("path", ["/big", "/big-declared"])
def test_body_over_the_cap_is_too_large(path: str, site: Any, local: Config) -> None:
    with pytest.raises(TooLargeError) as caught:
        run(fetch(site.url(path), local))
    assert "web.max_response_bytes" in caught.value.message


def test_cap_follows_config(site: Any, config_for: Any) -> None:
    config = config_for(allow_private_networks=True, max_response_bytes=1000)
    with pytest.raises(TooLargeError):
        run(fetch(site.url("/articles/caching"), config))


def test_five_redirects_are_followed(site: Any, local: Config) -> None:
    result = run(fetch(site.url("/redirect/chain/4"), local))
    assert result.status_code == 200
    assert result.final_url == site.url("/articles/caching")
    assert len(result.redirects) == 5


def test_six_redirects_are_too_many(site: Any, local: Config) -> None:
    with pytest.raises(ProviderError, match="more than 5 times"):
        run(fetch(site.url("/redirect/chain/5"), local))


def test_redirect_loop_ends(site: Any, local: Config) -> None:
    with pytest.raises(ProviderError):
        run(fetch(site.url("/redirect/loop"), local))
    assert len(site.paths()) == 6


@pytest.mark.parametrize("port", ["99999", "65536", "0", "-1", "abc"])
def test_a_url_with_a_port_no_server_has_is_the_caller_s_mistake(site: Any, local: Config, port: str) -> None:
    """Such a port reached the socket layer, which failed with "ExceptionGroup: unhandled
    errors in a TaskGroup" as a provider_error counted against http."""
    url = f"http://127.0.0.1:{port}/page"
    extract = dispatch_extract([url], backend="http", config=local, cache=False)
    assert extract["error_code"] == "invalid_input"
    assert extract["error"] == f"The URL {url!r} has a port that is not a number from 1 to 65535."
    mixed = dispatch_extract([url, site.url("/articles/caching")], backend="http", config=local, cache=False)
    assert mixed["success"] is True and mixed["data"][0]["error_code"] == "invalid_input"


def test_a_redirect_to_a_port_no_server_has_is_refused(site: Any, local: Config) -> None:
    with pytest.raises(UnsafeURLError, match="port 99999 is not one a server can listen on"):
        run(fetch(site.url("/redirect/to?url=http%3A%2F%2F127.0.0.1%3A99999%2F"), local))


@pytest.mark.parametrize("target", ["data:text/html,<h1>hi</h1>", "javascript:alert(1)", "mailto:someone@site.test"])
def test_a_redirect_to_an_address_that_is_no_web_page_is_refused(site: Any, local: Config, target: str) -> None:
    envelope = dispatch_extract(site.url(f"/redirect/to?url={quote(target)}"), backend="http", config=local)
    assert envelope["error_code"] == "unsafe_url", envelope
    assert "redirect" in envelope["error"] and "is not an http or https address" in envelope["error"]


@pytest.mark.parametrize("location", ["/docs/\ta", "\\docs\\a", "http:\\\\site.test:{port}\\docs\\a", " \t/docs/a "])
def test_a_redirect_target_is_read_as_browsers_and_links_read_it(site: Any, local: Config, location: str) -> None:
    """A tab in a Location failed the page (unsafe_url, "cannot be parsed"), and backslashes
    were sent as written; a browser drops the one and reads the other as a slash, as a link
    on a page is read here."""
    url = f"http://site.test:{site.port}/redirect/to?url=" + quote(location.format(port=site.port), safe="")
    envelope = dispatch_extract(url, backend="http", config=local)
    assert envelope["success"] is True, envelope
    assert envelope["data"][0]["metadata"]["final_url"] == f"http://site.test:{site.port}/docs/a", envelope
    assert "/docs/a" in site.paths()


def test_a_redirect_to_a_name_that_does_not_resolve_says_where_the_name_came_from(site: Any, local: Config) -> None:
    """"Could not resolve the host name 'wiki.nowhere.test'" for a URL on site.test did not say
    that a redirect led there (a page behind a proxy, with a name left unresolved, most often)."""
    url = site.url(f"/redirect/to?url={quote('http://wiki.nowhere.test/')}")
    envelope = dispatch_extract(url, backend="http", config=local)
    assert envelope["error_code"] == "network_error", envelope
    assert envelope["error"].startswith("Could not resolve the host name 'wiki.nowhere.test'"), envelope
    assert envelope["error"].endswith(f"(reached by a redirect from {url})"), envelope


def test_a_redirect_whose_target_cannot_be_parsed_is_refused_not_retried(site: Any, config_for: Any) -> None:
    config = config_for(allow_private_networks=True, retry={"max_retries": 2, "backoff": 0}, cache=False)
    envelope = dispatch_extract(site.url(f"/redirect/to?url={quote('http://[::1/x')}"), backend="http", config=config)
    assert envelope["error_code"] == "unsafe_url", envelope
    assert "the target cannot be parsed (Invalid port" in envelope["error"]
    assert len(envelope["meta"]["attempts"]) == 1


def test_whole_fetch_is_bounded_by_its_timeout(site: Any, local: Config) -> None:
    with pytest.raises(WebTimeoutError):
        run(fetch(site.url("/slow"), local, timeout=0.3))


def test_unresolvable_name_is_a_network_error(config_for: Any) -> None:
    with pytest.raises(NetworkError):
        run(fetch("http://nowhere.invalid/", config_for()))


def test_connection_refused_is_a_network_error(local: Config) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(NetworkError):
        run(fetch(f"http://127.0.0.1:{port}/", local))


def test_error_bodies_are_not_read(site: Any, local: Config) -> None:
    result = run(fetch(site.url("/missing"), local))
    assert result.status_code == 404
    assert result.content == b""


def _result(status: int, headers: dict[str, str] | None = None) -> FetchResult:
    import httpx

    return FetchResult("https://example.com/a", "https://example.com/a", status, httpx.Headers(headers or {}))


@pytest.mark.parametrize(
    ("status", "headers", "kind", "detail"),
    [
        (404, {}, NotFoundError, None),
        (410, {}, NotFoundError, None),
        (403, {}, BlockedError, "http_403"),
        (401, {}, BlockedError, "http_401"),
        # Not "failed on its side" (bad_gateway, retried): LinkedIn refusing a client it takes for a robot.
        (999, {}, BlockedError, "http_999"),
        (503, {"cf-mitigated": "challenge"}, BlockedError, "captcha_required"),
        (500, {}, BadGatewayError, None),
        (502, {}, BadGatewayError, None),
        (429, {"Retry-After": "7"}, RateLimitedError, None),
        # The server's wait for the request ran out: asking again may read the page.
        (408, {}, WebTimeoutError, None),
    ],
)
def test_status_mapping(status: int, headers: dict[str, str], kind: type, detail: str | None) -> None:
    error = status_error(_result(status, headers))
    assert isinstance(error, kind)
    assert error.status_code == status
    if detail:
        assert error.detail == detail
    if status == 429:
        assert error.retry_after == 7


def test_success_has_no_status_error() -> None:
    assert status_error(_result(200)) is None
    assert status_error(_result(204)) is None


# -- TLS: the connection is pinned to an address, the handshake still names the host -----

@pytest.fixture
def tls_site(certificate: Any, http_server: Any) -> Any:
    """An HTTPS server with a certificate for ``secure.test`` that records the SNI it gets."""
    cert, key = certificate("secure.test")
    names: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<html><body><article><h1>Secure</h1><p>Served over TLS to the right name.</p></article></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    server = http_server(Handler, tls=context)
    server.names = names
    server.cert = cert
    return server


def test_tls_is_verified_and_names_the_host(tls_site: Any, config_for: Any, fake_dns: Any) -> None:
    fake_dns.table["secure.test"] = [["127.0.0.1"]]
    config = config_for(allowed_hosts=["secure.test"])
    with pytest.raises(NetworkError):  # self-signed: not trusted by the default CA bundle
        run(fetch(f"https://secure.test:{tls_site.server_address[1]}/", config))
    assert tls_site.names == ["secure.test"]


def test_tls_succeeds_when_the_certificate_is_trusted(
    tls_site: Any, config_for: Any, fake_dns: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trusted as vendor calls trust it, through ``SSL_CERT_FILE`` (before, page fetches
    read certifi's bundle only, and an internal CA trusted for vendors was not for pages)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_site.cert))
    fake_dns.table["secure.test"] = [["127.0.0.1"]]
    fake_dns.table["wrong.test"] = [["127.0.0.1"]]
    config = config_for(allowed_hosts=["secure.test", "wrong.test"])
    port = tls_site.server_address[1]
    result = run(fetch(f"https://secure.test:{port}/", config))
    assert result.status_code == 200
    # Same address, another name: the certificate does not match that name.
    with pytest.raises(NetworkError):
        run(fetch(f"https://wrong.test:{port}/", config))


class _PlainHTTPOnly(BaseHTTPRequestHandler):
    """A plain HTTP service that answers a TLS handshake as nginx does: with an HTTP 400."""

    def handle(self) -> None:
        self.request.recv(4096)
        body = b"The plain HTTP request was sent to HTTPS port"
        self.request.sendall(
            b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\nConnection: close\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )


def test_an_https_address_of_a_service_without_tls_says_so_and_is_not_asked_again(
    http_server: Any, local: Config
) -> None:
    """Before, the page was "ConnectError: [SSL: WRONG_VERSION_NUMBER] wrong version number
    (_ssl.c:1006)", asked for three times though the answer can only be the same."""
    server = http_server(_PlainHTTPOnly)
    where = f"127.0.0.1:{server.server_address[1]}"
    envelope = dispatch_extract(f"https://{where}/status", backend="http", config=local)
    assert (envelope["error_code"], envelope["detail"]) == ("network_error", "no_tls"), envelope
    assert f"{where} answered the TLS handshake with something else" in envelope["error"]
    assert "most often plain HTTP: the service there does not speak https" in envelope["error"]
    assert len(envelope["meta"]["attempts"]) == 1, envelope["meta"]["attempts"]


# -- with a configured proxy, URLs are still checked before anything is sent ----------------

@pytest.fixture
def proxy(http_server: Any) -> Any:
    """A forward proxy that answers every request itself and records what it was asked for."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            asked.append(self.path)
            body = b"<html><body><article><h1>Via proxy</h1><p>Fetched through the proxy.</p></article></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http_server(Handler)
    server.asked = asked
    return server


def test_proxy_is_used_for_public_urls(proxy: Any, config_for: Any) -> None:
    config = config_for(proxy=f"http://127.0.0.1:{proxy.server_address[1]}")
    result = run(fetch("http://public.test/page", config))
    assert result.status_code == 200
    assert proxy.asked == ["http://public.test/page"]


def test_proxy_never_sees_refused_urls(proxy: Any, canary: Any, config_for: Any) -> None:
    config = config_for(proxy=f"http://127.0.0.1:{proxy.server_address[1]}")
    for url in (f"http://127.0.0.1:{canary.port}/", "http://internal.test/", "http://169.254.169.254/"):
        with pytest.raises(UnsafeURLError):
            run(fetch(url, config))
    assert proxy.asked == []


@pytest.fixture
def refusing_proxy(http_server: Any) -> Any:
    """A proxy that answers every request, forwarded (GET) or a tunnel (CONNECT), with
    ``server.status``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(self.server.status)
            if self.server.status == 407:
                self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_CONNECT = do_GET

        def log_message(self, *args: Any) -> None:
            pass

    return http_server(Handler)


@pytest.mark.parametrize("url", ["http://public.test/page", "https://public.test/page"])
def test_a_proxy_that_asks_for_credentials_is_named_not_the_page(
    url: str, refusing_proxy: Any, config_for: Any
) -> None:
    """A 407 comes from the proxy, whether it forwards the request or was asked for a tunnel:
    the page did not refuse anything, so the sentence says to fix the proxy's credentials."""
    refusing_proxy.status = 407
    config = config_for(proxy=f"http://user:Pw0rdSecret@127.0.0.1:{refusing_proxy.server_address[1]}")
    envelope = dispatch_extract(url, backend="http", config=config)
    assert envelope["error_code"] == "auth_error", envelope
    assert "A proxy on the way to" in envelope["error"] and "web.proxy" in envelope["error"]
    assert "Pw0rdSecret" not in str(envelope)


@pytest.mark.parametrize(
    ("marks", "why"),
    [
        ({"Server": "squid/6.10", "X-Squid-Error": "ERR_ACCESS_DENIED 0"}, "ERR_ACCESS_DENIED"),
        ({"Proxy-Status": 'egress.corp; error=http_request_denied; details="host not allowed"'}, "http_request_denied"),
        ({}, None),
    ],
)
def test_a_proxy_refusing_a_forwarded_page_itself_is_named_not_the_page(
    marks: dict[str, str], why: str | None, http_server: Any, config_for: Any
) -> None:
    """An ``http://`` page is a request the proxy forwards, and a 403 the proxy answers itself
    (its marks say so) came back as the page's: "refused access", ``blocked``, though the
    site was never asked. A 403 without such marks is the page's own."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(403, "Forbidden")
            for name, value in marks.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    proxy = http_server(Handler)
    config = config_for(proxy=f"http://user:Pw0rdSecret@127.0.0.1:{proxy.server_address[1]}")
    envelope = dispatch_extract("http://public.test/page", backend="http", config=config)
    if why is None:
        assert envelope["error_code"] == "blocked", envelope
        return
    assert envelope["error_code"] == "network_error", envelope
    assert f"through the proxy at 127.0.0.1:{proxy.server_address[1]}, which refused the request itself" in envelope["error"]
    assert why in envelope["error"] and "web.proxy" in envelope["error"], envelope
    assert "refused access" not in envelope["error"] and "Pw0rdSecret" not in str(envelope)


def test_a_site_s_own_squid_answer_through_a_socks_proxy_is_the_site_s(
    http_server: Any, socks_proxy: Any, config_for: Any
) -> None:
    """A SOCKS proxy only pipes bytes and answers no HTTP: a 403 marked by the site's own
    Squid (an accelerator in front of it) is the site refusing access, not the proxy."""
    pytest.importorskip("socksio")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(403, "Forbidden")
            self.send_header("X-Squid-Error", "ERR_ACCESS_DENIED 0")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    proxy = socks_proxy("tunnel")
    proxy.upstream = http_server(Handler).server_address[1]
    config = config_for(proxy=f"socks5h://127.0.0.1:{proxy.server_address[1]}")
    envelope = dispatch_extract("http://public.test/page", backend="http", config=config)
    assert envelope["error_code"] == "blocked", envelope
    assert "refused access (HTTP 403)" in envelope["error"] and "through the proxy" not in envelope["error"], envelope


def test_a_proxy_407_is_logged_as_the_proxy_s_and_only_when_the_next_backend_runs(
    refusing_proxy: Any, config_for: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The default extract plan (http, then jina on standby) stays with http on a 407, yet
    the log said "Provider 'http' rejected its credentials; trying the next backend": http
    holds no credentials, and no next backend ran. A named chain does move on, and the line
    names the proxy."""
    import logging

    refusing_proxy.status = 407
    proxy = f"http://user:Pw0rdSecret@127.0.0.1:{refusing_proxy.server_address[1]}"
    with caplog.at_level(logging.WARNING, logger="webproviders"):
        envelope = dispatch_extract("http://public.test/page", config=config_for(proxy=proxy))
    assert envelope["error_code"] == "auth_error", envelope
    assert [attempt["provider"] for attempt in envelope["meta"]["attempts"]] == ["http"]
    assert "trying the next backend" not in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="webproviders"):
        envelope = dispatch_extract(
            "http://public.test/page", config=config_for(proxy=proxy, extract_backend=["http", "stub"])
        )
    assert envelope["provider"] == "stub", envelope
    assert (
        "A proxy on the way to provider 'http' refused its proxy credentials (HTTP 407); trying the next backend."
        in caplog.text
    )


@pytest.mark.parametrize("no_server", [True, False])
def test_a_machine_without_dns_is_told_how_to_reach_pages_through_a_proxy(
    no_server: bool, dns: Any, config_for: Any
) -> None:
    """In a sandbox whose DNS does not answer (and no proxy set anywhere), every page failed
    with "Temporary failure in name resolution" and nothing more; the sentence now names the
    settings that reach pages through a proxy. A name that does not exist gets no such advice."""
    dns.no_server = no_server
    envelope = dispatch_extract("https://docs.nowhere.test/page", backend="http", config=config_for())
    assert envelope["error_code"] == "network_error", envelope
    assert envelope["error"].startswith("Could not resolve the host name 'docs.nowhere.test'")
    advice = (
        "No DNS server answered this machine; where only a proxy reaches the internet, set web.proxy "
        "(and web.proxy_resolves_names: true)."
    )
    assert envelope["error"].endswith(advice) == no_server


def test_a_proxy_that_cannot_open_the_tunnel_says_so(refusing_proxy: Any, config_for: Any) -> None:
    refusing_proxy.status = 502
    config = config_for(proxy=f"http://127.0.0.1:{refusing_proxy.server_address[1]}")
    envelope = dispatch_extract("https://public.test/page", backend="http", config=config)
    assert envelope["error_code"] == "network_error", envelope
    assert "through the proxy, which answered 502" in envelope["error"] and "web.proxy" in envelope["error"]


@pytest.mark.parametrize("url", ["http://public.test/page", "https://public.test/page"])
def test_a_proxy_that_takes_no_connection_is_named(url: str, config_for: Any) -> None:
    """Every page fetch goes to the proxy first: when it is not there, the sentence names
    it (its address, never its password) and the setting, not the page's address."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once left: nothing listens there
    config = config_for(proxy=f"http://user:Pw0rdSecret@127.0.0.1:{port}")
    envelope = dispatch_extract(url, backend="http", config=config)
    assert envelope["error_code"] == "network_error", envelope
    assert f"the proxy at 127.0.0.1:{port} did not take the connection" in envelope["error"]
    assert "Check that it runs, or the proxy in web.proxy." in envelope["error"]
    assert "Pw0rdSecret" not in str(envelope)


@pytest.mark.parametrize("answer", ["none", "hang up"])
def test_a_proxy_that_does_not_open_the_tunnel_is_named_not_the_page(
    answer: str, http_server: Any, config_for: Any
) -> None:
    """A ``CONNECT`` never answered, or dropped: the page was never reached, so the sentence
    names the proxy (before: "did not finish loading", or "Server disconnected", of the page)."""
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_CONNECT(self) -> None:
            if answer == "none":
                release.wait(30)
            self.close_connection = True

        def log_message(self, *args: Any) -> None:
            pass

    proxy = http_server(Handler)
    port = proxy.server_address[1]
    config = config_for(proxy=f"http://user:Pw0rdSecret@127.0.0.1:{port}")
    expected = WebTimeoutError if answer == "none" else NetworkError
    try:
        with pytest.raises(expected) as caught:
            run(fetch("https://public.test/page", config, timeout=1))
    finally:
        release.set()
    if answer == "none":
        assert f"the proxy at 127.0.0.1:{port} had not opened its tunnel to public.test" in caught.value.message
    else:
        assert f"the proxy at 127.0.0.1:{port} ended the connection before opening its tunnel" in caught.value.message
    assert "web.proxy" in caught.value.message and "Pw0rdSecret" not in caught.value.message


def test_a_tunnel_never_opened_by_the_call_s_deadline_names_the_proxy(stalled_proxy: int, config_for: Any) -> None:
    """The call's deadline before the page's own ``url_timeout``: the page read "… could not be
    read before the call's time limit.", though the proxy had never let the request reach it."""
    port = stalled_proxy
    config = config_for(proxy=f"http://user:Pw0rdSecret@127.0.0.1:{port}", proxy_resolves_names=True)
    envelope = dispatch_extract("https://docs.unresolvable.org/page", backend="http", config=config, timeout=2)
    assert envelope["error_code"] == "timeout", envelope
    assert envelope["error"].startswith("https://docs.unresolvable.org/page "), envelope
    assert envelope["error"].endswith(  # whichever deadline, the page's or the call's, came first
        f": the proxy at 127.0.0.1:{port} had not opened its tunnel to docs.unresolvable.org. Check the proxy in web.proxy."
    ), envelope


@pytest.mark.parametrize("url", ["http://docs.unresolvable.org/page", "https://docs.unresolvable.org/page"])
def test_a_socks_proxy_stuck_in_its_handshake_is_named_not_the_page(
    url: str, socks_proxy: Any, config_for: Any
) -> None:
    """Every page through a SOCKS proxy waits for its handshake, ``http://`` ones too: a proxy
    stuck there read "… could not be read before the call's time limit.", as if the page were slow."""
    pytest.importorskip("socksio")
    port = socks_proxy("silent").server_address[1]
    config = config_for(proxy=f"socks5h://user:Pw0rdSecret@127.0.0.1:{port}", proxy_resolves_names=True)
    envelope = dispatch_extract(url, backend="http", config=config, timeout=2)
    assert envelope["error_code"] == "timeout", envelope
    assert envelope["error"].endswith(
        f": the proxy at 127.0.0.1:{port} had not opened its tunnel to docs.unresolvable.org. Check the proxy in web.proxy."
    ), envelope


@pytest.mark.parametrize("url", ["http://docs.unresolvable.org/page", "https://docs.unresolvable.org/page"])
def test_a_socks_address_that_is_no_socks_proxy_is_named_not_the_page(
    url: str, socks_proxy: Any, config_for: Any
) -> None:
    """An HTTP proxy's port given as ``socks5://``: the page read "http failed: ProtocolError:
    Malformed reply", a provider_error, as if the page or the backend had failed."""
    pytest.importorskip("socksio")
    port = socks_proxy("not_socks").server_address[1]
    config = config_for(proxy=f"socks5h://user:Pw0rdSecret@127.0.0.1:{port}", proxy_resolves_names=True)
    envelope = dispatch_extract(url, backend="http", config=config)
    assert envelope["error_code"] == "network_error", envelope
    assert f"the proxy at 127.0.0.1:{port} broke off its SOCKS5 handshake" in envelope["error"], envelope
    assert "web.proxy" in envelope["error"] and "Pw0rdSecret" not in str(envelope)


def test_a_proxy_whose_name_does_not_resolve_is_named_as_such(config_for: Any) -> None:
    config = config_for(proxy="http://user:Pw0rdSecret@proxy.corp.invalid:3128")
    envelope = dispatch_extract("http://public.test/page", backend="http", config=config)
    assert envelope["error_code"] == "network_error", envelope
    assert "the proxy's name, proxy.corp.invalid, does not resolve on this machine" in envelope["error"]
    assert "Check the proxy's address in web.proxy." in envelope["error"]
    assert "Pw0rdSecret" not in str(envelope)


# -- a proxy that tunnels https (CONNECT), as a TLS-inspecting one does ----------------------

@pytest.fixture
def tunnel_to_tls_site(tls_site: Any, tunnel_proxy: Any, fake_dns: Any) -> Any:
    """A ``CONNECT`` proxy whose every tunnel leads to ``tls_site`` (its certificate for
    ``secure.test`` self-signed, as a TLS-inspecting proxy's CA is to this machine), with
    ``secure.test`` public in this test's DNS so that its pages go to the proxy."""
    asked: list[str] = []
    fake_dns.table["secure.test"] = [[PUBLIC]]
    server = tunnel_proxy(tls_site.server_address[1], asked)
    server.asked = asked
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    return server


@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_certificate_refused_inside_the_proxy_s_tunnel_is_named_not_the_proxy(
    run: str, tunnel_to_tls_site: Any, config_for: Any
) -> None:
    """The proxy opened the tunnel; the page's certificate (signed by the proxy's own CA,
    not trusted here) is what failed. Before, this read as the proxy taking no connection."""
    config = config_for(proxy=tunnel_to_tls_site.url)
    if run == "sync":
        envelope = dispatch_extract("https://secure.test/page", backend="http", config=config)
    else:
        envelope = asyncio.run(adispatch_extract("https://secure.test/page", backend="http", config=config))
    assert envelope["error_code"] == "network_error", envelope
    assert (
        f"https://secure.test/page could not be reached through the proxy at {tunnel_to_tls_site.url[7:]}: "
        "the TLS certificate of secure.test could not be verified (CERTIFICATE_VERIFY_FAILED"
    ) in envelope["error"], envelope
    assert "trust its CA with SSL_CERT_FILE or SSL_CERT_DIR" in envelope["error"]
    assert "did not take the connection" not in envelope["error"]
    assert tunnel_to_tls_site.asked[0] == "secure.test:443"


@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_page_is_read_through_a_tls_inspecting_proxy_whose_ca_is_trusted(
    run: str, tunnel_to_tls_site: Any, tls_site: Any, config_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``SSL_CERT_FILE`` trusts the proxy's CA for pages as for vendor calls; before, the
    proxied transport (``trust_env=False``) read certifi's bundle only, so search worked
    behind such a proxy and no https page could be read."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_site.cert))
    config = config_for(proxy=tunnel_to_tls_site.url)
    if run == "sync":
        envelope = dispatch_extract("https://secure.test/page", backend="http", config=config)
    else:
        envelope = asyncio.run(adispatch_extract("https://secure.test/page", backend="http", config=config))
    assert envelope["success"] is True, envelope
    assert "Served over TLS to the right name." in envelope["data"][0]["content"]
    assert tunnel_to_tls_site.asked == ["secure.test:443"] and tls_site.names == ["secure.test"]


# -- a machine that reaches the internet only through its proxy: no DNS of its own ----------

def test_a_name_this_machine_cannot_resolve_says_how_to_leave_it_to_the_proxy(proxy: Any, config_for: Any) -> None:
    config = config_for(proxy=f"http://127.0.0.1:{proxy.server_address[1]}")
    envelope = dispatch_extract("http://news.unresolvable.org/story", backend="http", config=config)
    assert envelope["error_code"] == "network_error", envelope
    assert "web.proxy_resolves_names: true" in envelope["error"]
    assert proxy.asked == []


def test_with_proxy_resolves_names_the_proxy_looks_up_what_this_machine_cannot(
    proxy: Any, config_for: Any, dns: Any
) -> None:
    config = config_for(proxy=f"http://127.0.0.1:{proxy.server_address[1]}", proxy_resolves_names=True)
    envelope = dispatch_extract("http://news.unresolvable.org/story", backend="http", config=config)
    assert envelope["success"] is True, envelope
    assert envelope["data"][0]["content"].startswith("# Via proxy")
    assert proxy.asked == ["http://news.unresolvable.org/story"]
    assert "news.unresolvable.org" in dns.lookups  # asked here first: a name that resolves is still checked


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://wiki/", "network_error"),  # a single label: a name inside some network
        ("http://grafana.corp/", "network_error"),  # a suffix that is never public
        ("http://private.test/", "unsafe_url"),  # resolves here, to 10.0.0.5
        ("http://10.0.0.5/", "unsafe_url"),
        ("http://metadata.google.internal/", "unsafe_url"),
    ],
)
def test_proxy_resolves_names_leaves_private_names_and_addresses_refused(
    url: str, code: str, proxy: Any, config_for: Any
) -> None:
    config = config_for(proxy=f"http://127.0.0.1:{proxy.server_address[1]}", proxy_resolves_names=True)
    envelope = dispatch_extract(url, backend="http", config=config)
    assert envelope["error_code"] == code, envelope
    assert proxy.asked == []


def test_proxy_resolves_names_does_nothing_without_a_proxy(config_for: Any) -> None:
    config = config_for(proxy_resolves_names=True)
    envelope = dispatch_extract("http://news.unresolvable.org/story", backend="http", config=config)
    assert envelope["error_code"] == "network_error" and "web.proxy" not in envelope["error"], envelope


def test_an_environment_proxy_is_not_used_for_pages_and_the_error_says_what_to_set(
    config_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    envelope = dispatch_extract("https://news.unresolvable.org/story", backend="http", config=config_for())
    assert envelope["error_code"] == "network_error", envelope
    assert "HTTPS_PROXY is set" in envelope["error"] and "set web.proxy" in envelope["error"]


def test_several_environment_proxies_are_named_in_one_sentence(config_for: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """It read "HTTP_PROXY, HTTPS_PROXY is set, but pages ..."."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    envelope = dispatch_extract("https://news.unresolvable.org/story", backend="http", config=config_for())
    assert "HTTP_PROXY and HTTPS_PROXY are set, but pages are fetched through web.proxy only" in envelope["error"]



def test_a_redirect_to_an_address_written_in_the_sites_own_encoding_is_followed_as_browsers_do(
    http_server: Any, local: Config
) -> None:
    """A Shift_JIS site's Location holds its path's bytes as they are; they went out decoded as
    Latin-1 and re-encoded as UTF-8 (``/%C2%93...``), a page the site does not have."""
    tokyo = "東京".encode("shift_jis")

    class Site(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/old":
                self.send_response(301)
                self.send_header("Location", "/" + tokyo.decode("latin-1"))  # the raw bytes
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            found = self.path == "/" + quote(tokyo)
            body = ("<html><body><article><p>" + "Tokyo page text. " * 20 + "</p></article></body></html>").encode()
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(Site).server_address[1]}/old"
    envelope = dispatch_extract([url], backend="http", config=local, cache=False)
    assert envelope["success"] is True, envelope
    assert "Tokyo page text." in envelope["data"][0]["content"]
