"""Async calls on event loops the caller starts and ends: ``asyncio.run`` once per task.

The library keeps HTTP clients per event loop so that connections stay open between calls.
A worker that runs each task with ``asyncio.run`` (a Celery task, a script's helper) ends a
loop per task: that loop's connections must be closed as it shuts down. Before, every loop
was kept for good with its open connections, one descriptor per site per task, until the
process ran out of them. Real servers on loopback: a page for the ``http`` fetcher and a
SearXNG-shaped vendor, both keeping connections alive and counting them.
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders import adispatch_extract, adispatch_search
from webproviders.config import Config, config_from_dict

PAGE = b"<html><head><title>T</title></head><body><article><p>" + b"Some words of text. " * 40 + b"</p></article></body></html>"
ANSWER = json.dumps({"results": [{"url": "https://a.example/", "title": "A", "content": "a"}]}).encode()
TASKS = 10


class Site:
    """Pages and SearXNG answers on one loopback server, which counts its open connections."""

    def __init__(self, start: Callable[[type[BaseHTTPRequestHandler]], Any]) -> None:
        self.open = 0
        lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # connections stay open between requests

            def setup(self) -> None:
                super().setup()
                with lock:
                    site.open += 1

            def finish(self) -> None:
                super().finish()
                with lock:
                    site.open -= 1

            def do_GET(self) -> None:
                search = self.path.startswith("/search")
                body = ANSWER if search else PAGE
                self.send_response(200)
                self.send_header("Content-Type", "application/json" if search else "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.base = f"http://127.0.0.1:{start(Handler).server_address[1]}"

    def open_after(self, seconds: float = 5.0, most: int = 0) -> int:
        """The connections still open once at most ``most`` are, or ``seconds`` have passed."""
        until = time.monotonic() + seconds
        while self.open > most and time.monotonic() < until:
            time.sleep(0.01)
        return self.open


@pytest.fixture
def site(http_server: Any) -> Site:
    return Site(http_server)


@pytest.fixture
def config(site: Site) -> Config:
    return config_from_dict(
        {"web": {"allowed_hosts": ["127.0.0.1"], "usage": False, "cache": False,
                 "providers": {"searxng": {"base_url": site.base}}}},
        source="<test>",
    )


async def _task(site: Site, config: Config, n: int) -> None:
    hits = await adispatch_search(f"q{n}", backend="searxng", config=config, timeout=10)
    page = await adispatch_extract([f"{site.base}/page/{n}"], backend="http", config=config, timeout=10)
    assert hits["success"] and page["success"], (hits, page)


def test_each_asyncio_run_closes_its_connections_as_it_ends(site: Site, config: Config) -> None:
    for n in range(TASKS):
        asyncio.run(_task(site, config, n))
    assert site.open_after() == 0


# asyncio's word for a socket that a closed loop left open
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_loop_closed_without_shutting_down_lets_go_of_its_connections(site: Site, config: Config) -> None:
    """``loop.close()`` alone gives no chance to close anything on the loop: the next loop's
    first call lets go of the closed ones' clients, and the collector closes their sockets."""
    for n in range(TASKS):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(_task(site, config, n))
        finally:
            loop.close()
    gc.collect()
    assert site.open_after(most=2) <= 2  # the last loop's, let go of when another loop calls
