"""Request budgets: sliding windows, deadlines, manifest defaults, 429 pauses, and a Redis
budget shared by two OS processes."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search
from webproviders.config import ConfigError
from webproviders.dependable.ratelimit import parse_rate
from webproviders.errors import BadGatewayError

from .conftest import FakeClock, SleepLog, build_config, provider, send_answer, state

WORKER = Path(__file__).parent / "worker.py"


def _clocked(config: Any) -> tuple[FakeClock, SleepLog]:
    clock = FakeClock()
    sleeps = SleepLog(clock)
    st = state(config)
    st.limits.local.clock = clock
    st.health.clock = clock
    st.sleep = sleeps
    return clock, sleeps


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("1/s", (1, 1.0)),
        ("100/min", (100, 60.0)),
        ("10/5s", (10, 5.0)),
        ("2/second", (2, 1.0)),
        ("60/hour", (60, 3600.0)),
        ("0.5/s", (1, 2.0)),  # whole requests over a longer span
        ("5000/day", (1000, 17280.0)),  # at most 1000 slots kept: 1000 per 4.8 hours
    ],
)
def test_budgets_are_read_as_requests_per_window(text: str, window: tuple[int, float]) -> None:
    count, span = parse_rate(text).window
    assert (count, span) == (window[0], pytest.approx(window[1]))


@pytest.mark.parametrize("bad", ["fast", "1/fortnight", "0/s", "/s", "-1/s", "1/0s", "5/0.0min", "TopSecretValue"])
def test_a_bad_budget_is_a_config_error_naming_the_key(bad: str) -> None:
    """``1/0s`` was accepted and meant no limit at all; the sentence repeated the value."""
    with pytest.raises(ConfigError, match=r"web\.providers\.fake-a\.rate_limit': the rate limit is not understood") as caught:
        build_config(providers={"fake-a": {"rate_limit": bad}})
    assert f"'{bad}'" not in str(caught.value)


def test_calls_under_the_budget_never_wait_and_the_next_waits_for_the_window() -> None:
    """``2/s``: two at once, the third when the first is a second old. An even spacing made
    every quick second call wait (a vendor's ``100/min`` cost 0.6 s on each of a few calls)."""
    config = build_config(search_backend="fake-a", cache=False, providers={"fake-a": {"rate_limit": "2/s"}})
    clock, sleeps = _clocked(config)
    for _ in range(4):
        assert dispatch_search("q", config=config)["success"] is True
    assert sleeps.waits == pytest.approx([1.0])
    clock.advance(0.5)
    dispatch_search("q", config=config)
    assert sleeps.waits == pytest.approx([1.0, 0.5])  # the window still holds the two at 1.0
    assert provider(config, "fake-a").calls == 5


def test_no_span_of_the_period_ever_holds_more_than_the_budget() -> None:
    import random

    from webproviders.dependable.ratelimit import LocalLimiter

    now = [0.0]
    limiter = LocalLimiter(lambda: now[0])
    rate = parse_rate("5/10s")
    starts: list[float] = []
    rng = random.Random(7)
    for _ in range(400):
        now[0] += rng.expovariate(1.0)  # about twice the budget's pace, in bursts
        wait, taken, _slot = limiter.reserve("p", rate, max_wait=30.0)
        if taken:
            starts.append(now[0] + wait)
    assert len(starts) > 150
    assert starts == sorted(starts)
    assert all(starts[i + 5] - starts[i] >= 10.0 - 1e-9 for i in range(len(starts) - 5))


def test_no_slot_before_the_deadline_means_rate_limited_without_a_request() -> None:
    config = build_config(search_backend="fake-a", cache=False, providers={"fake-a": {"rate_limit": "1/min"}})
    _clocked(config)
    assert dispatch_search("q", config=config, timeout=10)["success"] is True
    envelope = dispatch_search("q", config=config, timeout=10)
    assert envelope["success"] is False
    assert envelope["error_code"] == "rate_limited"
    assert 59 <= envelope["retry_after"] <= 60
    assert "1/min" in envelope["error"]
    assert provider(config, "fake-a").calls == 1
    # nothing was sent: the attempt says it was left out, as a cooling provider's does, not
    # that a request failed
    assert envelope["meta"]["attempts"] == [
        {"provider": "fake-a", "outcome": "skipped", "error_code": "rate_limited", "reason": envelope["error"]}
    ]


def test_a_chain_moves_on_when_its_first_budget_is_spent() -> None:
    config = build_config(search_backend=["fake-a", "fake-b"], cache=False, providers={"fake-a": {"rate_limit": "1/min"}})
    _clocked(config)
    dispatch_search("q", config=config, timeout=5)
    envelope = dispatch_search("q", config=config, timeout=5)
    assert envelope["provider"] == "fake-b"
    assert envelope["meta"]["attempts"][0]["error_code"] == "rate_limited"


@pytest.mark.parametrize("hedge_after", [None, 0.5])
def test_a_chain_asks_its_next_member_rather_than_wait_long_for_a_budget_slot(hedge_after: float | None) -> None:
    """A chain waited for its first member's slot (up to its deadline) while the next could
    answer at once; now it waits at most a second (``hedge_after`` when shorter), and the
    member is skipped, nothing sent."""
    config = build_config(cache=False, providers={"fake-a": {"rate_limit": "1/5s"}, "fake-c": {"rate_limit": "1/s"}})
    _, sleeps = _clocked(config)
    ask = {"backend": ["fake-a", "fake-b"], "config": config, "timeout": 10, "hedge_after": hedge_after}
    assert dispatch_search("q", **ask)["provider"] == "fake-a"
    envelope = dispatch_search("q", **ask)
    assert envelope["provider"] == "fake-b" and sleeps.waits == []
    skipped = envelope["meta"]["attempts"][0]
    assert skipped["provider"] == "fake-a" and skipped["outcome"] == "skipped"
    assert skipped["error_code"] == "rate_limited" and "next free slot in 5.0 s" in skipped["reason"]
    assert provider(config, "fake-a").calls == 1
    # fusion leaves it out the same way
    fused = dispatch_search("q", **ask, mode="fuse")
    assert fused["meta"]["fused"] == ["fake-b"] and sleeps.waits == []
    # a slot within the wait is waited for: the chain keeps its order
    ask["backend"] = ["fake-c", "fake-b"]
    dispatch_search("q", **ask)
    served = dispatch_search("q", **ask)["provider"]
    assert (served, sleeps.waits) == (("fake-c", [1.0]) if hedge_after is None else ("fake-b", []))


@pytest.mark.parametrize(
    "backend",
    [
        {"backend": "fake-a", "mode": "fuse"},  # a fusion of one
        {"backend": {"fuse": ["fake-a", "fake-vendor"]}},  # the other member has no key
        {"backend": ["fake-a", "fake-vendor"]},  # so has the chain's next member
        {"backend": ["fake-a", "fake-vendor"], "hedge_after": 0.5},
    ],
    ids=["fuse-of-one", "fuse", "chain", "hedged-chain"],
)
def test_a_member_no_other_can_stand_in_for_waits_for_its_slot(backend: dict[str, Any], monkeypatch: Any) -> None:
    """Left out when its slot was more than 1 s off, as if another could answer: a fusion of one
    failed ``rate_limited`` ("other providers are asked rather than wait"), and a chain whose
    next member had no key failed ``not_configured`` naming that one."""
    monkeypatch.delenv("FAKE_VENDOR_API_KEY", raising=False)
    config = build_config(cache=False, providers={"fake-a": {"rate_limit": "1/5s"}})
    _, sleeps = _clocked(config)
    assert dispatch_search("q", config=config, timeout=10, **backend)["success"] is True
    envelope = dispatch_search("q", config=config, timeout=10, **backend)
    assert envelope["success"] is True, envelope
    assert sleeps.waits == [5.0]
    assert provider(config, "fake-a").calls == 2


def test_a_stalled_shared_limiter_does_not_stretch_the_wait_past_the_deadline(
    freezable_redis: tuple[str, Callable[[], None]],
) -> None:
    """The time a frozen Redis took before the call fell back to this process's budget came
    on top of the wait that budget gave, so the call slept past its deadline."""
    url, freeze = freezable_redis
    config = build_config(search_backend="fake-a", cache=False, rate_limit={"url": url})
    _, sleeps = _clocked(config)
    state(config).limits.local.pause("fake-a", 2.6)  # a wait the deadline allows, but not after the stall
    freeze()
    started = time.monotonic()
    envelope = dispatch_search("q", config=config, timeout=3)
    took = time.monotonic() - started
    assert took + sum(sleeps.waits) < 3, (took, sleeps.waits, envelope)
    assert envelope["error_code"] == "rate_limited" and provider(config, "fake-a").calls == 0


def test_the_manifest_default_budget_applies_and_config_can_switch_it_off() -> None:
    config = build_config(search_backend="fake-budget", cache=False)  # plugin.yaml says 2/s
    _, sleeps = _clocked(config)
    for _ in range(3):
        dispatch_search("q", config=config)
    assert sleeps.waits == pytest.approx([1.0])

    unlimited = build_config(search_backend="fake-budget", cache=False, providers={"fake-budget": {"rate_limit": "off"}})
    _, sleeps = _clocked(unlimited)
    for _ in range(3):
        dispatch_search("q", config=unlimited)
    assert sleeps.waits == []


def _fake_vendor_on_a_clock() -> tuple[Any, Any, dict[str, Any]]:
    """A config searching ``fake-vendor`` once per call (no retry, no cache), the sleeps its
    waits go to, and a vendor answer with one hit."""
    config = build_config(
        search_backend="fake-vendor",
        cache=False,
        retry={"max_retries": 0},
        providers={"fake-vendor": {"api_key": "fv-key-123456"}},
    )
    _, sleeps = _clocked(config)
    return config, sleeps, {"results": [{"title": "t", "link": "https://example.com/", "snippet": "s"}]}


def test_a_429_with_retry_after_pauses_the_provider_for_every_caller() -> None:
    config, sleeps, body = _fake_vendor_on_a_clock()
    with respx.mock() as mock:
        route = mock.get("https://api.fake-vendor.test/v1/search").mock(
            side_effect=[httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200, json=body)]
        )
        assert dispatch_search("q", config=config)["error_code"] == "rate_limited"
        # The next caller waits out the pause before its request is sent.
        assert dispatch_search("q", config=config)["success"] is True
    assert route.call_count == 2
    assert sleeps.waits == pytest.approx([7.0], abs=0.05)


