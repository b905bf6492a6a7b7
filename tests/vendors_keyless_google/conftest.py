"""Fixtures for the DuckDuckGo HTML, Baidu HTML, Bocha, Serper, SerpAPI and Google CSE tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from webproviders.config import Config

PAGES = Path(__file__).parent / "pages"


@pytest.fixture
def cfg(make_config: Callable[..., Config]) -> Callable[..., Config]:
    """``make_config`` without retries or caching, so each test sees exactly one vendor answer."""

    def build(**sections: Any) -> Config:
        web = {"retry": {"max_retries": 0}, "cache": False, **sections.pop("web", {})}
        return make_config(web=web, **sections)

    return build


@pytest.fixture
def page() -> Callable[[str], str]:
    """The text of a saved result page under ``pages/``."""

    def load(name: str) -> str:
        return (PAGES / name).read_text(encoding="utf-8")

    return load


@pytest.fixture
def assert_no_secret() -> Callable[[dict[str, Any], str], None]:
    """Fails when ``secret`` appears anywhere in an envelope."""

    def check(envelope: dict[str, Any], secret: str) -> None:
        assert secret not in json.dumps(envelope, ensure_ascii=False)

    return check


class _PageServer:
    """A real HTTP server on 127.0.0.1 that answers every GET and POST with one page."""

    def __init__(self) -> None:
        self.body = b""
        self.requests: list[tuple[str, str, bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                server.requests.append((self.command, self.path, self.rfile.read(length)))
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(server.body)))
                self.end_headers()
                self.wfile.write(server.body)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                return

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def page_server() -> Iterator[_PageServer]:
    server = _PageServer()
    yield server
    server.close()
