"""Dispatch overhead: ``dispatch_search`` through ``stub`` against calling the provider directly.

Run: python bench/bench_dispatch.py [--calls 10000]
Target: under 50 microseconds added per call, sync and async (cache bypassed with
``cache=False``, so every call runs the whole path; the cache-hit path is reported too).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from webproviders import adispatch_search, dispatch_search, get_registry
from webproviders.config import config_from_dict


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10_000)
    n = parser.parse_args().calls
    config = config_from_dict({}, source="bench")
    provider = get_registry(config).get("stub").provider  # type: ignore[union-attr]

    def per_call(fn: object) -> float:
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        return (time.perf_counter() - started) / n * 1e6

    def direct_calls() -> None:
        for _ in range(n):
            provider.search("hello world", 5)

    def sync_calls(cache: bool) -> None:
        for _ in range(n):
            dispatch_search("hello world", 5, backend="stub", config=config, cache=cache)

    async def async_calls() -> None:
        for _ in range(n):
            await adispatch_search("hello world", 5, backend="stub", config=config, cache=False)

    direct = per_call(direct_calls)
    dispatch_search("warm up", 5, backend="stub", config=config, cache=False)
    sync = per_call(lambda: sync_calls(False))
    asynchronous = per_call(lambda: asyncio.run(async_calls()))
    cached = per_call(lambda: sync_calls(True))
    print(f"calls: {n}")
    print(f"provider.search directly:  {direct:7.1f} us/call")
    print(f"dispatch_search (sync):    {sync:7.1f} us/call  -> {sync - direct:5.1f} us added (target < 50)")
    print(f"adispatch_search (async):  {asynchronous:7.1f} us/call  -> {asynchronous - direct:5.1f} us added (target < 50)")
    print(f"dispatch_search cache hit: {cached:7.1f} us/call")


if __name__ == "__main__":
    main()