def test_a_503_with_retry_after_pauses_the_provider_for_every_caller_as_a_429_does() -> None:
    """An outage's Retry-After (RFC 9110) held back only the call that got it: the next call
    in the process asked the vendor again at once."""
    config, sleeps, body = _fake_vendor_on_a_clock()
    with respx.mock() as mock:
        route = mock.get("https://api.fake-vendor.test/v1/search").mock(
            side_effect=[httpx.Response(503, headers={"Retry-After": "7"}), httpx.Response(200, json=body)]
        )
        first = dispatch_search("q", config=config)
        assert first["error_code"] == "bad_gateway" and first["retry_after"] == 7
        assert dispatch_search("q", config=config)["success"] is True
    assert route.call_count == 2
    assert sleeps.waits == pytest.approx([7.0], abs=0.05)  # the next caller waited out the outage


def test_a_retry_with_no_budget_slot_in_time_ends_with_what_the_vendor_answered() -> None:
    """A 503, and the retry it calls for has its request budget's next slot past the
    deadline: the call said ``rate_limited`` ("the request budget has no free slot"), hiding
    the vendor's outage, and the 503s never counted towards a cool-down."""
    config = build_config(
        search_backend="fake-vendor",
        cache=False,
        retry={"max_retries": 2, "backoff": 0},
        health={"failures": 2, "window": 600, "cooldown": 600},
        providers={"fake-vendor": {"api_key": "fv-key-123456", "rate_limit": "1/min"}},
    )
    clock, _ = _clocked(config)
    with respx.mock() as mock:
        route = mock.get("https://api.fake-vendor.test/v1/search").mock(return_value=httpx.Response(503))
        for _ in range(2):
            envelope = dispatch_search("q", config=config, timeout=10)
            assert envelope["error_code"] == "bad_gateway", envelope["error"]
            assert [a["outcome"] for a in envelope["meta"]["attempts"]] == ["error"]
            clock.advance(61)  # the budget's next slot is free again
        cooling = dispatch_search("q", config=config, timeout=10)
    assert route.call_count == 2
    assert "cooling down" in cooling["error"]


