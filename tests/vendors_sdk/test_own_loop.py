"""An SDK vendor's answer is read on a worker thread's own event loop, never on the caller's.

A vendor (or a proxy in front of it) that sends a big but well-formed answer, within the
body cap, makes an SDK build tens of thousands of objects in Python without yielding. On the
caller's loop that held the call seconds past its deadline (and returned a success late),
stopped every other call on that loop and every hedge timer. Each vendor here is a loopback
server answering in the shape its API documents.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import select
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import webproviders
from webproviders import adispatch_search, dispatch_search
from webproviders.config import Config, config_from_dict

#: Hits in the big answer: about 12 MiB, well within the default 32 MiB cap.
HITS = 60_000
DEADLINE = 1.0
SLACK = 1.0


def _hit(provider: str, i: int) -> dict[str, Any]:
    url, title, text = f"https://site{i}.example/page/{i}", f"Result {i}", "a few words of text " * 5
    if provider == "parallel":
        return {"url": url, "title": title, "excerpts": [text], "publish_date": None}
    return {"id": url, "url": url, "title": title, "highlights": [text], "highlightScores": [0.5]}


def _answer(provider: str) -> bytes:
    hits = [_hit(provider, i) for i in range(HITS)]
    if provider == "parallel":
        return json.dumps({"search_id": "search_1", "results": hits, "warnings": None}).encode()
    return json.dumps({"requestId": "r1", "results": hits, "costDollars": {"total": 0.005}}).encode()


@pytest.fixture(scope="module")
def answers() -> dict[str, bytes]:
    return {provider: _answer(provider) for provider in ("parallel", "exa")}


@pytest.fixture(autouse=True, scope="module")
def _sdks_loaded() -> None:
    """A first import of an SDK takes seconds, which would count against the first deadline."""
    for module in ("exa_py", "parallel"):
        importlib.import_module(module)


@pytest.fixture(autouse=True)
def _short_lived() -> Iterator[None]:
    yield
    webproviders.close()


def big_vendor(http_server: Any, body: bytes) -> str:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
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

    return f"http://127.0.0.1:{http_server(Handler).server_address[1]}"


def config_for(provider: str, url: str) -> Config:
    section = {"base_url": url, "api_key": f"{provider}-test-key-0001"}
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": {provider: section}}
    return config_from_dict({"web": web}, source="<test>")


@pytest.mark.parametrize("provider", ["parallel", "exa"])
def test_the_callers_loop_runs_on_while_an_sdk_reads_a_big_answer(
    http_server: Any, answers: dict[str, bytes], provider: str
) -> None:
    """A 10 ms ticker on the caller's loop: before, it stopped for the whole read (2-7 s here).
    Its longest pause is measured against the call's whole time too, which a busy machine
    stretches as much. (First in this file: the deadline test below leaves answers being read
    on other threads.)"""
    config = config_for(provider, big_vendor(http_server, answers[provider]))

    async def main() -> tuple[float, float]:
        started = time.monotonic()
        gaps: list[float] = []
        done = asyncio.Event()

        async def tick() -> None:
            last = time.monotonic()
            while not done.is_set():
                await asyncio.sleep(0.01)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        ticker = asyncio.ensure_future(tick())
        await adispatch_search("q", backend=provider, config=config, timeout=30)
        done.set()
        await ticker
        return max(gaps), time.monotonic() - started

    longest, whole = asyncio.run(main())
    # before, the loop stood still for the whole read; a pause of the whole process (a
    # collection of a big heap, a busy machine) may still stretch one tick
    assert longest < max(1.0, whole * 0.6), (longest, whole)


@pytest.mark.parametrize("provider", ["parallel", "exa"])
def test_a_big_answer_ends_the_call_by_its_deadline(http_server: Any, answers: dict[str, bytes], provider: str) -> None:
    config = config_for(provider, big_vendor(http_server, answers[provider]))
    started = time.monotonic()
    envelope = dispatch_search("q", backend=provider, config=config, timeout=DEADLINE / 2)
    seconds = time.monotonic() - started
    assert seconds < DEADLINE / 2 + SLACK, (seconds, envelope)
    # Read by its deadline or not at all: never a success handed back after it.
    assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope


def test_a_cancelled_call_hangs_up_on_the_vendor(http_server: Any) -> None:
    """The request on the worker thread's loop is cancelled with its call: the connection is
    closed at once, not held (and its thread with it) until the provider's own timeout."""
    hung_up, asked = threading.Event(), threading.Event()

    class Stalls(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            asked.set()
            # No answer: wait for the client to close its end (a read of nothing).
            while not self.server.released.is_set():  # type: ignore[attr-defined]
                ready, _, _ = select.select([self.connection], [], [], 0.05)
                if ready and not self.connection.recv(1):
                    hung_up.set()
                    return

        def log_message(self, *args: Any) -> None:
            pass

    config = config_for("parallel", f"http://127.0.0.1:{http_server(Stalls).server_address[1]}")

    async def main() -> None:
        call = asyncio.ensure_future(adispatch_search("q", backend="parallel", config=config, timeout=30))
        # Cancelled once the request is on its way (a busy machine's SDK import outlasted a fixed 0.5 s).
        assert await asyncio.to_thread(asked.wait, 20), "the request never reached the vendor"
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(main())
    assert hung_up.wait(3), "the vendor's connection was still open 3 s after the call was cancelled"


def test_calls_one_after_another_reuse_one_connection_after_a_burst(http_server: Any) -> None:
    """A burst of concurrent calls starts a thread (and a loop, and a connection pool) for
    each; the calls that follow, one at a time, go to the thread that finished last and its
    open connection, not round every thread, each with a connection that had expired."""
    burst = 6
    seen = {"requests": 0, "connections_after_burst": 0}
    lock = threading.Lock()
    body = json.dumps(
        {"query": "q", "results": [{"url": "https://a.example/", "title": "A", "content": "a", "score": 0.5}],
         "response_time": 0.1}
    ).encode()

    class Tavily(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            with lock:
                if seen["requests"] >= burst:
                    seen["connections_after_burst"] += 1

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                seen["requests"] += 1
                in_burst = seen["requests"] <= burst
            if in_burst:
                time.sleep(0.3)  # the burst's calls overlap: each takes a thread of its own
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if in_burst:  # its connection closes, as an idle one expires
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    config = config_for("tavily", f"http://127.0.0.1:{http_server(Tavily).server_address[1]}")

    async def together() -> list[dict[str, Any]]:
        calls = [adispatch_search(f"q{i}", backend="tavily", config=config, timeout=10) for i in range(burst)]
        return list(await asyncio.gather(*calls))

    assert all(envelope["success"] for envelope in asyncio.run(together()))
    for i in range(8):
        envelope = dispatch_search(f"next {i}", backend="tavily", config=config, timeout=10)
        assert envelope["success"], envelope
    assert seen["connections_after_burst"] == 1, seen


@pytest.mark.parametrize("closing", ["close", "aclose"])
def test_closing_the_library_hangs_up_on_an_sdk_vendor(http_server: Any, closing: str) -> None:
    """``webproviders.close()`` / ``aclose()`` close the connections SDK requests left open on
    the workers' loops, as they close every other vendor's: before, a worker's loop turned
    only during calls, and the connection stayed open for good."""
    hung_up = threading.Event()
    answer = {"search_id": "search_1", "results": [_hit("parallel", 1)], "warnings": None}
    body = json.dumps(answer).encode()

    class KeepsAlive(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def finish(self) -> None:  # the client closed its end
            super().finish()
            hung_up.set()

        def log_message(self, *args: Any) -> None:
            pass

    config = config_for("parallel", f"http://127.0.0.1:{http_server(KeepsAlive).server_address[1]}")
    if closing == "close":
        assert dispatch_search("q", backend="parallel", config=config, timeout=30)["success"]
        assert not hung_up.wait(0.5)  # kept open for the next call
        webproviders.close()
    else:

        async def main() -> None:
            envelope = await adispatch_search("q", backend="parallel", config=config, timeout=30)
            assert envelope["success"], envelope
            assert not hung_up.is_set()
            await webproviders.aclose()

        asyncio.run(main())
    assert hung_up.wait(3), f"the connection was still open 3 s after webproviders.{closing}()"


class _Backlog(ThreadingHTTPServer):
    request_queue_size = 256  # every call's connection is taken at once
    daemon_threads = True


def test_a_call_that_waited_for_a_worker_is_not_the_vendors_failure(
    serve: Any, http_server: Any
) -> None:
    """With every worker busy (64 Exa calls a vendor holds), Parallel calls that were still
    waiting for one at their timeout never reached Parallel. They say so, cost nothing and do
    not cool Parallel down; before, each said "parallel did not answer within 2.0 s" and
    five of them cooled it down for every later call."""
    release = threading.Event()
    held: list[int] = []

    class Holds(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            held.append(1)
            release.wait(30)
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    holds = serve(_Backlog(("127.0.0.1", 0), Holds))
    answers = big_vendor(
        http_server, json.dumps({"search_id": "s", "results": [_hit("parallel", 1)]}).encode()
    )
    providers = {
        "exa": {"base_url": f"http://127.0.0.1:{holds.server_address[1]}", "api_key": "exa-test-key-0001"},
        "parallel": {"base_url": answers, "api_key": "parallel-test-key-0001", "timeout": 2},
    }
    for section in providers.values():
        section["rate_limit"] = "off"
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": providers}
    config = config_from_dict({"web": web}, source="<test>")
    waiting = 6

    async def main() -> list[dict[str, Any]]:
        busy = [
            asyncio.ensure_future(adispatch_search("q", backend="exa", config=config, timeout=60))
            for _ in range(64)
        ]
        try:
            for _ in range(200):
                if len(held) == 64:
                    break
                await asyncio.sleep(0.05)
            assert len(held) == 64
            calls = [adispatch_search("q", backend="parallel", config=config) for _ in range(waiting)]
            return await asyncio.gather(*calls)
        finally:
            release.set()
            await asyncio.gather(*busy)

    envelopes = asyncio.run(main())
    for envelope in envelopes:
        assert envelope["error_code"] == "timeout" and envelope.get("detail") == "no_thread", envelope
        assert envelope["error"].startswith("parallel was not asked within 2.0 s: all 64 threads")
        assert "cost" not in envelope["meta"], envelope["meta"]
    after = dispatch_search("q", backend="parallel", config=config)
    assert after["success"], after


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_sends_sdk_requests_from_workers_of_its_own(http_server: Any) -> None:
    """The parent's workers' threads do not exist in a forked child (a gunicorn worker forked
    after the app's first call): the child starts its own, and the parent's keep serving it."""
    body = json.dumps({"search_id": "s", "results": [_hit("parallel", 1)]}).encode()
    config = config_for("parallel", big_vendor(http_server, body))
    assert dispatch_search("q", backend="parallel", config=config, timeout=10)["success"]
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, and leave without running the parent's teardown
        try:
            envelope = dispatch_search("q", backend="parallel", config=config, timeout=5)
            os.write(writer, json.dumps(envelope).encode()[:60000])
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as answer:
        child = json.loads(answer.read() or b"null")
    os.waitpid(pid, 0)
    assert child is not None and child["success"], child
    assert dispatch_search("q", backend="parallel", config=config, timeout=10)["success"]
