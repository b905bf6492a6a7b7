"""Normal pages' latency while hostile pages are being extracted, and worker start-up cost.

A local server (``bench/localsite.py hostile``, 100 ms per response) serves article pages and
two pages built to be expensive to extract: about 5 MB of HTML holding 150,000 links, and a
70 KB PDF whose 300 pages all draw one large content stream. The benchmark extracts 50
article pages, each in its own ``adispatch_extract`` call (as 50 agents would), first alone
and then while both hostile pages are in flight, and compares the latency of the article
pages. With the default settings (2 workers, 10 CPU seconds per page, HTML cut at 2 M
characters, 50,000 elements, 100 PDF pages) the target is a p95 within 2x of the run without
hostile pages.

    python bench/bench_hostile_extract.py                 # 50 pages, 20 started per second
    python bench/bench_hostile_extract.py --rate 0        # all 50 started at once

It also reports how long a new worker takes to be ready (a fresh interpreter, started while the
page downloads) and the memory of each worker process.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import time
from pathlib import Path
from typing import Any

from bench_extract import start_server  # the same local site, run as its own process


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


async def timed(url: str, config: Any) -> tuple[float, dict[str, Any]]:
    from webproviders import adispatch_extract

    started = time.perf_counter()
    envelope = await adispatch_extract([url], backend="http", config=config, cache=False)
    assert envelope["success"], envelope
    return time.perf_counter() - started, envelope["data"][0]


async def normal_pages(urls: list[str], config: Any, rate: float) -> list[float]:
    """Latency of each page's own call; calls start ``rate`` per second (0: all at once)."""
    calls = []
    for url in urls:
        calls.append(asyncio.ensure_future(timed(url, config)))
        if rate:
            await asyncio.sleep(1 / rate)
    results = await asyncio.gather(*calls)
    failed = [page for _seconds, page in results if "error" in page]
    assert not failed, failed[:2]
    return [seconds for seconds, _page in results]


async def with_hostile(
    port: int, urls: list[str], config: Any, rate: float
) -> tuple[list[float], list[tuple[float, dict[str, Any]]], float]:
    """Normal pages' latencies beside the two hostile pages, their outcomes, and the largest
    RSS (MB) any worker reached meanwhile."""
    from webproviders.fetching.extractpool import extraction_pool

    hostile = [
        asyncio.ensure_future(timed(f"http://127.0.0.1:{port}/hostile/links", config)),
        asyncio.ensure_future(timed(f"http://127.0.0.1:{port}/hostile/report.pdf", config)),
    ]
    peak = 0.0

    async def sample() -> None:
        nonlocal peak
        while True:
            peak = max([peak, *(rss for _pid, rss, _pss in worker_memory())])
            await asyncio.sleep(0.1)

    sampler = asyncio.ensure_future(sample())
    await asyncio.sleep(0.5)  # both fetched and handed to the workers
    assert len(extraction_pool.pids()) >= 1
    latencies = await normal_pages(urls, config, rate)
    outcomes = list(await asyncio.gather(*hostile))
    sampler.cancel()
    return latencies, outcomes, peak


def worker_memory() -> list[tuple[int, float, float]]:
    """``(pid, RSS MB, PSS MB)`` of each extraction worker (PSS shares the preloaded pages fairly)."""
    from webproviders.fetching.extractpool import extraction_pool

    rows = []
    for pid in extraction_pool.pids():
        try:
            lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
        except OSError:
            continue  # it ended meanwhile
        fields = {name: int(value.split()[0]) / 1024 for name, value in (line.split(":", 1) for line in lines)}
        rows.append((pid, fields["Rss"], fields["Pss"]))
    return rows


def start_up(port: int, config: Any) -> float:
    """Seconds more a page takes on a brand-new worker than on a running one."""
    from webproviders.fetching.extractpool import extraction_pool

    url = f"http://127.0.0.1:{port}/p/0"
    extraction_pool.close()
    asyncio.run(timed(url, config))
    warm, _ = asyncio.run(timed(url, config))  # a worker already running
    extraction_pool.close()
    fresh, _ = asyncio.run(timed(url, config))  # a new worker
    extraction_pool.close()
    return fresh - warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--rate", type=float, default=20.0, help="calls started per second (0: all at once)")
    args = parser.parse_args()

    from webproviders.config import config_from_dict

    proc, port = start_server(args.latency, args.pages, "hostile")
    try:
        config = config_from_dict({"web": {"allowed_hosts": ["127.0.0.1"]}})
        urls = [f"http://127.0.0.1:{port}/p/{n}" for n in range(args.pages)]
        first_seconds, _ = asyncio.run(timed(urls[0], config))  # the first worker
        asyncio.run(normal_pages(urls[:4], config, 0))  # both workers up
        alone = asyncio.run(normal_pages(urls, config, args.rate))
        memory = worker_memory()
        beside, hostile, hostile_peak = asyncio.run(with_hostile(port, urls, config, args.rate))
        start = start_up(port, config)
    finally:
        proc.terminate()
        proc.wait()

    print(f"normal pages: {args.pages}, {args.latency * 1000:.0f} ms per response, "
          f"{'all at once' if not args.rate else f'{args.rate:g} calls started per second'}")
    for name, values in (("alone", alone), ("beside 2 hostile pages", beside)):
        print(f"  {name:<24} p50 {statistics.median(values) * 1000:6.0f} ms   p95 {p95(values) * 1000:6.0f} ms   max {max(values) * 1000:6.0f} ms")
    print(f"  p95 ratio: {p95(beside) / p95(alone):.2f}x (target <= 2x)")
    for label, (seconds, page) in zip(("5 MB, 150k links", "70 KB PDF, 300 pages"), hostile, strict=True):
        outcome = page.get("error_code") or (
            f"ok, {len(page['content']):,} chars, "
            + ", ".join(f"{k}={page['metadata'][k]}" for k in ("extraction", "html_truncated", "pages", "pages_read") if k in page["metadata"])
        )
        print(f"  hostile {label}: {seconds:5.1f} s, {outcome}")
    print(f"first page of the process (first worker started while the page downloads): {first_seconds * 1000:.0f} ms")
    print(f"new worker ready: {start * 1000:+.0f} ms over a page on a running worker")
    for pid, rss, pss in memory:
        print(f"worker {pid} after the normal pages: RSS {rss:.0f} MB, PSS {pss:.0f} MB")
    print(f"largest worker RSS while the hostile pages were read: {hostile_peak:.0f} MB")
    print(f"this process: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
