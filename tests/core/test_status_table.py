"""The one status-to-error table every vendor shares, and the wording it gives.

Vendor classifiers decide only what their API says differently; everything else is read
here, so a 402 or a 503 means the same thing whichever vendor sent it.
"""

from __future__ import annotations

import httpx
import pytest
import respx

from webproviders import dispatch_search
from webproviders.errors import STATUS_ERRORS, error_for_status

CASES = [
    (400, "", "invalid_input"),
    (401, "", "auth_error"),
    (402, "", "quota_exceeded"),
    (403, "", "auth_error"),
    (404, "", "not_configured"),
    (405, "", "not_configured"),
    (408, "", "timeout"),
    (414, "", "invalid_input"),
    (422, "", "invalid_input"),
    (429, "", "rate_limited"),
    (418, "", "provider_error"),
    (500, "", "bad_gateway"),
    (503, "", "bad_gateway"),
    (400, "The API key is invalid.", "auth_error"),
    (422, "Unauthorized request", "auth_error"),
    (400, "Not enough credits", "quota_exceeded"),
    (429, "Insufficient balance on the account", "quota_exceeded"),
    (400, "Missing parameter q", "invalid_input"),
]


@pytest.mark.parametrize(("status", "message", "code"), CASES)
def test_status_and_vendor_text_decide_the_code(status: int, message: str, code: str) -> None:
    error = error_for_status(status, "acme", vendor="Acme", message=message)
    assert error.code == code
    assert error.status_code == status
    assert error.message.startswith("Acme ")
    assert f"HTTP {status}" in error.message
    assert message in error.message


def test_every_listed_status_is_worded() -> None:
    for status in STATUS_ERRORS:
        assert error_for_status(status, "acme").message.startswith("acme ")


def test_vendor_text_is_scrubbed_and_shortened(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_API_KEY", "sk-acme-0123456789abcdef")
    from webproviders import redact

    redact.watch_env("ACME_API_KEY")
    error = error_for_status(400, "acme", message="bad key sk-acme-0123456789abcdef " + "x" * 900)
    assert "sk-acme-0123456789abcdef" not in error.message
    assert len(error.message) < 400


def test_retry_after_comes_from_the_headers_then_from_the_vendor() -> None:
    told = error_for_status(429, "acme", httpx.Headers({"Retry-After": "7"}), retry_after=30)
    assert told.retry_after == 7 and "Retry after 7 s." in told.message
    body_only = error_for_status(429, "acme", httpx.Headers({}), retry_after=30)
    assert body_only.retry_after == 30
    assert error_for_status(429, "acme").retry_after is None


def test_a_refused_key_names_where_the_key_is_set(make_config, monkeypatch) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "k-test-1")
    with respx.mock() as mock:
        mock.get("https://api.search.brave.com/res/v1/web/search").respond(401)
        envelope = dispatch_search("q", backend="brave", config=make_config())
    assert envelope["error_code"] == "auth_error"
    assert envelope["error"].endswith(
        "Check BRAVE_SEARCH_API_KEY or BRAVE_API_KEY (or web.providers.brave.api_key)."
    )


def test_an_api_address_that_is_not_there_fails_over_and_names_the_setting(http_server, make_config) -> None:
    """A self-hosted SearXNG whose base_url misses its path answers 404: the set-up's to fix,
    not the caller's. Before, it was ``invalid_input``: a chain stopped at it (another provider
    "would refuse the input too"), and it never counted against the provider."""
    from http.server import BaseHTTPRequestHandler

    class NotHere(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = b"<html><body><h1>404 Not Found</h1></body></html>"
            self.send_response(404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(NotHere).server_address[1]}/wrong-path"
    config = make_config(web={"cache": False, "providers": {"searxng": {"base_url": url}}})
    alone = dispatch_search("q", backend="searxng", config=config)
    assert alone["error_code"] == "not_configured", alone
    assert "HTTP 404" in alone["error"] and "web.providers.searxng.base_url" in alone["error"]
    chained = dispatch_search("q", backend=["searxng", "stub"], config=config)
    assert chained["success"] is True and chained["provider"] == "stub", chained
    assert chained["meta"]["attempts"][0]["error_code"] == "not_configured"
