"""Hedged chains: a silent provider does not hold a chain up; the first answer wins, the rest are cancelled."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import sqlite3
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from webproviders import (
    adispatch_crawl,
    adispatch_extract,
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
)
from webproviders.accounting.usage.spool import spool
from webproviders.config import Config, ConfigError, config_from_dict
from webproviders.dispatch.hung import MAX_HUNG
from webproviders.errors import BadGatewayError, InvalidInputError

from .conftest import PLUGINS, FakeClock, provider, send_answer, state

HANG = 60.0
QUERY_URL = "https://site.example/page"
DISPATCH = {
    ("search", "sync"): dispatch_search,
    ("extract", "sync"): dispatch_extract,
    ("crawl", "sync"): dispatch_crawl,
    ("search", "async"): adispatch_search,
    ("extract", "async"): adispatch_extract,
    ("crawl", "async"): adispatch_crawl,
}
SUBJECT = {"search": "heat pumps", "extract": [QUERY_URL], "crawl": QUERY_URL}

_configs: list[Config] = []


def hedge_config(**web: Any) -> Config:
    settings: dict[str, Any] = {"retry": {"backoff": 0.0}, "usage": False}
    settings.update(web)
    config = config_from_dict(
        {"web": settings, "plugins": {"paths": [str(PLUGINS)], "enabled": ["hedgers"]}}, source="<test>"
    )
    _configs.append(config)
    return config


@pytest.fixture(autouse=True)
def _let_hung_threads_go() -> Iterator[None]:
    yield
    while _configs:
        config = _configs.pop()
        for colour in ("sync", "async"):
            for n in (1, 2, 3):
                provider(config, f"{colour}-{n}").release.set()


def call(capability: str, how: str, backend: list[str], config: Config, **kwargs: Any) -> dict[str, Any]:
    """Dispatch sync or async; the answer and the seconds it took."""
    dispatch = DISPATCH[(capability, how)]
    subject = SUBJECT[capability]
    if how == "sync":
        return dispatch(subject, backend=backend, config=config, **kwargs)
    return asyncio.run(dispatch(subject, backend=backend, config=config, **kwargs))


def ledger(path: Path) -> list[tuple[str, str, float, int]]:
    """The usage ledger's rows: provider, outcome, dollars, estimated."""
    spool.flush()
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT provider, outcome, usd, estimated FROM usage"))
    finally:
        conn.close()


def outcomes(envelope: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]]


def served_text(envelope: dict[str, Any], capability: str) -> str:
    data = envelope["data"]
    return data["web"][0]["url"] if capability == "search" else data[0]["content"]


@pytest.mark.parametrize("capability", ["search", "extract", "crawl"])
@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_hung_provider_is_hedged_and_the_next_answer_wins(capability: str, how: str) -> None:
    config = hedge_config()
    hung, quick = provider(config, f"{how}-1"), provider(config, f"{how}-2")
    hung.delay = HANG
    # The hung provider holds the whole 10 s deadline: only a hedge can answer in time.
    envelope = call(capability, how, [f"{how}-1", f"{how}-2"], config, hedge_after=0.2, timeout=10)
    assert envelope["success"] is True, envelope
    assert envelope["provider"] == f"{how}-2"
    assert f"{how}-2" in served_text(envelope, capability)
    assert outcomes(envelope) == [(f"{how}-1", "cancelled"), (f"{how}-2", "ok")]
    assert hung.calls == 1 and quick.calls == 1
    if how == "async":
        assert hung.cancelled == 1  # the losing coroutine saw its cancellation before the call returned


def test_without_hedge_after_the_same_chain_waits_out_the_hung_provider() -> None:
    config = hedge_config()
    provider(config, "async-1").delay = HANG
    envelope = dispatch_search("heat pumps", backend=["async-1", "async-2"], config=config, timeout=1)
    assert envelope["success"] is False and envelope["error_code"] == "timeout"
    assert provider(config, "async-2").calls == 0


