"""An async call its caller cancels ends as cancelled, wherever it was.

``asyncio.wait_for`` before Python 3.12 returns the result of what it waits on when that
finishes just as the waiting task is cancelled, dropping the cancellation: an extract
cancelled while its URLs were being screened, or a search while its sync provider's thread
was answering, went on and returned an envelope (a caller's ``asyncio.timeout`` around it
fired and was ignored). Real pages on a loopback server; a sync provider in a plugin.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders import adispatch_crawl, adispatch_extract, adispatch_search
from webproviders.config import Config

PAGE = b"<html><head><title>T</title></head><body><article><p>" + b"Some words of text. " * 40 + b"</p></article></body></html>"
#: Turns of the caller's loop after which each call is cancelled: every point from its start
#: to well into its requests.
TURNS = 40

_SYNC_PROVIDER = """
import time

from webproviders import WebSearchProvider


class Quick(WebSearchProvider):
    name = "quick"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        time.sleep(0.02)
        return [{"title": "t", "url": "https://a.example/" + query, "description": "d"}]


def register(ctx):
    ctx.register_web_search_provider(Quick())
"""


_TIDY_PROVIDER = """
import asyncio

from webproviders import WebSearchProvider


class Tidy(WebSearchProvider):
    name = "tidy"

    def is_available(self):
        return True

    async def search(self, query, limit=5, **options):
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            await asyncio.sleep(0.05)  # closes its connection, as an HTTP client does
            raise
        return []


def register(ctx):
    ctx.register_web_search_provider(Tidy())
"""


def _silent(let_go: Callable[[str], object]) -> type[BaseHTTPRequestHandler]:
    """A handler that never answers and calls ``let_go(path)`` when the client closes the
    connection of a request to ``path``."""

    class Silent(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.connection.settimeout(20)
            try:
                if self.connection.recv(1) == b"":
                    let_go(self.path)
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:
            pass

    return Silent


@pytest.fixture
def site(http_server: Any) -> str:
    """A site whose pages take a moment to answer (so a call is still running when cancelled)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/robots.txt":
                self.server.released.wait(0.5)  # type: ignore[attr-defined]
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            try:
                self.wfile.write(PAGE)
            except OSError:
                pass  # the call was cancelled, its connection closed

        def log_message(self, *args: Any) -> None:
            pass

    return f"http://127.0.0.1:{http_server(Handler).server_address[1]}"


async def _cancelled_after_each_turn(make: Callable[[int], Coroutine[Any, Any, dict[str, Any]]]) -> list[int]:
    """The turns after which a cancelled call returned an envelope instead of raising."""
    ignored = []
    for turns in range(TURNS):
        task = asyncio.ensure_future(make(turns))
        for _ in range(turns):
            await asyncio.sleep(0)
        if not task.cancel():
            continue  # it had finished already
        try:
            await task
        except asyncio.CancelledError:
            continue
        ignored.append(turns)
    return ignored


def test_a_cancelled_extract_or_crawl_ends_as_cancelled_at_every_point(site: str, make_config: Any) -> None:
    config: Config = make_config(web={"allowed_hosts": ["127.0.0.1"], "usage": False, "cache": False})

    async def main() -> tuple[list[int], list[int]]:
        warm = await adispatch_extract(f"{site}/warm", backend="http", config=config, timeout=10)
        assert warm["success"], warm
        extracts = await _cancelled_after_each_turn(
            lambda n: adispatch_extract([f"{site}/a{n}", f"{site}/b{n}"], backend="http", config=config, timeout=10)
        )
        crawls = await _cancelled_after_each_turn(
            lambda n: adispatch_crawl(f"{site}/c{n}", backend="http", config=config, timeout=10, max_pages=2)
        )
        return extracts, crawls

    assert asyncio.run(main()) == ([], [])


def test_a_search_cancelled_as_its_sync_provider_answers_ends_as_cancelled(write_plugin: Any, make_config: Any) -> None:
    plugins = write_plugin("quick", _SYNC_PROVIDER)
    config = make_config(
        web={"search_backend": "quick", "usage": False, "cache": False},
        plugins={"paths": [str(plugins)], "enabled": ["quick"]},
    )
    answered = threading.Event()

    async def main() -> list[int]:
        assert (await adispatch_search("warm", config=config))["success"]
        ignored = []
        for n in range(100):  # the thread answers at a moment of its own: try around it
            task = asyncio.ensure_future(adispatch_search(f"q{n}", config=config, timeout=10))
            await asyncio.sleep(0.015 + 0.0005 * (n % 25))  # from well before its 20 ms sleep ends
            if not task.cancel():
                continue
            try:
                await task
            except asyncio.CancelledError:
                answered.set()
                continue
            ignored.append(n)
        return ignored

    assert asyncio.run(main()) == []
    assert answered.is_set()  # some calls were cancelled while running


