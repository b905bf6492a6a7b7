"""A moment when the process can start no thread (a real subprocess at its address-space limit).

A busy server can briefly be at its limit of threads or memory. The calls made then say so in
their envelope instead of raising, and once threads can start again the next call works: the
registry's build, a plugin's load and the worker pools are not left waiting for a thread that
never started (before, every later call of that config timed out, or an async one raised).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

#: A generous bound on each script; each call in it has a deadline of 5 s.
BOUND = 90.0
#: Start threads until none can start (``stop.set()`` lets them end).
_FILL = """
stop = threading.Event()
fillers = []
for size in (256 * 1024 * 1024, 0):  # large stacks first, then the default size
    threading.stack_size(size)
    try:
        while True:
            thread = threading.Thread(target=stop.wait)
            thread.start()
            fillers.append(thread)
    except RuntimeError:
        pass
threading.stack_size(0)
"""

_SCRIPT = """
import asyncio, json, resource, threading
resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))
from webproviders import adispatch_search, dispatch_search

ASYNC = {is_async}

def search():
    if ASYNC:
        return asyncio.run(adispatch_search("x", 2, backend="stub", timeout=5))
    return dispatch_search("x", 2, backend="stub", timeout=5)

def attempt():
    try:
        return search()
    except BaseException as exc:
        return {{"raised": repr(exc)}}

{fill}
starved = [attempt(), attempt()]
stop.set()
for thread in fillers:
    thread.join()
print(json.dumps({{"starved": starved, "later": attempt()}}))
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="RLIMIT_AS caps threads' stacks on Linux"
)
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_calls_made_when_no_thread_can_start_fail_plainly_and_the_next_works(
    is_async: bool,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT.format(is_async=is_async, fill=_FILL)],
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    for envelope in result["starved"]:
        assert envelope.get("error_code") == "provider_error", envelope
        assert (
            envelope["error"].startswith("The call could not start")
            and envelope["provider"] is None
        )
    assert result["later"].get("success"), result["later"]


_POOL_SCRIPT = """
import resource, threading
resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))
from webproviders.pools import DaemonThreadPool, NoThread

pool = DaemonThreadPool(1, "test")  # a pool whose first thread is wanted while none can start
""" + _FILL + """
try:
    pool.submit(print, "ran while no thread could start")
except NoThread:
    pass
stop.set()
for thread in fillers:
    thread.join()
print(pool.submit(lambda: "ran").result(10))
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="RLIMIT_AS caps threads' stacks on Linux"
)
def test_a_pool_whose_thread_could_not_start_starts_one_later() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _POOL_SCRIPT], capture_output=True, text=True, timeout=BOUND
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["ran"]  # the work refused then never runs


_BUSY_SCRIPT = """
import asyncio, json, os, resource, threading
resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))
from webproviders import adispatch_search
from webproviders.config import config_from_dict

config = config_from_dict({{"web": {{"cache": False}}, "plugins": {{"paths": [{root!r}], "enabled": ["stuck"]}}}})
release = os.environ["STUCK_RELEASE"]

def search(query):
    return adispatch_search(query, backend="stuck", config=config, timeout=3)

open(release, "w").close()
asyncio.run(search("warm"))  # one thread of the sync pool, now idle
os.remove(release)
{fill}
async def busy():
    return await asyncio.gather(*(search(f"q{{i}}") for i in range(8)))

starved = asyncio.run(busy())  # the first holds the one thread; the others find none
open(release, "w").close()
stop.set()
for thread in fillers:
    thread.join()
print(json.dumps(starved))
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="RLIMIT_AS caps threads' stacks on Linux"
)
def test_calls_that_find_no_thread_for_a_sync_provider_do_not_cool_it_down(
    write_plugin: Any, stuck_provider: tuple[str, Path]
) -> None:
    """A busy moment of the process is not the provider's failure: before, five such calls
    cooled it down, and the calls after them were refused ("stuck is cooling down")."""
    code, _ = stuck_provider
    register = "\n\ndef register(ctx):\n    ctx.register_web_search_provider(Stuck())\n"
    root = write_plugin("stuck", code + register)
    script = _BUSY_SCRIPT.format(root=str(root), fill=_FILL)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=BOUND,
        env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answers = json.loads(done.stdout)
    starved = [answer for answer in answers if answer.get("detail") != "call_deadline"]
    assert len(starved) == 7, starved
    for envelope in starved:
        assert envelope["error_code"] == "provider_error", envelope
        assert envelope.get("detail") == "no_thread", envelope
        error = envelope["error"]
        assert error.startswith("stuck could not be called: no worker thread could be started")
        assert "at its limit of open files (ulimit -n), threads or memory" in error
