"""Store operations asked for together go to Redis together: one round trip for many.

An operation made on its own costs a store thread two hand-overs of the interpreter (one to
send, one to read the answer). Under a fleet's load the event loop holds the interpreter
most of the time, each hand-over waits up to Python's switch interval (5 ms), and thousands
of concurrent calls queued on the store threads past their deadline: a healthy Redis was
refused as unavailable. Here requests that arrive while a batch is on its way wait for the
next one, which sends them all in one script call (:mod:`.scriptbatch`); each stays its own
atomic operation, so no budget (of money or of requests) is overspent. The budget counters and the shared
rate limiter each keep one :class:`Batcher`.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

from .offload import begin

T = TypeVar("T")
R = TypeVar("R")

#: Requests sent in one round trip at most (a bigger backlog goes in the next ones).
MOST = 1000


class Batcher(Generic[T, R]):
    """Requests queued here are sent by ``send`` (on a store thread) in batches, one batch
    at a time: ``send(requests)`` answers each with a result or the exception it met."""

    def __init__(self, send: Callable[[list[T]], list[R | Exception]]) -> None:
        self._send = send
        self._reset()
        _batchers.add(self)

    def _reset(self) -> None:
        """Empty and idle; in a forked child too, whose parent's sending thread is not there."""
        self._lock = threading.Lock()
        self._queued: list[tuple[T, Future[R]]] = []
        self._sending = False

    def submit(self, request: T) -> Future[R]:
        """Queue ``request``; its future is cancelled (unsent) or answered by the batch it goes in."""
        future: Future[R] = Future()
        with self._lock:
            self._queued.append((request, future))
            if self._sending:
                return future
            self._sending = True
        try:
            begin(self._drain)
        except Exception:
            with self._lock:
                self._sending = False
            raise
        return future

    def _drain(self) -> None:
        while True:
            with self._lock:
                taken, self._queued = self._queued[:MOST], self._queued[MOST:]
                if not taken:
                    self._sending = False
                    return
            live = [(request, future) for request, future in taken if future.set_running_or_notify_cancel()]
            if live:
                self._answer(live)

    def _answer(self, live: list[tuple[T, Future[R]]]) -> None:
        try:
            answers: list[Any] = self._send([request for request, _ in live])
        except Exception as exc:  # noqa: BLE001 - the batch's failure is each request's
            answers = [exc] * len(live)
        for (_, future), answer in zip(live, answers, strict=True):
            if isinstance(answer, Exception):
                future.set_exception(answer)
            else:
                future.set_result(answer)


_batchers: weakref.WeakSet[Batcher[Any, Any]] = weakref.WeakSet()


def _forget() -> None:
    for batcher in list(_batchers):
        batcher._reset()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)