@pytest.mark.parametrize("chain", [False, True])
def test_a_caller_waiting_for_its_slot_when_a_429_pauses_the_provider_is_not_sent_into_the_pause(chain: bool) -> None:
    """Under ``1/s`` a caller waits a second for its slot; meanwhile another call meets a 429
    asking for 30 s. The waiting caller was sent at its slot all the same, into the pause; in
    a chain, its next member is asked instead."""
    config = build_config(
        cache=False,
        retry={"max_retries": 0},
        providers={"fake-vendor": {"api_key": "fv-key-123456", "rate_limit": "1/s"}},
    )
    clock, _ = _clocked(config)
    met: list[dict[str, Any]] = []

    async def sleep(seconds: float) -> None:  # while the first sleeper waits, another call meets the 429
        if not met:
            met.append({})
            met[0] = await adispatch_search("other", backend="fake-vendor", config=config, timeout=10)
        clock.advance(seconds)

    state(config).sleep = sleep
    body = {"results": [{"title": "t", "link": "https://example.com/", "snippet": "s"}]}
    with respx.mock() as mock:
        route = mock.get("https://api.fake-vendor.test/v1/search").mock(
            side_effect=[httpx.Response(200, json=body), httpx.Response(429, headers={"Retry-After": "30"})]
            + [httpx.Response(200, json=body)] * 2
        )
        assert dispatch_search("first", backend="fake-vendor", config=config)["success"] is True
        backend = ["fake-vendor", "fake-a"] if chain else "fake-vendor"
        waiting = dispatch_search("waiting", backend=backend, config=config, timeout=10)
    assert met[0]["error_code"] == "rate_limited" and "HTTP 429" in met[0]["error"]
    assert route.call_count == 2  # the first call and the one that met the 429
    if chain:
        assert waiting["provider"] == "fake-a", waiting
        skipped = waiting["meta"]["attempts"][0]
        assert skipped["outcome"] == "skipped" and "fake-vendor asked callers to wait" in skipped["reason"]
    else:
        assert waiting["error_code"] == "rate_limited", waiting
        assert "fake-vendor asked callers to wait" in waiting["error"]


