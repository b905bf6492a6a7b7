"""The budget and ledger stores under the one store policy: a frozen real Redis costs one
deadline for every call at once, is then skipped, is probed again, and each call says so;
per-tag state stays bounded; spending is read from running totals."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_extract, dispatch_search
from webproviders.accounting.budget.local import LocalCounters
from webproviders.accounting.usage import Ledger, UsageRecord
from webproviders.accounting.usage.spool import spool
from webproviders.config import UsageSettings
from webproviders.dependable.offload import StoreGuard, StoreUnavailable
from webproviders.dispatch.state import state_for
from webproviders.registry.providers import get_registry

from .conftest import cost_config, scripted

STORE_DEADLINE = 1.0


def gather(calls: int, **kwargs: Any) -> tuple[list[dict[str, Any]], float]:
    """``calls`` concurrent searches; their envelopes and the seconds they took together."""

    async def run() -> list[dict[str, Any]]:
        return await asyncio.gather(*(adispatch_search(f"q{i}", **kwargs) for i in range(calls)))

    started = time.monotonic()
    envelopes = asyncio.run(asyncio.wait_for(run(), 60))
    return envelopes, time.monotonic() - started


def test_fifty_priced_calls_on_a_frozen_budget_store_take_one_deadline_not_fifty(
    freezable_redis: tuple[str, Callable[[], None]],
) -> None:
    url, freeze = freezable_redis
    config = cost_config(
        search_backend=["priced", "free"],
        budget={"daily_usd": 10.0, "timeout": STORE_DEADLINE},
        rate_limit={"url": url},
        usage=False,
    )
    assert dispatch_search("warm up", config=config)["meta"]["served_by"] == "priced"
    freeze()

    envelopes, took = gather(50, config=config, timeout=20)
    assert took < STORE_DEADLINE + 2.5, took  # one deadline for all of them (it was 50 × 2 s / 8 threads)
    for envelope in envelopes:
        assert envelope["success"] is True and envelope["meta"]["served_by"] == "free", envelope
        attempt = envelope["meta"]["attempts"][0]
        assert (attempt["provider"], attempt["outcome"], attempt["error_code"]) == (
            "priced", "skipped", "budget_store_unavailable",
        )
        assert any(w.startswith("The shared budget store (redis) ") for w in envelope["meta"]["warnings"])
    assert scripted(config, "priced").calls == 1

    # Within the skip window nobody waits on the store again.
    started = time.monotonic()
    skipped = dispatch_search("again", backend="priced", config=config, timeout=20)
    assert time.monotonic() - started < STORE_DEADLINE
    assert skipped["error_code"] == "budget_store_unavailable" and "is skipped for now" in skipped["error"]
    assert any("is skipped for now" in w for w in skipped["meta"]["warnings"])


def test_on_store_error_local_lets_the_process_counters_decide_on_a_frozen_store(
    freezable_redis: tuple[str, Callable[[], None]],
) -> None:
    url, freeze = freezable_redis
    config = cost_config(
        budget={"daily_usd": 0.01, "timeout": STORE_DEADLINE, "on_store_error": "local"},
        rate_limit={"url": url},
        usage=False,
    )
    freeze()
    envelopes, took = gather(5, backend="priced", config=config, timeout=20)
    assert took < STORE_DEADLINE + 2.5, took
    assert sorted(e.get("error_code", "ok") for e in envelopes) == ["budget_exceeded"] * 3 + ["ok"] * 2
    served = [e for e in envelopes if e["success"]]
    assert all("this process's own counters" in " ".join(e["meta"]["warnings"]) for e in served)


def test_a_frozen_ledger_refuses_priced_calls_it_cannot_check_and_says_rows_are_lost(
    freezable_redis: tuple[str, Callable[[], None]],
) -> None:
    url, freeze = freezable_redis
    config = cost_config(
        search_backend=["priced", "free"],
        budget={"per_tag": {"user": {"daily_usd": 1.0}}},
        usage={"url": url, "timeout": 0.5},
    )
    freeze()
    first = dispatch_search("a", config=config, tags={"user": "alice"}, timeout=20)
    assert first["meta"]["served_by"] == "free"
    assert first["meta"]["attempts"][0]["error_code"] == "budget_store_unavailable"
    assert any(w.startswith("The usage ledger (redis) ") for w in first["meta"]["warnings"])
    spool.flush(10)  # the free call's row meets the frozen ledger on the spool thread
    second = dispatch_search("b", backend="free", config=config, timeout=20)
    lost = [w for w in second["meta"]["warnings"] if "this call's usage is not recorded" in w]
    # The sentence says why, as the cache's and the rate limiter's do.
    assert lost == ["The usage ledger (redis) is skipped for now: it did not answer within 0.50 s; "
                    "this call's usage is not recorded."], lost


class Flaky:
    """A store operation that fails while ``down`` is set (and counts its calls)."""

    def __init__(self) -> None:
        self.down = True
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.down:
            raise ConnectionError("connection reset")
        return "answer"


def test_the_guard_skips_a_failed_store_then_lets_one_probe_through() -> None:
    now = [0.0]
    guard = StoreGuard("the test store", 1.0, clock=lambda: now[0], skip_for=5.0)
    store = Flaky()

    async def attempt() -> str:
        try:
            return await guard.call(store)
        except StoreUnavailable as problem:
            return str(problem)

    async def scenario() -> list[Any]:
        seen: list[Any] = [await attempt()]  # fails: the window opens
        seen.append(await attempt())  # skipped, the store is not asked
        now[0] = 5.0
        seen.append(await attempt())  # the probe: fails again, the window opens again
        seen.append(await attempt())
        now[0] = 10.0
        store.down = False
        seen.append(await attempt())  # the probe answers: closed
        seen.append(await attempt())
        return seen

    seen = asyncio.run(scenario())
    assert seen[0].startswith("failed (ConnectionError: connection reset)")
    assert seen[1].startswith("is skipped for now: it failed")
    assert seen[2].startswith("failed") and seen[3].startswith("is skipped for now")
    assert seen[4:] == ["answer", "answer"]
    assert store.calls == 4


def test_only_one_caller_probes_a_half_open_store() -> None:
    now = [0.0]
    guard = StoreGuard("the test store", 5.0, clock=lambda: now[0], skip_for=5.0)
    calls = 0

    def failing() -> None:
        raise ConnectionError("down")

    async def scenario() -> list[str]:
        nonlocal calls
        answered = asyncio.Event()
        loop = asyncio.get_running_loop()

        def slow() -> str:  # the probe: answers once the others have been turned away
            nonlocal calls
            calls += 1
            asyncio.run_coroutine_threadsafe(answered.wait(), loop).result()
            return "probed"

        with pytest.raises(StoreUnavailable):
            await guard.call(failing)
        now[0] = 6.0  # the window has ended: half-open
        probe = asyncio.ensure_future(guard.call(slow))
        await asyncio.sleep(0.1)
        others = []
        for _ in range(3):
            try:
                others.append(await guard.call(slow))
            except StoreUnavailable as problem:
                others.append(str(problem))
        answered.set()
        return [await probe, *others]

    results = asyncio.run(scenario())
    assert results[0] == "probed" and calls == 1
    assert all(r.startswith("is skipped for now") for r in results[1:])
    assert asyncio.run(guard.call(lambda: "closed")) == "closed"


def test_budget_counters_stay_bounded_and_an_evicted_tag_starts_from_the_ledger(tmp_path: Path) -> None:
    config = cost_config(
        budget={"per_tag": {"user": {"daily_usd": 0.006}}, "max_counters": 100},
        usage={"path": str(tmp_path / "usage.sqlite3")},
    )
    assert dispatch_search("a", backend="priced", config=config, tags={"user": "alice"})["success"] is True
    for n in range(150):
        assert dispatch_search("b", backend="priced", config=config, tags={"user": f"u{n}"})["success"] is True
    budgets = state_for(get_registry(config)).accounts.budgets
    assert budgets is not None and len(budgets.local) <= 100
    assert not any("alice" in key for key in budgets.local._used)  # evicted...
    refused = dispatch_search("c", backend="priced", config=config, tags={"user": "alice"})
    assert refused["error_code"] == "budget_exceeded"  # ...but what alice spent was not forgotten
    assert "$0.0040 is already spent" in refused["error"]


def test_a_counter_evicted_while_many_tag_values_start_at_once_still_holds_its_cap(tmp_path: Path) -> None:
    """Callers of more tag values at once than ``max_counters``: the global counter, known when
    each looked, was evicted by the others' while they read the ledger, and started again from
    zero (and never ended): a $0.2 daily budget had $0.6 spent on it."""
    config = cost_config(
        budget={"daily_usd": 0.2, "max_counters": 100, "per_tag": {"user": {"daily_usd": 1}}},
        usage={"path": str(tmp_path / "usage.sqlite3")},
    )

    async def calls() -> list[dict[str, Any]]:
        await adispatch_search("first", backend="priced", config=config, tags={"user": "first"})
        return await asyncio.gather(
            *(adispatch_search(f"q {n}", backend="priced", config=config, tags={"user": f"u{n}"}) for n in range(400))
        )

    served = sum(envelope["success"] for envelope in asyncio.run(calls()))
    assert 0 < served <= 49  # $0.004 each, with the first call's
    assert scripted(config, "priced").calls == served + 1


def test_counters_of_ended_periods_are_dropped() -> None:
    counters = LocalCounters(max_keys=1000)
    starts = {"day-1:tag:user=a": (10, 100.0), "month:all": (10, 1000.0)}
    assert counters.reserve(list(starts), [1000, 1000], 0, now=50.0, starts=starts) is None
    assert counters.reserve(["month:all"], [1000], 5, now=150.0) is None
    assert not counters.known("day-1:tag:user=a") and counters.used("month:all") == 15


def _row(when: float, usd: float, provider: str = "priced", **tags: str) -> UsageRecord:
    return UsageRecord(when, provider, "search", "ok", 1.0, "request", usd, False, 1.0, tags)


def record(ledger: Ledger, *rows: UsageRecord, written: bool = True) -> None:
    for row in rows:
        ledger.record(row)
    if written:
        spool.flush(10)


def test_running_totals_are_kept_with_the_rows(tmp_path: Path) -> None:
    ledger = Ledger(UsageSettings(path=str(tmp_path / "usage.sqlite3")))
    now = time.time()
    day, month = time.strftime("%Y-%m-%d", time.gmtime(now)), time.strftime("%Y-%m", time.gmtime(now))
    rows = [_row(now, 0.25, user="alice"), _row(now, 0.5, provider="other", user="bob"), _row(now, 0.0)]
    keys = [(day, "all"), (month, "all"), (day, "provider:priced"), (month, "tag:user=bob"), (day, "tag:user=carol")]
    record(ledger, *rows, written=False)
    assert ledger.totals(keys) == [0.75, 0.75, 0.25, 0.5, 0.0]  # queued rows count before they are written
    spool.flush(10)
    assert ledger.totals(keys) == [0.75, 0.75, 0.25, 0.5, 0.0]  # and once, after
    conn = sqlite3.connect(tmp_path / "usage.sqlite3")
    stored = dict(conn.execute("SELECT scope, usd FROM usage_totals WHERE period = ?", (day,)).fetchall())
    conn.close()
    assert stored == {"all": 0.75, "provider:priced": 0.25, "provider:other": 0.5, "tag:user=alice": 0.25,
                      "tag:user=bob": 0.5}


def test_a_batch_of_many_rows_is_read_back_row_for_row(tmp_path: Path) -> None:
    ledger = Ledger(UsageSettings(path=str(tmp_path / "usage.sqlite3")))
    now = time.time()
    rows = [
        UsageRecord(now + i / 1000, f"p{i % 3}", "extract" if i % 2 else "search", "ok" if i % 5 else "bad_gateway",
                    float(i), "page", i / 100, bool(i % 2), i / 10, {"user": f"u{i}"} if i % 4 else {},
                    f"query {i}" if i % 7 else None)
        for i in range(150)  # written as one batch, more rows than one INSERT statement holds
    ]
    record(ledger, *rows)
    assert list(ledger.rows(now - 1)) == rows
    day = time.strftime("%Y-%m-%d", time.gmtime(now))
    assert ledger.totals([(day, "all")]) == pytest.approx([sum(i / 100 for i in range(150))])


def test_a_ledger_from_before_running_totals_gets_them_once(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE usage (time REAL NOT NULL, provider TEXT NOT NULL, capability TEXT NOT NULL, "
        "outcome TEXT NOT NULL, units REAL NOT NULL, unit TEXT NOT NULL, usd REAL NOT NULL, estimated INTEGER NOT NULL, "
        "latency_ms REAL NOT NULL, tags TEXT, query TEXT)"
    )
    now = time.time()
    old.executemany(
        "INSERT INTO usage VALUES (?, 'priced', 'search', 'ok', 1, 'request', ?, 0, 1, ?, NULL)",
        [(now, 0.1, '{"user":"alice"}'), (now, 0.2, None), (now - 400 * 86400, 9.0, None)],
    )
    old.commit()
    old.close()
    day = time.strftime("%Y-%m-%d", time.gmtime(now))
    ledger = Ledger(UsageSettings(path=str(path)))
    assert ledger.totals([(day, "all"), (day, "tag:user=alice")]) == pytest.approx([0.3, 0.1])
    record(ledger, _row(now, 0.4))
    assert ledger.totals([(day, "all")]) == pytest.approx([0.7])  # the old rows counted once, not again


def test_redis_ledger_totals_include_rows_written_before_them(redis_server: str, namespace: str) -> None:
    import redis

    now = time.time()
    day = time.strftime("%Y-%m-%d", time.gmtime(now))
    client = redis.Redis.from_url(redis_server)
    client.xadd(f"{namespace}:usage", {"p": "priced", "c": "search", "o": "ok", "n": "1.0", "u": "request",
                                        "usd": "0.5", "e": "0", "l": "1.0", "t": repr(now - 1), "g": '{"user":"bob"}'})
    client.close()
    ledger = Ledger(UsageSettings(url=redis_server, namespace=namespace))
    record(ledger, _row(now, 0.25, user="bob"))
    assert ledger.totals([(day, "all"), (day, "tag:user=bob")]) == pytest.approx([0.75, 0.75])
    assert Ledger(UsageSettings(url=redis_server, namespace=namespace)).totals([(day, "all")]) == pytest.approx([0.75])


FROZEN_LEDGER_CHILD = """
import sys
from webproviders import dispatch_search
from webproviders.config import config_from_dict
config = config_from_dict({"web": {"usage": {"url": sys.argv[1]}}}, source="<test>")
assert dispatch_search("warm", backend="stub", config=config)["success"]
print("ready", flush=True)
sys.stdin.readline()  # the ledger's Redis is frozen now
print(dispatch_search("second", backend="stub", config=config)["success"], flush=True)
"""


def test_a_process_whose_ledger_froze_exits_in_time_and_says_its_rows_were_not_written(
    freezable_redis: tuple[str, Callable[[], None]], exit_after_a_freeze: Callable[..., tuple[float, str]]
) -> None:
    """The row of a call made as the ledger froze waits on the spool thread; the process exits
    after ``EXIT_WAIT`` anyway, and says the row was not written instead of dropping it silently."""
    from webproviders.accounting.usage.spool import EXIT_WAIT

    url, freeze = freezable_redis

    def freezing() -> Callable[[], None]:
        freeze()
        return lambda: None  # the fixture thaws the server at teardown

    took, errors = exit_after_a_freeze(FROZEN_LEDGER_CHILD, url, freezing, EXIT_WAIT + 20)
    assert took < EXIT_WAIT + 3, took
    assert "still queued at exit were not written" in errors, errors


class _SlowSearx(BaseHTTPRequestHandler):
    """A SearXNG instance that, once ``freeze_writes`` is set, pauses the Redis server's writes
    as a request arrives and answers 1.5 s later."""

    def do_GET(self) -> None:
        server: Any = self.server
        if server.freeze_writes is not None:
            server.freeze_writes()
            server.released.wait(1.5)
        body = json.dumps({"query": "q", "results": [{"url": "https://searx.example/1", "title": "A hit",
                                                       "content": "text", "engine": "brave", "score": 1.0}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _until(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Whether ``check()`` comes true within ``seconds`` (store threads finish on their own time)."""
    ends = time.monotonic() + seconds
    while not check():
        if time.monotonic() > ends:
            return False
        time.sleep(0.02)
    return True


