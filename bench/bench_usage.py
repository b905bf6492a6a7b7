"""What accounting adds per call: the usage ledger plus the budget check, SQLite and Redis.

Run: python bench/bench_usage.py [--calls 5000] [--runs 5]
Target: under 0.1 ms added per call with the SQLite ledger and in-process budgets, under
1 ms with the ledger and budgets in Redis on loopback.

Every call goes through ``dispatch_search`` and the ``stub`` provider with ``cache=False``;
accounting "on" prices stub at $0.001 a search and sets a global and a per-user budget
large enough never to refuse, so every call reserves, settles and writes a ledger row. Each
pair is compared with the same setup minus accounting (for Redis: with the shared rate
limiter on, since budgets use that Redis too). Runs interleave and the best of each is
kept. Wall-clock time is what a caller waits; CPU time (all threads, so the ledger
writer's work is included) is steadier on a busy machine. The writer's batch throughput
is reported separately.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from dependable_support import redis_server

from webproviders import dispatch_search
from webproviders.accounting.usage import Ledger, UsageRecord
from webproviders.accounting.usage.spool import spool
from webproviders.config import Config, config_from_dict

PRICED = {"stub": {"price": {"search": {"usd": 0.001, "per": "request"}}}}
BUDGET = {"daily_usd": 1_000_000.0, "per_tag": {"user": {"daily_usd": 1_000_000.0}}}


def config(**web: Any) -> Config:
    return config_from_dict({"web": {"cache": False, **web}}, source="bench")


def per_call_us(cfg: Config, calls: int, tags: dict[str, str] | None) -> tuple[float, float]:
    """Wall-clock and CPU microseconds per call (CPU counts every thread, the ledger writer's too)."""
    dispatch_search("warm up", backend="stub", config=cfg, tags=tags)
    spool.flush(60)
    wall, cpu = time.perf_counter(), time.process_time()
    for n in range(calls):
        dispatch_search(f"query {n}", backend="stub", config=cfg, tags=tags)
    wall = time.perf_counter() - wall
    spool.flush(60)  # the rows of this run are written (and their CPU paid) within it
    return wall / calls * 1e6, (time.process_time() - cpu) / calls * 1e6


def writer_rate(ledger: Ledger, rows: int) -> float:
    """Rows per second the spool thread writes to ``ledger`` in batches."""
    row = UsageRecord(time.time(), "stub", "search", "ok", 1.0, "request", 0.001, False, 0.5, {"user": "bench"})
    spool.flush(60)
    started = time.perf_counter()
    for _ in range(rows):
        ledger.record(row)
    spool.flush(120)
    return rows / (time.perf_counter() - started)


def compare(label: str, off: Config, on: Config, calls: int, runs: int, target_us: float) -> None:
    best: dict[str, list[float]] = {"off": [float("inf")] * 2, "on": [float("inf")] * 2}
    for _ in range(runs):
        for name, cfg, tags in (("off", off, None), ("on", on, {"user": "bench"})):
            best[name] = [min(a, b) for a, b in zip(best[name], per_call_us(cfg, calls, tags), strict=True)]
    (off_wall, off_cpu), (on_wall, on_cpu) = best["off"], best["on"]
    added = on_wall - off_wall
    verdict = "ok" if added < target_us else "OVER"
    print(f"{label:<7} wall: off {off_wall:6.1f}  on {on_wall:6.1f}  added {added:6.1f} us/call "
          f"(target < {target_us:.0f}: {verdict})   cpu: off {off_cpu:6.1f}  on {on_cpu:6.1f}  "
          f"added {on_cpu - off_cpu:6.1f} us/call   writer {writer_rate(Ledger(on.web.usage), 20_000):7.0f} rows/s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"calls per run: {args.calls}, best of {args.runs}")
    with tempfile.TemporaryDirectory() as directory:
        ledger = {"path": str(Path(directory) / "usage.sqlite3")}
        compare("sqlite", config(usage=False), config(usage=ledger, budget=BUDGET, providers=PRICED),
                args.calls, args.runs, 100)
    with redis_server() as url:
        if url is None:
            print("redis   skipped: redis-server is not installed")
            return
        shared = {"url": url, "namespace": "bench"}
        compare("redis", config(usage=False, rate_limit=shared),
                config(usage={"url": url, "namespace": "bench"}, budget=BUDGET, rate_limit=shared, providers=PRICED),
                args.calls, args.runs, 1000)



if __name__ == "__main__":
    main()