def test_a_refusal_during_a_vendors_pause_names_the_pause_not_the_request_budget() -> None:
    """Before, a provider with a budget (`100/min`) paused by a 429 was refused with "its request
    budget (100/min) has no free slot", as if the budget were spent."""
    config = build_config(
        cache=False,
        retry={"max_retries": 0},
        providers={"fake-vendor": {"api_key": "fv-key-123456", "rate_limit": "100/min"}},
    )
    with respx.mock() as mock:
        mock.get("https://api.fake-vendor.test/v1/search").mock(
            return_value=httpx.Response(429, headers={"Retry-After": "60"})
        )
        assert dispatch_search("q", backend="fake-vendor", config=config)["error_code"] == "rate_limited"
        envelope = dispatch_search("q", backend="fake-vendor", config=config, timeout=5)
    assert envelope["error_code"] == "rate_limited" and envelope["retry_after"] > 55
    assert "fake-vendor asked callers to wait" in envelope["error"] and "request budget" not in envelope["error"]


def test_a_budget_refusal_hours_off_says_when_its_next_slot_is() -> None:
    """``10/day`` spent: the sentence said the next slot was a day off, and ``retry_after`` an
    hour (the ceiling of a vendor's wait), so a caller that followed it was refused again."""
    config = build_config(search_backend="fake-a", cache=False, providers={"fake-a": {"rate_limit": "10/day"}})
    _clocked(config)
    for _ in range(10):
        assert dispatch_search("q", config=config)["success"] is True
    envelope = dispatch_search("q", config=config, timeout=10)
    assert envelope["error_code"] == "rate_limited" and "the next one is in 86400.0 s" in envelope["error"]
    assert envelope["retry_after"] == pytest.approx(86400.0)
    assert provider(config, "fake-a").calls == 10


def test_a_pause_longer_than_the_deadline_fails_at_once() -> None:
    config = build_config(search_backend="fake-a", cache=False)
    _clocked(config)
    state(config).limits.local.pause("fake-a", 120)
    envelope = dispatch_search("q", config=config, timeout=10)
    assert envelope["error_code"] == "rate_limited"
    assert provider(config, "fake-a").calls == 0


def test_two_processes_share_one_redis_budget(
    redis_server: str, namespace: str, counting_server: Any, start_together: Any
) -> None:
    """5 requests/s shared by two processes for 3 s: at most 5 in any second, so at most 20
    reach upstream (two budgets of their own would let 40 through)."""
    web = {
        "cache": False,
        "rate_limit": {"url": redis_server, "namespace": namespace},
        "providers": {"fake-counter": {"base_url": counting_server.url, "rate_limit": "5/s"}},
    }
    job = {"web": web, "mode": "loop", "query": "q", "backend": "fake-counter", "together": True, "duration": 3}
    workers = start_together([[sys.executable, str(WORKER), json.dumps(job)]] * 2)
    results = []
    for worker in workers:
        out, _ = worker.communicate(timeout=60)
        assert worker.returncode == 0
        results.append(json.loads(out.strip().splitlines()[-1]))
    upstream = len(counting_server.requests)
    assert upstream == sum(r["sent"] for r in results)
    assert upstream <= 20
    assert all(r["sent"] >= 2 for r in results), results  # both processes got slots


