"""Sync provider calls still running after their deadline, counted per provider.

A worker thread cannot be stopped: a sync provider method stuck in a read without a timeout
keeps its thread after the call has given up on it. A provider may keep at most
:data:`MAX_HUNG` threads so; past that it is not called again until one of them returns.
Else one broken provider took all 64 worker threads, and every other sync provider's calls
waited in the queue until their deadlines, reported as their own timeouts.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import WebTimeoutError

T = TypeVar("T")

#: Threads one provider may keep past its calls' deadlines.
MAX_HUNG = 8

#: Per provider, its calls that were given up on and are still running.
_abandoned: dict[int, set[Watch]] = {}
_lock = threading.Lock()


class HungRefusal(WebTimeoutError):
    """A call refused because its provider keeps too many hung threads: nothing was sent,
    so nothing is charged, recorded in the usage ledger or held against a budget."""


def refuse_if_hung(provider: Any) -> None:
    """Raise ``timeout`` (:class:`HungRefusal`) at once when ``provider`` keeps
    :data:`MAX_HUNG` threads already."""
    if id(provider) not in _abandoned:
        return
    now = time.monotonic()
    with _lock:
        hung = sum(watch.due <= now for watch in _abandoned.get(id(provider), ()))
    if hung >= MAX_HUNG:
        name = getattr(provider, "name", None) or "The provider"
        raise HungRefusal(
            f"{name} has {hung} calls still running past their deadlines; it is not called "
            "again until one of them returns."
        )


class Watch:
    """One sync call of ``provider``'s, given ``timeout`` seconds: run on a worker thread,
    perhaps abandoned by its caller. It counts as hung while it runs past both its abandonment
    and its deadline: a call its caller cancelled sooner (a hedged chain's loser, a task
    cancelled by its caller) is not stuck, only no longer waited for."""

    __slots__ = ("_owner", "due", "_started", "_abandoned", "_ended")

    def __init__(self, provider: Any, timeout: float) -> None:
        self._owner = id(provider)
        self.due = time.monotonic() + timeout
        self._started = self._abandoned = self._ended = False

    def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)``, watched once :meth:`abandon` has been called."""
        with _lock:
            self._started = True
            if self._abandoned:  # it left the queue after its caller gave up on it
                _abandoned.setdefault(self._owner, set()).add(self)
        try:
            return fn(*args, **kwargs)
        finally:
            with _lock:
                self._ended = True
                if self._abandoned:
                    _forget(self)

    def abandon(self) -> None:
        """The caller gave up on the call (its deadline passed, or it was cancelled)."""
        with _lock:
            if self._abandoned or self._ended:
                return
            self._abandoned = True
            if self._started:
                _abandoned.setdefault(self._owner, set()).add(self)


def _forget(watch: Watch) -> None:
    watches = _abandoned.get(watch._owner)
    if watches is not None:
        watches.discard(watch)
        if not watches:
            del _abandoned[watch._owner]


def _forget_all() -> None:
    """In a forked child: the calls still running were on the parent's threads, which the
    child does not have; counted there, they would never return and the provider would be
    refused in the child for good."""
    global _lock
    _lock = threading.Lock()
    _abandoned.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_all)
