"""``asyncio.timeout`` on every supported Python (the ``async-timeout`` backport before 3.11),
and :func:`within`, the one way the library awaits something for a bounded time.

It bounds the awaiting task itself. ``asyncio.wait_for`` before 3.12 runs the awaitable in a
task of its own instead: a ``SystemExit`` raised there leaves the event loop rather than
reaching the awaiting code, that task's own timeout can beat the deadline to an answer, and
a cancellation that arrives as that task finishes is dropped (the result is returned, the
caller's ``task.cancel()`` or ``asyncio.timeout`` goes unheeded and the call runs on).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import TypeVar

if sys.version_info >= (3, 11):
    from asyncio import timeout
else:  # pragma: no cover - Python 3.10
    from async_timeout import timeout

__all__ = ["cancelled_here", "timeout", "within"]

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """``await awaitable`` in the current task, for at most ``seconds`` (None: no bound);
    ``asyncio.TimeoutError`` past them. Used instead of ``asyncio.wait_for`` (see the module's
    note). With no time at all, what has not finished is not started, as with ``wait_for``:
    a coroutine run up to its first wait would say why in words of its own."""
    if seconds is not None and seconds <= 0:
        future = asyncio.ensure_future(awaitable)
        if not future.done():
            future.cancel()
            await asyncio.wait([future])  # it has unwound when this returns
        if future.cancelled():
            raise asyncio.TimeoutError
        return future.result()
    async with timeout(seconds):
        return await awaitable


def cancelled_here() -> bool:
    """Whether a ``CancelledError`` is the current task's own cancellation (its deadline, its
    caller) rather than one that code it runs raised (a task of its own that was cancelled).
    Python 3.10 cannot tell: there every one is a cancellation."""
    cancelling = getattr(asyncio.current_task(), "cancelling", None)
    return cancelling is None or cancelling() > 0