def test_a_fusion_none_of_whose_members_may_send_yet_waits_for_their_slots() -> None:
    """Each member of a fusion is left out when its slot is over a second off, since another
    may answer; when none did, the call failed at once ("other providers are asked rather
    than wait"), with its deadline far off. Now those members are asked again, waiting for
    their slots within the deadline."""
    budgets = {"fake-a": {"rate_limit": "1/5s"}, "fake-c": {"rate_limit": "1/5s"}}
    config = build_config(cache=False, providers=budgets)
    _, sleeps = _clocked(config)
    ask = {"backend": ["fake-a", "fake-c"], "mode": "fuse", "config": config}
    assert dispatch_search("q", **ask, timeout=10)["meta"]["fused"] == ["fake-a", "fake-c"]
    envelope = dispatch_search("q", **ask, timeout=10)
    assert envelope["success"] is True and envelope["meta"]["fused"] == ["fake-a", "fake-c"], envelope
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("fake-a", "skipped"),
        ("fake-c", "skipped"),
        ("fake-a", "ok"),
        ("fake-c", "ok"),
    ]
    assert sleeps.waits and set(sleeps.waits) == {5.0}  # (the fake clock moves on as each sleeps)
    assert provider(config, "fake-a").calls == provider(config, "fake-c").calls == 2
    # slots past the deadline are not waited for: the fusion fails at once, nothing sent
    refused = dispatch_search("q", **ask, timeout=3)
    assert refused["error_code"] == "rate_limited" and provider(config, "fake-a").calls == 2


@pytest.mark.parametrize("hedge_after", [None, 0.5])
def test_a_chain_whose_other_members_failed_waits_for_the_slot_of_the_one_it_left_out(
    hedge_after: float | None,
) -> None:
    """A member left out because its slot was over a second off, while the next could answer,
    was not asked at all when the next failed: the call failed with the next one's 503 with
    its deadline far off. Now it is asked again, waiting for its slot."""
    config = build_config(cache=False, retry={"max_retries": 0}, providers={"fake-a": {"rate_limit": "1/5s"}})
    _, sleeps = _clocked(config)
    ask = {"backend": ["fake-a", "fake-b"], "config": config, "timeout": 10, "hedge_after": hedge_after}
    assert dispatch_search("q", **ask)["provider"] == "fake-a"
    provider(config, "fake-b").script = [BadGatewayError("fake-b answered 503 Service Unavailable.", status_code=503)]
    envelope = dispatch_search("q", **ask)
    assert envelope["success"] is True and envelope["provider"] == "fake-a", envelope
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("fake-a", "skipped"),
        ("fake-b", "error"),
        ("fake-a", "ok"),
    ]
    assert sleeps.waits == [5.0]
    # a slot past the deadline is not waited for: the asked member's failure is the call's
    provider(config, "fake-b").script = [BadGatewayError("fake-b answered 503 Service Unavailable.", status_code=503)]
    refused = dispatch_search("q", **{**ask, "timeout": 3})
    assert (refused["error_code"], refused["provider"]) == ("bad_gateway", "fake-b"), refused
    assert provider(config, "fake-a").calls == 2


def test_a_chain_member_waits_for_a_shared_slot_within_its_patience(redis_server: str, namespace: str) -> None:
    """With the budget in Redis, a chain member whose slot was 0.7 s off (within the second it
    may wait) was skipped, told the slot was "too near this call's deadline" in a call given
    10 s: the store's time to answer was kept from the member's patience, not from the deadline."""
    config = build_config(
        cache=False,
        rate_limit={"url": redis_server, "namespace": namespace},
        providers={"fake-a": {"rate_limit": "1/900ms"}},
    )
    sleeps = SleepLog()
    state(config).sleep = sleeps
    ask = {"backend": ["fake-a", "fake-b"], "config": config, "timeout": 10}
    assert dispatch_search("q", **ask)["provider"] == "fake-a"
    envelope = dispatch_search("q", **ask)
    assert envelope["provider"] == "fake-a", envelope["meta"]["attempts"]
    assert len(sleeps.waits) == 1 and 0 < sleeps.waits[0] <= 0.9
    assert provider(config, "fake-b").calls == 0


def test_a_redis_budget_lets_calls_under_it_start_at_once(redis_server: str, namespace: str) -> None:
    from webproviders.dependable.ratelimit.redis_limiter import RedisLimiter

    limiter = RedisLimiter(redis_server, namespace)
    rate = parse_rate("3/min")
    try:
        assert [limiter.reserve("p", rate, 1.0)[:2] for _ in range(3)] == [(0.0, True)] * 3
        wait, taken, _slot = limiter.reserve("p", rate, 1.0)
        assert not taken and 59 <= wait <= 60  # the fourth only when the first is a minute old
        assert limiter.reserve("other", rate, 1.0)[:2] == (0.0, True)  # budgets are per provider
    finally:
        limiter.close()


