"""A hung cache or rate-limit store never stalls a call: a frozen real Redis, a locked SQLite file.

Each call runs in a helper thread only so that a regression fails the test instead of
hanging the suite; the generous wait there is a safety net, not a measure of speed.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from webproviders import dispatch_search
from webproviders.accounting.usage.spool import spool

from .conftest import build_config, provider

SAFETY_NET = 60.0


def returns(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``fn()``'s envelope; fails (rather than hangs) if the call never comes back."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn).result(timeout=SAFETY_NET)


def test_a_frozen_redis_is_bypassed_with_a_warning(freezable_redis: tuple[str, Callable[[], None]]) -> None:
    url, freeze = freezable_redis
    config = build_config(
        search_backend="fake-a",
        cache={"backend": "redis", "url": url},
        rate_limit={"url": url},
        providers={"fake-a": {"rate_limit": "50/s"}},
    )
    warm = returns(lambda: dispatch_search("warm up", config=config, timeout=3))
    assert warm["success"] is True and "warnings" not in warm["meta"]
    freeze()

    frozen = returns(lambda: dispatch_search("python", config=config, timeout=3))
    assert frozen["success"] is True, frozen  # not a misleading rate_limited, not a timeout
    assert frozen["data"]["web"][0]["url"].startswith("https://fake-a.example/")
    warnings = frozen["meta"]["warnings"]
    assert any(w.startswith("The cache (redis) did not answer within") for w in warnings), warnings
    # The rate limiter lives on the same server: its outage is known already, no second wait.
    assert any(w.startswith("The shared rate limiter (redis) is skipped for now: it did not answer") for w in warnings)

    # Right after a failure the stores are skipped without waiting on them again.
    again = returns(lambda: dispatch_search("python again", config=config, timeout=3))
    assert again["success"] is True
    assert any(w.startswith("The cache (redis) is skipped for now") for w in again["meta"]["warnings"])
    assert provider(config, "fake-a").calls == 3


def test_an_error_answer_to_one_command_leaves_the_other_stores_on_the_server_alone(
    redis_server: str, namespace: str
) -> None:
    """A key of another type where fake-a's rate limit lives (another program's, an older
    version's) makes Redis answer that one script with an error. The whole server was then
    skipped, again and again: the cache bypassed, the ledger's rows dropped, every priced
    call refused by its budget. Only fake-a's shared rate limit is out now."""
    import redis

    client = redis.Redis.from_url(redis_server)
    client.set(f"{namespace}:ratelimit:{{fake-a}}:starts", "not a sorted set")
    config = build_config(
        cache={"backend": "redis", "url": redis_server, "namespace": namespace},
        rate_limit={"url": redis_server, "namespace": namespace},
        providers={"fake-a": {"rate_limit": "50/s"}},
    )
    first = dispatch_search("python", backend="fake-a", config=config)
    assert first["success"] is True, first
    warnings = first["meta"]["warnings"]
    assert len(warnings) == 1 and warnings[0].startswith("The shared rate limiter (redis) failed (ResponseError: WRONGTYPE")
    hit = dispatch_search("python", backend="fake-a", config=config)
    assert hit["meta"]["cached"] is True and "warnings" not in hit["meta"]  # stored, then found
    other = dispatch_search("python", backend="fake-b", config=config)
    assert other["success"] is True and "warnings" not in other["meta"], other
    assert provider(config, "fake-a").calls == 1
    client.close()


_LOCKER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("CREATE TABLE IF NOT EXISTS held (x)")
db.execute("BEGIN EXCLUSIVE")
db.execute("INSERT INTO held VALUES (1)")
print("locked", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def lock_file() -> Iterator[Callable[[Path], None]]:
    """``lock_file(path)``: another OS process takes an exclusive lock on the file and keeps it."""
    lockers: list[subprocess.Popen[str]] = []

    def lock(path: Path) -> None:
        process = subprocess.Popen(
            [sys.executable, "-c", _LOCKER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        lockers.append(process)
        assert process.stdout is not None and process.stdout.readline().strip() == "locked"

    yield lock
    for process in lockers:
        process.communicate(timeout=10)  # closing stdin releases the lock


@pytest.mark.parametrize("journal", ["wal", "fresh"])
def test_a_locked_sqlite_cache_is_bypassed_with_a_warning(
    journal: str, tmp_path: Path, lock_file: Callable[[Path], None]
) -> None:
    """``wal``: our cache file, then locked (reads go on, writes wait); ``fresh``: locked before we open it."""
    path = tmp_path / "cache.sqlite3"
    config = build_config(search_backend="fake-a", cache={"backend": "sqlite", "path": str(path)})
    if journal == "wal":
        assert returns(lambda: dispatch_search("warm up", config=config, timeout=3))["success"] is True
    lock_file(path)

    envelope = returns(lambda: dispatch_search("python", config=config, timeout=3))
    assert envelope["success"] is True, envelope
    warnings = envelope["meta"]["warnings"]
    assert any(w.startswith("The cache (sqlite) ") and w.endswith("; this call goes on without it.") for w in warnings), warnings
    assert provider(config, "fake-a").calls == (2 if journal == "wal" else 1)


def test_a_redis_cluster_node_is_named_as_one_in_the_warning(cluster_redis: str) -> None:
    """Redis Cluster spreads keys a script or transaction must find together; before, the
    warning only quoted `ClusterCrossSlotError: Keys in request don't hash to the same slot`."""
    price = {"price": {"search": {"usd": 0.01, "per": "request"}}}
    config = build_config(search_backend="fake-a", cache=False, usage={"url": cluster_redis}, providers={"fake-a": price})
    assert returns(lambda: dispatch_search("q", config=config, timeout=5))["success"] is True
    spool.flush()  # the ledger row is written off the call path: its transaction spans slots
    envelope = returns(lambda: dispatch_search("q", config=config, timeout=5))
    said = " ".join(envelope["meta"]["warnings"])
    assert "Redis Cluster node, which webproviders cannot use: point the URL at a standalone Redis" in said


def test_a_cache_given_less_time_than_the_budget_store_does_not_get_it_skipped(
    freezable_redis: tuple[str, Callable[[], None]],
) -> None:
    """One server holds both; its writes are held up for 0.5 s (as a server 0.1 s away, or
    busy, holds them past a tight cache timeout). Before, the cache's overrun of its 0.05 s
    had the budget counters, allowed 5 s, skipped too: the priced provider was refused with
    budget_store_unavailable, call after call, from a server that answered within 5 s."""
    import redis

    url, _ = freezable_redis
    price = {"price": {"search": {"usd": 0.01, "per": "request"}}}
    config = build_config(
        search_backend=["fake-a", "fake-b"],
        cache={"url": url, "timeout": 0.05},
        rate_limit={"url": url},
        budget={"daily_usd": 1, "timeout": 5},
        usage=False,
        providers={"fake-a": price},
    )
    assert returns(lambda: dispatch_search("warm up", config=config, timeout=10))["provider"] == "fake-a"
    with redis.Redis.from_url(url) as client:
        client.execute_command("CLIENT", "PAUSE", "500", "WRITE")
    envelope = returns(lambda: dispatch_search("held up", config=config, timeout=10))
    assert envelope["provider"] == "fake-a", envelope["meta"]["attempts"]
    warnings = envelope["meta"]["warnings"]
    assert any(w.startswith("The cache (redis) did not answer within 0.05 s") for w in warnings), warnings
    assert not any("budget" in w for w in warnings), warnings
