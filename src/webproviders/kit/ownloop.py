"""Running a coroutine on a worker thread's own event loop, where it cannot hold the caller's.

A vendor SDK turns the body it read into its own objects on whichever loop runs it, in
Python, with no ``await`` between: 20 MiB of Parallel or Exa hits (within the 32 MiB body
cap) held the caller's loop 4-6 s, and with it the call's deadline, every hedge timer and
every other call on that loop. :func:`on_own_loop` runs such a coroutine on a worker's loop
instead and waits for it on the caller's: the deadline ends the call on time while the
worker finishes, and a cancelled call cancels the coroutine there too.

Each worker is a daemon thread whose loop runs for as long as the process, so its
connections are reused from call to call and ``webproviders.close()`` / ``aclose()`` close
them there, as for any loop running in another thread (a loop that turned only during calls
kept them open after a close, for good). One call at a time is given to a worker, so one
answer that takes long to read holds up no other call; a task a call leaves behind (a job
being cancelled at its vendor) runs on there beside later calls.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import os
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..context import note_queued
from ..errors import NO_THREAD
from ..pools import NoThread, daemon_loop

T = TypeVar("T")

#: Workers at most; daemon threads, as a worker still reading an answer its caller gave up
#: on must not hold the process open at exit.
WORKERS = 64
#: Why a call waited for a worker.
_BUSY = f"all {WORKERS} threads that send SDK requests were busy with other calls"


class _Worker:
    """A daemon thread running its own event loop until the process ends."""

    __slots__ = ("loop",)

    def __init__(self, number: int) -> None:
        try:
            self.loop = daemon_loop()
        except OSError as exc:
            raise NoThread(
                f"no event loop could be made for a worker thread ({exc.strerror})"
            ) from None
        thread = threading.Thread(
            target=self.loop.run_forever, name=f"webproviders-own-loop_{number}", daemon=True
        )
        try:
            thread.start()
        except RuntimeError as exc:
            self.loop.close()
            raise NoThread(f"no worker thread could be started ({exc})") from None


class _Turn:
    """A call waiting for a worker; ``worker`` is set (under the pool's lock) when one is handed to it."""

    __slots__ = ("future", "worker")

    def __init__(self, future: asyncio.Future[None]) -> None:
        self.future = future
        self.worker: _Worker | None = None


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Workers:
    """Up to :data:`WORKERS` workers, started as calls arrive; calls that find them all busy
    wait their turn, first come first served. A worker taken is the caller's own until it is
    given back (:meth:`give`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._started = 0
        self._waiting: collections.deque[_Turn] = collections.deque()

    def free(self) -> _Worker | None:
        """An idle worker, or a new one while fewer than :data:`WORKERS` run; None when all are busy."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
            if self._started >= WORKERS:
                return None
            self._started += 1
            number = self._started - 1
        try:
            return _Worker(number)
        except BaseException:
            with self._lock:
                self._started -= 1
            raise

    async def wait(self) -> _Worker:
        """The next worker given back (:meth:`give`), or one free by then."""
        with self._lock:
            if self._idle or self._started < WORKERS:
                turn = None
            else:
                turn = _Turn(asyncio.get_running_loop().create_future())
                self._waiting.append(turn)
        if turn is None:
            worker = self.free()
            if worker is not None:
                return worker
            return await self.wait()
        try:
            await turn.future
        except BaseException:
            with self._lock:
                given, turn.worker = turn.worker, None
                if turn in self._waiting:
                    self._waiting.remove(turn)
            if given is not None:  # handed over just as the caller left: the next call's
                self.give(given)
            raise
        assert turn.worker is not None  # set before the future was woken
        return turn.worker

    def give(self, worker: _Worker) -> None:
        """``worker`` is free again: to the call waiting longest whose loop is turning (one
        on a loop stopped mid-call would keep it until that loop ran again), else idle."""
        with self._lock:
            for turn in list(self._waiting):
                loop = turn.future.get_loop()
                if loop.is_closed():  # that call is gone
                    self._waiting.remove(turn)
                elif loop.is_running():
                    self._waiting.remove(turn)
                    turn.worker = worker
                    loop.call_soon_threadsafe(_wake, turn.future)
                    return
            self._idle.append(worker)


_workers = _Workers()
#: In a forked child, the parent's pool: its loops are kept, never closed (closing one would
#: take its descriptors out of the epoll set the child shares with the parent).
_inherited: list[_Workers] = []


def _forget_workers() -> None:
    """In a forked child the workers' threads stayed in the parent: the child starts its own."""
    global _workers
    _inherited.append(_workers)
    _workers = _Workers()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


class _Run:
    """One call's coroutine as a task on a worker's loop, its outcome handed to the caller's loop."""

    __slots__ = ("answer", "task", "workers", "worker")

    def __init__(self, workers: _Workers, worker: _Worker) -> None:
        self.workers = workers
        self.worker = worker
        self.answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.task: asyncio.Future[Any] | None = None

    def start(self, fn: Callable[..., Awaitable[Any]], args: tuple[Any, ...]) -> None:
        """On the worker's loop, in the caller's context (its deadline, warnings and usage)."""
        self.task = asyncio.ensure_future(_awaited(fn, args))  # fn's own failure ends the task too
        self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Future[Any]) -> None:
        self.workers.give(self.worker)
        if self.answer.done():  # the caller has gone: nobody reads the outcome
            if not task.cancelled():
                task.exception()  # read, so that it is not logged as never retrieved
            return
        try:
            self.answer.get_loop().call_soon_threadsafe(_settle, self.answer, task)
        except RuntimeError:  # the caller's loop is closed
            pass

    def cancel(self) -> None:
        """On the worker's loop, after :meth:`start`."""
        if self.task is not None:
            self.task.cancel()


async def _awaited(fn: Callable[..., Awaitable[T]], args: tuple[Any, ...]) -> T:
    return await fn(*args)


def _settle(answer: asyncio.Future[Any], task: asyncio.Future[Any]) -> None:
    if answer.done():
        if not task.cancelled():
            task.exception()
    elif task.cancelled():
        answer.cancel()
    elif task.exception() is not None:
        answer.set_exception(task.exception())  # type: ignore[arg-type]
    else:
        answer.set_result(task.result())


async def on_own_loop(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``await fn(*args)``, run on a worker thread's own event loop in a copy of the caller's
    context (its deadline, its warnings and usage), awaited on the caller's loop.

    Cancelling the caller (its deadline, a hedge won elsewhere) returns at once and cancels
    the coroutine on its loop; code that holds that loop without awaiting finishes there
    first, on a thread no caller waits for.
    """
    workers = _workers
    worker = workers.free()
    if worker is None:  # all busy: the wait is this process's time, not the vendor's
        since = time.monotonic()
        try:
            worker = await workers.wait()
        except asyncio.CancelledError:
            note_queued(_BUSY, time.monotonic() - since, sent=False, detail=NO_THREAD)
            raise
        note_queued(_BUSY, time.monotonic() - since, sent=True, detail=NO_THREAD)
    try:
        run = _Run(workers, worker)
        worker.loop.call_soon_threadsafe(run.start, fn, args, context=contextvars.copy_context())
    except BaseException:
        workers.give(worker)
        raise
    try:
        return await run.answer  # type: ignore[no-any-return]
    except asyncio.CancelledError:
        worker.loop.call_soon_threadsafe(run.cancel)
        raise


__all__ = ["on_own_loop"]