def test_configs_setting_other_budgets_for_one_key_each_keep_theirs_in_redis(redis_server: str, namespace: str) -> None:
    """Configs sharing a Redis and a key, one with ``3/min`` and one with ``1/100ms``: every
    request counts against each budget. Before, the smaller window trimmed the shared list, and
    the ``3/min`` config sent a fourth and fifth request within its minute; a start the larger
    budget took earlier than one the smaller had reserved ahead let the smaller send two at once."""
    from webproviders.dependable.ratelimit.redis_limiter import RedisLimiter

    limiter = RedisLimiter(redis_server, namespace)
    per_minute, quick = parse_rate("3/min"), parse_rate("1/100ms")
    try:
        assert [limiter.reserve("brave@k", per_minute, 1.0)[:2] for _ in range(3)] == [(0.0, True)] * 3
        assert limiter.reserve("brave@k", quick, 1.0)[1] is True  # its own 1/100ms has room soon
        wait, taken, _ = limiter.reserve("brave@k", per_minute, 1.0)
        assert not taken and wait > 59, wait  # three in the minute already: the fourth waits
        first = limiter.reserve("other@k", quick, 1.0)[2]
        second = limiter.reserve("other@k", quick, 1.0)[2]  # reserved ahead of now
        assert limiter.reserve("other@k", per_minute, 1.0)[1] is True  # room now, before it
        third = limiter.reserve("other@k", quick, 1.0)[2]
        assert first is not None and second is not None and third is not None
        assert second - first >= 100 and third - second >= 100, (first, second, third)
    finally:
        limiter.close()


def test_redis_budget_falls_back_to_the_process_when_redis_is_down() -> None:
    from .conftest import free_port

    config = build_config(
        search_backend="fake-a",
        cache=False,
        rate_limit={"url": f"redis://127.0.0.1:{free_port()}/0"},
        providers={"fake-a": {"rate_limit": "2/s"}},
    )
    _, sleeps = _clocked(config)
    for _ in range(3):
        assert dispatch_search("q", config=config)["success"] is True
    assert sleeps.waits == pytest.approx([1.0])


def test_a_free_slot_with_no_time_left_is_a_timeout_not_rate_limited() -> None:
    """Time spent elsewhere (a slow store, say) must not be reported as the budget's fault."""
    import asyncio

    from webproviders.errors import WebTimeoutError

    config = build_config(search_backend="fake-a", cache=False, providers={"fake-a": {"rate_limit": "1/s"}})
    _clocked(config)
    limits = state(config).limits
    with pytest.raises(WebTimeoutError, match="deadline passed before fake-a could be asked"):
        asyncio.run(limits.acquire("fake-a", -0.5, state(config).sleep))


