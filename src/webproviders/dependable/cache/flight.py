"""Single flight inside one process: concurrent identical calls share one upstream call.

Loop-agnostic on purpose: the shared result is a ``concurrent.futures.Future`` guarded by a
thread lock, and each waiter awaits it through ``asyncio.wrap_future`` on its own loop, so
callers on the background loop, on per-thread loops and on users' loops all join the same
flight.

A flight also says by when its leader's call ends (its deadline). A leader whose event loop
stops running for good (closed or stopped with the call's task still pending) never lands
its flight; waiters take such a flight for abandoned once that time is past
(:data:`LEADER_GRACE` later), rather than waiting on it to their own deadlines.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

#: Seconds past its leader's deadline after which an unlanded flight is taken for abandoned:
#: a leader cut off at its deadline lands within a fraction of that (its provider is given
#: 0.25 s to unwind).
LEADER_GRACE = 1.0


class Flights:
    """In-flight fetches by cache key."""

    def __init__(self) -> None:
        self._flights: dict[str, tuple[Future[Any], float]] = {}
        self._lock = threading.Lock()

    def join(self, key: str, ends: float) -> tuple[Future[Any], bool, float]:
        """``(future, leader, abandoned_at)``: the leader fetches and must :meth:`land`; others
        wait, until ``abandoned_at`` at most (``time.monotonic()``). ``ends`` is when this
        caller's own call ends, by the same clock."""
        with self._lock:
            flight = self._flights.get(key)
            if flight is not None:
                return flight[0], False, flight[1]
            future: Future[Any] = Future()
            self._flights[key] = (future, ends + LEADER_GRACE)
            return future, True, ends + LEADER_GRACE

    def land(self, key: str, future: Future[Any]) -> None:
        """Forget the flight (its future is already resolved by the leader)."""
        with self._lock:
            flight = self._flights.get(key)
            if flight is not None and flight[0] is future:
                del self._flights[key]

    def __len__(self) -> int:
        return len(self._flights)
