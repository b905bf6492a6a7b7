"""Running a coroutine on a worker thread's own event loop, where it cannot hold the caller's.

A vendor SDK turns the body it read into its own objects on whichever loop runs it, in
Python, with no ``await`` between: 20 MiB of Parallel or Exa hits (within the 32 MiB body
cap) held the caller's loop 4-6 s, and with it the call's deadline, every hedge timer and
every other call on that loop. :func:`on_own_loop` runs such a coroutine on a worker thread's
loop instead and waits for it on the caller's: the deadline ends the call on time while the
thread finishes, and a cancelled call cancels the coroutine there too.

Each thread keeps its loop between calls, so its connections are reused, as on any loop of
the library's; one call at a time runs on it, so one answer that takes long to read holds up
no other call. A task the coroutine leaves behind (a job being cancelled at its vendor) runs
to its end before the thread takes the next call.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..pools import LazyPool, daemon_loop

T = TypeVar("T")

#: Calls running on their own loop at once; daemon threads, as a thread still reading an answer
#: its caller gave up on must not hold the process open at exit.
_threads = LazyPool(64, "webproviders-own-loop", daemon=True)
#: Each worker thread's loop.
_loops = threading.local()
#: Seconds the tasks a call left behind get to end before they are cancelled.
LEFTOVER_WAIT = 30.0


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop: asyncio.AbstractEventLoop | None = getattr(_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _loops.loop = daemon_loop()
    return loop


class _Run:
    """One call's coroutine on a worker thread's loop; :meth:`stop` may come from the caller's
    thread at any moment (before the task exists, while it runs, after it ended)."""

    def __init__(self) -> None:
        self.stopped = False
        self._cancel: Callable[[], Any] | None = None

    def run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        loop = _thread_loop()
        task = loop.create_task(_awaited(fn, *args))
        self._cancel = lambda: loop.call_soon_threadsafe(task.cancel)
        if self.stopped:  # stopped while the task was being made: the caller has gone
            task.cancel()
        try:
            return loop.run_until_complete(task)
        finally:
            _finish_leftovers(loop)

    def stop(self) -> None:
        self.stopped = True
        cancel = self._cancel
        if cancel is not None:
            cancel()


async def _awaited(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    return await fn(*args)


def _finish_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Run the tasks a call started and did not wait for, so they do not sit on a loop that no
    longer turns until the thread's next call; cancel those still running after a while."""
    left = asyncio.all_tasks(loop)
    if not left:
        return
    _, pending = loop.run_until_complete(asyncio.wait(left, timeout=LEFTOVER_WAIT))
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.wait(pending))


async def on_own_loop(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``await fn(*args)``, run on a worker thread's own event loop in a copy of the caller's
    context (its deadline, its warnings and usage), awaited on the caller's loop.

    Cancelling the caller (its deadline, a hedge won elsewhere) returns at once and cancels
    the coroutine on its loop; code that holds that loop without awaiting finishes there
    first, on a thread no caller waits for.
    """
    run = _Run()
    context = contextvars.copy_context()
    future = asyncio.get_running_loop().run_in_executor(_threads.executor(), context.run, run.run, fn, *args)
    try:
        return await future
    except asyncio.CancelledError:
        run.stop()
        raise


__all__ = ["on_own_loop"]
