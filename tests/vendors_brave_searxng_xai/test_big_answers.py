"""A raw-HTTP vendor's big answer ends the call by its deadline, never with a late success.

A SearXNG instance (or a proxy in front of it) answering with hundreds of thousands of hits,
within the body cap, is read, parsed and turned into hits on the caller's event loop, where
no timer runs until that work yields. Each hit used to be mapped, and the success handed
back seconds after the call's deadline.
"""

from __future__ import annotations

import asyncio
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


#: One hit, as JSON text with ``%``-placeholders: the big answer is joined from these
#: (formatting the text directly takes half the time of building dicts for ``json.dumps``).
HIT = (
    '{"url": "https://site%d.example/page/%d", "title": "Result %d", '
    '"content": "a few words of text a few words of text ", "engines": ["google"], "score": %r}'
)


def searxng_answer(hits: int) -> bytes:
    """SearXNG's JSON with ``hits`` results, the best first."""
    results = ", ".join([HIT % (i, i, i, 1.0 / (i + 1)) for i in range(hits)])
    return f'{{"query": "q", "results": [{results}], "unresponsive_engines": []}}'.encode()


@pytest.fixture(scope="module")
def answer() -> bytes:
    return searxng_answer(HITS)


@pytest.fixture
def config(http_server: Any, make_config: Any, answer: bytes) -> Any:
    small = searxng_answer(3)

    class SearXNG(BaseHTTPRequestHandler):
        """The big answer; a small one to the query ``warm``, which only has to load the HTTP stack."""

        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            body = small if "q=warm" in self.path else answer
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(SearXNG).server_address[1]}"
    yield make_config(web=web(providers={"searxng": {"base_url": url}}))
    webproviders.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_big_answer_is_no_success_after_the_deadline(config: Any, mode: str) -> None:
    """The first call (a small answer) connects and loads the HTTP stack; the second one meets
    the deadline while the big answer is parsed and turned into hits (before: a success, 1-3 s
    later)."""

    def sync() -> tuple[dict[str, Any], float]:
        assert dispatch_search("warm", backend="searxng", config=config, timeout=60)["success"] is True
        started = time.monotonic()
        envelope = dispatch_search(
            "q", backend="searxng", config=config, timeout=DEADLINE, limit=10
        )
        return envelope, time.monotonic() - started

    async def main() -> tuple[dict[str, Any], float]:
        warm = await adispatch_search("warm", backend="searxng", config=config, timeout=60)
        assert warm["success"] is True, warm
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