def test_a_shared_pause_holds_back_the_key_that_got_the_429_not_other_configs_keys(
    redis_server: str, namespace: str, http_server: Any
) -> None:
    """A vendor counts requests, and answers 429, per key. Before, one tenant's 429 paused the
    provider in Redis for every config on it: another tenant, with a key of its own the vendor
    had never refused, got `rate_limited` for a minute without a request being sent."""
    asked: list[str] = []

    class Vendor(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            key = self.headers.get("X-Api-Key", "")
            asked.append(key)
            refused = key == "fv-tenant-a-123456"
            body = b"{}" if refused else json.dumps({"results": [{"title": "t", "link": "https://example.com/", "snippet": "s"}]}).encode()
            send_answer(self, body, 429 if refused else 200, headers={"Retry-After": "60"} if refused else None)

        def log_message(self, *args: Any) -> None:
            pass

    server = http_server(Vendor)
    base = f"http://127.0.0.1:{server.server_address[1]}"

    def tenant(key: str) -> Any:
        section = {"api_key": key, "base_url": base}
        return build_config(
            cache=False, retry={"max_retries": 0}, providers={"fake-vendor": section},
            rate_limit={"url": redis_server, "namespace": namespace},
        )

    assert dispatch_search("q", backend="fake-vendor", config=tenant("fv-tenant-a-123456"))["error_code"] == "rate_limited"
    other = dispatch_search("q", backend="fake-vendor", config=tenant("fv-tenant-b-123456"), timeout=5)
    assert other["success"] is True, other
    # Another worker with the refused key still waits out the pause the vendor asked for.
    same = dispatch_search("q", backend="fake-vendor", config=tenant("fv-tenant-a-123456"), timeout=5)
    assert same["error_code"] == "rate_limited"
    assert asked == ["fv-tenant-a-123456", "fv-tenant-b-123456"]


def _next_caller_after_one_left(config: Any, period: int) -> dict[str, Any]:
    """With a budget of one request per ``period`` seconds of ``fake-a`` spent by a first call,
    a second caller takes the next slot and leaves while it waits; the third call's deadline
    (``period`` + 1 s) reaches that slot, not the one a whole window after it."""

    async def run() -> dict[str, Any]:
        first = await adispatch_search("first", backend="fake-a", config=config, timeout=20)
        assert first["success"] is True, first
        waiting = asyncio.ensure_future(adispatch_search("left", backend="fake-a", config=config, timeout=20))
        await asyncio.sleep(0.5)  # it holds the next slot, a period after the first, and sleeps
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        return await adispatch_search("next", backend="fake-a", config=config, timeout=period + 1)

    return asyncio.run(run())


def test_a_shared_pause_holds_back_the_searxng_instance_that_asked_for_it_not_another(
    redis_server: str, namespace: str, http_server: Any
) -> None:
    """A keyless provider is told apart by its endpoint: two SearXNG instances are two
    servers. Before, one instance's 429 paused ``searxng`` in Redis for every config on it,
    and a worker of another instance, which had refused nothing, got ``rate_limited``
    without a request."""
    asked: list[str] = []

    def instance(tag: str, status: int) -> str:
        class SearXNG(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                asked.append(tag)
                body = json.dumps({
                    "query": "q", "number_of_results": 1, "answers": [], "suggestions": [],
                    "results": [{"url": f"https://{tag}.example/", "title": tag, "content": "c", "engine": "brave"}],
                }).encode()
                send_answer(self, body, status, headers={"Retry-After": "60"} if status == 429 else None)

            def log_message(self, *args: Any) -> None:
                pass

        return f"http://127.0.0.1:{http_server(SearXNG).server_address[1]}"

    limiting, other = instance("limiting", 429), instance("other", 200)

    def worker(base_url: str) -> Any:
        return build_config(
            cache=False, retry={"max_retries": 0}, providers={"searxng": {"base_url": base_url}},
            rate_limit={"url": redis_server, "namespace": namespace},
        )

    assert dispatch_search("q", backend="searxng", config=worker(limiting))["error_code"] == "rate_limited"
    answered = dispatch_search("q", backend="searxng", config=worker(other), timeout=5)
    assert answered["success"] is True, answered
    # Another worker of the instance that asked for the pause still waits it out.
    assert dispatch_search("q", backend="searxng", config=worker(limiting), timeout=5)["error_code"] == "rate_limited"
    assert asked.count("limiting") == 1  # its pause was honoured: nothing more was sent to it


def test_a_shared_slot_whose_caller_left_goes_to_the_next_caller(
    freezable_redis: tuple[str, Callable[[], None]], namespace: str
) -> None:
    """A caller that stops waiting for its slot (a hedged chain took another answer, the
    caller's task was cancelled) sent nothing: the slot it held in the fleet's budget is
    taken by the next caller. Before, it stayed spent, and the next caller's slot came a
    whole window later, past its deadline."""
    url, _ = freezable_redis
    config = build_config(rate_limit={"url": url, "namespace": namespace},
                          providers={"fake-a": {"rate_limit": "1/4s"}}, cache=False, usage=False)

    envelope = _next_caller_after_one_left(config, period=4)
    assert envelope["success"] is True, envelope
    assert provider(config, "fake-a").calls == 2


def test_a_shared_slot_the_server_took_after_its_caller_left_goes_to_the_next_caller(
    redis_server: str, namespace: str
) -> None:
    """A caller cancelled while its reservation was on its way to Redis (a hedged chain took
    another answer) sent nothing, but the server took the slot anyway once it answered: it
    stayed spent for the fleet, and the next caller's slot came a whole window later."""
    import redis

    config = build_config(rate_limit={"url": redis_server, "namespace": namespace, "timeout": 2.0},
                          providers={"fake-a": {"rate_limit": "1/3s"}}, cache=False, usage=False)
    client = redis.Redis.from_url(redis_server)

    async def run() -> dict[str, Any]:
        first = await adispatch_search("first", backend="fake-a", config=config, timeout=20)
        assert first["success"] is True, first
        client.execute_command("CLIENT", "PAUSE", 1000, "ALL")  # the next reservation waits on the server
        left = asyncio.ensure_future(adispatch_search("left", backend="fake-a", config=config, timeout=20))
        await asyncio.sleep(0.3)
        left.cancel()
        with pytest.raises(asyncio.CancelledError):
            await left
        await asyncio.sleep(1.0)  # the server answers it: the slot 3 s after the first is taken
        return await adispatch_search("next", backend="fake-a", config=config, timeout=5)  # 3 + 3 s is too far

    try:
        envelope = asyncio.run(run())
    finally:
        client.close()
    assert envelope["success"] is True, envelope
    assert provider(config, "fake-a").calls == 2


def test_a_slot_whose_caller_left_goes_to_the_next_caller_in_this_process() -> None:
    """The same as the shared budget's, for the budget this process keeps: the slot of a caller
    that stopped waiting stayed spent, and the next caller's came a whole window later."""
    config = build_config(providers={"fake-a": {"rate_limit": "1/2s"}}, cache=False, usage=False)

    envelope = _next_caller_after_one_left(config, period=2)
    assert envelope["success"] is True, envelope
    assert provider(config, "fake-a").calls == 2


def test_a_slot_whose_caller_left_goes_to_the_next_caller_while_redis_is_down() -> None:
    """With the shared limiter down, the budget this process keeps stands in for it: the slot of
    a caller that stopped waiting stayed spent there, and the next caller's came a whole window
    later."""
    from .conftest import free_port

    config = build_config(rate_limit={"url": f"redis://127.0.0.1:{free_port()}/0"},
                          providers={"fake-a": {"rate_limit": "1/2s"}}, cache=False, usage=False)

    envelope = _next_caller_after_one_left(config, period=2)
    assert envelope["success"] is True, envelope
    assert provider(config, "fake-a").calls == 2


def test_a_shared_slot_the_call_could_not_wait_for_once_the_store_answered_is_not_taken(
    freezable_redis: tuple[str, Callable[[], None]], namespace: str
) -> None:
    """A slot near the edge of what a call can wait for, answered by a slow store (a loaded
    process's event loop, a busy server), was taken and then refused as too late: it stayed
    spent, and under load most of a fleet's budget went unused (4 processes sharing 50/s sent
    224 requests in 11 s). A slot is now taken only if the call can wait for it once the
    store has answered within its bound."""
    import redis

    url, _ = freezable_redis
    config = build_config(rate_limit={"url": url, "namespace": namespace},
                          providers={"fake-a": {"rate_limit": "1/3s"}}, cache=False, usage=False)
    client = redis.Redis.from_url(url)
    try:
        assert dispatch_search("first", backend="fake-a", config=config, timeout=10)["success"] is True
        sent = time.monotonic()
        near = dispatch_search("near", backend="fake-a", config=config, timeout=3.5)  # 0.5 s to spare, not 0.86
        assert near["error_code"] == "rate_limited", near
        assert "too near this call's deadline, which must also leave the shared rate limiter" in near["error"]
        client.execute_command("CLIENT", "PAUSE", 500, "WRITE")  # the next slot's answer comes 0.5 s late
        late = dispatch_search("late", backend="fake-a", config=config, timeout=2.75)
        assert late["error_code"] == "rate_limited", late  # its slot, 3 s after the first, is too far
        time.sleep(max(0.0, sent + 3.2 - time.monotonic()))
        envelope = dispatch_search("next", backend="fake-a", config=config, timeout=1.5)
    finally:
        client.close()
    assert envelope["success"] is True, envelope  # the slot the late call did not use was free
    assert provider(config, "fake-a").calls == 2


_FIRST_TWO_REQUESTS = """
import json, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

arrivals = []
ANSWER = json.dumps({"type": "search", "web": {"type": "search", "results": [
    {"title": "Tokio", "url": "https://tokio.rs/", "description": "An asynchronous runtime."}]}}).encode()

class Brave(BaseHTTPRequestHandler):
    def do_GET(self):
        arrivals.append(time.monotonic())
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Brave)
threading.Thread(target=server.serve_forever, daemon=True).start()
from webproviders import dispatch_search
from webproviders.config import config_from_dict

config = config_from_dict({"web": {"cache": False, "providers": {"brave": {
    "base_url": "http://127.0.0.1:%d" % server.server_port, "api_key": "BSA-test-key", "rate_limit": "1/s"}}}})
ok = [dispatch_search(query, backend="brave", config=config, timeout=10)["success"] for query in ("tokio", "rust")]
print(json.dumps({"ok": ok, "arrivals": arrivals}))
"""


def test_a_process_s_first_two_requests_reach_the_vendor_no_closer_than_its_budget(
    run_script: Callable[..., dict[str, Any]],
) -> None:
    """With ``1/s``, a fresh process's first two requests reached the vendor about 0.35-0.8 s
    apart: the first request's set-up (the HTTP stack's import, the TLS trust store) ran
    inside its slot, so it went out late while the second went out on time."""
    answer = run_script(_FIRST_TWO_REQUESTS)
    assert answer["ok"] == [True, True], answer
    first, second = answer["arrivals"]
    assert second - first >= 1.0 - 0.1, answer  # the budget's interval, less scheduling jitter
