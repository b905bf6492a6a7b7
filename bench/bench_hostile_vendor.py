"""Peak memory and time of a vendor call against a hostile vendor, raw HTTP and SDK, sync and async.

A vendor stand-in on 127.0.0.1, in its own process, answers every request one hostile way:

- ``gzip_bomb``: about 1 MB of gzip that decodes to 1 GB of zeros;
- ``nested_gzip``: ``Content-Encoding: gzip, gzip``, a few KB that decode to 1 GB;
- ``zstd``: a zstd body, never offered;
- ``huge_length``: ``Content-Length`` of 1 GB announced;
- ``endless``: a chunked body of brackets that never ends;
- ``drip``: headers, then a byte every 0.1 s.

Each case runs in a fresh Python process (so that its peak resident memory, ``ru_maxrss``, is
its own) through ``searxng`` (``request_json``) and ``tavily`` (an SDK on the library's
client), sync and async, with the default body cap (32 MiB) and a 5 s deadline. The baseline is
the same process after one ordinary call; the figure that matters is the peak *above* it,
which the cap bounds (the decoded body is held once, plus the step being decoded).

    python bench/bench_hostile_vendor.py
    python bench/bench_hostile_vendor.py --cases gzip_bomb endless --providers searxng
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import resource
import subprocess
import sys
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CASES = ["gzip_bomb", "nested_gzip", "zstd", "huge_length", "endless", "drip"]
PROVIDERS = ["searxng", "tavily"]
DEADLINE = 5.0
OK_BODY = json.dumps(
    {"query": "q", "results": [{"url": "https://a.example/", "title": "A", "content": "fine"}], "response_time": 0.1}
).encode()


def _gzip_of_zeros(size: int, times: int = 1) -> bytes:
    squeeze = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    piece = b"\0" * (1 << 20)
    body = b"".join(squeeze.compress(piece) for _ in range(size >> 20)) + squeeze.flush()
    for _ in range(times - 1):
        body = gzip.compress(body, 9)
    return body


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    bodies: dict[str, bytes] = {}

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        how = self.path.strip("/").split("/")[0]
        try:
            if how == "ok" or how not in CASES:
                self._send(OK_BODY)
            elif how == "gzip_bomb":
                self._send(self.bodies["gzip_bomb"], Content_Encoding="gzip")
            elif how == "nested_gzip":
                self._send(self.bodies["nested_gzip"], Content_Encoding="gzip, gzip")
            elif how == "zstd":
                self._send(self.bodies["zstd"], Content_Encoding="zstd")
            elif how == "huge_length":
                self._head(Content_Length=str(1 << 30))
                self.wfile.write(b'{"results": [')
                time.sleep(DEADLINE * 2)
            elif how == "endless":
                self._head(Transfer_Encoding="chunked")
                chunk = b"%x\r\n%s\r\n" % (65536, b"[" * 65536)
                while True:
                    self.wfile.write(chunk)
            elif how == "drip":
                self._head(Content_Length="100000")
                for _ in range(1000):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.1)
        except OSError:
            pass

    do_GET = do_POST = _answer

    def _head(self, **headers: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.flush()

    def _send(self, body: bytes, **headers: str) -> None:
        self._head(Content_Length=str(len(body)), **headers)
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hangs up on purpose: a cap, a deadline


def _server_process(ports: Any) -> None:
    import zstandard

    _Handler.bodies = {
        "gzip_bomb": _gzip_of_zeros(1 << 30),
        "nested_gzip": _gzip_of_zeros(1 << 30, times=2),
        "zstd": zstandard.ZstdCompressor().compress(OK_BODY),
    }
    server = _Server(("127.0.0.1", 0), _Handler)
    ports.put(server.server_address[1])
    server.serve_forever()


#: The child: one ordinary call for the baseline, then the hostile one; prints JSON.
CHILD = """
import asyncio, json, resource, sys, time
import webproviders
from webproviders.config import config_from_dict

provider, mode, case, base, deadline = *sys.argv[1:5], float(sys.argv[5])
section = {"searxng": {}, "tavily": {"api_key": "tvly-bench-0001"}}[provider]
def config(path):
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": {provider: {**section, "base_url": base + path}}}
    return config_from_dict({"web": web}, source="bench")
def call(cfg):
    if mode == "sync":
        return webproviders.dispatch_search("q", backend=provider, config=cfg, timeout=deadline)
    return asyncio.run(webproviders.adispatch_search("q", backend=provider, config=cfg, timeout=deadline))
assert call(config("/ok"))["success"]
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
envelope = call(config("/" + case))
seconds = time.monotonic() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"code": envelope.get("error_code"), "seconds": seconds, "baseline_kb": baseline, "peak_kb": peak}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", nargs="*", default=CASES, choices=CASES)
    parser.add_argument("--providers", nargs="*", default=PROVIDERS, choices=PROVIDERS)
    args = parser.parse_args()
    ports: Any = multiprocessing.Queue()
    server = multiprocessing.Process(target=_server_process, args=(ports,), daemon=True)
    server.start()
    base = f"http://127.0.0.1:{ports.get(timeout=120)}"
    print(f"deadline {DEADLINE:g} s, default body cap 32 MiB; peak RSS of a fresh process per case")
    print(f"{'case':12} {'provider':8} {'mode':5} {'envelope':12} {'seconds':>8} {'baseline MB':>12} {'peak MB':>8} {'above':>8}")
    try:
        for case in args.cases:
            for provider in args.providers:
                for mode in ("sync", "async"):
                    out = subprocess.run(
                        [sys.executable, "-c", CHILD, provider, mode, case, base, str(DEADLINE)],
                        capture_output=True, text=True, timeout=120, check=True,
                    )
                    row = json.loads(out.stdout.strip().splitlines()[-1])
                    base_mb, peak_mb = row["baseline_kb"] / 1024, row["peak_kb"] / 1024
                    print(
                        f"{case:12} {provider:8} {mode:5} {row['code'] or 'ok':12} {row['seconds']:8.2f}"
                        f" {base_mb:12.1f} {peak_mb:8.1f} {peak_mb - base_mb:+8.1f}"
                    )
    finally:
        server.terminate()
    own = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"(largest child: {own:.1f} MB)")


if __name__ == "__main__":
    main()
