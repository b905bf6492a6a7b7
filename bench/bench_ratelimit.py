"""A shared budget: 4 OS processes share 1 request/s through Redis for 20 s.

Run: python bench/bench_ratelimit.py [--processes 4] [--seconds 20] [--rate 1/s]
Target: no span of the budget's period holds more requests than the budget (arrivals
counted by a local HTTP server, in windows 50 ms shorter than the period to absorb delivery
jitter), and the upstream rate within 5 % of the budget: arrivals after the first window's
burst, between the first and the last arrival.
"""

from __future__ import annotations

import argparse
import bisect
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from dependable_support import CountingServer, bench_config, plugin_dir, redis_server

from webproviders import dispatch_search
from webproviders.dependable.ratelimit import parse_rate


def worker(job: dict) -> None:  # type: ignore[type-arg]
    """One process: search with fresh queries until the run ends, each call bounded by it."""
    config = bench_config(Path(job["plugins"]), cache=False, rate_limit={"url": job["redis"], "namespace": "bench"},
                          providers={"bench-counter": {"base_url": job["server"], "rate_limit": job["rate"]}})
    dispatch_search("warm up", backend="stub", config=config, cache=False)
    time.sleep(max(0.0, job["start_at"] - time.time()))
    end = job["start_at"] + job["seconds"]
    sent = 0
    while (left := end - time.time()) > 0.01:
        envelope = dispatch_search(f"q{job['index']}-{sent}", backend="bench-counter", config=config, timeout=left)
        if envelope["success"]:
            sent += 1
        else:
            time.sleep(0.02)  # no slot left before the end: do not spin
    print(json.dumps({"sent": sent}))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(json.loads(sys.argv[2]))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", default="1/s")
    args = parser.parse_args()
    count, span = parse_rate(args.rate).window
    budget = count / span
    server = CountingServer()
    with redis_server() as url:
        if url is None:
            print("skipped: redis-server is not installed")
            return
        start_at = time.time() + 3
        job = {"plugins": str(plugin_dir()), "redis": url, "server": server.url, "rate": args.rate,
               "seconds": args.seconds, "start_at": start_at}
        workers = [
            subprocess.Popen([sys.executable, __file__, "--worker", json.dumps({**job, "index": i})],
                             stdout=subprocess.PIPE, text=True)
            for i in range(args.processes)
        ]
        sent = [json.loads(w.communicate()[0].strip().splitlines()[-1])["sent"] for w in workers]
    server.close()
    arrivals = sorted(server.arrivals)
    observed = (len(arrivals) - count) / (arrivals[-1] - arrivals[0])
    error = abs(observed - budget) / budget
    window = span - 0.05
    busiest = max(bisect.bisect_left(arrivals, start + window) - i for i, start in enumerate(arrivals))
    verdict = "ok" if error <= 0.05 and busiest <= count else "OUT OF RANGE"
    print(f"{args.processes} processes, budget {args.rate} shared through Redis, {args.seconds:g} s")
    print(f"requests per process: {sent}  upstream total: {len(arrivals)}")
    print(f"busiest {window:g} s: {busiest} requests (budget {count} per {span:g} s)")
    print(f"observed rate {observed:.4f}/s vs budget {budget:g}/s: {error * 100:.2f} % off (target <= 5 %: {verdict})")

if __name__ == "__main__":
    main()
