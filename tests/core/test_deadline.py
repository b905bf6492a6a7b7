"""The call deadline: explicit, configured, or stretched for providers that need longer."""

from __future__ import annotations

from typing import Any

import pytest

from webproviders import dispatch_extract, dispatch_search

CLOCK = """
from webproviders import WebSearchProvider, remaining_time

class Clock(WebSearchProvider):
    name = "clock"
    def is_available(self):
        return True
    def supports_extract(self):
        return True
    def search(self, query, limit=5, **options):
        return [{"title": "left", "url": "https://clock.example/", "left": remaining_time()}]
    def extract(self, urls, **kwargs):
        CALLS.append(urls[0])
        pages = [{"url": url, "title": "ok", "content": "fine"} for url in urls]
        if len(CALLS) == 1:
            pages[0] = {"url": urls[0], "error": "flaky", "error_code": "timeout"}
        return pages

CALLS = []

def register(ctx):
    ctx.register_web_search_provider(Clock())
"""


@pytest.fixture
def clock(write_plugin: Any, make_config: Any) -> Any:
    root = write_plugin("clock", CLOCK, [{"name": "clock", "capabilities": ["search", "extract"], "timeout": 90, "fetch": "none"}])

    def build(**web: Any) -> Any:
        return make_config(web=web, plugins={"paths": [str(root)], "enabled": ["clock"]})

    return build


def _left(envelope: dict[str, Any]) -> float:
    return float(envelope["data"]["web"][0]["left"])


def test_manifest_timeout_stretches_the_default_deadline(clock: Any) -> None:
    assert 85 < _left(dispatch_search("q", backend="clock", config=clock())) <= 90


def test_a_configured_web_timeout_is_respected(clock: Any) -> None:
    assert 25 < _left(dispatch_search("q", backend="clock", config=clock(timeout=30))) <= 30


def test_a_call_timeout_is_respected(clock: Any) -> None:
    assert 3 < _left(dispatch_search("q", backend="clock", config=clock(), timeout=5)) <= 5


def test_a_provider_timeout_setting_stretches_too(clock: Any) -> None:
    config = clock(providers={"clock": {"timeout": 120}})
    assert 115 < _left(dispatch_search("q", backend="clock", config=config)) <= 120


def test_extract_results_with_a_failed_url_are_not_cached(clock: Any) -> None:
    config = clock()
    urls = ["https://a.example/", "https://b.example/"]
    first = dispatch_extract(urls, backend="clock", config=config)
    assert first["success"] is True and first["meta"]["failed"] == 1
    assert first["data"][0]["error_code"] == "timeout"
    second = dispatch_extract(urls, backend="clock", config=config)
    assert second["data"][0]["content"] == "fine"
    assert "cached" not in second["meta"] and "failed" not in second["meta"]
    third = dispatch_extract(urls, backend="clock", config=config)
    assert third["meta"].get("cached") is True


HOLDER = """
import time
from webproviders import WebSearchProvider

class Holder(WebSearchProvider):
    name = "holder"
    def is_available(self):
        return True
    async def search(self, query, limit=5, **options):
        time.sleep(0.6)  # work that never yields (a big answer turned into hits): no timer runs
        return [{"title": "late", "url": "https://holder.example/", "description": "read after the deadline"}]

def register(ctx):
    ctx.register_web_search_provider(Holder())
"""


def test_an_answer_read_past_the_deadline_is_no_success(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin("holder", HOLDER, [{"name": "holder", "capabilities": ["search"], "fetch": "none"}])
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}}, plugins={"paths": [str(root)], "enabled": ["holder"]})
    envelope = dispatch_search("q", backend="holder", config=config, timeout=0.2)
    assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope
    # both causes named: an async method that blocks ends here too, and was told only of size
    assert "still being read" in envelope["error"] and "blocks without awaiting" in envelope["error"]


@pytest.mark.parametrize("kind", ["def", "async def"])
def test_a_time_limit_of_the_provider_s_own_is_not_told_as_the_call_s(
    kind: str, write_plugin: Any, make_config: Any
) -> None:
    """A provider whose socket or SDK gave up after its own time limit (a ``TimeoutError``
    raised at once) was reported as "limited did not answer within 9.9 s.": the call's
    deadline, which had not passed, and nothing of what the provider said."""
    code = f"""
from webproviders import WebSearchProvider

class Limited(WebSearchProvider):
    name = "limited"
    def is_available(self):
        return True
    {kind} search(self, query, limit=5, **options):
        raise TimeoutError("the vendor's 2 s read limit ran out")

def register(ctx):
    ctx.register_web_search_provider(Limited())
"""
    root = write_plugin("limited", code)
    config = make_config(web={"timeout": 10, "cache": False}, plugins={"paths": [str(root)], "enabled": ["limited"]})
    envelope = dispatch_search("q", backend="limited", config=config)
    assert (envelope["error_code"], envelope["error"]) == (
        "timeout",
        "limited timed out: the vendor's 2 s read limit ran out",
    )


@pytest.mark.parametrize("kind", ["def", "async def"])
def test_a_set_up_that_never_ends_does_not_hold_the_call_past_its_deadline(
    kind: str, write_plugin: Any, make_config: Any
) -> None:
    """A provider with a request budget has its ``set_up()`` awaited before its first slot:
    one that never returned (a worker that never started, a lock never let go) held the call
    for as long as it hung, far past the call's deadline."""
    import threading

    pause = "time.sleep(3600)" if kind == "def" else "await asyncio.sleep(3600)"
    code = f"""
import asyncio
import time

from webproviders import WebSearchProvider

class Slow(WebSearchProvider):
    name = "slowsetup"
    def is_available(self):
        return True
    {kind} set_up(self):
        {pause}
    def search(self, query, limit=5, **options):
        return [{{"title": "t", "url": "https://slow.example/", "description": "d"}}]

def register(ctx):
    ctx.register_web_search_provider(Slow())
"""
    root = write_plugin("slowsetup", code)
    config = make_config(
        web={"cache": False, "providers": {"slowsetup": {"rate_limit": "1/s"}}},
        plugins={"paths": [str(root)], "enabled": ["slowsetup"]},
    )
    answers: list[dict[str, Any]] = []
    caller = threading.Thread(
        target=lambda: answers.append(dispatch_search("q", backend="slowsetup", config=config, timeout=1)), daemon=True
    )
    caller.start()
    caller.join(30)  # the guarantee, not a speed: a call that hangs is still running here
    assert not caller.is_alive(), "the call was still waiting for set_up() 30 s after its 1 s deadline"
    assert answers[0]["success"] is False and answers[0]["error_code"] == "timeout", answers