def test_web_hedge_after_in_config_hedges_every_chain_and_a_call_may_set_its_own() -> None:
    config = hedge_config(hedge_after=0.2)
    provider(config, "sync-1").delay = HANG
    envelope = dispatch_search("heat pumps", backend=["sync-1", "sync-2"], config=config, timeout=10)
    assert envelope["provider"] == "sync-2"

    patient = hedge_config(hedge_after=600)
    provider(patient, "sync-1").delay = HANG
    envelope = dispatch_search("heat pumps", backend=["sync-1", "sync-2"], config=patient, timeout=10, hedge_after=0.2)
    assert envelope["provider"] == "sync-2"


@pytest.mark.parametrize("how", ["sync", "async"])
def test_the_first_success_wins_whoever_started_first(how: str) -> None:
    config = hedge_config()
    first, second = provider(config, f"{how}-1"), provider(config, f"{how}-2")
    first.delay, second.delay = 1.0, HANG
    envelope = call("search", how, [f"{how}-1", f"{how}-2"], config, hedge_after=0.05, cache=False)
    assert envelope["provider"] == f"{how}-1"
    assert outcomes(envelope) == [(f"{how}-1", "ok"), (f"{how}-2", "cancelled")]

    first.delay, second.delay = HANG, 0.0
    envelope = call("search", how, [f"{how}-1", f"{how}-2"], config, hedge_after=0.05, cache=False)
    assert envelope["provider"] == f"{how}-2"
    assert outcomes(envelope) == [(f"{how}-1", "cancelled"), (f"{how}-2", "ok")]


@pytest.mark.parametrize("how", ["sync", "async"])
def test_what_a_cancelled_member_said_of_its_request_stays_in_the_warnings(how: str) -> None:
    """The cancelled member was asked: a sentence about how (an option it left out) is true of
    a request that was made, and may have been billed. It was dropped with the member."""
    config = hedge_config(cache=False)
    hung, quick = provider(config, f"{how}-1"), provider(config, f"{how}-2")
    hung.delay = HANG
    hung.said = [f"{how}-1 searched without time_range, which its plan lacks."]
    quick.said = [f"{how}-2 searched without time_range, which its plan lacks."]
    envelope = call("search", how, [f"{how}-1", f"{how}-2"], config, hedge_after=0.1, timeout=10)
    assert outcomes(envelope) == [(f"{how}-1", "cancelled"), (f"{how}-2", "ok")]
    assert envelope["meta"]["warnings"] == [*hung.said, *quick.said]


@pytest.mark.parametrize("given_up", ["hedged", "timed_out"])
def test_what_an_abandoned_thread_says_later_does_not_change_the_envelope_already_returned(given_up: str) -> None:
    """A sync member left running (a hedge took another answer, or its time ran out) went on
    adding its sentences to ``meta.warnings`` of the envelope its caller already held."""
    config = hedge_config(cache=False, retry={"max_retries": 0})
    slow = provider(config, "sync-1")
    slow.delay = 0.5
    slow.said, slow.said_late = ["sync-1 asked without region."], ["sync-1 answered after the call was over."]
    if given_up == "hedged":
        envelope = dispatch_search("q", backend=["sync-1", "sync-2"], config=config, hedge_after=0.05, timeout=10)
        assert outcomes(envelope) == [("sync-1", "cancelled"), ("sync-2", "ok")]
    else:
        envelope = dispatch_search("q", backend="sync-1", config=config, timeout=0.2)
        assert envelope["error_code"] == "timeout"
    returned = list(envelope["meta"]["warnings"])
    assert "sync-1 asked without region." in returned
    assert slow.finished.wait(10)  # set once its late sentence was said
    assert envelope["meta"]["warnings"] == returned


