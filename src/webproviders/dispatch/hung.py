"""Sync provider calls still running after their deadline, counted per provider.

A worker thread cannot be stopped: a sync provider method stuck in a read without a timeout
keeps its thread after the call has given up on it. A provider may keep at most
:data:`MAX_HUNG` threads so; past that it is not called again until one of them returns.
Else one broken provider took all 64 worker threads, and every other sync provider's calls
waited in the queue until their deadlines, reported as their own timeouts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import WebTimeoutError

T = TypeVar("T")

#: Threads one provider may keep past its calls' deadlines.
MAX_HUNG = 8

_counts: dict[int, int] = {}
_lock = threading.Lock()


def _add(owner: int, step: int) -> None:
    count = _counts.get(owner, 0) + step
    if count:
        _counts[owner] = count
    else:
        del _counts[owner]


def refuse_if_hung(provider: Any) -> None:
    """Raise ``timeout`` at once when ``provider`` keeps :data:`MAX_HUNG` threads already."""
    hung = _counts.get(id(provider), 0)
    if hung >= MAX_HUNG:
        name = getattr(provider, "name", None) or "The provider"
        raise WebTimeoutError(
            f"{name} has {hung} calls still running past their deadlines; it is not called "
            "again until one of them returns."
        )


class Watch:
    """One sync call of ``provider``'s: run on a worker thread, perhaps abandoned by its caller."""

    __slots__ = ("_owner", "_started", "_abandoned", "_ended")

    def __init__(self, provider: Any) -> None:
        self._owner = id(provider)
        self._started = self._abandoned = self._ended = False

    def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)``, counted as hung while it runs past :meth:`abandon`."""
        with _lock:
            self._started = True
            if self._abandoned:  # it left the queue after its deadline
                _add(self._owner, 1)
        try:
            return fn(*args, **kwargs)
        finally:
            with _lock:
                self._ended = True
                if self._abandoned:
                    _add(self._owner, -1)

    def abandon(self) -> None:
        """The caller gave up on the call (its deadline passed): a running thread now counts."""
        with _lock:
            if self._abandoned or self._ended:
                return
            self._abandoned = True
            if self._started:
                _add(self._owner, 1)
