"""Running a coroutine on a worker thread's own event loop, where it cannot hold the caller's.

A vendor SDK turns the body it read into its own objects on whichever loop runs it, in
Python, with no ``await`` between: 20 MiB of Parallel or Exa hits (within the 32 MiB body
cap) held the caller's loop 4-6 s, and with it the call's deadline, every hedge timer and
every other call on that loop. :func:`on_own_loop` runs such a coroutine on a worker thread's
loop instead and waits for it on the caller's: the deadline ends the call on time while the
thread finishes, and a cancelled call cancels the coroutine there too.

Each thread keeps its loop, and that loop its connections, between calls; one call at a time
runs on it, so one answer that takes long to read holds up no other call. The thread that
finished last takes the next call: calls made one after another (an agent's searches) reuse
one thread's warm connections instead of going round every thread a burst of calls started,
each with a connection that had expired (httpx keeps an idle one 5 s). A task the coroutine
leaves behind (a job being cancelled at its vendor) runs to its end before the thread takes
the next call.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import os
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..pools import NoThread, daemon_loop

T = TypeVar("T")

#: Calls running on their own loop at once; more wait in line for a thread (within their
#: deadline). Daemon threads: one still reading an answer its caller gave up on must not hold
#: the process open at exit.
THREADS = 64
#: Seconds the tasks a call left behind get to end before they are cancelled.
LEFTOVER_WAIT = 30.0

#: One call for a loop thread: runs the caller's coroutine on the loop it is given, and
#: returns what hands the outcome to the caller (called once the thread is free again).
_Job = Callable[[asyncio.AbstractEventLoop], Callable[[], None]]


class _LoopThread:
    """A daemon thread with an event loop of its own, running the calls it is given in turn."""

    def __init__(self, pool: _Threads, first: _Job, number: int) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._jobs.put(first)
        self._pool = pool
        self._loop = daemon_loop()  # here, so that a process out of descriptors fails the call at once
        try:
            threading.Thread(target=self._serve, name=f"webproviders-own-loop_{number}", daemon=True).start()
        except BaseException:
            self._loop.close()
            raise

    def give(self, job: _Job) -> None:
        self._jobs.put(job)

    def _serve(self) -> None:
        job: _Job | None = self._jobs.get()
        while True:
            hand_over = job(self._loop)  # type: ignore[misc]
            # Free before the caller hears: its next call finds this thread, and its connections.
            job = self._pool.returned(self)
            hand_over()
            if job is None:
                job = self._jobs.get()


class _Threads:
    """The loop threads: idle ones on a stack (the last to finish is the first to go again),
    started as calls arrive up to :data:`THREADS`, calls beyond that in line."""

    def __init__(self) -> None:
        self._idle: list[_LoopThread] = []
        self._started = 0
        self._waiting: collections.deque[_Job] = collections.deque()
        self._lock = threading.Lock()

    def submit(self, job: _Job) -> None:
        with self._lock:
            if self._idle:
                idle = self._idle.pop()
            elif self._started < THREADS:
                self._started += 1
                idle, number = None, self._started
            else:
                self._waiting.append(job)
                return
        if idle is not None:
            idle.give(job)
            return
        try:
            _LoopThread(self, job, number)
        except (RuntimeError, OSError) as exc:  # the process is at its limit of threads or descriptors
            with self._lock:
                self._started -= 1
            raise NoThread(f"no worker thread with an event loop could be started ({exc})") from None

    def returned(self, thread: _LoopThread) -> _Job | None:
        """A thread's call has ended: the next call in line for it, or None (it waits idle)."""
        with self._lock:
            if self._waiting:
                return self._waiting.popleft()
            self._idle.append(thread)
            return None


_threads = _Threads()


def _forget_threads() -> None:
    """In a forked child: the threads stayed in the parent; the child starts its own."""
    global _threads
    _threads = _Threads()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_threads)


class _Run:
    """One call's coroutine on a loop thread; :meth:`stop` may come from the caller's thread at
    any moment (before the task exists, while it runs, after it ended)."""

    def __init__(self) -> None:
        self.stopped = False
        self._cancel: Callable[[], Any] | None = None

    def run(self, loop: asyncio.AbstractEventLoop, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        task = loop.create_task(_awaited(fn, *args))
        self._cancel = lambda: loop.call_soon_threadsafe(task.cancel)
        if self.stopped:  # stopped while the task was being made: the caller has gone
            task.cancel()
        try:
            return loop.run_until_complete(task)
        finally:
            _finish_leftovers(loop)

    def stop(self) -> None:
        self.stopped = True
        cancel = self._cancel
        if cancel is not None:
            cancel()


async def _awaited(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    return await fn(*args)


def _finish_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Run the tasks a call started and did not wait for, so they do not sit on a loop that no
    longer turns until the thread's next call; cancel those still running after a while."""
    left = asyncio.all_tasks(loop)
    if not left:
        return
    _, pending = loop.run_until_complete(asyncio.wait(left, timeout=LEFTOVER_WAIT))
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.wait(pending))


def _nothing() -> None:
    return None


def _settle(future: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    if future.done():  # the caller stopped waiting
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)  # type: ignore[arg-type]


async def on_own_loop(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``await fn(*args)``, run on a worker thread's own event loop in a copy of the caller's
    context (its deadline, its warnings and usage), awaited on the caller's loop.

    Cancelling the caller (its deadline, a hedge won elsewhere) returns at once and cancels
    the coroutine on its loop; code that holds that loop without awaiting finishes there
    first, on a thread no caller waits for.
    """
    caller = asyncio.get_running_loop()
    future: asyncio.Future[T] = caller.create_future()
    run = _Run()
    context = contextvars.copy_context()

    def job(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
        if run.stopped:  # given up on while it waited for a thread
            return _nothing
        result: T | None = None
        error: BaseException | None = None
        try:
            result = context.run(run.run, loop, fn, *args)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
            error = exc

        def hand_over() -> None:
            try:
                caller.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # the caller's loop has closed: nobody is waiting
                pass

        return hand_over

    _threads.submit(job)
    try:
        return await future
    except asyncio.CancelledError:
        run.stop()
        raise


__all__ = ["on_own_loop"]
