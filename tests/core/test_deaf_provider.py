"""An async provider that ignores its cancellation is left behind at the deadline, not waited for."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import time
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_search

#: Its search sleeps, catching every cancellation (a bare ``except:`` around a retry), until
#: the test lets it go (a file appears) or 8 s have passed.
DEAF = """
import asyncio
import os
import time
from webproviders import WebSearchProvider

class Deaf(WebSearchProvider):
    name = "deaf"
    def is_available(self):
        return True
    async def search(self, query, limit=5, **options):
        ends = time.monotonic() + 8
        while time.monotonic() < ends and not os.path.exists(os.environ["DEAF_RELEASE"]):
            try:
                await asyncio.sleep(0.05)
            except BaseException:
                pass
        return [{"title": "late", "url": "https://deaf.example/", "description": "after the deadline"}]

def register(ctx):
    ctx.register_web_search_provider(Deaf())
"""


@pytest.fixture(autouse=True)
def release(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Each test lets the provider go as it ends (its task is left running on a loop)."""
    monkeypatch.setenv("DEAF_RELEASE", str(tmp_path / "release"))
    yield
    (tmp_path / "release").touch()


def _config(write_plugin: Any, make_config: Any, **web: Any) -> Any:
    root = write_plugin("deaf", DEAF, [{"name": "deaf", "capabilities": ["search"], "fetch": "none"}])
    return make_config(
        web={"cache": False, "retry": {"max_retries": 0}, **web},
        plugins={"paths": [str(root)], "enabled": ["deaf", "stub"]},
    )


@pytest.fixture
def config(write_plugin: Any, make_config: Any) -> Any:
    return _config(write_plugin, make_config)


def _let_go() -> None:
    open(os.environ["DEAF_RELEASE"], "w").close()


def test_a_sync_call_ends_by_its_deadline(config: Any, caplog: pytest.LogCaptureFixture) -> None:
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="webproviders.dispatch"):
        envelope = dispatch_search("q", backend="deaf", config=config, timeout=0.5)
    assert time.monotonic() - started < 4  # it would end only after 8 s of its own
    assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope
    assert any("deaf went on after it was cancelled" in record.getMessage() for record in caplog.records)


def test_an_async_call_ends_by_its_deadline(config: Any) -> None:
    async def main() -> tuple[dict[str, Any], float]:
        started = time.monotonic()
        envelope = await adispatch_search("q", backend="deaf", config=config, timeout=0.5)
        took = time.monotonic() - started
        _let_go()  # asyncio.run waits for every task left on its loop
        return envelope, took

    envelope, took = asyncio.run(main())
    assert took < 4
    assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope


def test_a_chain_goes_on_to_its_next_member(write_plugin: Any, make_config: Any) -> None:
    config = _config(write_plugin, make_config, providers={"deaf": {"timeout": 0.5}})
    started = time.monotonic()
    envelope = dispatch_search("q", backend=["deaf", "stub"], config=config, timeout=5)
    assert time.monotonic() - started < 4
    assert envelope["success"] is True and envelope["provider"] == "stub", envelope
    assert [a["outcome"] for a in envelope["meta"]["attempts"]] == ["error", "ok"]


def test_a_hedged_chain_that_leaves_it_behind_does_not_say_its_deadline_passed(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Cancelled because another member answered first, it was logged as "cancelled at its
    deadline", with the call's deadline 30 s away."""
    config = _config(write_plugin, make_config)
    with caplog.at_level(logging.WARNING, logger="webproviders.dispatch"):
        envelope = dispatch_search("q", backend=["deaf", "stub"], config=config, timeout=30, hedge_after=0.3)
    assert envelope["success"] is True and envelope["provider"] == "stub", envelope
    said = [record.getMessage() for record in caplog.records if "deaf went on after" in record.getMessage()]
    assert said == [
        "deaf went on after it was cancelled when its call gave it up (another provider answered first, or the "
        "caller left); the call ended without it, and it is left running."
    ]


#: A caller cancels its call while the provider runs (in a process of its own: under pytest
#: anyio is loaded, and a call then runs in a task of its own that a cancellation lets go).
CANCELLING = """
import asyncio, os, sys, time
from webproviders import adispatch_search
from webproviders.config import config_from_dict

config = config_from_dict({"plugins": {"paths": [sys.argv[1]], "enabled": ["deaf", "stub"]}}, source="<test>")

async def main():
    await adispatch_search("q", backend="stub", config=config)  # the plugins are loaded
    task = asyncio.ensure_future(adispatch_search("q", backend="deaf", config=config, cache=False, timeout=30))
    await asyncio.sleep(0.3)
    started = time.monotonic()
    task.cancel()
    try:
        await task
        outcome = "returned"
    except asyncio.CancelledError:
        outcome = "cancelled"
    print(outcome, time.monotonic() - started)
    open(os.environ["DEAF_RELEASE"], "w").close()  # asyncio.run waits for every task left on its loop

assert "anyio" not in sys.modules
asyncio.run(main())
"""


def test_a_cancelled_caller_is_not_held(write_plugin: Any) -> None:
    root = write_plugin("deaf", DEAF, [{"name": "deaf", "capabilities": ["search"], "fetch": "none"}])
    done = subprocess.run(
        [sys.executable, "-c", CANCELLING, str(root)], capture_output=True, text=True, timeout=60, check=True
    )
    outcome, took = done.stdout.split()
    assert outcome == "cancelled" and float(took) < 4, done.stdout