def test_a_shared_budget_counter_redis_lost_starts_again_from_the_ledger(
    redis_server: str, namespace: str, tmp_path: Path
) -> None:
    """A Redis restarted without persistence, or evicting keys under ``maxmemory`` (a server
    shared with the cache), loses the day's counter. It started again from zero, so the
    day's cap could be spent a second time; the ledger knows what was spent."""
    import redis

    config = cost_config(
        budget={"daily_usd": 0.01},  # room for two priced searches
        rate_limit={"url": redis_server, "namespace": namespace},
        usage={"path": str(tmp_path / "usage.sqlite3")},
    )
    assert [dispatch_search(f"q{i}", backend="priced", config=config)["success"] for i in range(2)] == [True, True]
    key = f"{namespace}:{{budget}}:{time.strftime('%Y-%m-%d', time.gmtime())}:all"
    client = redis.Redis.from_url(redis_server)
    assert client.delete(key) == 1  # as a restart or an eviction does
    spool.flush()
    refused = dispatch_search("q2", backend="priced", config=config)
    assert refused.get("error_code") == "budget_exceeded", refused
    assert "$0.0080 is already spent or reserved by requests still under way." in refused["error"]
    assert int(client.get(key) or 0) == 8000  # started again from the ledger, for every worker
    client.close()


