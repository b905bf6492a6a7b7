"""Per-call overhead of a real vendor path: raw httpx against ``dispatch_search`` through a provider.

A JSON server on 127.0.0.1, in its own process, answers like SearXNG
(``GET /search?format=json``) and like Brave (``GET /res/v1/web/search``). A long-lived raw
``httpx.Client`` / ``httpx.AsyncClient`` sends each provider's exact request to it, in blocks
that alternate with ``dispatch_search`` / ``adispatch_search`` through the real ``searxng``
and ``brave`` providers (cache off, so every call runs the whole path, with the body cap,
the proxy routing and the whole-call deadline in force); it prints ms/call, the difference
and the ratio, in wall time and in this process's CPU time (which the vendor stand-in and
other load on the machine do not inflate as much). Raw and dispatch blocks run in pairs, in
alternating order, and every figure is a median over the pairs of one run (then over the
rounds), so a burst of load on a shared machine skews a pair or two, not the comparison.

Run: python bench/bench_vendor_overhead.py [--calls 2000] [--rounds 3] [--profile out.prof]
Target: added cost at most 0.25 ms per call, sync and async.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import multiprocessing
import statistics
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from webproviders import adispatch_search, dispatch_search
from webproviders.config import config_from_dict, user_agent

HITS = 5


def _searxng_body() -> bytes:
    results = [
        {
            "url": f"https://example.org/page/{i}",
            "title": f"Result {i}",
            "content": f"Snippet number {i} about the query.",
            "engine": "duckduckgo",
            "engines": ["duckduckgo", "brave"],
            "positions": [i + 1],
            "score": 1.0 / (i + 1),
            "category": "general",
            "publishedDate": None,
        }
        for i in range(HITS)
    ]
    body = {
        "query": "python asyncio",
        "number_of_results": 0,
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": ["python asyncio tutorial"],
        "unresponsive_engines": [],
    }
    return json.dumps(body).encode()


def _brave_body() -> bytes:
    results = [
        {
            "type": "search_result",
            "title": f"Result {i}",
            "url": f"https://example.org/page/{i}",
            "description": f"Snippet number <strong>{i}</strong> about the query.",
            "is_source_local": False,
            "is_source_both": False,
            "language": "en",
            "family_friendly": True,
            "meta_url": {"scheme": "https", "netloc": "example.org", "hostname": "example.org", "path": f"› page › {i}"},
        }
        for i in range(HITS)
    ]
    body = {
        "type": "search",
        "query": {"original": "python asyncio", "more_results_available": True},
        "mixed": {"type": "mixed", "main": [{"type": "web", "index": i, "all": False} for i in range(HITS)]},
        "web": {"type": "search", "results": results, "family_friendly": True},
    }
    return json.dumps(body).encode()


BODIES = {"/search": _searxng_body(), "/res/v1/web/search": _brave_body()}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_GET(self) -> None:
        body = BODIES.get(self.path.split("?", 1)[0])
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def _server_process(ports: Any) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    ports.put(server.server_address[1])
    server.serve_forever()


def _serve() -> tuple[multiprocessing.Process, str]:
    """The vendor stand-in in its own process, as a real SearXNG or Brave is: its work never
    competes with the client for this interpreter's lock."""
    ports: Any = multiprocessing.Queue()
    process = multiprocessing.Process(target=_server_process, args=(ports,), daemon=True)
    process.start()
    return process, f"http://127.0.0.1:{ports.get(timeout=30)}"


#: Calls per timed block. Raw and dispatch blocks run in pairs, in alternating order (raw
#: first, then dispatch first), so that drift and bursts of load on a shared machine hit both
#: alike; each figure is a median over the pairs of the same run.
BLOCK = 50


