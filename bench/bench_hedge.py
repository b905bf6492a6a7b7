"""Hedged failover: a chain [a provider that hangs 30 s, one answering in 200 ms], hedge_after 1 s.

Run: python bench/bench_hedge.py [--calls 50] [--capped-calls 10] [--plain-calls 2]
Target: p95 of the hedged chain <= 1.3 s over 50 calls (the hedge starts at 1 s, the answer
takes 200 ms).

Measured in the same run, with the cache off so every call asks the providers:
- hedged, the hung provider async (cancelled), called with ``dispatch_search``;
- hedged, the hung provider sync (its worker thread abandoned), called with ``adispatch_search``;
- the plain chain with a 5 s per-provider timeout and no retries for the hung provider
  (``web.providers.hang-30s: {timeout: 5, max_retries: 0}``), the usual way to bound a hung
  provider without hedging; ``--capped-calls`` calls;
- the plain chain as configured out of the box, which waits out the whole hang (the hung
  provider answers after 30 s): only ``--plain-calls`` calls, each about 30 s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from dependable_support import bench_config, plugin_dir

from webproviders import adispatch_search, dispatch_search, get_registry

TARGET = 1.3
CHAIN = ["hang-30s", "slow-200"]
SYNC_CHAIN = ["hang-30s-sync", "slow-200"]


def p95(walls: list[float]) -> float:
    ordered = sorted(walls)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def report(label: str, walls: list[float], target: float | None = None) -> None:
    if not walls:
        return
    verdict = "" if target is None else f"; target <= {target:.1f} s: {'ok' if p95(walls) <= target else 'OVER TARGET'}"
    print(
        f"{label:<48} calls {len(walls):3d}  median {statistics.median(walls):6.2f} s"
        f"  p95 {p95(walls):6.2f} s  max {max(walls):6.2f} s{verdict}"
    )


def timed_sync(calls: int, chain: list[str], config: Any, **kwargs: Any) -> list[float]:
    walls = []
    for i in range(calls):
        started = time.perf_counter()
        envelope = dispatch_search(f"query {i}", backend=chain, config=config, cache=False, **kwargs)
        walls.append(time.perf_counter() - started)
        assert envelope["success"], envelope
    return walls


async def timed_async(calls: int, chain: list[str], config: Any, **kwargs: Any) -> list[float]:
    walls = []
    for i in range(calls):
        started = time.perf_counter()
        envelope = await adispatch_search(f"query {i}", backend=chain, config=config, cache=False, **kwargs)
        walls.append(time.perf_counter() - started)
        assert envelope["success"], envelope
    return walls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--capped-calls", type=int, default=10)
    parser.add_argument("--plain-calls", type=int, default=2)
    args = parser.parse_args()
    plugins = plugin_dir()
    config = bench_config(plugins, timeout=60, usage=False)
    capped = bench_config(plugins, timeout=60, usage=False, providers={"hang-30s": {"timeout": 5, "max_retries": 0}})
    dispatch_search("warm up", backend="slow-200", config=config)
    try:
        report("hedged (hung async provider), sync call", timed_sync(args.calls, CHAIN, config, hedge_after=1), TARGET)
        hedged_async = asyncio.run(timed_async(args.calls, SYNC_CHAIN, config, hedge_after=1))
        report("hedged (hung sync provider), async call", hedged_async, TARGET)
        report("plain chain, 5 s per-provider timeout, no retry", timed_sync(args.capped_calls, CHAIN, capped))
        report("plain chain, no per-provider timeout", timed_sync(args.plain_calls, CHAIN, config))
    finally:
        get_registry(config).get("hang-30s-sync").provider.release.set()  # type: ignore[union-attr]


if __name__ == "__main__":
    main()
