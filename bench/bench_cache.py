"""Cache-hit latency per backend: memory, SQLite (a file), Redis (a local redis-server).

Run: python bench/bench_cache.py [--hits 2000]
Targets at p50: memory under 0.1 ms, SQLite under 1 ms, Redis under 1 ms. "store" is the
cache lookup alone (key, read, decode); "dispatch" is a whole ``dispatch_search`` served
from the cache (validation, resolution, hooks and envelope included).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from dependable_support import redis_server

from webproviders import dispatch_search, get_registry
from webproviders.config import config_from_dict
from webproviders.dependable.cache import cache_key
from webproviders.dispatch.state import state_for

TARGETS_MS = {"memory": 0.1, "sqlite": 1.0, "redis": 1.0}


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.9)] * 1000


def measure(name: str, cache: dict[str, object], hits: int) -> None:
    config = config_from_dict({"web": {"cache": cache}}, source="bench")
    dispatch_search("hello world", 5, backend="stub", config=config)  # the miss that fills the cache
    cached = state_for(get_registry(config)).cache
    assert cached is not None
    arguments = {"query": "hello world", "limit": 5, "options": {}}
    loop = asyncio.new_event_loop()
    store: list[float] = []
    whole: list[float] = []
    for _ in range(hits):
        started = time.perf_counter()
        value = loop.run_until_complete(cached.lookup(cache_key("search", "stub", arguments)))
        store.append(time.perf_counter() - started)
        assert value is not None
        started = time.perf_counter()
        envelope = dispatch_search("hello world", 5, backend="stub", config=config)
        whole.append(time.perf_counter() - started)
        assert envelope["meta"].get("cached") is True
    loop.close()
    s50, s90 = _percentiles(store)
    d50, d90 = _percentiles(whole)
    verdict = "ok" if s50 < TARGETS_MS[name] else "OVER TARGET"
    print(
        f"{name:7s} store p50 {s50:6.3f} ms  p90 {s90:6.3f} ms | dispatch p50 {d50:6.3f} ms  p90 {d90:6.3f} ms"
        f" | target p50 < {TARGETS_MS[name]} ms: {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hits", type=int, default=2000)
    hits = parser.parse_args().hits
    print(f"cache hits per backend: {hits}")
    measure("memory", {"backend": "memory"}, hits)
    with tempfile.TemporaryDirectory() as directory:
        measure("sqlite", {"backend": "sqlite", "path": str(Path(directory) / "cache.sqlite3")}, hits)
    with redis_server() as url:
        if url is None:
            print("redis   skipped: redis-server is not installed")
        else:
            measure("redis", {"backend": "redis", "url": url, "namespace": "bench"}, hits)


if __name__ == "__main__":
    main()
