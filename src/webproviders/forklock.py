"""A lock around first-use set-up that a fork waits for.

A thread setting something up under such a lock (a registry's dispatch state, the
OpenTelemetry instruments: each imports modules on first use) as another thread forks left it
held in the child, where that thread does not exist, and the modules it was importing held by
their import locks there: every call of the child waited on them, past its deadline. So a fork
takes the lock first (waiting at most :data:`FORK_WAIT` seconds for the set-up to end), and
the child starts with a fresh one.
"""

from __future__ import annotations

import os
import threading

#: Seconds a fork waits for a set-up under way (an import of the HTTP stack or OpenTelemetry).
FORK_WAIT = 10.0


class ForkLock:
    """A ``threading.Lock`` for ``with``, taken by this process's forks (see the module)."""

    __slots__ = ("_lock", "_taken")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken = False
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(
                before=self._before_fork, after_in_parent=self._after_in_parent, after_in_child=self._after_in_child
            )

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self._lock.release()

    def _before_fork(self) -> None:
        self._taken = self._lock.acquire(timeout=FORK_WAIT)

    def _after_in_parent(self) -> None:
        if self._taken:
            self._taken = False
            self._lock.release()

    def _after_in_child(self) -> None:
        self._lock = threading.Lock()
        self._taken = False
