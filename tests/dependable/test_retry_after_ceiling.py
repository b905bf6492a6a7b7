"""Absurd ``Retry-After`` values are clamped: the envelope stays JSON, no provider is paused for ever.

A real HTTP server on 127.0.0.1 plays a self-hosted SearXNG whose bot limiter answers 429.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from webproviders import dispatch_search
from webproviders.errors import QuotaExceededError, RateLimitedError
from webproviders.retry_after import (
    MAX_RETRY_AFTER,
    parse_retry_after,
    retry_after_from_headers,
)

from .conftest import state


class LimitedSearx(ThreadingHTTPServer):
    """Answers every request 429 with ``retry_after`` as its ``Retry-After`` header."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.retry_after = "inf"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: LimitedSearx

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = b"Too Many Requests"
        self.send_response(429)
        self.send_header("Retry-After", self.server.retry_after)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def searx(serve: Any) -> LimitedSearx:
    return serve(LimitedSearx())  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("header", "expected"),
    [("inf", 3600.0), ("1e12", 3600.0), ("Infinity", 3600.0), ("-5", 0.0), ("nan", None)],
)
def test_retry_after_from_a_real_server_is_clamped(
    header: str, expected: float | None, searx: LimitedSearx, make_config: Any
) -> None:
    searx.retry_after = header
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}, "providers": {"searxng": {"base_url": searx.url}}})
    envelope = dispatch_search("python", backend="searxng", config=config)
    json.dumps(envelope, allow_nan=False)  # raises on Infinity or NaN
    assert envelope["error_code"] == "rate_limited"
    assert envelope.get("retry_after") == expected
    paused = asyncio.run(state(config).limits.paused_for("searxng"))
    assert paused <= MAX_RETRY_AFTER
    if expected == MAX_RETRY_AFTER:
        assert paused > MAX_RETRY_AFTER - 60


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine whose local time is not GMT."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("form", ["%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"])
def test_an_http_date_in_any_of_its_three_forms_is_read_as_gmt(
    form: str, new_york: None, searx: LimitedSearx, make_config: Any
) -> None:
    """RFC 9110 has recipients read three forms of date; asctime's has no zone and is GMT. It
    was read as local time: in New York a 429 asking for 40 s paused the provider for an
    hour (in Tokyo, not at all)."""
    searx.retry_after = time.strftime(form, time.gmtime(time.time() + 40))
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}, "providers": {"searxng": {"base_url": searx.url}}})
    envelope = dispatch_search("python", backend="searxng", config=config)
    assert envelope["error_code"] == "rate_limited"
    assert 20 < envelope["retry_after"] <= 40, envelope
    assert asyncio.run(state(config).limits.paused_for("searxng")) <= 40


@pytest.mark.parametrize("value", ["inf", "-inf", "1e12", "nan", "-1", "9" * 400])
def test_every_reader_stays_in_range(value: str) -> None:
    for seconds in (
        parse_retry_after(value),
        retry_after_from_headers({"retry-after-ms": value}),
        retry_after_from_headers({"x-ratelimit-reset": value}),
    ):
        assert seconds is None or 0.0 <= seconds <= MAX_RETRY_AFTER


@pytest.mark.parametrize("given", [math.inf, 1e12, -3.0, math.nan])
def test_an_error_built_with_any_wait_carries_a_valid_one(given: float) -> None:
    fields = RateLimitedError("slow down", retry_after=given).envelope_fields()
    json.dumps(fields, allow_nan=False)
    assert fields.get("retry_after", 0.0) <= MAX_RETRY_AFTER
    quota = QuotaExceededError("out of credits", retry_after=given).envelope_fields()
    json.dumps(quota, allow_nan=False)
    assert quota.get("retry_after", 0.0) <= 31 * 86400


def test_a_quota_reset_is_reported_as_the_vendor_said() -> None:
    """A monthly quota's reset is information (nothing waits on it): days are kept."""
    sixteen_days = 1_419_704
    assert QuotaExceededError("out of credits", retry_after=sixteen_days).retry_after == sixteen_days
    assert RateLimitedError("slow down", retry_after=sixteen_days).retry_after == MAX_RETRY_AFTER
