"""The sync and async entry points run one coroutine and answer the same, whatever the
provider's colour; a sync call drives it on the calling thread's loop until it stops."""

from __future__ import annotations

import _thread
import asyncio
import gc
import threading
import time
from typing import Any

import pytest

from webproviders import adispatch_search, context, dispatch_search
from webproviders.config import set_default_config

SLOW = """
import asyncio
import signal
from webproviders import WebSearchProvider

class Slow(WebSearchProvider):
    name = "slow"
    def is_available(self):
        return True
    async def search(self, query, limit=5, **options):
        await asyncio.sleep(0.4)
        return [{"title": query, "url": "https://slow.example/" + query, "description": ""}]

def register(ctx):
    ctx.register_web_search_provider(Slow())
"""


def _steady(envelope: dict[str, Any]) -> dict[str, Any]:
    """An envelope without its timings, which differ from call to call."""
    meta = dict(envelope["meta"])
    meta.pop("latency_ms")
    meta["attempts"] = [{k: v for k, v in a.items() if k != "latency_ms"} for a in meta["attempts"]]
    return {**envelope, "meta": meta}


def _both(**kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    return dispatch_search(**kwargs), asyncio.run(adispatch_search(**kwargs))


@pytest.mark.parametrize(
    ("backend", "query", "limit"),
    [
        ("stub", "inline answer", 5),  # computed inline, never waits
        ("sync-search", "worker thread", 3),
        ("async-search", "awaited", 3),
        (["async-search", "sync-search"], "a chain", 2),
        ("stub", "x", 0),  # the caller's mistake
        ("nobody", "x", 5),  # an unknown backend
    ],
)
def test_sync_and_async_answer_alike(backend: Any, query: str, limit: int, pair_config: Any) -> None:
    sync, asynchronous = _both(query=query, limit=limit, backend=backend, config=pair_config)
    assert _steady(sync) == _steady(asynchronous)


def test_a_cache_hit_is_the_same_either_way(make_config: Any) -> None:
    config = make_config()
    first = dispatch_search("cached words", backend="stub", config=config)
    sync, asynchronous = _both(query="cached words", backend="stub", config=config)
    assert sync["meta"]["cached"] is True and asynchronous["meta"]["cached"] is True
    assert _steady(sync) == _steady(asynchronous)
    assert sync["data"] == first["data"]


def test_sync_calls_inside_a_running_loop_and_in_threads(pair_config: Any) -> None:
    expected = _steady(dispatch_search("q", backend="async-search", config=pair_config))

    async def from_a_coroutine() -> dict[str, Any]:
        return dispatch_search("q", backend="async-search", config=pair_config)  # a sync tool in async code

    results: list[dict[str, Any]] = [asyncio.run(from_a_coroutine())]
    threads = [
        threading.Thread(target=lambda: results.append(dispatch_search("q", backend="async-search", config=pair_config)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [_steady(r) for r in results] == [expected] * 5


@pytest.mark.usefixtures("ctrl_c")
def test_a_sync_call_interrupted_while_waiting_leaves_the_next_one_whole(write_plugin: Any, make_config: Any) -> None:
    """Ctrl-C during a wait leaves the call's task on the thread's loop; when it ends later
    (during the next call), the next call still runs to its own end."""
    root = write_plugin("slowplug", SLOW)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["slowplug"]})
    assert dispatch_search("warm", backend="stub", config=config)["success"] is True
    timer = threading.Timer(0.1, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        dispatch_search("first", backend="slow", config=config)
    timer.join()
    second = dispatch_search("second", backend="slow", config=config)
    assert second["success"] is True and second["data"]["web"][0]["title"] == "second"


INTERRUPTED = """
import asyncio
import os
import signal
from webproviders import WebSearchProvider

class Interrupted(WebSearchProvider):
    name = "interrupted"
    def is_available(self):
        return True
    async def search(self, query, limit=5, **options):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C lands while the call's own task runs
        await asyncio.sleep(5)
        return []

def register(ctx):
    ctx.register_web_search_provider(Interrupted())
"""


@pytest.mark.usefixtures("ctrl_c")
def test_ctrl_c_inside_a_sync_call_s_task_logs_no_error(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The interrupt that ends the call's task is the one the caller catches: asyncio must not
    log it again as "Task exception was never retrieved", with its traceback, once the task
    is collected (it did, after each Ctrl-C that landed while the task ran)."""
    root = write_plugin("interrupted", INTERRUPTED)
    config = make_config(web={"cache": False, "usage": False}, plugins={"paths": [str(root)], "enabled": ["interrupted"]})
    for _ in range(2):
        try:
            dispatch_search("q", backend="interrupted", config=config, timeout=10)
        except KeyboardInterrupt:
            pass
        else:
            pytest.fail("the call was not interrupted")
    gc.collect()
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


INLINE_WAITING = """
import asyncio
import signal
from webproviders import WebSearchProvider

class InlineWaiting(WebSearchProvider):
    name = "inline-waiting"
    runs_inline = True  # returns at once, but what it returns waits
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        async def answer():
            await asyncio.sleep(float(options.get("sleep", 0)))
            return [{"title": query, "url": "https://inline.example/" + query, "description": "waited"}]
        return answer()

def register(ctx):
    ctx.register_web_search_provider(InlineWaiting())
"""


def test_a_sync_call_that_starts_computing_and_then_waits_still_ends_by_its_deadline(
    write_plugin: Any, make_config: Any
) -> None:
    """A provider that answers at once with something that then waits: the sync call waits
    under the same deadline as an async call."""
    root = write_plugin("inlinewait", INLINE_WAITING)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["inlinewait"]})
    done = dispatch_search("quick", backend="inline-waiting", config=config, sleep=0.05)
    assert done["success"] is True and done["data"]["web"][0]["title"] == "quick"
    started = time.monotonic()
    late = dispatch_search("slow", backend="inline-waiting", config=config, timeout=0.3, sleep=5)
    assert time.monotonic() - started < 0.3 + 0.5
    assert late["success"] is False and late["error_code"] == "timeout"
    sync, asynchronous = _both(query="q", backend="inline-waiting", config=config, sleep=0.01)
    assert _steady(sync) == _steady(asynchronous)


def test_a_sync_call_leaves_the_callers_context_as_it_was(pair_config: Any) -> None:
    """What a call sets for the provider code it runs (its deadline, its warnings) stays in
    that call, whether it ended without waiting or after a wait."""
    for backend in ("stub", "async-search"):
        assert context.remaining_time() is None
        assert dispatch_search("q", backend=backend, config=pair_config)["success"] is True
        assert context.remaining_time() is None


def test_the_next_call_follows_a_changed_default_config(pair_config: Any, make_config: Any) -> None:
    """Plans are kept per config: replacing the default config changes what the next call runs."""
    set_default_config(pair_config)
    try:
        assert dispatch_search("q", backend="sync-search")["provider"] == "sync-search"
        assert dispatch_search("q", backend="sync-search")["provider"] == "sync-search"  # a kept plan
        set_default_config(make_config(web={"cache": False, "search_backend": "stub"}))
        answer = dispatch_search("q")
        assert answer["provider"] == "stub" and answer["meta"]["requested_backend"] is None
        assert dispatch_search("q", backend="sync-search")["error_code"] == "invalid_input"
    finally:
        set_default_config(None)
