"""Fusion wall time: three providers answering in 100, 200 and 300 ms, fused in one call.

Run: python bench/bench_fusion.py [--rounds 10]
Target: wall time under 1.15 x 300 ms = 345 ms (the slowest provider, not the sum of 600 ms).
Measured sync and async, with the cache bypassed so every round queries all three.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from dependable_support import bench_config, plugin_dir

from webproviders import adispatch_search, dispatch_search

TARGET = 1.15 * 0.3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    rounds = parser.parse_args().rounds
    config = bench_config(plugin_dir(), search_backend={"fuse": ["slow-100", "slow-200", "slow-300"]})
    dispatch_search("warm up", config=config, cache=False)

    sync: list[float] = []
    for i in range(rounds):
        started = time.perf_counter()
        envelope = dispatch_search(f"query {i}", limit=10, config=config, cache=False)
        sync.append(time.perf_counter() - started)
        assert envelope["success"] and envelope["meta"]["fused"] == ["slow-100", "slow-200", "slow-300"]

    async def run_async() -> list[float]:
        walls = []
        for i in range(rounds):
            started = time.perf_counter()
            envelope = await adispatch_search(f"query {i}", limit=10, config=config, cache=False)
            walls.append(time.perf_counter() - started)
            assert envelope["success"]
        return walls

    asynchronous = asyncio.run(run_async())
    for label, walls in (("sync ", sync), ("async", asynchronous)):
        median, worst = statistics.median(walls), max(walls)
        verdict = "ok" if median < TARGET else "OVER TARGET"
        print(f"{label} fused wall median {median * 1000:6.1f} ms  max {worst * 1000:6.1f} ms"
              f"  (slowest provider 300 ms, sum 600 ms; target < {TARGET * 1000:.0f} ms: {verdict})")


if __name__ == "__main__":
    main()
