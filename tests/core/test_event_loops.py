"""The async entry points awaited under an event loop other than asyncio's.

Before, ``await adispatch_search(...)`` under trio raised ``RuntimeError: no running event
loop`` out of the call. Now it is answered (the sync twin in one of trio's worker threads),
by its deadline; under a framework it cannot run under it is an ``unsupported`` envelope.
"""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders import adispatch_extract, adispatch_search

trio = pytest.importorskip("trio")

ARTICLE = (
    b"<html><head><title>Heat pumps</title></head><body><article><h1>Heat pumps</h1><p>"
    + b"A heat pump moves heat from outside air into the house. " * 30
    + b"</p></article></body></html>"
)


class Article(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/slow":
            self.server.released.wait(10)  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(ARTICLE)))
        self.end_headers()
        self.wfile.write(ARTICLE)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_search_and_an_extract_awaited_under_trio_are_answered(http_server: Any, make_config: Any) -> None:
    port = http_server(Article).server_address[1]
    config = make_config(web={"allow_private_networks": True, "cache": False})
    answers: dict[str, Any] = {}

    async def main() -> None:
        answers["search"] = await adispatch_search("heat pumps", backend="stub", config=config)
        answers["extract"] = await adispatch_extract(f"http://127.0.0.1:{port}/a", backend="http", config=config)
        async with trio.open_nursery() as nursery:  # several at once, as an agent's tools run
            for i in range(4):
                nursery.start_soon(_search_into, answers, f"q{i}", config)

    trio.run(main)
    assert answers["search"]["success"] is True and answers["search"]["data"]["web"], answers["search"]
    page = answers["extract"]["data"][0]
    assert answers["extract"]["success"] is True and "moves heat from outside air" in page["content"]
    assert all(answers[f"q{i}"]["success"] for i in range(4))


async def _search_into(answers: dict[str, Any], query: str, config: Any) -> None:
    answers[query] = await adispatch_search(query, backend="stub", config=config)


def test_a_call_under_trio_still_ends_by_its_deadline(http_server: Any, make_config: Any) -> None:
    port = http_server(Article).server_address[1]
    config = make_config(web={"allow_private_networks": True, "cache": False})
    started = time.monotonic()
    envelope = trio.run(lambda: adispatch_extract(f"http://127.0.0.1:{port}/slow", backend="http", config=config, timeout=1.5))
    assert envelope["error_code"] == "timeout", envelope
    assert time.monotonic() - started < 4


def test_a_call_awaited_by_no_event_loop_at_all_is_an_envelope_not_an_exception() -> None:
    """A framework this library cannot run under (here: the coroutine driven by hand)."""
    coroutine = adispatch_search("q", backend="stub")
    with pytest.raises(StopIteration) as done:
        coroutine.send(None)
    envelope = done.value.value
    assert envelope["success"] is False and envelope["error_code"] == "unsupported"
    assert "outside asyncio and trio" in envelope["error"] and envelope["meta"]["requested_backend"] == "stub"
