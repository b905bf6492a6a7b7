"""How long the first request of a fresh process holds an async caller's event loop.

Run: python bench/bench_first_request_loop.py [--runs 5] [--against OTHER/src]

Each run is a new process that serves a vendor answer and a page on loopback, makes one
`stub` search (the library's own start), then, with a task ticking every 5 ms beside it,
the first call of one kind: a raw-HTTP vendor search (`searxng`), an SDK vendor search
(`tavily`, when installed) and a page extract (`http`). The longest gap between two ticks,
less the 5 ms, is how long the loop could run nothing else: what the other requests of a
server sharing that loop wait. Medians over the runs; ``--against`` runs the same, interleaved,
with another source tree first on the path (``PYTHONPATH=OTHER/src``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import asyncio, json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Answer(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/search"):
            body = json.dumps({"results": [{"url": "https://e.org/", "title": "T", "content": "c"}]})
            kind = "application/json"
        else:
            body = "<html><body><article><h1>Page</h1><p>" + "Text of a page. " * 40 + "</p></article></body></html>"
            kind = "text/html"
        raw = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_POST = do_GET

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
threading.Thread(target=server.serve_forever, daemon=True).start()
site = f"http://127.0.0.1:{server.server_address[1]}"


async def ticker(gaps):
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.005)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


async def main():
    from webproviders import adispatch_extract, adispatch_search
    from webproviders.config import config_from_dict

    providers = {"searxng": {"base_url": site}, "tavily": {"base_url": site, "api_key": "tvly-bench"}}
    config = config_from_dict({"web": {"cache": False, "allow_private_networks": True, "providers": providers}})
    await adispatch_search("q", backend="stub", config=config)
    kind = sys.argv[1]
    if kind == "extract":
        call = adispatch_extract(site + "/page", backend="http", config=config)
    else:
        call = adispatch_search("q", backend=kind, config=config)
    gaps = []
    ticks = asyncio.create_task(ticker(gaps))
    await asyncio.sleep(0.02)
    envelope = await call
    await asyncio.sleep(0.02)
    ticks.cancel()
    print(json.dumps({"ok": envelope["success"], "stall_ms": (max(gaps) - 0.005) * 1000}))


asyncio.run(main())
"""


def one(kind: str, tree: str | None) -> float:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    out = subprocess.run([sys.executable, "-c", CHILD, kind], capture_output=True, text=True, env=env, check=True)
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    if not answer["ok"]:
        raise SystemExit(f"the first {kind} call failed in {tree or 'this tree'}")
    return float(answer["stall_ms"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", help="another source tree (its src/), measured interleaved")
    args = parser.parse_args()
    kinds = ["searxng", "extract"] + (["tavily"] if importlib.util.find_spec("tavily") else [])
    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if args.against:
        trees.insert(0, (args.against, args.against))
    stalls: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.runs):
        for kind in kinds:
            for label, tree in trees:
                stalls.setdefault((label, kind), []).append(one(kind, tree))
    print(f"longest stop of the caller's event loop during the first call, median of {args.runs} processes:")
    for label, _ in trees:
        cells = ", ".join(f"{kind} {statistics.median(stalls[(label, kind)]):.0f} ms" for kind in kinds)
        print(f"  {label}: {cells}")


if __name__ == "__main__":
    main()
