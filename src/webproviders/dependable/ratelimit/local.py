"""An in-process request budget: a sliding window of slots, reserved under a thread lock.

A budget of N requests per period lets at most N requests start in any span of that length:
the first N start at once, and the next one at the earliest when the N-th latest is a period
old. Requests under the budget never wait, as the vendor's own per-minute windows allow. A
caller reserves the next free slot and is told how long to wait for it; the wait is slept
with ``asyncio.sleep`` on whatever loop the caller runs, so the limiter works across loops
and threads alike. A slot whose caller left while waiting for it is given back, and taken by
the next caller it suits, as in the shared limiter (:mod:`.redis_limiter`).
"""

from __future__ import annotations

import bisect
import threading
import time
from collections import deque
from collections.abc import Callable

from .spec import Rate


class LocalLimiter:
    """Slots and pauses per provider name, for this process."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        #: The latest slots given per provider (as many as its budget's window counts).
        self._slots: dict[str, deque[float]] = {}
        self._paused: dict[str, float] = {}
        #: Slots given back per provider (sorted): still counted in the window, free to take.
        self._back: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def reserve(self, name: str, rate: Rate | None, max_wait: float) -> tuple[float, bool, float | None]:
        """``(wait, reserved, slot)``: seconds until the slot, whether it was taken, and the
        slot (for :meth:`give_back`; None without a budget).

        A slot further away than ``max_wait`` is not taken (the caller gives up instead).
        """
        if rate is None and name not in self._paused:
            return 0.0, True, None
        with self._lock:
            now = self.clock()
            start = max(now, self._paused.get(name, 0.0))
            if rate is None:
                wait = start - now
                return wait, wait <= max_wait, None
            count, span = rate.window
            slots = self._slots.get(name)
            if slots is None or slots.maxlen != count:
                slots = self._slots[name] = deque(maxlen=count)
            slot = max(slots[0] + span, start) if len(slots) == count else start
            back = self._back.get(name)
            if back:
                del back[: bisect.bisect_left(back, start)]  # passed unused, or inside a pause
                if back and back[0] <= slot and back[0] - now <= max_wait:
                    given = back.pop(0)
                    return given - now, True, given
            wait = slot - now
            if wait > max_wait:
                return wait, False, None
            slots.append(slot)
            return wait, True, slot

    def give_back(self, name: str, slot: float) -> None:
        """Offer ``slot``, taken for a request that will not be sent (its caller left while
        waiting), to the next caller it suits: it stays counted in the window, so the budget
        holds, and the next caller does not wait a period more for nothing."""
        with self._lock:
            if slot > self.clock():
                bisect.insort(self._back.setdefault(name, []), slot)

    def pause(self, name: str, seconds: float) -> None:
        """Hold every caller of ``name`` back for ``seconds`` (a vendor's ``Retry-After``)."""
        with self._lock:
            until = self.clock() + seconds
            if until > self._paused.get(name, 0.0):
                self._paused[name] = until

    def paused_for(self, name: str) -> float:
        """Seconds left in a pause of ``name`` (0 when not paused)."""
        until = self._paused.get(name)
        if until is None:
            return 0.0
        left = until - self.clock()
        if left <= 0:
            with self._lock:
                if self._paused.get(name, 0.0) <= self.clock():
                    self._paused.pop(name, None)
            return 0.0
        return left
