"""Failover chains: which failures move on to the next provider, and what the envelope says."""

from __future__ import annotations

import asyncio
import json
import logging
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders import (
    adispatch_extract,
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
)
from webproviders.errors import (
    AuthError,
    BadGatewayError,
    BlockedError,
    InvalidInputError,
    NetworkError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    UnsafeURLError,
    WebTimeoutError,
)

from .conftest import SleepLog, build_config, provider, state


def _chain_config(**web: Any) -> Any:
    config = build_config(search_backend=["fake-a", "fake-b"], extract_backend=["fake-a", "fake-b"], **web)
    state(config).sleep = SleepLog()
    return config


@pytest.mark.parametrize(
    "error",
    [
        NetworkError("down"),
        WebTimeoutError("slow"),
        BadGatewayError("502", status_code=502),
        RateLimitedError("429", retry_after=3),
        QuotaExceededError("out of credits"),
        AuthError("bad key"),
        BlockedError("captcha", detail="captcha_required"),
        ParseError("garbage"),
    ],
    ids=lambda e: e.code,
)
def test_chain_fails_over_on_provider_side_failures(error: Exception) -> None:
    config = _chain_config(retry={"max_retries": 0})
    provider(config, "fake-a").script = [error]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["success"] is True
    assert envelope["provider"] == "fake-b"
    assert envelope["meta"]["served_by"] == "fake-b"
    first, second = envelope["meta"]["attempts"]
    assert first["provider"] == "fake-a" and first["outcome"] == "error"
    assert first["error_code"] == error.code  # type: ignore[attr-defined]
    assert isinstance(first["latency_ms"], float)
    assert second == {"provider": "fake-b", "outcome": "ok", "latency_ms": second["latency_ms"]}


@pytest.mark.parametrize("error", [InvalidInputError("bad query"), UnsafeURLError("private")], ids=lambda e: e.code)
def test_caller_errors_never_fail_over(error: Exception) -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [error]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["success"] is False
    assert envelope["error_code"] == error.code  # type: ignore[attr-defined]
    assert provider(config, "fake-b").calls == 0


def test_unexpected_provider_errors_stop_the_chain() -> None:
    """A bug in a provider is not retryable: moving on would hide it."""
    config = _chain_config()
    provider(config, "fake-a").script = [ProviderError("boom")]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["error_code"] == "provider_error"
    assert provider(config, "fake-b").calls == 0


def test_auth_failover_is_logged_naming_the_provider(caplog: pytest.LogCaptureFixture) -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [AuthError("rejected")]
    with caplog.at_level(logging.WARNING, logger="webproviders.dispatch"):
        envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["provider"] == "fake-b"
    assert any("fake-a" in r.getMessage() and "credentials" in r.getMessage() for r in caplog.records)


def test_unconfigured_provider_in_a_chain_is_skipped_without_a_call() -> None:
    config = build_config(search_backend=["fake-vendor", "fake-a"])
    envelope = dispatch_search("python", config=config)
    assert envelope["provider"] == "fake-a"
    skipped = envelope["meta"]["attempts"][0]
    assert skipped["provider"] == "fake-vendor"
    assert skipped["outcome"] == "skipped" and skipped["error_code"] == "not_configured"
    assert "FAKE_VENDOR_API_KEY" in skipped["reason"]


def test_last_failure_is_reported_when_every_provider_fails() -> None:
    config = _chain_config(retry={"max_retries": 0})
    provider(config, "fake-a").script = [NetworkError("a down")]
    provider(config, "fake-b").script = [BadGatewayError("b down", status_code=503)]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["success"] is False
    assert envelope["error_code"] == "bad_gateway"
    assert envelope["provider"] == "fake-b"
    assert [a["error_code"] for a in envelope["meta"]["attempts"]] == ["network_error", "bad_gateway"]


def test_a_rate_limited_provider_in_a_chain_fails_over_without_retrying() -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [RateLimitedError("slow down")]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["provider"] == "fake-b"
    assert provider(config, "fake-a").calls == 1


def test_chain_as_call_argument_async() -> None:
    config = build_config()
    provider(config, "fake-c").script = [NetworkError("down")] * 3
    state(config).sleep = SleepLog()
    envelope = asyncio.run(adispatch_search("python", backend=["fake-c", "fake-async"], config=config))
    assert envelope["provider"] == "fake-async"
    # Two retries of the transient failure first, then the next provider.
    assert [a["provider"] for a in envelope["meta"]["attempts"]] == ["fake-c", "fake-c", "fake-c", "fake-async"]
    assert [a.get("retry") for a in envelope["meta"]["attempts"][:3]] == [None, 1, 2]


def test_extract_chain_fails_over() -> None:
    config = _chain_config(retry={"max_retries": 0})
    provider(config, "fake-a").script = [WebTimeoutError("slow")]
    envelope = asyncio.run(adispatch_extract(["https://example.com/a"], config=config))
    assert envelope["provider"] == "fake-b"
    assert envelope["data"][0]["content"] == "body of https://example.com/a"