def test_a_correction_does_not_bring_back_a_counter_redis_lost(redis_server: str, namespace: str, tmp_path: Path) -> None:
    """A request's cost corrected after its counter was lost (an extract billed for fewer URLs
    than reserved) made the counter again from the correction alone, below zero and kept for
    good, and the next reservations trusted it instead of the ledger."""
    import redis

    config = cost_config(
        budget={"daily_usd": 0.009},
        rate_limit={"url": redis_server, "namespace": namespace},
        usage={"path": str(tmp_path / "usage.sqlite3")},
    )
    assert dispatch_search("q", backend="priced", config=config)["success"]  # $0.004
    key = f"{namespace}:{{budget}}:{time.strftime('%Y-%m-%d', time.gmtime())}:all"
    client = redis.Redis.from_url(redis_server)
    scripted(config, "priced").steps = [0.5]  # the extract takes half a second
    with ThreadPoolExecutor(1) as pool:
        extract = pool.submit(dispatch_extract, ["https://a.example/", "https://b.example/"], backend="priced", config=config)
        assert _until(lambda: int(client.get(key) or 0) == 8000)  # $0.004 reserved for two URLs
        client.delete(key)  # lost while the request runs
        assert extract.result()["meta"]["cost"]["usd"] == 0.002  # one URL was read: $0.002 back
    spool.flush()
    assert client.exists(key) == 0
    refused = dispatch_search("q2", backend="priced", config=config)  # the ledger holds $0.006
    assert refused.get("error_code") == "budget_exceeded", refused
    client.close()


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_hedge_member_cancelled_while_its_shared_reservation_is_on_its_way_holds_no_budget(
    how: str, redis_server: str, namespace: str, http_server: Any
) -> None:
    """A hedged chain took another answer while the priced member's reservation waited on
    Redis: the reservation, made after all, is given back and the budget is whole again."""
    import redis

    searx = http_server(_SlowSearx)
    searx.freeze_writes = None
    config = cost_config(
        budget={"daily_usd": 0.004, "timeout": 5.0},  # room for one priced search
        rate_limit={"url": redis_server, "namespace": namespace},
        usage=False,
        providers={"searxng": {"base_url": f"http://127.0.0.1:{searx.server_port}"}},
    )
    assert dispatch_search("warm up", backend="searxng", config=config)["success"] is True
    client = redis.Redis.from_url(redis_server)
    searx.freeze_writes = lambda: client.execute_command("CLIENT", "PAUSE", 10_000, "WRITE")
    try:
        kwargs: dict[str, Any] = {"backend": ["searxng", "priced"], "config": config, "hedge_after": 0.5, "timeout": 20}
        envelope = dispatch_search("q", **kwargs) if how == "sync" else asyncio.run(adispatch_search("q", **kwargs))
    finally:
        client.execute_command("CLIENT", "UNPAUSE")
    assert envelope["provider"] == "searxng", envelope
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("searxng", "ok"), ("priced", "cancelled"),
    ]
    assert scripted(config, "priced").calls == 0 and "cost" not in envelope["meta"]

    key = f"{namespace}:{{budget}}:{time.strftime('%Y-%m-%d', time.gmtime())}:all"
    assert _until(lambda: client.exists(key) == 1)  # the paused reservation was made after all
    assert _until(lambda: int(client.get(key) or 0) == 0), int(client.get(key) or 0)
    client.close()
    spent = dispatch_search("again", backend="priced", config=config)
    assert spent["success"] is True, spent  # the whole budget is there for a request that is sent


