"""A vendor request that waits for a connection held by the process's other requests.

Each vendor client opens at most ``DEFAULT_LIMITS.max_connections`` connections; past them a
request waits in this process for one to be free. A call whose time ran out there was
reported as the vendor not answering, charged a ledger row, and (with a deadline the vendor
was given in full) counted towards its cool-down, for a request the vendor never saw.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import webproviders
from webproviders import adispatch_search
from webproviders.accounting.usage.spool import spool
from webproviders.vendorhttp.clients import DEFAULT_LIMITS

from .helpers import web

HELD = DEFAULT_LIMITS.max_connections
WAITING = 3
ANSWER = json.dumps(
    {
        "query": "q",
        "results": [{"url": "https://a.example/", "title": "A", "content": "a", "score": 1.0}],
    }
).encode()


class _Instance:
    """A SearXNG stand-in whose ``hold`` searches wait for :attr:`release` once all
    ``HELD`` have arrived (:attr:`all_held`), and whose ``slow`` searches answer after 10 s."""

    def __init__(self, http_server: Any) -> None:
        lock = threading.Lock()
        arrived = {"held": 0}
        self.all_held, self.release = threading.Event(), threading.Event()
        instance = self

        class SearXNG(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if "hold" in self.path:
                    with lock:
                        arrived["held"] += 1
                        if arrived["held"] == HELD:
                            instance.all_held.set()
                    instance.release.wait(30)
                elif "slow" in self.path:
                    time.sleep(10)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(ANSWER)))
                self.end_headers()
                self.wfile.write(ANSWER)

            def log_message(self, *args: Any) -> None:
                pass

        self.url = f"http://127.0.0.1:{http_server(SearXNG).server_address[1]}"

    async def holding(self, config: Any) -> list[asyncio.Future[dict[str, Any]]]:
        """``HELD`` searches holding every connection, once all have arrived."""
        held = [
            asyncio.ensure_future(adispatch_search("hold", backend="searxng", config=config, timeout=30))
            for _ in range(HELD)
        ]
        assert await asyncio.get_running_loop().run_in_executor(None, self.all_held.wait, 20)
        return held


def test_a_request_never_sent_for_want_of_a_connection_is_the_processs_wait(
    http_server: Any, make_config: Any, tmp_path: Path
) -> None:
    instance = _Instance(http_server)
    ledger = tmp_path / "usage.sqlite3"
    config = make_config(
        web=web(usage={"path": str(ledger)}, providers={"searxng": {"base_url": instance.url}})
    )

    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        holding = await instance.holding(config)
        waited = await asyncio.gather(
            *(
                adispatch_search(f"q{i}", backend="searxng", config=config, timeout=1)
                for i in range(WAITING)
            )
        )
        instance.release.set()
        return waited, list(await asyncio.gather(*holding))

    try:
        waited, held = asyncio.run(main())
    finally:
        instance.release.set()
        webproviders.close()
    assert all(envelope["success"] for envelope in held)
    for envelope in waited:
        assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope
        assert envelope["detail"] == "no_connection", envelope
        assert envelope["error"] == (
            f"searxng was not asked within 1.0 s: all {HELD} connections this process opens to searxng at a "
            "time were in use by its other requests. Make fewer such calls at once, or give them more time."
        )
    spool.flush()
    with sqlite3.connect(ledger) as conn:
        outcomes = dict(
            conn.execute("SELECT outcome, count(*) FROM usage GROUP BY outcome").fetchall()
        )
    assert outcomes == {"ok": HELD}  # no row for a request never sent


def test_a_request_sent_late_for_want_of_a_connection_is_not_the_vendors_timeout(
    http_server: Any, make_config: Any
) -> None:
    """A request that waited most of its time for a connection, then was sent and timed out,
    was reported as the vendor not answering (and, given its full time, counted against it)."""
    instance = _Instance(http_server)
    config = make_config(web=web(providers={"searxng": {"base_url": instance.url}}))

    async def main() -> list[dict[str, Any]]:
        holding = await instance.holding(config)
        late = [
            asyncio.ensure_future(adispatch_search(f"slow{i}", backend="searxng", config=config, timeout=4))
            for i in range(WAITING)
        ]
        await asyncio.sleep(2)  # half their time, waiting for a connection
        instance.release.set()
        await asyncio.gather(*holding)
        return list(await asyncio.gather(*late))

    try:
        late = asyncio.run(main())
    finally:
        instance.release.set()
        webproviders.close()
    for envelope in late:
        assert envelope["error_code"] == "timeout", envelope
        assert envelope["detail"] == "no_connection", envelope
        assert "did not answer within 4.0 s, but was asked only after" in envelope["error"], envelope
        assert f"all {HELD} connections this process opens to searxng" in envelope["error"], envelope


#: A first search in a process whose disk is slow: the HTTP stack's asyncio backend, which
#: httpcore imports as the first request takes its connection, takes 1 s to load, and the
#: vendor never answers.
SLOW_FIRST_STEP = """
import importlib.abc, json, socket, sys, time
import httpx  # loaded: only what httpcore loads as a request starts is left
from webproviders import dispatch_search
from webproviders.config import config_from_dict


class SlowDisk(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "anyio._backends._asyncio":
            time.sleep(1.0)
        return None


sys.meta_path.insert(0, SlowDisk())
silent = socket.socket()
silent.bind(("127.0.0.1", 0))
silent.listen(8)  # takes connections, never answers
url = f"http://127.0.0.1:{silent.getsockname()[1]}"
config = config_from_dict({"web": {"cache": False, "retry": {"max_retries": 0}, "providers": {"searxng": {"base_url": url}}}})
envelope = dispatch_search("q", backend="searxng", config=config, timeout=2.5)
print(json.dumps({key: envelope.get(key) for key in ("error_code", "detail", "error")}))
"""


def test_a_request_alone_on_its_client_never_waited_for_a_connection(run_script: Callable[..., Any]) -> None:
    """Whatever held the request before its first step (here a slow import; in an async app,
    its loop busy with other work) read as a wait for a connection, with no other request in
    flight: "all 100 connections ... were in use by its other requests. Make fewer such calls
    at once", and the vendor's silence was not counted against it."""
    envelope = run_script(SLOW_FIRST_STEP)
    assert envelope["error_code"] == "timeout", envelope
    assert envelope["detail"] != "no_connection", envelope
    assert "connections" not in envelope["error"] and "searxng did not answer within" in envelope["error"], envelope