def test_a_failure_before_the_hedge_delay_starts_the_next_provider_at_once() -> None:
    config = hedge_config(retry={"max_retries": 0, "backoff": 0.0})
    provider(config, "async-1").fail = [BadGatewayError("down", status_code=503)]
    # hedge_after is far beyond the deadline: only ordinary failover can answer in time.
    envelope = dispatch_search("q", backend=["async-1", "async-2"], config=config, hedge_after=600, timeout=5)
    assert envelope["provider"] == "async-2"
    assert [(a["provider"], a["outcome"], a.get("error_code")) for a in envelope["meta"]["attempts"]] == [
        ("async-1", "error", "bad_gateway"),
        ("async-2", "ok", None),
    ]


def test_a_providers_own_retries_happen_in_its_slot() -> None:
    config = hedge_config(retry={"max_retries": 2, "backoff": 0.0})
    provider(config, "sync-1").fail = [BadGatewayError("down", status_code=503)]
    envelope = dispatch_search("q", backend=["sync-1", "sync-2"], config=config, hedge_after=600)
    assert envelope["provider"] == "sync-1"
    assert [(a["provider"], a["outcome"], a.get("retry")) for a in envelope["meta"]["attempts"]] == [
        ("sync-1", "error", None),
        ("sync-1", "ok", 1),
    ]
    assert provider(config, "sync-2").calls == 0


def test_an_error_the_chain_does_not_move_on_from_starts_nothing_more_but_a_running_member_may_still_win() -> None:
    config = hedge_config()
    provider(config, "async-1").delay = 2.0
    provider(config, "async-2").fail = [InvalidInputError("the query is too long for async-2")]
    envelope = dispatch_search("q", backend=["async-1", "async-2", "async-3"], config=config, hedge_after=0.05)
    assert envelope["provider"] == "async-1"
    assert provider(config, "async-3").calls == 0
    assert outcomes(envelope) == [("async-1", "ok"), ("async-2", "error")]


