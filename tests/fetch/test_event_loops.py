"""The async entry points awaited under an event loop other than asyncio's.

Before, ``await adispatch_search(...)`` under trio raised ``RuntimeError: no running event
loop`` out of the call. Now it is answered (on the library's background asyncio loop),
by its deadline; under a framework it cannot run under it is an ``unsupported`` envelope.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders import adispatch_extract, adispatch_search, dispatch_extract
from webproviders.config import Config

trio = pytest.importorskip("trio")


def test_a_search_and_an_extract_awaited_under_trio_are_answered(site: Any, local: Config) -> None:
    answers: dict[str, Any] = {}

    async def main() -> None:
        answers["search"] = await adispatch_search("heat pumps", backend="stub", config=local)
        answers["extract"] = await adispatch_extract(site.url("/articles/caching"), backend="http", config=local)
        async with trio.open_nursery() as nursery:  # several at once, as an agent's tools run
            for i in range(4):
                nursery.start_soon(_search_into, answers, f"q{i}", local)

    trio.run(main)
    assert answers["search"]["success"] is True and answers["search"]["data"]["web"], answers["search"]
    page = answers["extract"]["data"][0]
    assert answers["extract"]["success"] is True and page["content"].startswith("# Caching in practice")
    assert all(answers[f"q{i}"]["success"] for i in range(4))


async def _search_into(
    answers: dict[str, Any], query: str, config: Any, backend: str = "stub", timeout: float | None = None
) -> None:
    answers[query] = await adispatch_search(query, backend=backend, config=config, timeout=timeout)


def test_a_call_under_trio_still_ends_by_its_deadline(site: Any, local: Config) -> None:
    started = time.monotonic()
    envelope = trio.run(lambda: adispatch_extract(site.url("/slow"), backend="http", config=local, timeout=1.5))
    assert envelope["error_code"] == "timeout", envelope
    assert time.monotonic() - started < 4


def test_a_trio_cancel_scope_lets_go_of_a_call_at_once(site: Any, local: Config) -> None:
    """``trio.move_on_after(0.5)`` around a call waited out the call's own 10 s deadline."""
    answers: dict[str, Any] = {}

    async def main() -> None:
        with trio.move_on_after(0.5):
            answers["page"] = await adispatch_extract(site.url("/slow"), backend="http", config=local, timeout=10)

    started = time.monotonic()
    trio.run(main)
    assert "page" not in answers and time.monotonic() - started < 3


def test_many_calls_at_once_under_trio_are_all_under_way_together(http_server: Any, make_config: Any) -> None:
    """60 searches at once from trio, to a vendor that answers once all 60 have asked. Each
    call ran in one of trio's worker threads, of which there are 40 by default: the 41st
    waited for a thread, so the first 40 ran out their time and none was answered."""
    calls = 60
    arrived = threading.Barrier(calls)

    class Gathering(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            try:
                arrived.wait(timeout=15)
            except threading.BrokenBarrierError:
                pass
            body = json.dumps({"results": [{"title": "T", "url": f"https://a.example{self.path}", "content": "c"}]})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body.encode())
            except OSError:
                pass  # a call that had given up

        def log_message(self, *args: Any) -> None:
            pass

    base = f"http://127.0.0.1:{http_server(Gathering).server_address[1]}"
    config: Config = make_config(web={"usage": False, "cache": False, "providers": {"searxng": {"base_url": base}}})
    answers: dict[str, Any] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for i in range(calls):
                nursery.start_soon(_search_into, answers, f"q{i}", config, "searxng", 8)

    trio.run(main)
    failed = [answer for answer in answers.values() if not answer["success"]]
    assert not failed, failed[0]


def test_a_sync_call_made_inside_a_trio_program_is_answered(site: Any, local: Config) -> None:
    """A sync tool called from trio code (an agent's sync tool in a trio app). Before, every
    fetching backend failed: "Task got bad yield: CancelShieldedCheckpoint" as a provider_error,
    since the HTTP stack, asked which library runs, was told trio on an asyncio loop."""
    answers: dict[str, Any] = {}

    async def main() -> None:
        answers["page"] = dispatch_extract(site.url("/articles/caching"), backend="http", config=local, cache=False)
        answers["slow"] = dispatch_extract(site.url("/slow"), backend="http", config=local, timeout=1.5, cache=False)

    started = time.monotonic()
    trio.run(main)
    assert answers["page"]["success"] is True, answers["page"]
    assert answers["page"]["data"][0]["content"].startswith("# Caching in practice")
    assert answers["slow"]["error_code"] == "timeout" and time.monotonic() - started < 5


def test_a_call_awaited_by_no_event_loop_at_all_is_an_envelope_not_an_exception() -> None:
    """A framework this library cannot run under (here: the coroutine driven by hand)."""
    coroutine = adispatch_search("q", backend="stub")
    with pytest.raises(StopIteration) as done:
        coroutine.send(None)
    envelope = done.value.value
    assert envelope["success"] is False and envelope["error_code"] == "unsupported"
    assert "outside asyncio and trio" in envelope["error"] and envelope["meta"]["requested_backend"] == "stub"
