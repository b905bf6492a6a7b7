"""Shared pieces of the dependable-dispatch benchmarks: a throwaway plugin with slow and
counting providers, a local ``redis-server``, and a counting HTTP server on 127.0.0.1."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from webproviders.config import Config, config_from_dict

_PLUGIN = '''
import asyncio, threading, urllib.request
from webproviders import WebSearchProvider


class Slow(WebSearchProvider):
    """Answers after a fixed delay, like a remote API would."""

    def __init__(self, name, delay):
        self._name, self.delay = name, delay

    @property
    def name(self):
        return self._name

    def is_available(self):
        return True

    async def search(self, query, limit=5, **options):
        await asyncio.sleep(self.delay)
        shared = [{"title": f"shared {i}", "url": f"https://shared.example/{i}", "description": self._name}
                  for i in range(1, 4)]
        own = [{"title": f"{self._name} {i}", "url": f"https://{self._name}.example/{i}", "description": "own"}
               for i in range(1, limit + 1)]
        return shared + own


class SyncHang(WebSearchProvider):
    """A sync search that hangs (as ddgs can) until ``release`` is set or 30 s pass."""

    name = "hang-30s-sync"

    def __init__(self):
        self.release = threading.Event()

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        self.release.wait(30)
        return []


class Counter(WebSearchProvider):
    """Sends each search to a local HTTP server that counts them."""

    def __init__(self, config):
        self.config = config

    @property
    def name(self):
        return "bench-counter"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        base = self.config.provider("bench-counter").base_url
        with urllib.request.urlopen(f"{base}/search", timeout=10) as response:
            response.read()
        return [{"title": "counted", "url": f"https://counted.example/{query}", "description": ""}]


def register(ctx):
    for name, delay in (("slow-100", 0.1), ("slow-200", 0.2), ("slow-300", 0.3), ("hang-30s", 30.0)):
        ctx.register_web_search_provider(Slow(name, delay))
    ctx.register_web_search_provider(SyncHang())
    ctx.register_web_search_provider(Counter(ctx.config))
'''

_MANIFEST = """
name: benchfakes
kind: backend
providers:
  - {name: slow-100, auto_detect: false}
  - {name: slow-200, auto_detect: false}
  - {name: slow-300, auto_detect: false}
  - {name: hang-30s, auto_detect: false}
  - {name: hang-30s-sync, auto_detect: false}
  - {name: bench-counter, auto_detect: false}
"""


def plugin_dir() -> Path:
    """Write the benchmark plugin once per run; returns the folder holding it."""
    root = Path(tempfile.mkdtemp(prefix="wp-bench-")) / "plugins"
    folder = root / "benchfakes"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(textwrap.dedent(_MANIFEST), encoding="utf-8")
    (folder / "__init__.py").write_text(_PLUGIN, encoding="utf-8")
    return root


def bench_config(plugins: Path, **web: Any) -> Config:
    return config_from_dict({"web": web, "plugins": {"paths": [str(plugins)], "enabled": ["benchfakes"]}})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_redis_processes: dict[str, subprocess.Popen[bytes]] = {}


def freeze_redis(url: str) -> None:
    """Stop a server :func:`redis_server` started (SIGSTOP): it keeps its connections and never answers."""
    import signal

    _redis_processes[url].send_signal(signal.SIGSTOP)


@contextmanager
def redis_server() -> Iterator[str | None]:
    """A ``redis-server`` on a free loopback port (None when the binary is missing)."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    import redis

    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", directory, "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(host="127.0.0.1", port=port)
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.025)
        client.close()
        url = f"redis://127.0.0.1:{port}/0"
        _redis_processes[url] = process
        try:
            yield url
        finally:
            import signal

            del _redis_processes[url]
            process.send_signal(signal.SIGCONT)  # a frozen server must wake up to be stopped
            process.terminate()
            process.wait(timeout=10)


class CountingServer:
    """Records the arrival time of every request."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        lock = threading.Lock()
        arrivals = self.arrivals

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with lock:
                    arrivals.append(time.time())
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
