"""Results of other threads' work handed to an event loop with one wake-up per burst.

``asyncio.wrap_future`` wakes the loop once per result: a write to the loop's self-pipe from
the thread that finished the work, which hands the interpreter back and waits for it again.
A store thread answering a batch of a thousand calls did that a thousand times, and beside
a busy loop each wait lasted up to Python's switch interval: setting a batch's results took
up to 1.2 s, past the store's deadline, and a healthy Redis was refused as unresponsive.
Here results that arrive while a wake-up is pending join it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class _Inbox:
    """Finished work waiting to be handed to one event loop's waiters."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._arrived: list[tuple[asyncio.Future[Any], Future[Any]]] = []
        self._woken = False

    def post(self, waiter: asyncio.Future[Any], done: Future[Any]) -> None:
        """On any thread: hand ``done``'s outcome to ``waiter``, waking the loop only if no
        wake-up is on its way already."""
        with self._lock:
            self._arrived.append((waiter, done))
            if self._woken:
                return
            self._woken = True
        try:
            self._loop.call_soon_threadsafe(self._deliver)
        except RuntimeError:  # the loop is closed: nobody is left to wait
            with self._lock:
                self._arrived.clear()
                self._woken = False

    def _deliver(self) -> None:
        with self._lock:
            arrived, self._arrived, self._woken = self._arrived, [], False
        for waiter, done in arrived:
            if waiter.done():  # cancelled meanwhile (a timeout, or the caller left)
                continue
            if done.cancelled():
                waiter.cancel()
            elif (problem := done.exception()) is not None:
                waiter.set_exception(problem)
            else:
                waiter.set_result(done.result())


_inboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Inbox] = weakref.WeakKeyDictionary()
_inboxes_lock = threading.Lock()


def _inbox(loop: asyncio.AbstractEventLoop) -> _Inbox:
    with _inboxes_lock:
        inbox = _inboxes.get(loop)
        if inbox is None:
            inbox = _inboxes[loop] = _Inbox(loop)
        return inbox


def _forget() -> None:
    """In a forked child: a lock a parent's thread held as it forked would stay held there
    for good; the parent's loops' inboxes (and their locks) are not the child's to use."""
    global _inboxes_lock
    _inboxes_lock = threading.Lock()
    _inboxes.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


def awaitable(work: Future[T]) -> asyncio.Future[T]:
    """``work``'s outcome on the running loop, as ``asyncio.wrap_future`` gives it (cancelling
    the waiter cancels ``work`` if it has not started), with wake-ups shared by a burst."""
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[T] = loop.create_future()
    inbox = _inbox(loop)

    def cancel_work(waited: asyncio.Future[T]) -> None:
        if waited.cancelled():
            work.cancel()

    waiter.add_done_callback(cancel_work)
    work.add_done_callback(lambda finished: inbox.post(waiter, finished))
    return waiter
