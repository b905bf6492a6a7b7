"""Worker thread pools made on first use, so importing the library never starts a thread.

The library keeps separate pools on purpose, each with its own size: sync provider calls
(which may hang and be abandoned), store I/O (which must never queue behind those) and
response decompression (which must never hold up an event loop). This is the one way
they are built, and the one way the library's own event loops get theirs (:func:`daemon_loop`). (Page extraction runs in worker processes instead, see
``webproviders.fetching.extractpool``.)

Every pool has daemon threads (:class:`DaemonThreadPool`), for two reasons.
``ThreadPoolExecutor`` joins its threads when the interpreter exits, so work abandoned at a
deadline that never ends (a sync provider stuck in a read without a timeout, a name lookup
on a resolver that does not answer) would hold a script or the ``webproviders`` command
open long after its answer was printed, for as long as the stuck call lasts. And it refuses
new work once the interpreter starts to shut down (as the main thread returns, before the
other threads are joined), so a call still running in another of the caller's threads then
failed: a compressed page as the provider's error, a store operation as the store's.
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class NoThread(RuntimeError):
    """No worker thread could be started: the process is at its limit of threads or memory."""


class DaemonThreadPool(ThreadPoolExecutor):
    """Up to ``workers`` daemon threads, started as work arrives and reused once idle.

    What ``ThreadPoolExecutor`` does, except that the interpreter does not wait for its
    threads at exit: a thread still stuck in an abandoned call ends with the process. (A
    subclass only so that an event loop takes it as its default executor: it replaces every
    public method and uses none of the base's machinery.)
    """

    def __init__(self, workers: int, name: str) -> None:
        super().__init__(workers, name)
        self._workers = workers
        self._name = name
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None] = (
            queue.SimpleQueue()
        )
        self._idle = threading.Semaphore(0)
        self._started = 0
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        if self._closed:
            raise RuntimeError("cannot schedule new work after shutdown")
        future: Future[T] = Future()
        self._queue.put((future, fn, args, kwargs))
        if not self._idle.acquire(blocking=False):
            try:
                self._start_thread()
            except RuntimeError as exc:
                future.cancel()  # whichever thread takes it from the queue skips it
                raise NoThread(f"no worker thread could be started ({exc})") from None
        return future

    def _start_thread(self) -> None:
        with self._lock:
            if self._started >= self._workers:
                return
            self._started += 1
            name = f"{self._name}_{self._started - 1}"
        try:
            threading.Thread(target=self._work, name=name, daemon=True).start()
        except BaseException:
            with self._lock:  # the slot stays free: else a moment without threads to spare
                self._started -= 1  # would leave the pool short of them, or with none, for good
            raise

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                self._queue.put(None)  # wake the next thread to stop too
                return
            future, fn, args, kwargs = item
            del item
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args, **kwargs)
                except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            del future, fn, args, kwargs
            self._idle.release()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more work and let the threads end once the queue is done (``wait`` is not
        honoured: a thread may be stuck for good, which is why these are daemons)."""
        self._closed = True
        self._queue.put(None)


class LazyPool:
    """A named pool of up to ``workers`` daemon threads, created on first use (see the module's note)."""

    def __init__(self, workers: int, name: str) -> None:
        self._workers = workers
        self._name = name
        self._pool: Executor | None = None
        self._lock = threading.Lock()
        _lazy_pools.add(self)

    def _forget(self) -> None:
        """Drop the pool in a forked child: its threads stayed in the parent, and work handed
        to it would wait for them for ever. The child's first use makes a new one."""
        self._pool = None
        self._lock = threading.Lock()

    def executor(self) -> Executor:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = DaemonThreadPool(self._workers, self._name)
        return self._pool

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in the pool and await its result on the running loop."""
        return await asyncio.get_running_loop().run_in_executor(self.executor(), fn, *args)


_lazy_pools: weakref.WeakSet[LazyPool] = weakref.WeakSet()


def _forget_pools() -> None:
    for pool in list(_lazy_pools):
        pool._forget()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


#: Threads of each of the library's own event loops' default executor (its name lookups).
LOOP_WORKERS = 8


def daemon_loop() -> asyncio.AbstractEventLoop:
    """A new event loop whose default executor has daemon threads: a name lookup that the
    resolver never answers is abandoned at the deadline and must not hold the process open.
    Raises ``OSError`` when the process has no descriptors left for one."""
    loop = asyncio.new_event_loop()
    loop.set_default_executor(DaemonThreadPool(LOOP_WORKERS, "webproviders-loop"))
    return loop
