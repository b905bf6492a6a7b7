"""DNS lookups per call, and what they cost when each one takes time.

Extracts batches of 20 pages spread over 5 host names from a local server (``localsite.py``),
and crawls 30 pages of one host, through the ``http`` provider, with a resolver that maps
every name to the server and waits ``--dns-ms`` before answering (an uncached lookup), and
counts the lookups. Then the same batch through ``stub``, which fetches nothing.

    python bench/bench_lookups.py             # 10 batches, 20 ms per lookup

Run it against another checkout with ``PYTHONPATH=<checkout>/src`` to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
HOSTS = 5
BATCH = 20


def start_server(kind: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, str(HERE / "localsite.py"), kind, "0", "500"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


async def run(args: argparse.Namespace, port: int, crawl_port: int) -> dict[str, Any]:
    from webproviders import adispatch_crawl, adispatch_extract
    from webproviders.config import config_from_dict
    from webproviders.fetching.urlsafety import set_resolver

    lookups: list[str] = []

    async def slow_local_names(host: str, port: int) -> list[str]:
        lookups.append(host)
        await asyncio.sleep(args.dns_ms / 1000)
        return ["127.0.0.1"]

    set_resolver(slow_local_names)
    config = config_from_dict({"web": {"allowed_hosts": ["*.bench.test"], "cache": False}})
    figures: dict[str, Any] = {}
    for backend in ("http", "stub"):
        counts, seconds = [], []
        for batch in range(args.batches + 1):  # the first batch warms imports and workers up
            urls = [f"http://h{n % HOSTS}.bench.test:{port}/p/{batch * BATCH + n}" for n in range(BATCH)]
            lookups.clear()
            started = time.perf_counter()
            envelope = await adispatch_extract(urls, backend=backend, config=config, timeout=60)
            assert envelope["success"] and not envelope["meta"].get("failed"), envelope
            if batch:
                seconds.append(time.perf_counter() - started)
                counts.append(len(lookups))
        figures[backend] = (statistics.mean(counts), statistics.median(seconds))
    lookups.clear()
    started = time.perf_counter()
    crawled = await adispatch_crawl(
        f"http://site.bench.test:{crawl_port}/page/0", backend="http", config=config, timeout=60, max_pages=30,
        respect_robots=False,
    )
    assert crawled["success"], crawled
    figures["crawl"] = (len(lookups), time.perf_counter() - started, len(crawled["data"]))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--dns-ms", type=float, default=20.0)
    args = parser.parse_args()
    articles, port = start_server("articles")
    site, crawl_port = start_server("site")
    try:
        figures = asyncio.run(run(args, port, crawl_port))
    finally:
        for proc in (articles, site):
            proc.terminate()
            proc.wait()
    print(f"{BATCH} URLs on {HOSTS} hosts per call, {args.dns_ms:.0f} ms per lookup, {args.batches} calls")
    for backend in ("http", "stub"):
        count, seconds = figures[backend]
        print(f"  {backend:5} lookups per call: {count:5.1f}   median call: {seconds * 1000:7.1f} ms")
    count, seconds, pages = figures["crawl"]
    print(f"  crawl of {pages} pages on one host: {count} lookups, {seconds * 1000:.1f} ms")


if __name__ == "__main__":
    main()
