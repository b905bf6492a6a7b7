"""Awaiting a provider's coroutine for a bounded time, in a task of its own.

Awaited in the call's own task, a coroutine that catches its cancellation and goes on (a
bare ``except:`` around a retry loop, an SDK's shielded clean-up that waits on the network)
held the call until it chose to end, far past the deadline. In a task of its own it is
cancelled at the deadline, given :data:`UNWIND_GRACE` to unwind (close its connections), and
left behind if it ignores that, as a sync provider's thread is abandoned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from ..errors import PluginRaised
from ..redact import get_logger

T = TypeVar("T")

log = get_logger("webproviders.dispatch")

#: Seconds a provider cancelled at its deadline (or by its caller) is given to unwind before
#: the call goes on without it.
UNWIND_GRACE = 0.25

#: Coroutines that ignored their cancellation, referenced until they end (a task nothing
#: references may be collected while it runs).
_left_running: set[asyncio.Task[Any]] = set()


async def _contained(awaitable: Awaitable[T]) -> T:
    """``await awaitable``, with what a provider raises that is not an ordinary exception
    (``SystemExit``, a ``BaseException`` of its own) made its failure: raised out of a task,
    it would leave the event loop instead of reaching the call. A ``KeyboardInterrupt``
    is the user's Ctrl-C and goes on. A ``TimeoutError`` it raises is its own failure too:
    only the call's bound running out is the call's timeout ("did not answer within 9.4 s"),
    not an SDK's or a socket's time limit that ran out after 50 ms."""
    try:
        return await awaitable
    except (TimeoutError, asyncio.TimeoutError) as exc:
        raise PluginRaised(exc) from None
    except (Exception, KeyboardInterrupt, asyncio.CancelledError):
        raise
    except BaseException as exc:  # noqa: BLE001 - see the docstring
        raise PluginRaised(exc) from None


async def bounded(awaitable: Awaitable[T], seconds: float, owner: str) -> T:
    """``await awaitable`` for at most ``seconds``; ``asyncio.TimeoutError`` past them.

    The caller's cancellation cancels it too and is passed on, whatever it had come to. A
    ``CancelledError`` that nothing here asked for (a task of the provider's own that was
    cancelled, awaited) is the provider's failure. ``owner`` names it in the log line said
    when it has to be left running.
    """
    loop = asyncio.get_running_loop()
    ends = loop.time() + max(0.0, seconds)
    task = asyncio.ensure_future(_contained(awaitable))
    try:
        await asyncio.wait((task,), timeout=max(0.0, seconds))
    except asyncio.CancelledError:
        await _stop(task, owner, "when its call gave it up (another provider answered first, or the caller left)")
        raise
    if not task.done():
        await _stop(task, owner, "at its deadline")
        raise asyncio.TimeoutError
    if task.cancelled():
        raise PluginRaised(asyncio.CancelledError())
    if loop.time() >= ends and task.exception() is not None:
        # It failed as the bound ran out, its own limit set to the same deadline (a vendor
        # request's): the call's timeout is told, as of two nested timeouts the outer is.
        raise asyncio.TimeoutError
    return task.result()


async def _stop(task: asyncio.Task[Any], owner: str, when: str) -> None:
    """Cancel ``task`` and wait for it to unwind, at most :data:`UNWIND_GRACE`; ``when`` says
    why it was cancelled, in the log line said when it has to be left running."""
    task.cancel()
    try:
        await asyncio.wait((task,), timeout=UNWIND_GRACE)
    finally:
        if task.done():
            _taken(task)
        else:
            log.warning(
                "%s went on after it was cancelled %s; the call ended without it, and it is left running.",
                owner, when,
            )
            _left_running.add(task)
            task.add_done_callback(_ended)


def _ended(task: asyncio.Task[Any]) -> None:
    _left_running.discard(task)
    _taken(task)


def _taken(task: asyncio.Task[Any]) -> None:
    """Its outcome taken: a call that left is not told of it, nor is asyncio's log."""
    if not task.cancelled():
        task.exception()