def _block_ms(run: Callable[[], Any], calls: int) -> tuple[float, float]:
    """Wall and CPU milliseconds per call over a block (CPU: this process only, so the vendor
    stand-in and other load on the machine do not count)."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        run()
    return (time.perf_counter() - wall) / calls * 1000, (time.process_time() - cpu) / calls * 1000


async def _ablock_ms(run: Callable[[], Any], calls: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        await run()
    return (time.perf_counter() - wall) / calls * 1000, (time.process_time() - cpu) / calls * 1000


Block = tuple[float, float]
Pairs = list[tuple[Block, Block]]


def _summary(pairs: Pairs) -> dict[str, float]:
    """Medians of the raw and dispatch blocks, of their paired differences and of their ratios,
    in wall time and in CPU time."""
    out: dict[str, float] = {}
    for index, clock in ((0, "wall"), (1, "cpu")):
        raw = [pair[0][index] for pair in pairs]
        ours = [pair[1][index] for pair in pairs]
        out[f"{clock} raw"] = statistics.median(raw)
        out[f"{clock} ours"] = statistics.median(ours)
        out[f"{clock} added"] = statistics.median(o - r for r, o in zip(raw, ours, strict=True))
        out[f"{clock} ratio"] = statistics.median(o / r for r, o in zip(raw, ours, strict=True))
    return out


def _measure(name: str, url: str, params: dict[str, Any], headers: dict[str, str], calls: int, config: Any) -> dict[str, dict[str, float]]:
    """Raw httpx and dispatch through provider ``name`` against the same endpoint, sync and async."""
    blocks = max(2, calls // BLOCK)

    def ours_sync() -> None:
        envelope = dispatch_search("python asyncio", HITS, backend=name, config=config, cache=False)
        assert envelope["success"], envelope

    sync: Pairs = []
    with httpx.Client() as client:

        def raw_sync() -> None:
            client.get(url, params=params, headers=headers).json()

        for _ in range(20):  # connections open, code paths warm
            raw_sync()
            ours_sync()
        for index in range(blocks):
            if index % 2:
                ours = _block_ms(ours_sync, BLOCK)
                sync.append((_block_ms(raw_sync, BLOCK), ours))
            else:
                raw = _block_ms(raw_sync, BLOCK)
                sync.append((raw, _block_ms(ours_sync, BLOCK)))

    async def ours_async() -> None:
        envelope = await adispatch_search("python asyncio", HITS, backend=name, config=config, cache=False)
        assert envelope["success"], envelope

    asynchronous: Pairs = []

    async def run_async() -> None:
        async with httpx.AsyncClient() as client:

            async def raw_async() -> None:
                (await client.get(url, params=params, headers=headers)).json()

            for _ in range(20):
                await raw_async()
                await ours_async()
            for index in range(blocks):
                if index % 2:
                    ours = await _ablock_ms(ours_async, BLOCK)
                    asynchronous.append((await _ablock_ms(raw_async, BLOCK), ours))
                else:
                    raw = await _ablock_ms(raw_async, BLOCK)
                    asynchronous.append((raw, await _ablock_ms(ours_async, BLOCK)))

    asyncio.run(run_async())
    return {f"{name} sync": _summary(sync), f"{name} async": _summary(asynchronous)}


def _round(base: str, calls: int, config: Any) -> dict[str, dict[str, float]]:
    # Raw httpx sends the very request each provider sends (same parameters and headers), so
    # the difference is our own work, not a longer request line for the server to parse.
    agent = {"User-Agent": user_agent(None)}
    json_accept = {"Accept": "application/json"}
    targets = {
        "searxng": (
            f"{base}/search",
            {"q": "python asyncio", "format": "json", "pageno": 1},
            {**agent, **json_accept, "Accept-Language": "en-US,en;q=0.9"},
        ),
        "brave": (
            f"{base}/res/v1/web/search",
            {"q": "python asyncio", "count": HITS},
            {**agent, "X-Subscription-Token": "bench-key", **json_accept},
        ),
    }
    out: dict[str, dict[str, float]] = {}
    for name, (url, params, headers) in targets.items():
        out |= _measure(name, url, params, headers, calls, config)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", help="write a cProfile of one sync searxng run to this file")
    args = parser.parse_args()
    server, base = _serve()
    config = config_from_dict(
        {
            "web": {
                "providers": {
                    "searxng": {"base_url": base},
                    "brave": {"base_url": base, "api_key": "bench-key"},
                }
            }
        },
        source="bench",
    )
    if args.profile:
        dispatch_search("warm up", HITS, backend="searxng", config=config, cache=False)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.calls):
            dispatch_search("python asyncio", HITS, backend="searxng", config=config, cache=False)
        profiler.disable()
        profiler.dump_stats(args.profile)
        print(f"profile of {args.calls} sync searxng calls written to {args.profile}")
        return
    rounds = [_round(base, args.calls, config) for _ in range(args.rounds)]
    server.terminate()
    print(
        f"{args.calls} calls x {args.rounds} rounds, {HITS} hits, loopback JSON server in its own process"
        f" (raw and dispatch blocks of {BLOCK} calls in pairs; medians over the pairs, then over the rounds)"
    )
    for key in rounds[0]:
        fig = {field: statistics.median(r[key][field] for r in rounds) for field in rounds[0][key]}
        print(
            f"{key:14} wall: raw httpx {fig['wall raw']:6.3f}  dispatch {fig['wall ours']:6.3f} ms/call"
            f"  added {fig['wall added']:+6.3f} ms (target <= 0.250)  ratio {fig['wall ratio']:4.2f}"
            f"  | cpu: raw {fig['cpu raw']:6.3f}  dispatch {fig['cpu ours']:6.3f}"
            f"  added {fig['cpu added']:+6.3f}  ratio {fig['cpu ratio']:4.2f}"
        )


if __name__ == "__main__":
    main()
