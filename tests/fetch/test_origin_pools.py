"""Safe fetching keeps one connection pool per site: connections are reused, and bounded.

A real HTTP server on 127.0.0.1 counts the connections it accepts and sees closed; the
test names ``a/b/c.hosts.test`` resolve to it.
"""

from __future__ import annotations

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict
from webproviders.fetching import pinning
from webproviders.fetching.fetch import fetch

PAGE = b"<html><head><title>t</title></head><body><p>hello</p></body></html>"


class CountingServer(ThreadingHTTPServer):
    """Counts connections accepted and connections the client closed."""

    daemon_threads = True

    def __init__(self) -> None:
        self.opened = 0
        self.closed = 0
        self.lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with server.lock:
                    server.opened += 1

            def finish(self) -> None:
                super().finish()
                with server.lock:
                    server.closed += 1

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(PAGE)))
                self.end_headers()
                self.wfile.write(PAGE)

            def log_message(self, *args: Any) -> None:
                pass

        server = self
        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def counting(serve: Any) -> CountingServer:
    return serve(CountingServer())  # type: ignore[no-any-return]


def _config() -> Config:
    return config_from_dict({"web": {"allowed_hosts": ["*.hosts.test"]}}, source="<test>")


async def _fetch_all(urls: list[str], config: Config) -> list[int]:
    statuses = []
    for url in urls:
        result = await fetch(url, config, timeout=10)
        statuses.append(result.status_code)
    return statuses


def test_pages_of_one_site_reuse_its_connection(counting: CountingServer) -> None:
    port = counting.server_address[1]
    urls = [f"http://a.hosts.test:{port}/p/{n}" for n in range(5)]
    assert asyncio.run(_fetch_all(urls, _config())) == [200] * 5
    assert counting.opened == 1


def test_an_idle_site_beyond_the_limit_has_its_connections_closed(
    counting: CountingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More sites than ``MAX_ORIGINS``: the least recently used idle one is let go."""
    monkeypatch.setattr(pinning, "MAX_ORIGINS", 2)
    port = counting.server_address[1]

    async def visit() -> tuple[int, int]:
        config = _config()
        await _fetch_all([f"http://{host}.hosts.test:{port}/" for host in "ab"], config)
        before = counting.closed
        await _fetch_all([f"http://c.hosts.test:{port}/"], config)
        for _ in range(100):  # the server thread notices the close a moment later
            if counting.closed > before:
                break
            await asyncio.sleep(0.02)
        return before, counting.closed

    before, after = asyncio.run(visit())
    assert (counting.opened, before, after) == (3, 0, 1)
