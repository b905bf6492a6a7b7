"""A hedged race: members start one after another after a silence; the first accepted answer wins.

A chain with ``hedge_after`` does not wait out a hung provider: when no member has answered
within ``delay`` seconds of the latest start, the next one starts beside it; a member that
fails starts the next at once when no other is running. When an answer is accepted the
members still running are cancelled (async code is cancelled, sync code in a worker thread
is abandoned and its late answer dropped) and awaited, so their records and costs are in
before the call ends. What an outcome means is the caller's business (:mod:`.chain`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

#: Seconds past the call's deadline that members get to report their own timeout before
#: they are cancelled (each one is bounded by the deadline already).
GRACE = 0.25


class NotTried(Exception):
    """How a member ends when it turned out it could not be tried (nothing was sent): it is
    no answer to judge, and the next member starts at once."""


class Deferred(NotTried):
    """A member that could not be tried because of what the members running beside it hold
    (a budget their reservations fill): the next member starts at once, and this one is
    started again when one of them has ended without winning (and may have given it back)."""


def _outcome(future: asyncio.Future[Any]) -> Any:
    """A finished member's answer, or the exception it ended with."""
    if future.cancelled():
        return asyncio.CancelledError()
    return future.exception() or future.result()


async def race(
    count: int,
    start: Callable[[int], Awaitable[Any]],
    accept: Callable[[int, Any, bool], bool],
    stopped: Callable[[], bool],
    delay: float,
    remaining: Callable[[], float],
) -> tuple[int | None, list[int]]:
    """Run members ``0 .. count-1`` staggered by ``delay``; returns ``(winner, cancelled)``.

    ``start(index)`` returns the member's awaitable; one that ends with :class:`NotTried`
    could not be tried, and the next one is started at once; one that ends with
    :class:`Deferred` is started again, before any later one, once another member has ended
    without winning. ``accept(index, outcome,
    others)`` judges a finished member (``others``: another may still answer) and says
    whether it wins. No member starts once ``stopped()``, nor, but the first, once the
    deadline (``remaining()``) has passed. ``cancelled`` lists the members
    that were still running at the end: the winner's rivals, or those that outlived the
    deadline (``remaining()``).
    """
    running: dict[asyncio.Future[Any], int] = {}
    upcoming = 0
    last_start = 0.0
    deferred: list[int] = []

    def launch(index: int | None = None) -> None:
        nonlocal upcoming, last_start
        if not may_start() or (index is None and upcoming >= count):
            return
        if index is None:
            index, upcoming = upcoming, upcoming + 1
        running[asyncio.ensure_future(start(index))] = index
        last_start = time.monotonic()

    def may_start() -> bool:
        # Past the deadline nothing more starts: a member started then could only time out,
        # and was recorded as a plugin too slow to say whether it could run.
        return not stopped() and (upcoming == 0 or remaining() > 0)

    def more() -> bool:
        return upcoming < count and may_start()

    launch()
    try:
        while running:
            left = remaining() + GRACE
            if left <= 0:
                break
            hedge_in = last_start + delay - time.monotonic() if more() else math.inf
            if hedge_in <= 0:
                launch()
                continue
            done, _ = await asyncio.wait(
                list(running), timeout=min(hedge_in, left), return_when=asyncio.FIRST_COMPLETED
            )
            finished = sorted((running.pop(future), future) for future in done)
            outcomes = [(index, _outcome(future)) for index, future in finished]
            untried = sum(isinstance(outcome, NotTried) for _, outcome in outcomes)
            judged = [(index, outcome) for index, outcome in outcomes if not isinstance(outcome, NotTried)]
            for position, (index, outcome) in enumerate(judged):
                others = bool(running) or position + 1 < len(judged) or bool(deferred) or more()
                if accept(index, outcome, others):
                    return index, sorted(running.values())
            again = deferred[:] if any(not isinstance(outcome, Deferred) for _, outcome in outcomes) else []
            deferred[:] = [index for index in deferred if index not in again]
            deferred.extend(index for index, outcome in outcomes if isinstance(outcome, Deferred))
            for index in again:
                launch(index)
            for _ in range(max(untried, 0 if running else 1)):
                launch()
        return None, sorted(running.values())
    finally:
        for future in running:
            future.cancel()
        if running:
            await asyncio.wait(list(running), timeout=max(0.0, remaining()) + GRACE)
