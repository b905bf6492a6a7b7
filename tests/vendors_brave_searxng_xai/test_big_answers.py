"""A raw-HTTP vendor's big answer ends the call by its deadline, never with a late success.

A SearXNG instance (or a proxy in front of it) answering with hundreds of thousands of hits,
within the body cap, is read, parsed and turned into hits on the caller's event loop, where
no timer runs until that work yields. Each hit used to be mapped, and the success handed
back seconds after the call's deadline.
"""

from __future__ import annotations

import asyncio
import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import webproviders
from webproviders import adispatch_search, dispatch_search

from .helpers import web

#: About 31 MiB of hits: within the default 32 MiB cap.
HITS = 175_000
DEADLINE = 0.3
#: Far below searxng's own 20 s timeout: the call did not wait for it.
BOUND = 10.0


@pytest.fixture(scope="module")
def answer() -> bytes:
    results = [
        {
            "url": f"https://site{i}.example/page/{i}",
            "title": f"Result {i}",
            "content": "a few words of text a few words of text ",
            "engines": ["google"],
            "score": 1.0 / (i + 1),
        }
        for i in range(HITS)
    ]
    return json.dumps({"query": "q", "results": results, "unresponsive_engines": []}).encode()


@pytest.fixture
def config(http_server: Any, make_config: Any, answer: bytes) -> Any:
    class SearXNG(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            try:
                self.wfile.write(answer)
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(SearXNG).server_address[1]}"
    yield make_config(web=web(providers={"searxng": {"base_url": url}}))
    webproviders.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_big_answer_is_no_success_after_the_deadline(config: Any, mode: str) -> None:
    """The first call connects and loads the HTTP stack; the second one meets the deadline
    while the answer is parsed and turned into hits (before: a success, 1-3 s later)."""

    def sync() -> tuple[dict[str, Any], float]:
        dispatch_search("q", backend="searxng", config=config, timeout=60)
        started = time.monotonic()
        envelope = dispatch_search(
            "q", backend="searxng", config=config, timeout=DEADLINE, limit=10
        )
        return envelope, time.monotonic() - started

    async def main() -> tuple[dict[str, Any], float]:
        await adispatch_search("q", backend="searxng", config=config, timeout=60)
        started = time.monotonic()
        envelope = await adispatch_search(
            "q", backend="searxng", config=config, timeout=DEADLINE, limit=10
        )
        return envelope, time.monotonic() - started

    envelope, seconds = sync() if mode == "sync" else asyncio.run(main())
    assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope
    assert seconds < BOUND


def test_only_the_hits_asked_for_are_kept_from_a_big_answer(config: Any) -> None:
    envelope = dispatch_search("q", backend="searxng", config=config, timeout=60, limit=3)
    assert envelope["success"] is True, envelope
    assert [hit["url"] for hit in envelope["data"]["web"]] == [
        f"https://site{i}.example/page/{i}" for i in range(3)
    ]
