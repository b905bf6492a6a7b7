"""How long a raw-HTTP vendor's big answer holds a search past its deadline, sync and async.

Run: python bench/bench_big_vendor_answer.py [--runs 5] [--hits 175000] [--timeout 0.4] [--against OTHER/src]

Each run is a new process serving, on loopback, a SearXNG answer of ``--hits`` well-formed
hits (175,000 are about 31 MiB, within the 32 MiB body cap). After one search that connects
and loads the HTTP stack, it makes a ``limit=10`` search with ``timeout=--timeout``, sync and
then async (with a task ticking every 10 ms beside it), and reports how long each took, its
envelope (``ok`` or the error code), the longest gap between ticks (how long the caller's
loop ran nothing else) and how long ``json.loads`` of that body takes in the same process.
Medians over the runs; ``--against`` runs the same, interleaved, with another source tree
first on the path.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import asyncio, json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

hits, deadline = int(sys.argv[1]), float(sys.argv[2])
results = [
    {"url": f"https://site{i}.example/page/{i}", "title": f"Result {i}",
     "content": "a few words of text a few words of text ", "engines": ["google"], "score": 1.0 / (i + 1)}
    for i in range(hits)
]
BODY = json.dumps({"query": "q", "results": results, "unresponsive_engines": []}).encode()
del results


class SearXNG(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        try:
            self.wfile.write(BODY)
        except OSError:
            pass

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), SearXNG)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()

from webproviders import adispatch_search, dispatch_search
from webproviders.config import config_from_dict

url = f"http://127.0.0.1:{server.server_address[1]}"
web = {"cache": False, "retry": {"max_retries": 0}, "providers": {"searxng": {"base_url": url}}}
config = config_from_dict({"web": web}, source="<bench>")


def outcome(envelope):
    return "ok" if envelope["success"] else envelope["error_code"]


dispatch_search("q", backend="searxng", config=config, timeout=60)
started = time.monotonic()
envelope = dispatch_search("q", backend="searxng", config=config, timeout=deadline, limit=10)
sync = time.monotonic() - started
sync_outcome = outcome(envelope)


async def main():
    await adispatch_search("q", backend="searxng", config=config, timeout=60)
    gaps, done = [0.0], asyncio.Event()

    async def tick():
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last - 0.01)
            last = now

    ticker = asyncio.ensure_future(tick())
    started = time.monotonic()
    envelope = await adispatch_search("q", backend="searxng", config=config, timeout=deadline, limit=10)
    seconds = time.monotonic() - started
    done.set()
    await ticker
    return seconds, outcome(envelope), max(gaps)


async_seconds, async_outcome, gap = asyncio.run(main())
started = time.monotonic()
json.loads(BODY)
parse = time.monotonic() - started
print(json.dumps({"mib": len(BODY) / 2**20, "sync": sync, "sync_outcome": sync_outcome, "async": async_seconds,
                  "async_outcome": async_outcome, "gap": gap, "parse": parse}))
"""


def run(src: str, hits: int, timeout: float) -> dict[str, float | str]:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(hits), str(timeout)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hits", type=int, default=175_000)
    parser.add_argument("--timeout", type=float, default=0.4)
    parser.add_argument("--against", help="another tree's src, run interleaved")
    args = parser.parse_args()
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    trees = {"this tree": here}
    if args.against:
        trees = {"against": args.against, **trees}
    seen: dict[str, list[dict[str, float | str]]] = {name: [] for name in trees}
    for _ in range(args.runs):
        for name, src in trees.items():
            seen[name].append(run(src, args.hits, args.timeout))
    for name, runs in seen.items():

        def median(key: str, runs: list[dict[str, float | str]] = runs) -> float:
            return statistics.median(float(r[key]) for r in runs)

        outcomes = {
            key: sorted({str(r[key]) for r in runs}) for key in ("sync_outcome", "async_outcome")
        }
        print(
            f"{name}: {runs[0]['mib']:.1f} MiB, timeout={args.timeout}: sync {median('sync'):.2f} s "
            f"{'/'.join(outcomes['sync_outcome'])}, async {median('async'):.2f} s {'/'.join(outcomes['async_outcome'])}, "
            f"longest loop gap {median('gap'):.2f} s; json.loads of the body {median('parse'):.2f} s "
            f"(medians of {len(runs)})"
        )


if __name__ == "__main__":
    main()
