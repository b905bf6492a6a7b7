"""Health-aware routing: cool-downs skip a failing provider, then one trial call half-opens."""

from __future__ import annotations

from typing import Any

from webproviders import dispatch_search
from webproviders.dependable.health import HealthBoard
from webproviders.errors import (
    BadGatewayError,
    InvalidInputError,
    NetworkError,
    QuotaExceededError,
    RateLimitedError,
)

from .conftest import FakeClock, SleepLog, build_config, provider, state


def _setup(**web: Any) -> tuple[Any, FakeClock]:
    web.setdefault("search_backend", ["fake-a", "fake-b"])
    web.setdefault("health", {"failures": 3, "window": 60, "cooldown": 30, "quota_cooldown": 7200})
    web.setdefault("retry", {"max_retries": 0})
    config = build_config(cache=False, **web)
    clock = FakeClock()
    st = state(config)
    st.health.clock = clock
    st.limits.local.clock = clock
    st.sleep = SleepLog(clock)
    return config, clock


def _fail_a(config: Any, times: int, error: Exception | None = None) -> None:
    provider(config, "fake-a").script = [error or NetworkError("down") for _ in range(times)]


def test_repeated_failures_open_a_cool_down_that_chains_skip() -> None:
    config, _clock = _setup()
    _fail_a(config, 3)
    for _ in range(3):
        assert dispatch_search("q", config=config)["provider"] == "fake-b"
    assert provider(config, "fake-a").calls == 3
    envelope = dispatch_search("q", config=config)
    assert envelope["provider"] == "fake-b"
    assert provider(config, "fake-a").calls == 3  # skipped without a request
    skipped = envelope["meta"]["attempts"][0]
    assert skipped["provider"] == "fake-a" and skipped["outcome"] == "skipped"
    assert skipped["error_code"] == "network_error"
    assert "cooling down" in skipped["reason"]


def test_after_the_cool_down_one_trial_call_closes_the_circuit() -> None:
    config, clock = _setup()
    _fail_a(config, 3)
    for _ in range(3):
        dispatch_search("q", config=config)
    clock.advance(29)
    assert dispatch_search("q", config=config)["provider"] == "fake-b"
    clock.advance(2)
    envelope = dispatch_search("q", config=config)  # half-open: fake-a gets one try and answers
    assert envelope["provider"] == "fake-a"
    assert provider(config, "fake-a").calls == 4
    assert dispatch_search("q", config=config)["provider"] == "fake-a"


def test_a_failed_trial_call_reopens_at_once() -> None:
    config, clock = _setup()
    _fail_a(config, 4)
    for _ in range(3):
        dispatch_search("q", config=config)
    clock.advance(31)
    assert dispatch_search("q", config=config)["provider"] == "fake-b"  # the trial failed
    assert provider(config, "fake-a").calls == 4
    dispatch_search("q", config=config)
    assert provider(config, "fake-a").calls == 4  # cooling again after a single failure


def test_a_trial_call_its_budget_refuses_lets_the_next_caller_try() -> None:
    """The caller let through after the cool-down sent nothing (its own per-tag budget refused
    it); every other caller then skipped the provider for a minute, told a trial call was
    under way."""
    config, clock = _setup(
        usage=False,
        budget={"per_tag": {"user": {"daily_usd": 0.001}}},
        providers={"fake-a": {"price": {"search": {"usd": 0.01, "per": "request"}}}},
    )
    _fail_a(config, 3)
    for _ in range(3):
        dispatch_search("q", config=config)
    clock.advance(31)
    refused = dispatch_search("q", config=config, tags={"user": "alice"})
    assert [(a["provider"], a["outcome"], a.get("error_code")) for a in refused["meta"]["attempts"]] == [
        ("fake-a", "skipped", "budget_exceeded"),
        ("fake-b", "ok", None),
    ]
    envelope = dispatch_search("q", config=config)
    assert envelope["provider"] == "fake-a", envelope["meta"]["attempts"]
    assert provider(config, "fake-a").calls == 4


def test_failures_outside_the_window_do_not_add_up() -> None:
    config, clock = _setup()
    _fail_a(config, 4)
    for _ in range(2):
        dispatch_search("q", config=config)
    clock.advance(61)
    for _ in range(2):
        dispatch_search("q", config=config)
    assert provider(config, "fake-a").calls == 4
    dispatch_search("q", config=config)
    assert provider(config, "fake-a").calls == 5  # still tried: only 2 failures in the window


def test_caller_mistakes_do_not_count_against_a_provider() -> None:
    config, _clock = _setup(search_backend="fake-a")
    provider(config, "fake-a").script = [InvalidInputError("bad") for _ in range(5)]
    for _ in range(5):
        assert dispatch_search("q", config=config)["error_code"] == "invalid_input"
    assert provider(config, "fake-a").calls == 5


def test_out_of_quota_cools_down_for_hours() -> None:
    config, clock = _setup()
    _fail_a(config, 1, QuotaExceededError("no credits"))
    dispatch_search("q", config=config)
    clock.advance(3600)
    envelope = dispatch_search("q", config=config)
    assert envelope["meta"]["attempts"][0]["error_code"] == "quota_exceeded"
    assert provider(config, "fake-a").calls == 1
    clock.advance(3601)
    assert dispatch_search("q", config=config)["provider"] == "fake-a"


