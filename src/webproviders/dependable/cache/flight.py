"""Single flight inside one process: concurrent identical calls share one upstream call.

Loop-agnostic on purpose: the shared result is a ``concurrent.futures.Future`` guarded by a
thread lock, and each waiter awaits it through ``asyncio.wrap_future`` on its own loop, so
callers on the background loop, on per-thread loops and on users' loops all join the same
flight.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any


class Flights:
    """In-flight fetches by cache key."""

    def __init__(self) -> None:
        self._flights: dict[str, Future[Any]] = {}
        self._lock = threading.Lock()

    def join(self, key: str) -> tuple[Future[Any], bool]:
        """``(future, leader)``: the leader fetches and must :meth:`land`; others wait."""
        with self._lock:
            future = self._flights.get(key)
            if future is not None:
                return future, False
            future = self._flights[key] = Future()
            return future, True

    def land(self, key: str, future: Future[Any]) -> None:
        """Forget the flight (its future is already resolved by the leader)."""
        with self._lock:
            if self._flights.get(key) is future:
                del self._flights[key]

    def __len__(self) -> int:
        return len(self._flights)