def test_every_attempt_is_paid_for_in_meta_and_in_the_usage_ledger(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    price = {"price": {"search": {"usd": 0.01, "per": "request"}}}
    config = hedge_config(usage={"path": str(path)}, providers={"async-1": price, "async-2": price})
    provider(config, "async-1").delay = HANG
    envelope = dispatch_search("q", backend=["async-1", "async-2"], config=config, hedge_after=0.1, timeout=10)
    assert envelope["provider"] == "async-2"
    cancelled, answered = envelope["meta"]["attempts"]
    assert cancelled["outcome"] == "cancelled"
    # The cancelled request had reached the vendor, which may still bill it: estimated.
    assert cancelled["cost"] == {"usd": 0.01, "units": 1, "unit": "request", "estimated": True}
    assert answered["cost"] == {"usd": 0.01, "units": 1, "unit": "request", "estimated": False}
    assert envelope["meta"]["cost"] == {"usd": 0.02, "units": 2, "unit": "request", "estimated": True}
    assert ledger(path) == [("async-1", "cancelled", 0.01, 1), ("async-2", "ok", 0.01, 0)]


def test_a_budget_is_checked_before_a_hedge_starts() -> None:
    price = {"price": {"search": {"usd": 0.01, "per": "request"}}}
    config = hedge_config(budget={"daily_usd": 0.015}, providers={"sync-1": price, "sync-2": price})
    provider(config, "sync-1").delay = 2.0
    envelope = dispatch_search("q", backend=["sync-1", "sync-2"], config=config, hedge_after=0.05)
    assert envelope["provider"] == "sync-1"
    assert [(a["provider"], a["outcome"], a.get("error_code")) for a in envelope["meta"]["attempts"]] == [
        ("sync-1", "ok", None),
        ("sync-2", "skipped", "budget_exceeded"),
    ]
    assert provider(config, "sync-2").calls == 0
    # sync-1 was still under way: its $0.01 was reserved, not spent (it might have cost nothing).
    reason = envelope["meta"]["attempts"][1]["reason"]
    assert "over: $0.0100 is reserved by requests still under way in this process (not spent yet) " in reason
    assert "and $0.0000 is already spent." in reason
    # Once it has answered, its cost is spent.
    refused = dispatch_search("q2", backend="sync-2", config=config)
    assert "over: $0.0100 is already spent." in refused["error"]


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_member_the_budget_refused_for_a_running_member_s_reservation_is_asked_once_that_one_fails(how: str) -> None:
    """The running member's failure cost nothing and gave its reservation back: a plain chain
    asks the next member then, and so does a hedged one. It ended the call with the first
    member's failure, the second left skipped."""
    price = {"price": {"search": {"usd": 0.01, "per": "request"}}}
    config = hedge_config(
        budget={"daily_usd": 0.015}, cache=False, retry={"max_retries": 0},
        providers={f"{how}-1": price, f"{how}-2": price},
    )
    first = provider(config, f"{how}-1")
    first.delay, first.fail = 0.5, [BadGatewayError("down", status_code=503)]
    envelope = call("search", how, [f"{how}-1", f"{how}-2"], config, hedge_after=0.05, timeout=10)
    assert envelope["success"] is True and envelope["provider"] == f"{how}-2", envelope
    assert [(a["provider"], a["outcome"], a.get("error_code")) for a in envelope["meta"]["attempts"]] == [
        (f"{how}-1", "error", "bad_gateway"),
        (f"{how}-2", "skipped", "budget_exceeded"),
        (f"{how}-2", "ok", None),
    ]
    assert provider(config, f"{how}-2").calls == 1


def test_a_member_over_its_own_cap_is_not_asked_again_when_a_running_member_ends() -> None:
    price = {"price": {"search": {"usd": 0.01, "per": "request"}}}
    config = hedge_config(
        budget={"per_provider": {"async-2": {"daily_usd": 0.001}}}, cache=False, retry={"max_retries": 0},
        providers={"async-2": price},
    )
    first = provider(config, "async-1")
    first.delay, first.fail = 0.3, [BadGatewayError("down", status_code=503)]
    provider(config, "async-3").delay = 1.0  # still running when async-1 fails
    envelope = dispatch_search("q", backend=["async-1", "async-2", "async-3"], config=config, hedge_after=0.05)
    assert envelope["provider"] == "async-3"
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("async-1", "error"),
        ("async-2", "skipped"),  # once: no running member held the room its own cap lacks
        ("async-3", "ok"),
    ]


@pytest.mark.parametrize("how", ["sync", "async"])
def test_the_chains_deadline_still_holds(how: str) -> None:
    config = hedge_config()
    for n in (1, 2):
        provider(config, f"{how}-{n}").delay = HANG
    started = time.monotonic()
    envelope = call("search", how, [f"{how}-1", f"{how}-2"], config, hedge_after=0.1, timeout=1)
    assert time.monotonic() - started < 1.5
    assert envelope["success"] is False and envelope["error_code"] == "timeout"
    assert [a["provider"] for a in envelope["meta"]["attempts"]] == [f"{how}-1", f"{how}-2"]


@pytest.mark.parametrize("capability", ["search", "extract", "crawl"])
def test_no_hedge_starts_once_the_deadline_has_passed(capability: str) -> None:
    """The first member, cancelled at the deadline, takes a moment to unwind; the hedge's
    time falls in it. Before, the next member was started then, with no time left, and
    recorded as skipped because its ``is_available()`` "had not answered by this call's
    deadline", blaming a plugin that was never slow."""
    config = hedge_config()
    first, second = provider(config, "async-1"), provider(config, "async-2")
    first.delay, first.unwind = HANG, 0.2
    envelope = call(capability, "async", ["async-1", "async-2"], config, hedge_after=0.6, timeout=0.5)
    assert envelope["success"] is False and envelope["error_code"] == "timeout"
    assert [a["provider"] for a in envelope["meta"]["attempts"]] == ["async-1"]
    assert second.calls == 0


