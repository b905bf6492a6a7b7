"""Budget reservations and shared rate-limit operations asked for together reach a real Redis
as one script call, and an error stays with the operation that met it unless it is the
server's own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from webproviders import dispatch_search
from webproviders.accounting.budget.redis_backend import RedisCounters
from webproviders.dependable.ratelimit.redis_limiter import RedisLimiter
from webproviders.dependable.ratelimit.spec import parse_rate

from .conftest import cost_config


@pytest.fixture
def server(freezable_redis: tuple[str, Callable[[], None]]) -> Iterator[tuple[str, Any]]:
    """A Redis of this test's own (its command counts are this test's alone), and a client."""
    import redis

    url, _ = freezable_redis
    client = redis.Redis.from_url(url)
    yield url, client
    client.close()


def script_calls(client: Any) -> int:
    """How many script calls the server has run (``EVALSHA``, and ``EVAL`` had one been needed)."""
    stats = client.info("commandstats")
    return sum(stats.get(f"cmdstat_{command}", {}).get("calls", 0) for command in ("evalsha", "eval"))


def test_a_thousand_budget_reservations_are_one_script_call(server: tuple[str, Any]) -> None:
    """Sent as a pipeline of a thousand script calls, a batch was written in 40 socket writes,
    each waiting for the interpreter while a loaded event loop held it: 44 ms alone, 400 ms
    beside one busy thread, and a fleet's process had a healthy Redis refused as overrunning.
    One call now carries the batch, and each reservation still checks the cap in order."""
    url, client = server
    counters = RedisCounters(url)
    counters.reserve([(["warm"], [1], [60], 0, False)])  # loads the script
    before = script_calls(client)
    cap = 600 * 4000
    answers = counters.reserve([(["day:all", "day:priced"], [cap, 10**12], [3600, 3600], 4000, False)] * 1000)
    assert script_calls(client) - before == 1
    assert answers[:600] == [None] * 600
    assert answers[600:] == [(0, cap)] * 400  # the first budget refused, with what it had spent
    assert int(client.get("day:all")) == cap and int(client.get("day:priced")) == cap
    counters.add([(["day:all"], -4000)] * 100)  # corrections too: one call for many
    assert script_calls(client) - before == 2 and int(client.get("day:all")) == cap - 400_000
    counters.close()


def test_a_thousand_shared_rate_limit_operations_are_one_script_call(server: tuple[str, Any]) -> None:
    url, client = server
    limiter = RedisLimiter(url, "ns")
    limiter.run([("paused_for", ("warm",))])
    before = script_calls(client)
    rate = parse_rate("500/minute")
    answers = limiter.run([("reserve", ("vendor", rate, 0.0))] * 1000)
    assert script_calls(client) - before == 1
    assert [taken for _, taken, _ in answers].count(True) == 500  # the window's 500 slots, no more
    limiter.close()


def test_a_reservation_on_a_key_of_another_type_is_refused_alone_in_its_batch(server: tuple[str, Any]) -> None:
    """Another program's list where one tag's counter lives: that reservation gets the
    server's error; the others sent with it are made."""
    url, client = server
    client.rpush("day:tag:bob", "not a counter")
    counters = RedisCounters(url)
    answers = counters.reserve([(["day:all", f"day:tag:{who}"], [10**9, 10**9], [3600, 3600], 5, False)
                                for who in ("alice", "bob", "carol")])
    assert answers[0] is None and answers[2] is None
    assert type(answers[1]).__name__ == "ResponseError" and str(answers[1]).startswith("WRONGTYPE"), answers
    assert int(client.get("day:all")) == 10 and int(client.get("day:tag:carol")) == 5
    counters.close()


def test_a_server_out_of_memory_is_the_servers_trouble_not_one_reservations(
    server: tuple[str, Any], namespace: str, tmp_path: Any
) -> None:
    """A Redis at its ``maxmemory`` refuses every write: the store is out, so the guard skips
    it for a while instead of asking it again for every call, each refused the same way."""
    url, client = server
    config = cost_config(
        search_backend=["priced", "free"],
        budget={"daily_usd": 1.0},
        rate_limit={"url": url, "namespace": namespace},
        usage={"path": str(tmp_path / "usage.sqlite3")},
    )
    assert dispatch_search("warm up", config=config)["meta"]["served_by"] == "priced"
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", 1)
    try:
        first = dispatch_search("a", config=config)
        assert first["meta"]["served_by"] == "free", first
        assert first["meta"]["attempts"][0]["error_code"] == "budget_store_unavailable", first
        said = " ".join(first["meta"]["warnings"])
        assert "The shared budget store (redis) failed (OutOfMemoryError" in said, said
        second = dispatch_search("b", config=config)
        said = " ".join(second["meta"]["warnings"])
        assert "The shared budget store (redis) is skipped for now: it failed (OutOfMemoryError" in said, said
    finally:
        client.config_set("maxmemory", 0)
