"""Failover chains: which failures move on to the next provider, and what the envelope says."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from webproviders import adispatch_extract, adispatch_search, dispatch_crawl, dispatch_search
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