def test_a_cached_answer_short_circuits_the_chain() -> None:
    config = hedge_config()
    first, second = provider(config, "async-1"), provider(config, "async-2")
    dispatch_search("q", backend=["async-1", "async-2"], config=config, hedge_after=0.1)
    first.delay = HANG
    envelope = dispatch_search("q", backend=["async-1", "async-2"], config=config, hedge_after=0.1, timeout=10)
    assert envelope["provider"] == "async-1" and envelope["meta"]["cached"] is True
    assert first.calls == 1 and second.calls == 0


def test_a_late_answer_from_an_abandoned_sync_provider_is_dropped_not_cached() -> None:
    config = hedge_config()
    slow = provider(config, "sync-1")
    slow.delay = 1.0
    envelope = dispatch_search("q", backend=["sync-1", "sync-2"], config=config, hedge_after=0.05)
    assert envelope["provider"] == "sync-2"
    assert slow.finished.wait(10)  # its worker thread did answer, after the call was over
    time.sleep(0.1)
    again = dispatch_search("q", backend=["sync-1", "sync-2"], config=config, hedge_after=0.05)
    assert again["provider"] == "sync-2" and again["meta"]["attempts"][-1]["cached"] is True
    assert slow.calls == 2  # its late answer was not cached: it was asked again
    assert "cached" not in again["meta"]  # so the call sent a request: not an answer made of the cache alone


def test_a_cancelled_attempt_does_not_count_against_the_providers_health() -> None:
    config = hedge_config(health={"failures": 1})
    hung = provider(config, "async-1")
    hung.delay = HANG
    for query in ("a", "b", "c"):
        envelope = dispatch_search(query, backend=["async-1", "async-2"], config=config, hedge_after=0.05, timeout=10)
        assert outcomes(envelope) == [("async-1", "cancelled"), ("async-2", "ok")]
    assert state(config).health.cooling("async-1") is None
    assert hung.calls == 3


def test_a_slow_sync_provider_that_loses_many_hedges_is_still_asked() -> None:
    """Each lost hedge leaves the sync member's thread running (a thread cannot be stopped),
    long before its deadline. That is no stuck call: once MAX_HUNG such threads ran at once,
    the provider was refused as hung, and the refusals, counted as timeouts, cooled it down."""
    config = hedge_config(cache=False, health={"failures": 2})
    slow = provider(config, "sync-1")
    slow.delay = HANG
    for n in range(MAX_HUNG + 2):
        envelope = dispatch_search(f"q{n}", backend=["sync-1", "sync-2"], config=config, hedge_after=0.05, timeout=30)
        assert outcomes(envelope) == [("sync-1", "cancelled"), ("sync-2", "ok")], envelope
    slow.release.set()
    envelope = dispatch_search("last", backend="sync-1", config=config, timeout=30)
    assert envelope["success"] is True, envelope


def test_a_cancelled_trial_call_lets_the_next_call_try_the_provider() -> None:
    config = hedge_config(health={"failures": 1, "cooldown": 30}, retry={"max_retries": 0, "backoff": 0.0})
    clock = FakeClock()
    state(config).health.clock = clock
    flaky = provider(config, "async-1")
    flaky.fail = [BadGatewayError("down", status_code=503)]
    dispatch_search("a", backend=["async-1", "async-2"], config=config, hedge_after=0.05)
    assert state(config).health.cooling("async-1") is not None
    clock.advance(31)  # the cool-down is over: the next call is its trial
    flaky.delay = HANG
    envelope = dispatch_search("b", backend=["async-1", "async-2"], config=config, hedge_after=0.05, timeout=10)
    assert outcomes(envelope) == [("async-1", "cancelled"), ("async-2", "ok")]
    flaky.delay = 0.0
    envelope = dispatch_search("c", backend=["async-1", "async-2"], config=config, hedge_after=0.05, timeout=10)
    assert outcomes(envelope) == [("async-1", "ok")]  # not skipped as "a trial call is under way"


