"""Budgets at scale and under a failing store.

Run:
  python bench/bench_budget_store.py spend-check [--rows 1000000] [--calls 2000]
  python bench/bench_budget_store.py tags [--tags 100000]
  python bench/bench_budget_store.py frozen [--calls 50]
  python bench/bench_budget_store.py busy [--calls 3000] [--busy 1] [--runs 5]

``spend-check``: a SQLite usage ledger holding ``--rows`` rows of this month (with tags). The
spend check a budget counter starts from is timed two ways on the same file: reading the
running totals (what the library does) and the scan of the ledger it replaced
(``sum(usd) ... WHERE time >= ? AND json_extract(tags, ...) = ?``). Then ``--calls`` priced
``dispatch_search`` calls, each with a new tag value (so each starts a counter), are timed
against the same calls with budgets off.
Target: under 1 ms per spend check at 1M rows.

``tags``: ``--tags`` priced calls through ``stub``, each with a new ``user`` tag under a per-user
budget, with the SQLite ledger on; the process's resident memory is printed every tenth.
Target: flat once the counters reach ``web.budget.max_counters``.

``frozen``: ``--calls`` concurrent priced calls while the Redis that holds the budget
counters is stopped (SIGSTOP); the wall time of the whole batch is printed.
Target: about one store deadline (``web.budget.timeout``, 1 s), not one per call.

``busy``: ``--calls`` concurrent priced async calls on a healthy Redis that holds the budget
counters and the shared rate limits, while ``--busy`` other threads of the process keep the
interpreter busy (a loaded process: the store threads wait for it each time they hand it
back); ``--runs`` times, each on a fresh Redis. The outcomes are printed: every call should
be checked (``ok``, then ``budget_exceeded`` past the cap), none refused as
``budget_store_unavailable``.

Each subcommand uses only the public API, so the same script measures an older checkout
(``PYTHONPATH=<old>/src``) for comparison; ``spend-check`` needs this version's ledger.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from dependable_support import freeze_redis, redis_server

from webproviders import adispatch_search, dispatch_search
from webproviders.accounting.usage.spool import spool
from webproviders.config import Config, config_from_dict

PRICED = {"stub": {"price": {"search": {"usd": 0.001, "per": "request"}}}}


def config(**web: Any) -> Config:
    return config_from_dict({"web": {"cache": False, **web}}, source="bench")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def fill_ledger(path: Path, rows: int) -> None:
    """``rows`` priced rows spread over this month so far, for 10,000 users, in batches."""
    from webproviders.accounting.usage import UsageRecord
    from webproviders.accounting.usage.sqlite_store import SQLiteUsage

    store = SQLiteUsage(path, retention_days=400)
    now = time.time()
    month_start = now - (time.gmtime(now).tm_mday - 1) * 86400 - now % 86400
    batch: list[UsageRecord] = []
    for n in range(rows):
        when = random.uniform(month_start, now)
        batch.append(UsageRecord(when, "stub", "search", "ok", 1.0, "request", 0.001, False, 1.0,
                                 {"user": f"user-{n % 10_000}"}))
        if len(batch) == 20_000:
            store.append(batch)
            batch = []
    if batch:
        store.append(batch)
    store.close()


def spend_check(rows: int, calls: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "usage.sqlite3"
        started = time.perf_counter()
        fill_ledger(path, rows)
        print(f"ledger: {rows:,} rows written in {time.perf_counter() - started:.1f} s")
        from webproviders.accounting.usage import Ledger
        from webproviders.config import UsageSettings

        ledger = Ledger(UsageSettings(path=str(path)))
        now = time.time()
        day, month = time.strftime("%Y-%m-%d", time.gmtime(now)), time.strftime("%Y-%m", time.gmtime(now))
        lookups = 200
        started = time.perf_counter()
        for n in range(lookups):
            ledger.totals([(day, f"tag:user=user-{n}"), (month, f"tag:user=user-{n}")])
        totals_ms = (time.perf_counter() - started) / lookups * 1000
        month_start = now - (time.gmtime(now).tm_mday - 1) * 86400 - now % 86400
        conn = sqlite3.connect(path)
        scans = 5
        started = time.perf_counter()
        for n in range(scans):
            conn.execute("SELECT coalesce(sum(usd), 0) FROM usage WHERE time >= ? AND json_extract(tags, ?) = ?",
                         (month_start, '$."user"', f"user-{n}")).fetchone()
        scan_ms = (time.perf_counter() - started) / scans * 1000
        conn.close()
        print(f"spend check (day + month of one tag): running totals {totals_ms:.3f} ms, "
              f"ledger scan {scan_ms:.1f} ms ({scan_ms / totals_ms:,.0f}x)")

        budget = {"per_tag": {"user": {"daily_usd": 1e6, "monthly_usd": 1e6}}}
        on = config(usage={"path": str(path)}, budget=budget, providers=PRICED)
        off = config(usage={"path": str(path)}, providers=PRICED)
        for label, cfg in (("budgets off", off), ("budgets on, a new tag each call", on)):
            dispatch_search("warm up", backend="stub", config=cfg, tags={"user": "warm"})
            spool.flush(60)
            started = time.perf_counter()
            for n in range(calls):
                dispatch_search(f"q{n}", backend="stub", config=cfg, tags={"user": f"new-{label[:3]}-{n}"})
            per_call = (time.perf_counter() - started) / calls * 1000
            spool.flush(60)
            print(f"dispatch_search, {label}: {per_call:.3f} ms per call")


def tags(count: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        cfg = config(usage={"path": str(Path(directory) / "usage.sqlite3")},
                     budget={"per_tag": {"user": {"daily_usd": 1e6}}}, providers=PRICED)
        dispatch_search("warm up", backend="stub", config=cfg, tags={"user": "warm"})
        spool.flush(60)
        gc.collect()
        base = rss_mb()
        print(f"start: {base:.1f} MB resident")
        step = max(1, count // 10)
        started = time.perf_counter()
        for n in range(1, count + 1):
            dispatch_search("q", backend="stub", config=cfg, tags={"user": f"user-{n}"})
            if n % step == 0:
                spool.flush(60)
                gc.collect()
                print(f"{n:>8,} tags: {rss_mb():7.1f} MB resident (+{rss_mb() - base:.1f} MB), "
                      f"{(time.perf_counter() - started) / n * 1e6:.0f} us per call so far")


def frozen(calls: int) -> None:
    with redis_server() as url:
        if url is None:
            print("skipped: redis-server is not installed")
            return
        cfg = config(usage=False, budget={"daily_usd": 1e6}, rate_limit={"url": url}, providers=PRICED)
        print("warm up:", dispatch_search("warm up", backend="stub", config=cfg)["success"])
        freeze_redis(url)

        async def batch() -> list[dict[str, Any]]:
            return await asyncio.gather(*(adispatch_search(f"q{n}", backend="stub", config=cfg, timeout=60)
                                          for n in range(calls)))

        started = time.perf_counter()
        envelopes = asyncio.run(batch())
        took = time.perf_counter() - started
        codes: dict[str, int] = {}
        for envelope in envelopes:
            code = envelope.get("error_code", "ok")
            codes[code] = codes.get(code, 0) + 1
        print(f"{calls} concurrent priced calls on a frozen budget store: {took:.2f} s for all; outcomes {json.dumps(codes)}")
        started = time.perf_counter()
        dispatch_search("next", backend="stub", config=cfg, timeout=60)
        print(f"the next call, inside the skip window: {(time.perf_counter() - started) * 1000:.1f} ms")


def busy(calls: int, threads: int, runs: int) -> None:
    for run in range(runs):
        with redis_server() as url:
            if url is None:
                print("skipped: redis-server is not installed")
                return
            took, codes = _beside_busy_threads(url, calls, threads)
            print(f"run {run + 1}: {calls} concurrent priced calls beside {threads} busy thread(s): "
                  f"{took:.2f} s; outcomes {json.dumps(codes, sort_keys=True)}")


def _beside_busy_threads(url: str, calls: int, threads: int) -> tuple[float, dict[str, int]]:
    """``calls`` concurrent priced calls (room for 60% of them) while ``threads`` threads spin."""
    cfg = config(usage=False, budget={"daily_usd": calls * 0.6 * 0.001}, rate_limit={"url": url}, providers=PRICED)
    dispatch_search("warm up", backend="stub", config=cfg)
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(300))

    async def batch() -> list[dict[str, Any]]:
        return await asyncio.gather(*(adispatch_search(f"q{n}", backend="stub", config=cfg, timeout=60)
                                      for n in range(calls)))

    spinners = [threading.Thread(target=spin) for _ in range(threads)]
    for spinner in spinners:
        spinner.start()
    started = time.perf_counter()
    try:
        envelopes = asyncio.run(batch())
    finally:
        stop.set()
        for spinner in spinners:
            spinner.join()
    took = time.perf_counter() - started
    codes: dict[str, int] = {}
    for envelope in envelopes:
        code = envelope.get("error_code", "ok")
        codes[code] = codes.get(code, 0) + 1
    return took, codes


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    check = sub.add_parser("spend-check")
    check.add_argument("--rows", type=int, default=1_000_000)
    check.add_argument("--calls", type=int, default=2000)
    sub.add_parser("tags").add_argument("--tags", type=int, default=100_000)
    sub.add_parser("frozen").add_argument("--calls", type=int, default=50)
    loaded = sub.add_parser("busy")
    loaded.add_argument("--calls", type=int, default=3000)
    loaded.add_argument("--busy", type=int, default=1)
    loaded.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.what == "spend-check":
        spend_check(args.rows, args.calls)
    elif args.what == "tags":
        tags(args.tags)
    elif args.what == "busy":
        busy(args.calls, args.busy, args.runs)
    else:
        frozen(args.calls)


if __name__ == "__main__":
    main()
