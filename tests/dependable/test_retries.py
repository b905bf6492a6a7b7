"""Retries of transient failures against a vendor API mocked with respx."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search

from .conftest import SleepLog, build_config, state

URL = "https://api.fake-vendor.test/v1/search"
BODY = {
    "results": [
        {"title": "Python", "link": "https://www.python.org/", "snippet": "The official home", "rank": 1},
        {"title": "Docs", "link": "https://docs.python.org/3/", "snippet": "Documentation", "rank": 2},
    ],
    "request_id": "req-1",
}


def _config(**web: Any) -> Any:
    providers = web.pop("providers", {})
    providers.setdefault("fake-vendor", {})
    providers["fake-vendor"].setdefault("api_key", "fv-key-123456")
    return build_config(providers=providers, cache=False, **web)


def _sleeps(config: Any) -> SleepLog:
    log = SleepLog()
    state(config).sleep = log
    return log


def test_429_then_200_waits_for_retry_after_and_succeeds() -> None:
    config = _config()
    sleeps = _sleeps(config)
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(URL).mock(
            side_effect=[
                httpx.Response(429, json={"error": "Too Many Requests"}, headers={"Retry-After": "2"}),
                httpx.Response(200, json=BODY),
            ]
        )
        envelope = dispatch_search("python", backend="fake-vendor", config=config)
    assert envelope["success"] is True
    assert [hit["url"] for hit in envelope["data"]["web"]] == ["https://www.python.org/", "https://docs.python.org/3/"]
    assert route.call_count == 2
    assert sleeps.waits and sleeps.waits[0] >= 2.0
    attempts = envelope["meta"]["attempts"]
    assert [(a["outcome"], a.get("error_code")) for a in attempts] == [("error", "rate_limited"), ("ok", None)]
    assert attempts[1]["retry"] == 1


def test_retry_after_as_http_date_is_honoured() -> None:
    config = _config()
    sleeps = _sleeps(config)
    when = httpx.Response(429, headers={"Retry-After": "Wed, 21 Oct 2099 07:28:00 GMT"})
    with respx.mock() as mock:
        route = mock.get(URL).mock(side_effect=[when, httpx.Response(200, json=BODY)])
        envelope = dispatch_search("python", backend="fake-vendor", config=config, timeout=30)
    # The date is decades away: waiting would pass the deadline, so the call fails at once.
    assert envelope["success"] is False
    assert envelope["error_code"] == "rate_limited"
    assert envelope["retry_after"] > 30
    assert route.call_count == 1
    assert sleeps.waits == []


def test_503_503_200_retries_twice_async() -> None:
    config = _config()
    sleeps = _sleeps(config)

    async def run() -> dict[str, Any]:
        with respx.mock() as mock:
            route = mock.get(URL).mock(
                side_effect=[httpx.Response(503), httpx.Response(503, text="busy"), httpx.Response(200, json=BODY)]
            )
            envelope = await adispatch_search("python", backend="fake-vendor", config=config)
            assert route.call_count == 3
            return envelope

    envelope = asyncio.run(run())
    assert envelope["success"] is True
    assert envelope["provider"] == "fake-vendor"
    assert [a.get("error_code") for a in envelope["meta"]["attempts"]] == ["bad_gateway", "bad_gateway", None]
    assert len(sleeps.waits) == 2


def test_backoff_grows_exponentially_with_jitter() -> None:
    config = _config(retry={"backoff": 1.0, "max_retries": 3})
    sleeps = _sleeps(config)
    with respx.mock() as mock:
        mock.get(URL).mock(side_effect=[httpx.Response(502)] * 3 + [httpx.Response(200, json=BODY)])
        envelope = dispatch_search("python", backend="fake-vendor", config=config, timeout=60)
    assert envelope["success"] is True
    first, second, third = sleeps.waits
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0 and 2.0 <= third <= 4.0


@pytest.mark.parametrize(
    ("status", "code"),
    [(401, "auth_error"), (403, "auth_error"), (400, "invalid_input"), (402, "quota_exceeded"), (500, "bad_gateway")],
)
def test_non_transient_failures_are_not_retried(status: int, code: str) -> None:
    config = _config()
    sleeps = _sleeps(config)
    with respx.mock() as mock:
        route = mock.get(URL).respond(status, json={"error": "no"})
        envelope = dispatch_search("python", backend="fake-vendor", config=config)
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    assert route.call_count == 1
    assert sleeps.waits == []


def test_retries_give_up_after_max_retries() -> None:
    config = _config(providers={"fake-vendor": {"max_retries": 1}})
    _sleeps(config)
    with respx.mock() as mock:
        route = mock.get(URL).respond(504)
        envelope = dispatch_search("python", backend="fake-vendor", config=config)
    assert envelope["error_code"] == "bad_gateway"
    assert envelope["retryable"] is True
    assert route.call_count == 2


def test_network_errors_are_retried() -> None:
    config = _config()
    _sleeps(config)
    with respx.mock() as mock:
        route = mock.get(URL).mock(side_effect=[httpx.ConnectError("refused"), httpx.Response(200, json=BODY)])
        envelope = dispatch_search("python", backend="fake-vendor", config=config)
    assert envelope["success"] is True
    assert route.call_count == 2


def test_a_retry_never_waits_past_the_deadline() -> None:
    """With a real sleep and a 2 s deadline, a 5 s back-off is not taken."""
    config = _config(providers={"fake-vendor": {"backoff": 10.0}})
    with respx.mock() as mock:
        route = mock.get(URL).respond(503)
        envelope = dispatch_search("python", backend="fake-vendor", config=config, timeout=2)
    assert envelope["error_code"] == "bad_gateway"
    assert route.call_count == 1


def test_zero_max_retries_switches_retries_off() -> None:
    config = _config(retry={"max_retries": 0})
    with respx.mock() as mock:
        route = mock.get(URL).respond(503)
        envelope = dispatch_search("python", backend="fake-vendor", config=config)
    assert envelope["error_code"] == "bad_gateway"
    assert route.call_count == 1
