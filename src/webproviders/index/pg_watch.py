"""A bound, on this side, on each wait for a PostgreSQL server's answer.

``statement_timeout`` is the server's own: a server that stopped (a host that hangs, a
process stopped by the kernel) or a peer that takes the connection and never answers never
applies it, and psycopg waits for the answer for ever. So every wait of a
:class:`WatchedConnection` is given a number of seconds (its ``limit``); one that has had no
answer by then is ended by shutting the connection's socket down, which wakes the wait with
end-of-file, and comes out as :class:`Unanswered`. The connection is broken then, so a pool
replaces it rather than lending it out again.

One thread keeps the deadlines of every wait in the process, so a wait costs a heap push
and pop rather than a thread.
"""

from __future__ import annotations

import heapq
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg


class Unanswered(psycopg.OperationalError):
    """The server gave no answer within the wait's limit; the connection was cut."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no answer within {seconds:.1f} s; the connection was closed")
        self.seconds = seconds


class _Wait:
    __slots__ = ("deadline", "fd", "fired", "armed")

    def __init__(self, fd: int, deadline: float) -> None:
        self.fd = fd
        self.deadline = deadline
        self.fired = False
        self.armed = True

    def __lt__(self, other: _Wait) -> bool:
        return self.deadline < other.deadline


class _Watch:
    """The waits under way, earliest deadline first, and the thread that ends the late ones."""

    def __init__(self) -> None:
        self._reset()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._reset)  # the parent's thread is not the child's

    def _reset(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._waits: list[_Wait] = []
        self._thread: threading.Thread | None = None

    def arm(self, fd: int, seconds: float) -> _Wait:
        wait = _Wait(fd, time.monotonic() + seconds)
        with self._cond:
            heapq.heappush(self._waits, wait)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="webproviders-index-watch", daemon=True)
                self._thread.start()
            elif self._waits[0] is wait:
                self._cond.notify()
        return wait

    def disarm(self, wait: _Wait) -> bool:
        """Stop watching ``wait``; whether its deadline had cut the connection."""
        with self._cond:
            wait.armed = False
            return wait.fired

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._waits and not self._waits[0].armed:
                    heapq.heappop(self._waits)
                if not self._waits:
                    self._cond.wait()
                    continue
                left = self._waits[0].deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                late = heapq.heappop(self._waits)
                late.fired = True
                _cut(late.fd)  # under the lock: the waiting thread has not let go of the socket


def _cut(fd: int) -> None:
    """Shut the socket down (on a copy of the descriptor, which the connection keeps open)."""
    try:
        with socket.socket(fileno=os.dup(fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # closed already: the wait has ended


_WATCH = _Watch()


class WatchedConnection(psycopg.Connection[Any]):
    """A connection whose every wait for the server ends within ``limit()`` seconds."""

    #: Seconds the next wait may take; None (or returning None): no bound.
    limit: Callable[[], float | None] | None = None

    def wait(self, *args: Any, **kwargs: Any) -> Any:
        seconds = self.limit() if self.limit is not None else None
        if seconds is None or self.closed:
            return super().wait(*args, **kwargs)
        watched = _WATCH.arm(self.pgconn.socket, seconds)
        try:
            return super().wait(*args, **kwargs)
        except psycopg.Error:
            if _WATCH.disarm(watched):
                raise Unanswered(seconds) from None
            raise
        finally:
            _WATCH.disarm(watched)
