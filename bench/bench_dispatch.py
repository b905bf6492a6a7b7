"""Dispatch overhead: ``dispatch_search`` through ``stub`` against calling the provider directly.

Run: python bench/bench_dispatch.py [--calls 2000] [--runs 15] [--no-ledger] [--against OTHER/src]
Target: at most 30 microseconds added per call, sync and async (cache bypassed with
``cache=False``, so every call runs the whole path), and a memory-cache hit within 30
microseconds in all.

The config is the default one, so every call also hands a row to the usage ledger (written
under a temporary ``XDG_DATA_HOME``, not yours; ``--no-ledger`` turns it off). Blocks of
``--calls`` calls run in turn (direct, sync, async, cache hit), ``--runs`` times; each block
ends by waiting for its rows to be written, so each path pays for its own rows and no
other's. Each figure is the best block, since other work on the machine only ever adds
time. Envelopes are dropped as they come.

``--against`` runs this same measurement alternately in fresh processes on another source
tree (``PYTHONPATH=OTHER/src``) and on this one, ``--rounds`` times each, and prints the
median of each figure: a before/after taken in the same minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FIGURES = ("direct", "sync", "async", "cached")


def measure(calls: int, runs: int, ledger: bool) -> dict[str, float]:
    """Microseconds per call of each path: the best block of ``calls`` calls over ``runs``."""
    from webproviders import adispatch_search, dispatch_search, get_registry
    from webproviders.accounting.usage.spool import spool
    from webproviders.config import config_from_dict

    config = config_from_dict({} if ledger else {"web": {"usage": False}}, source="bench")
    provider = get_registry(config).get("stub").provider  # type: ignore[union-attr]

    def direct() -> None:
        for _ in range(calls):
            provider.search("hello world", 5)

    def sync(cache: bool) -> None:
        for _ in range(calls):
            dispatch_search("hello world", 5, backend="stub", config=config, cache=cache)

    async def asynchronous() -> None:
        for _ in range(calls):
            await adispatch_search("hello world", 5, backend="stub", config=config, cache=False)

    loop = asyncio.new_event_loop()
    blocks = {
        "direct": direct,
        "sync": lambda: sync(False),
        "async": lambda: loop.run_until_complete(asynchronous()),
        "cached": lambda: sync(True),
    }
    dispatch_search("warm up", 5, backend="stub", config=config, cache=False)
    dispatch_search("hello world", 5, backend="stub", config=config, cache=True)  # fills the cache
    best = dict.fromkeys(FIGURES, float("inf"))
    for _ in range(runs):
        for name, block in blocks.items():
            started = time.perf_counter()
            block()
            spool.flush()  # the block's own rows are written within its time, not the next block's
            best[name] = min(best[name], (time.perf_counter() - started) / calls * 1e6)
    return best


def _in_process(src: str | None, calls: int, runs: int, ledger: bool) -> dict[str, float]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    flags = [] if ledger else ["--no-ledger"]
    out = subprocess.run(
        [sys.executable, __file__, "--calls", str(calls), "--runs", str(runs), "--json", *flags],
        check=True, capture_output=True, text=True, env=env,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _report(label: str, figures: dict[str, float]) -> None:
    direct = figures["direct"]
    print(f"{label}")
    print(f"  provider.search directly:  {direct:7.1f} us/call")
    print(f"  dispatch_search (sync):    {figures['sync']:7.1f} us/call -> {figures['sync'] - direct:6.1f} us added (target <= 30)")
    print(f"  adispatch_search (async):  {figures['async']:7.1f} us/call -> {figures['async'] - direct:6.1f} us added (target <= 30)")
    print(f"  dispatch_search cache hit: {figures['cached']:7.1f} us/call (target <= 30)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-ledger", action="store_true", help="web.usage: false (no ledger row per call)")
    parser.add_argument("--against", help="another source tree to measure alternately with this one")
    parser.add_argument("--rounds", type=int, default=5, help="processes per tree with --against")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.against:
        here = str(Path(__file__).resolve().parents[1] / "src")
        results: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for _ in range(args.rounds):
            results["before"].append(_in_process(args.against, args.calls, args.runs, not args.no_ledger))
            results["after"].append(_in_process(here, args.calls, args.runs, not args.no_ledger))
        for label, rounds in results.items():
            tree = args.against if label == "before" else here
            _report(f"{label} ({tree}), median of {args.rounds} processes:",
                    {name: statistics.median(r[name] for r in rounds) for name in FIGURES})
        return
    with tempfile.TemporaryDirectory() as data_home:
        os.environ["XDG_DATA_HOME"] = data_home  # the ledger rows go here, not to yours
        figures: dict[str, Any] = measure(args.calls, args.runs, not args.no_ledger)
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"calls per block: {args.calls}, best of {args.runs} blocks")
        _report("this tree:", figures)


if __name__ == "__main__":
    main()
