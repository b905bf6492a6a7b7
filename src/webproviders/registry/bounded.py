"""Calling plugin code that may hang (``register()``, ``is_available()``) with a time bound.

Python cannot stop a thread, so such a call runs on a daemon worker thread while the caller
waits at most ``timeout`` seconds. A call that overruns is left to finish, or hang, on its
own: its worker serves again only once it returns, and daemon threads do not hold up
interpreter exit. Idle workers are kept for the next call, so a bounded call costs one
thread hand-off, not a new thread.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from ..pools import NoThread

T = TypeVar("T")


class Raised(Exception):
    """A ``KeyboardInterrupt`` the plugin's code raised on the worker: handed to the waiting
    caller as this, so that it is the plugin's failure, not taken for the user's Ctrl-C."""

    def __init__(self, raised: BaseException) -> None:
        super().__init__(raised)
        self.raised = raised


class Overran(Exception):
    """The call did not return in time; ``future`` resolves if it ever does."""

    def __init__(self, future: Future[Any]) -> None:
        super().__init__("the call did not return in time")
        self.future = future


class _Worker:
    """One daemon thread running the jobs handed to it, one at a time."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]]] = queue.SimpleQueue()
        threading.Thread(target=self._run, name="webproviders-plugin-call", daemon=True).start()

    def _run(self) -> None:
        while True:
            fn, args, future = self.jobs.get()
            try:
                future.set_result(fn(*args))
            except KeyboardInterrupt as exc:
                future.set_exception(Raised(exc))
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
                future.set_exception(exc)


_idle: list[_Worker] = []
_lock = threading.Lock()


def call_bounded(fn: Callable[..., T], timeout: float, *args: Any) -> T:
    """``fn(*args)``, or :class:`Overran` after ``timeout`` seconds; ``fn``'s own error is re-raised."""
    with _lock:
        worker = _idle.pop() if _idle else None
    if worker is None:
        try:
            worker = _Worker()
        except RuntimeError as exc:  # before any plugin code ran: not the plugin's failure
            raise NoThread(f"no worker thread could be started ({exc})") from None
    future: Future[T] = Future()
    worker.jobs.put((fn, args, future))
    try:
        result = future.result(max(0.0, timeout))
    except FutureTimeout:
        future.add_done_callback(lambda _done: _return(worker))
        raise Overran(future) from None
    except BaseException:
        _return(worker)
        raise
    _return(worker)
    return result


def _return(worker: _Worker) -> None:
    with _lock:
        _idle.append(worker)


def _forget_workers() -> None:
    """In a forked child: the idle workers' threads stayed in the parent, so a job handed to
    one would never run (every bounded call would overrun); the child starts its own."""
    global _lock
    _idle.clear()
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)