def test_a_call_cancelled_by_an_anyio_scope_closes_its_connections(http_server: Any, make_config: Any) -> None:
    """An anyio cancel scope (an MCP server's cancelled request, ``move_on_after``) cancels again
    at every await: the call's clean-up was cancelled in turn, leaving each half-read
    connection open past the call's deadline (until the event loop itself closed)."""
    import anyio

    closed: list[str] = []

    site = f"http://127.0.0.1:{http_server(_silent(closed.append)).server_address[1]}"
    config: Config = make_config(
        web={
            "allowed_hosts": ["127.0.0.1"],
            "usage": False,
            "cache": False,
            "providers": {"searxng": {"base_url": site}},
        }
    )

    async def main() -> list[str]:
        assert (await adispatch_extract(f"{site}/warm", backend="http", config=config, timeout=0.5))["error_code"]
        for n in range(3):
            with anyio.move_on_after(0.5):
                await adispatch_extract(f"{site}/p{n}", backend="http", config=config, timeout=30)
        with anyio.move_on_after(0.5):  # a vendor's request, as a page's
            await adispatch_search("q", backend="searxng", config=config, timeout=30)
        with anyio.move_on_after(10):  # well before the calls' own 30 s
            while len(closed) < 5:
                await anyio.sleep(0.05)
        return sorted(path.partition("?")[0] for path in closed)  # while the loop still runs

    assert anyio.run(main) == ["/p0", "/p1", "/p2", "/search", "/warm"]


@pytest.mark.parametrize("caller", ["sync", "async"])
def test_a_vendor_request_cut_off_at_the_call_s_deadline_closes_its_connection(
    http_server: Any, make_config: Any, caller: str
) -> None:
    """At a call's deadline two cancellations come together, the request's own time limit and
    the dispatcher's bound: the second cut httpcore's clean-up short, and the connection stayed
    in the provider's pool as active, open and never reused (once the pool's 100 were all such,
    every request of that provider waited for a connection in vain)."""
    from webproviders import dispatch_search

    closed = threading.Event()

    site = f"http://127.0.0.1:{http_server(_silent(lambda _path: closed.set())).server_address[1]}"
    config: Config = make_config(
        web={"usage": False, "cache": False, "retry": {"max_retries": 0}, "providers": {"searxng": {"base_url": site}}}
    )

    async def in_a_loop() -> tuple[dict[str, Any], bool]:
        envelope = await adispatch_search("q", backend="searxng", config=config, timeout=0.5)
        # waited for while the loop still runs: its end closes every connection it had
        return envelope, await asyncio.get_running_loop().run_in_executor(None, closed.wait, 10)

    if caller == "sync":
        envelope, let_go = dispatch_search("q", backend="searxng", config=config, timeout=0.5), closed.wait(10)
    else:
        envelope, let_go = asyncio.run(in_a_loop())
    assert envelope["error_code"] == "timeout"
    assert let_go, "the connection to the vendor was left open"


def test_a_caller_that_closes_its_loop_after_a_timeout_finds_the_cancelled_request_in_the_ledger(
    http_server: Any, make_config: Any, tmp_path: Any
) -> None:
    """Once anyio's asyncio backend is loaded (httpcore loads it with the first connection), a
    plain asyncio caller's cancellation went back to the caller before the call had unwound:
    a caller that then closed its loop left the call's clean-up unrun, and the request it
    had sent never reached the usage ledger."""
    import sqlite3

    import anyio

    from webproviders.accounting.usage.spool import spool

    anyio.run(anyio.sleep, 0)  # its asyncio backend loaded, as in any process that used httpx
    site = f"http://127.0.0.1:{http_server(_silent(lambda _path: None)).server_address[1]}"
    ledger = tmp_path / "usage.sqlite3"
    config: Config = make_config(
        web={"usage": {"path": str(ledger)}, "cache": False, "providers": {"searxng": {"base_url": site}}}
    )

    async def timed_out() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(adispatch_search("q", backend="searxng", config=config, timeout=30), 0.5)

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(timed_out())
    finally:
        loop.close()
    spool.flush()
    assert ledger.exists(), "no row of the call reached the ledger"
    with contextlib.closing(sqlite3.connect(ledger)) as rows:
        assert list(rows.execute("SELECT provider, outcome FROM usage")) == [("searxng", "cancelled")]


def test_a_call_left_pending_as_asyncio_run_ends_blames_no_provider(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``asyncio.run`` (or a server shutting down) cancels every task as it ends, the call's
    own task too; its wrapper for anyio scopes cancelled that task a second time, which cut short the provider's time to
    unwind (here 50 ms, to close its connection) and logged that the provider "went on after
    it was cancelled"."""
    import anyio

    anyio.run(anyio.sleep, 0)  # its asyncio backend loaded, as in any process that used httpx
    plugins = write_plugin("tidy", _TIDY_PROVIDER)
    config = make_config(
        web={"search_backend": "tidy", "usage": False}, plugins={"paths": [str(plugins)], "enabled": ["tidy"]}
    )

    async def cancels_every_task() -> None:
        assert (await adispatch_search("warm", config=config, timeout=0.2))["error_code"] == "timeout"
        call = asyncio.ensure_future(adispatch_search("q", config=config, timeout=30))
        await asyncio.sleep(0.2)  # its provider under way
        # As asyncio.run does as it ends, in one of the orders it may take: the call's own
        # tasks first, in the order they were started ("Task-<n>"), then the task awaiting it.
        rest = sorted(
            (task for task in asyncio.all_tasks() if task not in (call, asyncio.current_task())),
            key=lambda task: int(task.get_name().rpartition("-")[2]),
        )
        for task in [*rest, call]:
            task.cancel()
        await asyncio.gather(*rest, call, return_exceptions=True)

    with caplog.at_level("WARNING", logger="webproviders"):
        asyncio.run(cancels_every_task())
    assert [r.getMessage() for r in caplog.records if r.name.startswith("webproviders")] == []
