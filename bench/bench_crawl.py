"""Crawl a generated 500-page local site that adds 50 ms per response.

Reports pages per second, the peak resident memory of this process (the site runs in a
separate process) and that of the extraction workers. Per-host concurrency is set to 8 (the
default is a politer 2).

    python bench/bench_crawl.py
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker_peak_mb(pid: int) -> float:
    """Peak resident set size of another process (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--per-host", type=int, default=8)
    args = parser.parse_args()

    from webproviders import dispatch_crawl
    from webproviders.config import config_from_dict
    from webproviders.fetching.extractpool import extraction_pool

    proc = subprocess.Popen(
        [sys.executable, str(HERE / "localsite.py"), "site", str(args.latency), str(args.pages)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    try:
        config = config_from_dict({"web": {"allowed_hosts": ["127.0.0.1"]}})
        seed = f"http://127.0.0.1:{port}/page/0"
        dispatch_crawl(f"http://127.0.0.1:{port}/page/1", config=config, max_pages=2)  # warm-up
        before = rss_mb()
        started = time.perf_counter()
        envelope = dispatch_crawl(
            seed,
            config=config,
            timeout=600,
            max_pages=args.pages,
            max_depth=20,
            concurrency=8,
            per_host_concurrency=args.per_host,
            cache=False,
        )
        elapsed = time.perf_counter() - started
        workers = [worker_peak_mb(pid) for pid in extraction_pool.pids()]
    finally:
        proc.terminate()
        proc.wait()

    assert envelope["success"], envelope
    pages = envelope["data"]
    ok = [p for p in pages if "error" not in p]
    depths = [p["metadata"]["depth"] for p in pages]
    print(f"site: {args.pages} pages, latency per response: {args.latency * 1000:.0f} ms, per-host concurrency: {args.per_host}")
    print(f"crawled: {len(ok)} pages ({len(pages) - len(ok)} errors), max depth {max(depths)}, in {elapsed:.2f} s")
    print(f"throughput: {len(pages) / elapsed:.1f} pages/s")
    print(f"peak RSS: {rss_mb():.0f} MB (before the crawl: {before:.0f} MB)")
    print(f"extraction workers, peak RSS each: {', '.join(f'{mb:.0f} MB' for mb in workers)}")
    print(f"warnings: {envelope['meta'].get('warnings', [])}")


if __name__ == "__main__":
    main()
