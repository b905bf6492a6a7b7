"""A sync call runs on its thread's own long-lived loop and awaits its vendor requests there.

What that keeps: connections reused between calls, the deadline ending a request that does
not answer, requests of one call that run side by side (a fusion) overlapping, and an async
caller never blocked. A real HTTP server on loopback answers like SearXNG and like Brave.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_search
from webproviders.config import Config, config_from_dict

SEARXNG = {
    "query": "q",
    "number_of_results": 0,
    "results": [{"url": "https://searx.example/a", "title": "A", "content": "from searxng", "engine": "bing"}],
    "answers": [],
    "corrections": [],
    "infoboxes": [],
    "suggestions": [],
    "unresponsive_engines": [],
}
BRAVE = {
    "type": "search",
    "query": {"original": "q"},
    "web": {
        "type": "search",
        "results": [{"type": "search_result", "title": "B", "url": "https://brave.example/b", "description": "from brave"}],
    },
}


class VendorServer:
    """Answers ``/search`` like SearXNG and ``/res/v1/web/search`` like Brave.

    ``together`` holds each answer until that many requests are in flight at once (a request
    sent alone waits in vain and gets a 503); ``stall`` delays every answer by that many seconds.
    """

    def __init__(self, start: Any, together: int = 1, stall: float = 0.0) -> None:
        barrier = threading.Barrier(together, timeout=5) if together > 1 else None

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if stall:
                    self.server.released.wait(stall)  # type: ignore[attr-defined]
                body = SEARXNG if self.path.startswith("/search") else BRAVE
                status = 200
                if barrier is not None:
                    try:
                        barrier.wait()
                    except threading.BrokenBarrierError:
                        status, body = 503, {"error": "requests did not arrive together"}
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.url = f"http://127.0.0.1:{start(Handler).server_address[1]}"


@pytest.fixture
def vendor_server(http_server: Any) -> Any:
    return functools.partial(VendorServer, http_server)


def _config(url: str) -> Config:
    return config_from_dict(
        {
            "web": {
                "retry": {"max_retries": 0},
                "providers": {"searxng": {"base_url": url}, "brave": {"base_url": url, "api_key": "test-key-1234"}},
            }
        },
        source="<test>",
    )


def test_a_sync_call_answers_through_the_vendor(vendor_server: Any) -> None:
    config = _config(vendor_server().url)
    first = dispatch_search("q", backend="searxng", config=config, cache=False)
    second = dispatch_search("q", backend="searxng", config=config, cache=False)
    assert first["success"] and second["success"], (first, second)
    assert [hit["url"] for hit in second["data"]["web"]] == ["https://searx.example/a"]


def test_the_deadline_ends_a_vendor_request_that_does_not_answer(vendor_server: Any) -> None:
    config = _config(vendor_server(stall=30).url)
    envelope = dispatch_search("q", backend="searxng", config=config, cache=False, timeout=1)
    assert envelope["success"] is False
    assert envelope["error_code"] == "timeout", envelope


def test_fusion_members_still_reach_the_vendors_side_by_side(vendor_server: Any) -> None:
    """The server answers only when both requests are in flight at once."""
    config = _config(vendor_server(together=2).url)
    envelope = dispatch_search("q", backend={"fuse": ["searxng", "brave"]}, config=config, cache=False, timeout=20)
    assert envelope["success"], envelope
    assert {hit["url"] for hit in envelope["data"]["web"]} == {"https://searx.example/a", "https://brave.example/b"}
    assert [a["outcome"] for a in envelope["meta"]["attempts"]] == ["ok", "ok"]


def test_a_sync_call_from_inside_a_running_loop_leaves_that_loop_free(vendor_server: Any) -> None:
    """A sync tool called from async code: the caller's loop keeps running other tasks."""
    config = _config(vendor_server(together=2).url)

    async def main() -> list[dict[str, Any]]:
        sync_in_thread = asyncio.to_thread(dispatch_search, "q", backend="searxng", config=config, cache=False)
        async_call = adispatch_search("q", backend="brave", config=config, cache=False)
        return list(await asyncio.gather(sync_in_thread, async_call))

    sync_answer, async_answer = asyncio.run(main())
    assert sync_answer["success"] and async_answer["success"], (sync_answer, async_answer)
