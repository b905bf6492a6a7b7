"""An in-process request budget: a sliding window of slots, reserved under a thread lock.

A budget of N requests per period lets at most N requests start in any span of that length:
the first N start at once, and the next one at the earliest when the N-th latest is a period
old. Requests under the budget never wait, as the vendor's own per-minute windows allow. A
caller reserves the next free slot and is told how long to wait for it; the wait is slept
with ``asyncio.sleep`` on whatever loop the caller runs, so the limiter works across loops
and threads alike.
"""

from __future__ import annotations

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
        self._lock = threading.Lock()

    def reserve(self, name: str, rate: Rate | None, max_wait: float) -> tuple[float, bool]:
        """``(wait, reserved)``: seconds until the slot, and whether it was taken.

        A slot further away than ``max_wait`` is not taken (the caller gives up instead).
        """
        if rate is None and name not in self._paused:
            return 0.0, True
        with self._lock:
            now = self.clock()
            start = max(now, self._paused.get(name, 0.0))
            if rate is None:
                wait = start - now
                return wait, wait <= max_wait
            count, span = rate.window
            slots = self._slots.get(name)
            if slots is None or slots.maxlen != count:
                slots = self._slots[name] = deque(maxlen=count)
            slot = max(slots[0] + span, start) if len(slots) == count else start
            wait = slot - now
            if wait > max_wait:
                return wait, False
            slots.append(slot)
            return wait, True

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