def test_a_shared_reservation_that_lands_after_its_store_deadline_is_given_back(
    freezable_redis: tuple[str, Callable[[], None]],
) -> None:
    """Near its deadline a call waits less than ``web.budget.timeout`` for Redis; a reservation
    the server makes after that (the request refused, nothing sent) is given back."""
    import redis

    url, _ = freezable_redis  # a server of its own: the overrun opens its guard for a while
    config = cost_config(budget={"daily_usd": 0.004, "timeout": 5.0}, rate_limit={"url": url}, usage=False)
    client = redis.Redis.from_url(url)
    client.execute_command("CLIENT", "PAUSE", 1_000, "WRITE")  # the server's writes wait a second
    refused = dispatch_search("q", backend="priced", config=config, timeout=2)  # waits 0.5 s for the store
    assert refused["error_code"] == "budget_store_unavailable", refused
    key = f"webproviders:{{budget}}:{time.strftime('%Y-%m-%d', time.gmtime())}:all"
    assert _until(lambda: client.exists(key) == 1)
    assert _until(lambda: int(client.get(key) or 0) == 0), int(client.get(key) or 0)
    client.close()


def test_two_thousand_concurrent_priced_calls_on_a_healthy_redis_are_all_checked(
    freezable_redis: tuple[str, Callable[[], None]], namespace: str, tmp_path: Path
) -> None:
    """A fleet's process with thousands of priced calls in flight: each reservation took a
    store thread of its own (8 of them), waited for the interpreter the event loop held, and
    most overran the store's deadline, so a healthy Redis refused them as unavailable. They
    now go to Redis together, and the cap still holds to the cent."""
    import redis

    redis_server, _ = freezable_redis  # a server of its own: no other test's outage is still skipped
    config = cost_config(
        budget={"daily_usd": 4.8},  # room for 1,200 priced searches at $0.004
        rate_limit={"url": redis_server, "namespace": namespace},
        usage={"path": str(tmp_path / "usage.sqlite3")},
    )
    envelopes, _ = gather(2000, backend="priced", config=config)
    outcomes = Counter(envelope.get("error_code") for envelope in envelopes)
    assert outcomes == {None: 1200, "budget_exceeded": 800}, outcomes
    key = f"{namespace}:{{budget}}:{time.strftime('%Y-%m-%d', time.gmtime())}:all"
    client = redis.Redis.from_url(redis_server)
    assert int(client.get(key) or 0) == 4_800_000
    client.close()