def test_a_provider_that_times_out_before_the_hedge_still_cools_down() -> None:
    config = hedge_config(
        health={"failures": 2}, providers={"async-1": {"timeout": 0.2, "max_retries": 0}}
    )
    hung = provider(config, "async-1")
    hung.delay = HANG
    for query in ("a", "b"):
        envelope = dispatch_search(query, backend=["async-1", "async-2"], config=config, hedge_after=600, timeout=10)
        assert [(a["provider"], a["outcome"], a.get("error_code")) for a in envelope["meta"]["attempts"]] == [
            ("async-1", "error", "timeout"),
            ("async-2", "ok", None),
        ]
    envelope = dispatch_search("c", backend=["async-1", "async-2"], config=config, hedge_after=600, timeout=10)
    assert envelope["meta"]["attempts"][0]["outcome"] == "skipped"
    assert hung.calls == 2


def test_a_caller_s_own_short_deadline_does_not_cool_a_provider_down_for_everyone() -> None:
    """Two calls with timeout=0.1 to a provider that answers in 0.3 s put it in a cool-down
    that skipped it for every caller, though it never had the time it is given."""
    config = hedge_config(health={"failures": 2}, cache=False)
    slow = provider(config, "async-1")
    slow.delay = 0.3
    for query in ("a", "b"):
        envelope = dispatch_search(query, backend="async-1", config=config, timeout=0.1)
        assert envelope["error_code"] == "timeout" and envelope["detail"] == "call_deadline", envelope
    envelope = dispatch_search("c", backend="async-1", config=config, timeout=5)
    assert envelope["success"] is True, envelope


def test_a_provider_that_hangs_through_the_whole_default_deadline_still_cools_down() -> None:
    config = hedge_config(health={"failures": 2}, cache=False, timeout=0.2, retry={"max_retries": 0})
    hung = provider(config, "async-1")
    hung.delay = HANG
    for query in ("a", "b"):
        envelope = dispatch_search(query, backend="async-1", config=config)
        assert envelope["error_code"] == "timeout" and envelope.get("detail") is None, envelope
    envelope = dispatch_search("c", backend="async-1", config=config)
    assert "cooling down" in envelope["error"] and hung.calls == 2


def test_a_request_that_would_wait_for_its_request_budget_costs_nothing(tmp_path: Path) -> None:
    """A member whose next slot is further off than ``hedge_after`` is skipped at once (it
    used to wait, holding the chain until the hedge fired); a request cancelled while it
    waits for its slot costs nothing either."""
    path = tmp_path / "usage.sqlite3"
    price = {"search": {"usd": 0.01, "per": "request"}}
    config = hedge_config(
        usage={"path": str(path)},
        providers={"async-1": {"price": price, "rate_limit": "1/3s"}, "async-2": {"price": price}},
    )
    dispatch_search("a", backend=["async-1", "async-2"], config=config, hedge_after=0.1)
    envelope = dispatch_search("b", backend=["async-1", "async-2"], config=config, hedge_after=0.1, timeout=10)
    skipped, answered = envelope["meta"]["attempts"]
    assert (skipped["provider"], skipped["outcome"], answered["provider"]) == ("async-1", "skipped", "async-2")
    assert skipped["error_code"] == "rate_limited" and "cost" not in skipped and envelope["meta"]["cost"]["usd"] == 0.01

    async def leave_while_it_waits() -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(adispatch_search("c", backend="async-1", config=config, timeout=10), 0.3)

    asyncio.run(leave_while_it_waits())
    assert provider(config, "async-1").calls == 1
    assert [row[:2] for row in ledger(path)] == [("async-1", "ok"), ("async-2", "ok")]


