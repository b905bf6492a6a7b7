"""A list nested in a raw-HTTP vendor's answer that is not a list (You.com's ``snippets``,
Brave's ``extra_snippets`` and the ``loc`` of its validation errors, Google's ``errors``).

Iterating it raised ``TypeError``: a ``provider_error`` naming a Python exception, which a
chain does not move on from and which counts against the vendor's health, even where the
answer said the caller's request was at fault (Brave's 422). Such a field is now read as
holding nothing; the hit, or the error, is read from the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import webproviders
from webproviders import dispatch_search
from webproviders.config import config_from_dict

URL = "https://a.example/"


@pytest.fixture
def vendor(http_server: Callable[..., Any]) -> Any:
    """``vendor(status, body)``: a loopback vendor answering every request with that JSON."""

    def start(status: int, body: dict[str, Any]) -> str:
        raw = json.dumps(body).encode()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_POST = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        return f"http://127.0.0.1:{http_server(Handler).server_address[1]}"

    yield start
    webproviders.close()


def _search(provider: str, url: str, **section: Any) -> dict[str, Any]:
    web = {"cache": False, "retry": {"max_retries": 0}}
    web["providers"] = {provider: {"base_url": url, "api_key": f"{provider}-test-key-0001", **section}}
    return dispatch_search("q", backend=provider, config=config_from_dict({"web": web}, source="<test>"))


@pytest.mark.parametrize(
    ("provider", "body"),
    [
        ("you", {"results": {"web": [{"url": URL, "title": "A", "snippets": 5}]}}),
        ("brave", {"type": "search", "web": {"results": [{"url": URL, "title": "A", "extra_snippets": 5}]}}),
    ],
)
def test_a_hit_s_snippets_out_of_shape_cost_only_the_snippets(vendor: Any, provider: str, body: dict[str, Any]) -> None:
    envelope = _search(provider, vendor(200, body))
    assert envelope["success"] is True, envelope
    assert [(hit["url"], hit["title"]) for hit in envelope["data"]["web"]] == [(URL, "A")]


def test_brave_s_validation_error_out_of_shape_is_still_the_caller_s_mistake(vendor: Any) -> None:
    body = {
        "type": "ErrorResponse",
        "error": {"code": "VALIDATION", "detail": "Unable to validate request parameter(s)", "status": 422,
                  "meta": {"errors": [{"loc": 5, "msg": "Input should be a valid integer"}]}},
    }
    envelope = _search("brave", vendor(422, body))
    assert envelope["error_code"] == "invalid_input", envelope
    assert "Input should be a valid integer" in envelope["error"]


def test_google_s_error_reasons_out_of_shape_still_read_the_message(vendor: Any) -> None:
    body = {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "errors": {"reason": "badRequest"}}}
    envelope = _search("google-cse", vendor(400, body), cx="engine-id")
    assert envelope["error_code"] == "auth_error", envelope