def test_a_store_that_answered_while_the_event_loop_was_busy_is_not_blamed() -> None:
    """The answer was there when the bound ran out; the loop, held by other calls, had not
    read it yet. The store was said not to answer, and was skipped by every call for a while."""
    guard = StoreGuard("the test store", 0.2)

    async def run() -> str:
        operation = asyncio.ensure_future(guard.call(lambda: "answer"))
        await asyncio.sleep(0)  # handed to a store thread, which answers at once
        time.sleep(0.5)  # the loop is held by other work past the store's bound
        return await operation

    assert asyncio.run(run()) == "answer"
    assert guard.skipped_because() is None


def test_a_store_not_asked_because_the_store_threads_were_busy_is_not_blamed() -> None:
    """Operations on a frozen store held every store thread; one for another, healthy store
    waited behind them past its bound, and that store was skipped for 5 s as if it had not
    answered (a loaded process's rate limiter so had its budget corrections dropped)."""
    import threading

    release = threading.Event()
    frozen = StoreGuard("the frozen store", 30.0)
    healthy = StoreGuard("the healthy store", 0.2)

    async def run() -> str:
        held = [asyncio.ensure_future(frozen.call(release.wait, 30)) for _ in range(8)]
        await asyncio.sleep(0)  # the eight take the pool's threads
        try:
            with pytest.raises(StoreUnavailable) as refused:
                await healthy.call(lambda: "answer")
        finally:
            release.set()
            await asyncio.gather(*held)
        return str(refused.value)

    assert "was not asked within 0.20 s" in asyncio.run(run())
    assert healthy.skipped_because() is None
    assert asyncio.run(healthy.call(lambda: "answer")) == "answer"