def test_identical_hedged_calls_share_flights_and_all_answer() -> None:
    config = hedge_config()
    provider(config, "async-1").delay = HANG
    quick = provider(config, "async-2")
    quick.delay = 0.2

    async def both() -> list[dict[str, Any]]:
        return list(
            await asyncio.gather(
                *(adispatch_search("q", backend=["async-1", "async-2"], config=config, hedge_after=0.05, timeout=10)
                  for _ in range(3))
            )
        )

    envelopes = asyncio.run(both())
    assert [e["provider"] for e in envelopes] == ["async-2"] * 3
    assert quick.calls == 1  # one request, shared by the identical calls


def test_an_extract_hedge_still_fills_gaps_along_the_rest_of_the_chain() -> None:
    config = hedge_config()
    provider(config, "sync-1").delay = HANG
    provider(config, "sync-2").missing = {"https://site.example/b"}
    urls = ["https://site.example/a", "https://site.example/b"]
    envelope = dispatch_extract(urls, backend=["sync-1", "sync-2", "sync-3"], config=config, hedge_after=0.1, timeout=10)
    assert envelope["success"] is True
    assert [(item["url"], item["provider"]) for item in envelope["data"]] == [
        ("https://site.example/a", "sync-2"),
        ("https://site.example/b", "sync-3"),
    ]
    assert outcomes(envelope) == [("sync-1", "cancelled"), ("sync-2", "ok"), ("sync-3", "ok")]


@pytest.mark.parametrize("value", [0, -1, math.inf, math.nan, "1", True, [1], 10**400, 3601])
def test_a_bad_hedge_after_is_invalid_input(value: Any) -> None:
    config = hedge_config()
    envelope = dispatch_search("q", backend=["sync-1", "sync-2"], config=config, hedge_after=value)
    assert envelope["success"] is False and envelope["error_code"] == "invalid_input"
    assert "hedge_after must be a number of seconds above 0" in envelope["error"]
    assert provider(config, "sync-1").calls == 0


@pytest.mark.parametrize("value", [0, -2.5, "inf", "nan", "soon", True])
def test_a_bad_web_hedge_after_is_a_config_error_naming_the_key(value: Any) -> None:
    with pytest.raises(ConfigError, match=r"web\.hedge_after"):
        config_from_dict({"web": {"hedge_after": value}})


