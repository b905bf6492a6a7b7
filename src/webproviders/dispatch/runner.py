"""Running provider code of either colour under a deadline.

Sync provider methods run in a worker thread (so a hanging one can be abandoned). Sync
dispatch runs on the calling thread's own long-lived event loop, so that loop's pooled
connections survive between calls; a caller inside a running loop uses one background loop.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextvars
import functools
import inspect
import os
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..asynctimeout import cancelled_here, within
from ..errors import PluginRaised
from ..pools import LazyPool, daemon_loop
from ..registry.providers import RunsPluginCode, allow_plugin_code, refuse_plugin_code
from .bounded import bounded
from .hung import Watch, refuse_if_hung

T = TypeVar("T")

__all__ = ["BackgroundLoop", "NoLoop", "call", "off_loop", "run_sync", "unless_plugin_code"]

#: Sync provider calls that hang (``ddgs`` is known to) keep a thread; allow plenty. Daemon
#: threads: one abandoned at its deadline must not hold the process open at exit.
_workers = LazyPool(64, "webproviders-sync")
#: Preparing a call off its loop (loading plugins, asking is_available(), both bounded in
#: time): never queued behind sync provider calls, of which all 64 may hang past their deadline.
_preparers = LazyPool(16, "webproviders-prepare")
#: Whether a method's function is ``async def``, asked once per function (providers' methods).
_async_methods: dict[Any, bool] = {}


def _is_async(fn: Callable[..., Any]) -> bool:
    function = getattr(fn, "__func__", None)
    if function is None:
        return inspect.iscoroutinefunction(fn)
    found = _async_methods.get(function)
    if found is None:
        found = _async_methods[function] = inspect.iscoroutinefunction(fn)
    return found


async def call(
    fn: Callable[..., Any], *args: Any, timeout: float, inline: bool = False, **kwargs: Any
) -> Any:
    """Call a sync or async function and wait at most ``timeout`` seconds for its result.

    Raises :class:`asyncio.TimeoutError` when time runs out: an async call is cancelled, a
    sync one is abandoned in its worker thread. ``inline`` runs a sync function that never
    blocks directly in the loop (no thread hop; it cannot be abandoned).
    """
    try:
        if _is_async(fn):
            return await bounded(fn(*args, **kwargs), timeout, _owner(fn))
        if inline:
            result = fn(*args, **kwargs)
            return await bounded(result, timeout, _owner(fn)) if _awaitable(result) else result
        return await _in_thread(fn, args, kwargs, timeout)
    except KeyboardInterrupt:
        raise  # on the caller's thread: a real Ctrl-C
    except asyncio.CancelledError as exc:
        if cancelled_here():  # a hedge won elsewhere, too; else the provider's code raised it
            raise
        raise PluginRaised(exc) from None
    except Exception:
        raise
    except BaseException as exc:  # noqa: BLE001 - a plugin's SystemExit ends one call, not the program
        raise PluginRaised(exc) from None


async def _in_thread(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], timeout: float
) -> Any:
    """A sync ``fn`` on a worker thread, abandoned at ``timeout``; a coroutine it returned is
    awaited within what is left."""
    provider = getattr(fn, "__self__", fn)
    refuse_if_hung(provider)
    watch = Watch(provider, timeout)
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    future = loop.run_in_executor(
        _workers.executor(), functools.partial(context.run, watch.run, _in_worker, fn, *args, **kwargs)
    )
    started = time.monotonic()
    try:
        result = await within(future, timeout)
    except BaseException:
        watch.abandon()  # a thread that ended already, or never started, does not count
        raise
    if _awaitable(result):  # a plain def that returned a coroutine
        left = max(0.0, timeout - (time.monotonic() - started))
        result = await bounded(result, left, _owner(fn))
    return result


def _owner(fn: Callable[..., Any]) -> str:
    """The provider a method belongs to, as a log line names it."""
    return getattr(getattr(fn, "__self__", None), "name", None) or getattr(fn, "__qualname__", "A provider")


def _in_worker(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` on a worker thread, where no signal or cancellation arrives:
    whatever it raises that is not an ordinary exception (``SystemExit``, ``KeyboardInterrupt``,
    ``StopIteration``, which a future cannot hold, and ``CancelledError``, which the future
    would pass on to the caller's task as its own cancellation) is the provider's failure."""
    try:
        return fn(*args, **kwargs)
    except (StopIteration, concurrent.futures.CancelledError, TimeoutError, asyncio.TimeoutError) as exc:
        raise PluginRaised(exc) from None  # a TimeoutError: as :func:`.bounded._contained` says
    except Exception:
        raise
    except BaseException as exc:  # noqa: BLE001 - see the docstring
        raise PluginRaised(exc) from None


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` (a call's preparation) on a worker thread of its own pool (daemon: one
    that hangs holds no exit), in a copy of the caller's context, while the caller's event
    loop runs on."""
    return await _preparers.run(contextvars.copy_context().run, fn, *args)


def unless_plugin_code(fn: Callable[..., T], *args: Any) -> tuple[bool, T | None]:
    """``(True, fn(*args))`` run here, on the loop, or ``(False, None)`` when ``fn`` came to
    plugin code that may block (a plugin's load, a provider's ``is_available()``): the caller
    then runs it again with :func:`off_loop`. ``fn`` must be safe to start over. A plain
    function, not a coroutine: every async call goes through it."""
    token = refuse_plugin_code()
    try:
        return True, fn(*args)
    except RunsPluginCode:
        return False, None
    finally:
        allow_plugin_code(token)


def _awaitable(result: Any) -> bool:
    """``inspect.isawaitable``, answered at once for the plain answers providers return."""
    return type(result) not in _PLAIN and inspect.isawaitable(result)


_PLAIN = frozenset({dict, list, tuple, str, type(None)})


class BackgroundLoop:
    """One event loop in a daemon thread, started on first use."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            with self._lock:
                if self._loop is None:
                    loop = _new_loop()
                    thread = threading.Thread(
                        target=loop.run_forever, name="webproviders-loop", daemon=True
                    )
                    try:
                        thread.start()
                    except RuntimeError as exc:
                        loop.close()
                        raise NoLoop(f"no thread could be started for its event loop ({exc})") from None
                    self._thread, self._loop = thread, loop
        return self._loop

    def in_loop_thread(self) -> bool:
        return self._thread is not None and threading.current_thread() is self._thread

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the background loop and block until it finishes."""
        if self.in_loop_thread():
            # Blocking the loop on itself would deadlock: run on a private loop instead.
            return _run_in_fresh_thread(coro)
        future = asyncio.run_coroutine_threadsafe(coro, self.loop())
        try:
            return future.result()
        except BaseException:  # Ctrl-C while waiting: the caller left, so does its call
            future.cancel()
            raise

    def close(self) -> None:
        loop = self._loop
        if loop is not None and loop.is_running():
            loop.call_soon_threadsafe(loop.stop)

    def forget(self) -> None:
        """In a forked child: the loop's thread stayed in the parent; the next call starts one."""
        self._loop, self._thread, self._lock = None, None, threading.Lock()


def _run_in_fresh_thread(coro: Coroutine[Any, Any, T]) -> T:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="webproviders-nested")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


background = BackgroundLoop()
atexit.register(background.close)


_thread_loops = threading.local()


#: In a forked child, the parent's loops it inherited: kept, never closed. Closing one (as
#: freeing it does) takes its descriptors out of the epoll set it shares with the parent,
#: whose loop then sleeps through every wake-up from a worker thread (a store operation, a
#: sync provider's answer) until a timer fires.
_inherited: list[asyncio.AbstractEventLoop] = []


def _forget_loops() -> None:
    """In a forked child, leave the parent's loops alone: their selectors and connections are
    shared with the parent, so the child's calls would steal its events and answers."""
    global _thread_loops, _sweep_lock
    _inherited.extend(loop for loop in (background._loop, *_loop_threads) if loop is not None)
    background.forget()
    _thread_loops = threading.local()
    _loop_threads.clear()
    _sweep_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_loops)


class NoLoop(Exception):
    """No event loop could be made for a sync call: the process is out of file descriptors
    (a loop needs three), or of threads for the background loop."""


def _new_loop() -> asyncio.AbstractEventLoop:
    """A loop of the library's own (:func:`~webproviders.pools.daemon_loop`), or :class:`NoLoop`."""
    try:
        return daemon_loop()
    except OSError as exc:
        raise NoLoop(f"no event loop could be made for the call ({exc.strerror})") from None


#: Each thread's own loop and the thread (a loop outlives its thread until it is swept).
_loop_threads: dict[asyncio.AbstractEventLoop, threading.Thread] = {}
_sweep_lock = threading.Lock()
#: Seconds an interrupted call's task gets to end once cancelled.
_LET_GO_WAIT = 0.5
#: Seconds an ended thread's clients get to close.
_SWEEP_CLOSE_WAIT = 0.5
#: Where ended threads' loops are closed (daemon: a close that hangs holds no exit).
_sweeper = LazyPool(1, "webproviders-sweep")


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop = getattr(_thread_loops, "loop", None)
    if loop is None or loop.is_closed():
        _sweep_loops()
        loop = _thread_loops.loop = _new_loop()
        with _sweep_lock:
            _loop_threads[loop] = threading.current_thread()
    return loop


def _sweep_loops() -> None:
    """Close the loops, and their clients, of threads that have ended.

    A thread's loop holds three descriptors and its open connections until the cyclic
    collector happens to free it, so a server that starts a thread per request would run out
    of descriptors first. Each thread that makes a loop takes those whose thread is gone
    (each loop is taken by one thread only) and hands them to one background thread, which
    runs each a last time to close its clients: the caller's deadline pays nothing for it.
    """
    with _sweep_lock:
        ended = [loop for loop, thread in _loop_threads.items() if not thread.is_alive()]
        for loop in ended:
            del _loop_threads[loop]
    if ended:
        _sweeper.executor().submit(_close_loops, ended)


def _close_loops(loops: list[asyncio.AbstractEventLoop]) -> None:
    for loop in loops:
        try:
            if not loop.is_closed():
                loop.run_until_complete(within(_close_clients(), _SWEEP_CLOSE_WAIT))
        except Exception:  # noqa: BLE001 - a client that fails to close is dropped all the same
            pass
        finally:
            loop.close()


async def _close_clients() -> None:
    """The running loop's clients, of each owner loaded (none is imported to close nothing)."""
    for name in ("webproviders.vendorhttp.clients", "webproviders.fetching.pinning"):
        owner = sys.modules.get(name)
        if owner is not None:
            await owner.aclose_loop_clients()


async def _stopping(coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop) -> T:
    """``coro``, stopping ``loop`` as it ends: the loop turns once for a call that never waits."""
    try:
        return await coro
    finally:
        loop.stop()


def inside_trio() -> bool:
    """Whether this thread is running trio's event loop. ``trio`` is looked up, never
    imported: it is loaded by whoever runs it (and by httpcore wherever it is installed). A
    ``trio`` another thread is still importing (an SDK loaded off the loop) has no ``lowlevel``
    yet, and is not running here."""
    lowlevel = getattr(sys.modules.get("trio"), "lowlevel", None)
    if lowlevel is None:
        return False
    in_trio_run = getattr(lowlevel, "in_trio_run", None)  # trio 0.23 on; cheaper than failing
    if in_trio_run is not None:
        return bool(in_trio_run())
    try:
        lowlevel.current_task()
    except RuntimeError:
        return False
    return True


def _not_trio() -> contextvars.Context:
    """A copy of the caller's context that no longer names trio as the running library
    (``sniffio``'s public variable, set by trio in its tasks), as trio's own worker threads
    have: else the HTTP stack, asking which library runs, would use trio's primitives on an
    asyncio loop."""
    context = contextvars.copy_context()
    sniffio = sys.modules.get("sniffio")
    if sniffio is not None:
        context.run(sniffio.current_async_library_cvar.set, None)
    return context


def _outside_trio(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the background loop from trio's thread (see :func:`_not_trio`)."""
    return _not_trio().run(background.run, coro)


def started_outside_trio(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """``coro`` started on the background loop from trio's thread (see :func:`_not_trio`),
    its task run in that context; :class:`NoLoop` (``coro`` closed unstarted) when the
    loop could not be made."""
    try:
        loop = background.loop()
    except NoLoop:
        coro.close()
        raise
    return _not_trio().run(asyncio.run_coroutine_threadsafe, coro, loop)


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from sync code; :class:`NoLoop` (``coro`` closed unstarted) when no
    event loop could be made for it."""
    try:
        return _run_sync(coro)
    except NoLoop:
        coro.close()
        raise


def _run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from sync code (plain, threaded, or inside a running loop).

    It runs as a task on this thread's own long-lived loop, which keeps the connection pools
    of that loop alive between calls and saves two thread hops per call; the loop runs until
    the task ends and stops it, so a call that never waits costs one turn of the loop (what
    ``run_until_complete`` would take two for). A caller already inside a running loop (a
    notebook cell, an async agent calling a sync tool) cannot block that loop on itself, so
    its call goes to the background loop instead; so does one inside a running trio program
    (an asyncio loop run on trio's thread would see trio's primitives through ``sniffio``).
    """
    if asyncio._get_running_loop() is not None:
        return background.run(coro)
    if "trio" in sys.modules and inside_trio():
        return _outside_trio(coro)
    loop = _thread_loop()
    task = loop.create_task(_stopping(coro, loop))
    try:
        while not task.done():  # a task left by an interrupted call may stop the loop as it ends
            loop.run_forever()
    except BaseException:  # Ctrl-C (KeyboardInterrupt) or SystemExit: the caller left
        _let_go(task, loop)
        raise
    return task.result()


def _let_go(task: asyncio.Task[Any], loop: asyncio.AbstractEventLoop) -> None:
    """Cancel an interrupted call's task and give it a moment to clean up: left pending on a
    loop that no longer runs, it would hold what it holds (the flight that identical calls
    wait on, its claims) until this thread's next call. A task the interrupt itself ended
    (Ctrl-C landed while it ran) holds it as its exception: taken here, as the caller gets it
    already, or asyncio logs it again with its traceback when the task is collected."""
    if not task.done():
        task.cancel()
        timer = loop.call_later(_LET_GO_WAIT, loop.stop)
        try:
            loop.run_forever()  # the task stops the loop as it ends
        finally:
            timer.cancel()
    if task.done() and not task.cancelled():
        task.exception()
