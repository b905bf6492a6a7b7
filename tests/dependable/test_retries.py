"""Retries of transient failures against a vendor API mocked with respx."""

from __future__ import annotations

import asyncio
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_extract, dispatch_search
from webproviders.config import config_from_dict

from .conftest import SleepLog, build_config, provider, state

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


def test_a_retry_the_budget_has_no_room_for_ends_with_the_failure_it_was_for() -> None:
    """A timed-out request is charged its estimate, and the budget has no room left for the
    retry: the call said ``budget_exceeded`` ("tavily would cost about ..."), as if nothing
    had been asked, and the timeout never counted towards a cool-down."""
    price = {"price": {"search": {"usd": 0.01, "per": "request"}}}
    config = _config(budget={"daily_usd": 0.015}, health={"failures": 1}, providers={"fake-vendor": price})
    _sleeps(config)
    with respx.mock() as mock:
        route = mock.get(URL).mock(side_effect=httpx.ReadTimeout("no answer"))
        envelope = dispatch_search("python", backend="fake-vendor", config=config)
    assert envelope["error_code"] == "timeout", envelope["error"]
    assert [a["outcome"] for a in envelope["meta"]["attempts"]] == ["error"]
    assert route.call_count == 1
    assert "cooling down" in dispatch_search("python", backend="fake-vendor", config=config)["error"]


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


class _DrippingPage(BaseHTTPRequestHandler):
    """A page that arrives a few bytes at a time, for longer than any call here lasts."""

    def do_GET(self) -> None:
        self.server.asked += 1  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        released = self.server.released  # type: ignore[attr-defined]
        try:
            while not released.wait(0.1):
                self.wfile.write(b"<p>more</p>")
                self.wfile.flush()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_timeout_is_not_tried_again_with_less_time_than_it_had(http_server: Any) -> None:
    """A page that drips until the call's time runs out: before, http was tried twice more in the
    last moments (9.3 s, then 0.46 s and 0.02 s of a 10 s call) and the chain's next provider
    was left 0.1 s."""
    server = http_server(_DrippingPage)
    server.asked = 0
    url = f"http://127.0.0.1:{server.server_address[1]}/page"
    config = build_config(allow_private_networks=True, cache=False)
    envelope = dispatch_extract([url], backend=["http", "fake-b"], config=config, timeout=3)
    assert envelope["success"] is True and envelope["provider"] == "fake-b", envelope
    http, answered = envelope["meta"]["attempts"]
    assert (http["provider"], http["error_code"], http.get("retry")) == ("http", "timeout", None)
    assert answered["provider"] == "fake-b"
    assert server.asked == 1 and provider(config, "fake-b").calls == 1


class _SlowUnavailable(BaseHTTPRequestHandler):
    """A vendor's gateway that takes a second to answer 503 with its HTML page."""

    def do_GET(self) -> None:
        self.server.asked += 1  # type: ignore[attr-defined]
        self.server.released.wait(1.0)  # type: ignore[attr-defined]
        body = b"<html><head><title>503 Service Temporarily Unavailable</title></head><body>" \
               b"<center><h1>503 Service Temporarily Unavailable</h1></center></body></html>"
        self.send_response(503)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_failure_is_not_tried_again_with_less_time_than_its_try_took(http_server: Any) -> None:
    """A vendor that took a second to answer 503 was asked again with 0.8 s left: the retry was
    cut off at the deadline, charged, and the call said ``timeout`` (the call's deadline)
    instead of the vendor's 503."""
    server = http_server(_SlowUnavailable)
    server.asked = 0
    url = f"http://127.0.0.1:{server.server_address[1]}"
    config = config_from_dict(
        {"web": {"cache": False, "retry": {"backoff": 0}, "providers": {"brave": {"api_key": "BSA-key-123", "base_url": url}}}},
        source="<test>",
    )
    envelope = dispatch_search("python", backend="brave", config=config, timeout=1.8)
    assert (envelope["error_code"], envelope["retryable"]) == ("bad_gateway", True), envelope
    assert "503" in envelope["error"]
    assert [(a["outcome"], a["error_code"], a.get("retry")) for a in envelope["meta"]["attempts"]] == [
        ("error", "bad_gateway", None)
    ]
    assert server.asked == 1