class _HangingVendor(BaseHTTPRequestHandler):
    """A vendor API that accepts the request and does not answer until the test ends."""

    def do_GET(self) -> None:
        self.server.released.wait(HANG)  # type: ignore[attr-defined]
        body = json.dumps({"results": []}).encode()
        send_answer(self, body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_vendor_request_that_hangs_on_the_socket_is_hedged(how: str, http_server: Any) -> None:
    server = http_server(_HangingVendor)
    config = config_from_dict(
        {
            "web": {
                "usage": False,
                "providers": {
                    "fake-vendor": {"api_key": "fv-key-123456", "base_url": f"http://127.0.0.1:{server.server_port}/v1"}
                },
            },
            "plugins": {"paths": [str(PLUGINS)], "enabled": ["hedgers", "fakes"]},
        },
        source="<test>",
    )
    _configs.append(config)
    envelope = call("search", how, ["fake-vendor", f"{how}-2"], config, hedge_after=0.2, timeout=10)
    assert envelope["provider"] == f"{how}-2", envelope
    assert outcomes(envelope) == [("fake-vendor", "cancelled"), (f"{how}-2", "ok")]


def test_fusion_is_not_hedged_it_asks_every_provider_at_once() -> None:
    config = hedge_config()
    provider(config, "async-1").delay = 0.3
    envelope = dispatch_search("q", backend=["async-1", "async-2"], config=config, mode="fuse", hedge_after=0.05)
    assert envelope["provider"] == "fuse" and envelope["meta"]["fused"] == ["async-1", "async-2"]
    assert sorted(outcomes(envelope)) == [("async-1", "ok"), ("async-2", "ok")]


class _DownVendor(BaseHTTPRequestHandler):
    """A vendor API that is down: every request is answered 503 (and counted)."""

    def do_GET(self) -> None:
        self.server.asked += 1  # type: ignore[attr-defined]
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.parametrize("reason", ["budget_exceeded", "cooling_down"])
@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_member_skipped_without_a_request_starts_the_next_at_once(how: str, reason: str, http_server: Any) -> None:
    hanging, down = http_server(_HangingVendor), http_server(_DownVendor)
    down.asked = 0  # type: ignore[attr-defined]
    web: dict[str, Any] = {
        "usage": False,
        "cache": False,
        "retry": {"max_retries": 0, "backoff": 0.0},
        "health": {"failures": 1, "cooldown": 600},
        "providers": {
            "fake-vendor": {"api_key": "fv-key-123456", "base_url": f"http://127.0.0.1:{hanging.server_port}/v1"},
            "fake-counter": {
                "base_url": f"http://127.0.0.1:{down.server_port}",
                "price": {"search": {"usd": 0.01, "per": "request"}},
            },
        },
    }
    if reason == "budget_exceeded":
        web["budget"] = {"per_provider": {"fake-counter": {"daily_usd": 0.001}}}
    config = config_from_dict({"web": web, "plugins": {"paths": [str(PLUGINS)], "enabled": ["fakes"]}}, source="<test>")
    if reason == "cooling_down":  # one failure opens its circuit for ten minutes
        assert dispatch_search("q0", backend="fake-counter", config=config)["success"] is False
    asked = down.asked  # type: ignore[attr-defined]
    # fake-vendor hangs; fake-counter starts after 2.5 s and is skipped. Had its skip held a
    # hedge slot, stub would start only at 5 s, past the 4 s deadline.
    envelope = call("search", how, ["fake-vendor", "fake-counter", "stub"], config, hedge_after=2.5, timeout=4)
    assert envelope["success"] is True and envelope["provider"] == "stub", envelope
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("fake-vendor", "cancelled"),
        ("fake-counter", "skipped"),
        ("stub", "ok"),
    ]
    assert down.asked == asked  # type: ignore[attr-defined]


class _SlowTavilyCachedBrave(BaseHTTPRequestHandler):
    """Tavily that holds its search until the test ends; Brave answering at once."""

    def _send(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        hit = {"title": "Heat pumps", "url": "https://example.com/heat", "description": "How they work."}
        self._send({"type": "search", "web": {"type": "search", "results": [hit]}})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.server.released.wait(HANG)  # type: ignore[attr-defined]
        hit = {"title": "B", "url": "https://b.example/", "content": "small", "score": 0.9, "raw_content": None}
        with contextlib.suppress(OSError):  # the call gave up on it long ago
            self._send({"query": "heat pumps", "answer": None, "images": [], "results": [hit], "response_time": 0.2})

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_cached_answer_beside_a_cancelled_priced_request_is_not_said_to_be_cached(http_server: Any) -> None:
    """The first member's request was sent and cancelled (charged, ``estimated``), the second
    answered from the cache: the envelope said ``cached: true`` beside that cost, as if the
    call had sent nothing and cost nothing."""
    url = f"http://127.0.0.1:{http_server(_SlowTavilyCachedBrave).server_address[1]}"
    providers = {"brave": {"api_key": "k-brave", "base_url": url}, "tavily": {"api_key": "tvly-test-0123456789abcdef", "base_url": url}}
    config = config_from_dict({"web": {"usage": False, "providers": providers}})
    assert dispatch_search("heat pumps", backend="brave", config=config)["success"] is True
    envelope = dispatch_search("heat pumps", backend=["tavily", "brave"], config=config, hedge_after=0.2, timeout=10)
    assert envelope["provider"] == "brave" and outcomes(envelope) == [("tavily", "cancelled"), ("brave", "ok")]
    meta = envelope["meta"]
    assert meta["attempts"][1]["cached"] is True  # brave's answer came from the cache
    assert meta["cost"]["estimated"] is True and meta["cost"]["units"] == 1  # tavily's request is still spent
    assert "cached" not in meta, meta