def test_a_single_backend_that_is_cooling_fails_fast_with_retry_after() -> None:
    config, _clock = _setup(search_backend="fake-a")
    _fail_a(config, 3, BadGatewayError("503", status_code=503))
    for _ in range(3):
        dispatch_search("q", config=config)
    envelope = dispatch_search("q", config=config)
    assert envelope["success"] is False
    assert envelope["error_code"] == "bad_gateway"
    assert envelope["retryable"] is True
    assert 29 <= envelope["retry_after"] <= 30
    assert provider(config, "fake-a").calls == 3


def test_the_cool_down_sentence_says_when_the_provider_is_tried_again() -> None:
    """Read by a person: it said "(1 failures ...)", "tried again in 0 s" with half a second
    left, and "it will be being tried" while another call was the trial."""
    config, clock = _setup(search_backend="fake-a", health={"failures": 1, "window": 60, "cooldown": 30})
    _fail_a(config, 1, BadGatewayError("503", status_code=503))
    dispatch_search("q", config=config)
    clock.advance(29.5)
    envelope = dispatch_search("q", config=config)
    assert envelope["error"] == "fake-a is cooling down (1 failure within 60 s); it will be tried again in 1 s."
    clock.advance(1)
    assert state(config).health.cooling("fake-a") is None  # another call takes the trial
    envelope = dispatch_search("q", config=config)
    assert envelope["error"] == (
        "fake-a is cooling down (1 failure within 60 s; a trial call is under way); "
        "it will be tried again once that trial call has ended without failing."
    )
    assert provider(config, "fake-a").calls == 1


def test_429_without_retry_after_cools_down_by_default() -> None:
    config, clock = _setup(health={"rate_limit_cooldown": 10})
    _fail_a(config, 1, RateLimitedError("slow down"))
    dispatch_search("q", config=config)
    dispatch_search("q", config=config)
    assert provider(config, "fake-a").calls == 1
    clock.advance(11)
    assert dispatch_search("q", config=config)["provider"] == "fake-a"


def test_429_with_retry_after_pauses_the_provider_for_chains() -> None:
    config, clock = _setup()
    _fail_a(config, 1, RateLimitedError("slow down", retry_after=20))
    dispatch_search("q", config=config)
    envelope = dispatch_search("q", config=config)
    assert envelope["provider"] == "fake-b"
    assert envelope["meta"]["attempts"][0]["outcome"] == "skipped"
    assert envelope["meta"]["attempts"][0]["error_code"] == "rate_limited"
    assert provider(config, "fake-a").calls == 1
    clock.advance(21)
    assert dispatch_search("q", config=config)["provider"] == "fake-a"


def test_503_with_retry_after_pauses_the_provider_for_chains_and_says_why() -> None:
    """An outage with a Retry-After: the next chain asked the provider again at once."""
    config, clock = _setup()
    _fail_a(config, 1, BadGatewayError("down for maintenance", retry_after=20, status_code=503))
    assert dispatch_search("q", config=config)["provider"] == "fake-b"
    envelope = dispatch_search("q", config=config)
    assert envelope["provider"] == "fake-b"
    skipped = envelope["meta"]["attempts"][0]
    assert skipped["outcome"] == "skipped" and "Retry-After" in skipped["reason"]
    assert provider(config, "fake-a").calls == 1
    clock.advance(21)
    assert dispatch_search("q", config=config)["provider"] == "fake-a"


def test_a_chain_asks_its_next_member_rather_than_wait_out_a_503_s_retry_after() -> None:
    """A chain of ``[fake-a, fake-b]`` waited the 503's Retry-After and asked ``fake-a`` again,
    while ``fake-b`` could answer at once (as after a 429, a pause is not waited for in a chain)."""
    config, _clock = _setup(retry={"max_retries": 2})
    _fail_a(config, 1, BadGatewayError("down for maintenance", retry_after=3, status_code=503))
    envelope = dispatch_search("q", config=config)
    assert envelope["provider"] == "fake-b"
    assert [a["outcome"] for a in envelope["meta"]["attempts"]] == ["error", "ok"]
    assert provider(config, "fake-a").calls == 1
    assert state(config).sleep.waits == []  # type: ignore[attr-defined]


def test_cool_downs_are_per_config() -> None:
    config, _clock = _setup()
    _fail_a(config, 3)
    for _ in range(3):
        dispatch_search("q", config=config)
    other, _ = _setup()
    assert dispatch_search("q", config=other)["provider"] == "fake-a"


def test_only_one_trial_call_goes_through_while_half_open() -> None:
    clock = FakeClock()
    board = HealthBoard(failures=1, cooldown=10, clock=clock)
    board.failed("fake-a", NetworkError("down"))
    assert board.cooling("fake-a") is not None
    clock.advance(11)
    assert board.cooling("fake-a") is None  # this caller makes the trial call
    waiting = board.cooling("fake-a")
    assert waiting is not None and "trial call" in waiting.reason
    board.succeeded("fake-a")
    assert board.cooling("fake-a") is None


def test_retries_of_one_call_count_as_one_failure() -> None:
    config, _ = _setup(retry={"max_retries": 2})
    _fail_a(config, 6)
    for _ in range(2):
        assert dispatch_search("q", config=config)["provider"] == "fake-b"
    assert provider(config, "fake-a").calls == 6  # two calls of three tries each
    dispatch_search("q", config=config)
    assert provider(config, "fake-a").calls == 7  # still tried: 2 failed calls < 3
