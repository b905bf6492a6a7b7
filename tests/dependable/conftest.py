"""Fixtures for dependable dispatch: scriptable providers, a fake clock, a counting HTTP
server on 127.0.0.1 (the real Redis comes from the top-level conftest)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict
from webproviders.dispatch.state import DispatchState, state_for
from webproviders.registry.providers import get_registry

PLUGINS = Path(__file__).parent / "plugins"


def build_config(**web: Any) -> Config:
    """A config that loads the scriptable providers; ``web`` keys are merged in."""
    settings: dict[str, Any] = {"retry": {"backoff": 0.0}}
    settings.update(web)
    return config_from_dict(
        {"web": settings, "plugins": {"paths": [str(PLUGINS)], "enabled": ["fakes"]}}, source="<test>"
    )


@pytest.fixture
def dep_config() -> Any:
    return build_config


def provider(config: Config, name: str) -> Any:
    """The live provider instance (scriptable fakes expose ``script``, ``calls``, ``delay``)."""
    entry = get_registry(config).get(name)
    assert entry is not None, f"{name} is not registered"
    return entry.provider


def state(config: Config) -> DispatchState:
    return state_for(get_registry(config))


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class SleepLog:
    """An ``asyncio.sleep`` stand-in that records the waits and does not wait."""

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.waits: list[float] = []
        self.clock = clock

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self.clock is not None:
            self.clock.advance(seconds)


def send_answer(
    handler: BaseHTTPRequestHandler,
    body: bytes,
    status: int = 200,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> None:
    """One whole HTTP answer from a loopback stand-in: its status, headers and ``body``."""
    handler.send_response(status)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])




class CountingServer:
    """A real HTTP server on 127.0.0.1 that counts (and optionally delays) requests."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        #: What it answers; ``{"hits": 0}`` makes ``fake-counter`` find nothing.
        self.body = b'{"ok": true}'
        self.status = 200
        self.requests: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with outer._lock:
                    outer.requests.append((time.time(), self.path))
                if outer.delay:
                    time.sleep(outer.delay)
                body = outer.body
                self.send_response(outer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def counting_server() -> Iterator[CountingServer]:
    server = CountingServer()
    yield server
    server.close()