def test_crawl_chain_fails_over() -> None:
    config = build_config(crawl_backend=["fake-a", "fake-b"], retry={"max_retries": 0})
    provider(config, "fake-a").script = [NetworkError("down")]
    envelope = dispatch_crawl("https://example.com/", config=config)
    assert envelope["provider"] == "fake-b"


def test_failover_on_empty_moves_past_an_empty_answer() -> None:
    config = _chain_config(failover_on_empty=True)
    provider(config, "fake-a").script = [[]]
    envelope = dispatch_search("python", config=config)
    assert envelope["provider"] == "fake-b"
    assert envelope["meta"]["attempts"][0]["empty"] is True
    assert len(envelope["data"]["web"]) == 5


def test_empty_answers_are_kept_when_failover_on_empty_is_off() -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [[]]
    envelope = dispatch_search("python", config=config)
    assert envelope["success"] is True and envelope["provider"] == "fake-a"
    assert envelope["data"]["web"] == []


def test_an_empty_answer_beats_a_later_failure() -> None:
    config = _chain_config(failover_on_empty=True, retry={"max_retries": 0})
    provider(config, "fake-a").script = [[]]
    provider(config, "fake-b").script = [NetworkError("down")]
    envelope = dispatch_search("python", config=config)
    assert envelope["success"] is True
    assert envelope["provider"] == "fake-a"
    assert envelope["data"]["web"] == []


class _JinaReader(BaseHTTPRequestHandler):
    """Jina's reader: reads ``/found`` pages, answers every other one with its 503 error body."""

    def do_POST(self) -> None:
        url = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["url"]
        if url.endswith("/found"):
            status = 200
            answer: dict[str, Any] = {
                "code": 200,
                "status": 20000,
                "data": {"title": "Found", "description": "", "url": url, "content": "The found page."},
                "meta": {"usage": {"tokens": 4}},
            }
        else:
            status = 503
            answer = {"data": None, "code": 503, "name": "ServiceUnavailableError", "status": 50301,
                      "message": "Service unavailable", "readableMessage": "ServiceUnavailableError: unavailable"}
        body = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _NoSuchPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.parametrize("hedge_after", [None, 5.0])
def test_a_url_no_provider_of_an_extract_chain_could_read_keeps_the_last_error(
    http_server: Any, hedge_after: float | None
) -> None:
    """Jina fails a URL with 503, ``http`` then finds the page gone (404): the item says 404 from
    ``http``. Before, when ``http`` read none of the URLs passed on, the item kept Jina's 503."""
    reader, site = http_server(_JinaReader), http_server(_NoSuchPage)
    config = build_config(
        usage=False,
        allow_private_networks=True,
        retry={"max_retries": 0},
        providers={"jina": {"api_key": "jina_test_0123456789abcdef", "base_url": f"http://127.0.0.1:{reader.server_port}"}},
    )
    found, gone = f"http://127.0.0.1:{site.server_port}/found", f"http://127.0.0.1:{site.server_port}/gone"
    envelope = dispatch_extract([found, gone], backend=["jina", "http"], hedge_after=hedge_after, config=config)
    assert envelope["success"] is True and envelope["provider"] == "jina", envelope
    read, unread = envelope["data"]
    assert (read["provider"], read["content"]) == ("jina", "The found page.")
    assert (unread["url"], unread["provider"], unread["error_code"]) == (gone, "http", "not_found"), unread
    assert envelope["meta"]["failed"] == 1
    assert [(a["provider"], a.get("error_code")) for a in envelope["meta"]["attempts"]] == [
        ("jina", None),
        ("http", "not_found"),
    ]


@pytest.mark.parametrize("hedge_after", [None, 5.0])
def test_with_on_unsupported_error_a_chain_moves_on_to_a_provider_that_honours_the_option(
    hedge_after: float | None,
) -> None:
    """Before, the chain ended on its first provider's ``unsupported`` though the next one
    honours the option (fusion of the same providers used it)."""
    config = _chain_config(on_unsupported="error")
    provider(config, "fake-b").search_options = frozenset({"safe_search"})
    envelope = dispatch_search("q", backend=["fake-a", "fake-b"], safe_search="strict", hedge_after=hedge_after, config=config)
    assert envelope["success"] is True and envelope["provider"] == "fake-b", envelope
    skipped, served = envelope["meta"]["attempts"]
    assert (skipped["provider"], skipped["outcome"], skipped["error_code"]) == ("fake-a", "skipped", "unsupported")
    assert "safe_search" in skipped["reason"]
    assert (served["provider"], served["outcome"]) == ("fake-b", "ok")
    assert provider(config, "fake-a").calls == 0


def test_with_on_unsupported_error_a_chain_none_of_whose_providers_honours_the_option_fails_unsupported() -> None:
    config = _chain_config(on_unsupported="error")
    envelope = dispatch_search("q", backend=["fake-a", "fake-b"], safe_search="strict", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "unsupported", envelope
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("fake-a", "skipped"),
        ("fake-b", "error"),
    ]
    assert provider(config, "fake-a").calls == provider(config, "fake-b").calls == 0