_FORKED_MID_RESERVATION = """
import json, os, sys, threading, time
import redis
from webproviders import dispatch_search
from webproviders.config import config_from_dict

url, plugins = sys.argv[1], sys.argv[2]
config = config_from_dict({
    "web": {"cache": False, "usage": False, "retry": {"backoff": 0.0},
            "budget": {"daily_usd": 1, "timeout": 5}, "rate_limit": {"url": url}},
    "plugins": {"paths": [plugins], "enabled": ["priced"]},
})
dispatch_search("warm up", backend="priced", config=config)
redis.Redis.from_url(url).execute_command("CLIENT", "PAUSE", 1500, "WRITE")
kwargs = {"backend": "priced", "config": config, "timeout": 20}
parent = threading.Thread(target=dispatch_search, args=("parent",), kwargs=kwargs)
parent.start()
time.sleep(0.5)  # its reservation is on its way to the paused server
read, write = os.pipe()
if os.fork() == 0:
    os.write(write, json.dumps(dispatch_search("child", **kwargs).get("error_code")).encode())
    os._exit(0)
os.wait()
parent.join()
print(json.dumps({"child": json.loads(os.read(read, 1000))}))
"""


def test_a_process_forked_while_a_reservation_was_on_its_way_can_reserve(
    freezable_redis: tuple[str, Callable[[], None]], run_script: Callable[..., dict[str, Any]]
) -> None:
    """A worker forked (a pre-forking server) while its parent's reservations were on their
    way to Redis inherits the batch as being sent, by a thread it does not have: none of its
    priced calls would ever be sent."""
    from .conftest import PLUGINS

    url, _ = freezable_redis  # paused for a moment: a server of its own
    assert run_script(_FORKED_MID_RESERVATION, url, str(PLUGINS)) == {"child": None}
