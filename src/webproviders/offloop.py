"""Importing heavy modules off the event loop.

A cold import takes long: a vendor SDK 0.15-0.7 s, the HTTP stack (httpx, httpcore, h11,
anyio and what they pull in) 80-350 ms, longer on a busy machine. On the event loop it would
stop the loop's clock: the call's deadline, a hedge's timer and every other call on that loop
would wait for it. In a worker thread, the deadline ends the call on time and the import
finishes for the next one. The wait is marked on the call's record
(:func:`~webproviders.context.note_queued`, ``loading``): a request that time ran out on
before it was sent is no failure of the provider's, and costs nothing.

The interpreter's exit waits for an import still under way (at most :data:`EXIT_WAIT`): a
daemon thread cut off in the middle of one, inside an extension module's native code, could
abort the process ("FATAL: exception not rethrown", status 134) after a script's first call
had timed out and the script had ended. So does a fork: the module's import lock, held by the
importing thread, stays held in the child, where that thread does not exist, and every call
of the child waited for the module (a timeout saying it was "still loading") for good.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import os
import threading
import time
from concurrent.futures import Future, wait

from .context import note_queued
from .errors import LOADING
from .pools import LazyPool

#: Modules whose import through here has finished in this process (a module only begun by
#: another thread is in ``sys.modules`` already, so that is not the test).
_imported: set[str] = set()
#: Threads that import; daemon ones, so an import that never ends does not hold the exit open.
_importers = LazyPool(2, "webproviders-import")
#: Imports under way, which the interpreter's exit waits for.
_under_way: set[Future[None]] = set()
_under_way_lock = threading.Lock()
#: Seconds the interpreter's exit, or a fork, waits for imports under way (a cold SDK import takes 0.15-0.7 s).
EXIT_WAIT = 10.0


def _import_all(modules: list[str]) -> None:
    for module in modules:
        importlib.import_module(module)
        _imported.add(module)


async def import_off_loop(*modules: str) -> None:
    """Import ``modules`` in a worker thread the first time; at once when they are loaded.
    Await it before the first use of a heavy module from code that runs on the event loop."""
    missing = [module for module in modules if module not in _imported]
    if not missing:
        return
    since = time.monotonic()
    future = _importers.executor().submit(_import_all, missing)
    with _under_way_lock:
        _under_way.add(future)
    future.add_done_callback(_done)
    try:
        await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        _note_wait(missing, since, sent=False)
        raise
    _note_wait(missing, since, sent=True)


def _note_wait(modules: list[str], since: float, sent: bool) -> None:
    """Mark the wait for ``modules`` on the current request's record (see the module)."""
    named = [module for module in modules if not module.startswith(f"{__package__}.")]
    what = f"{', '.join(named)} {'was' if len(named) == 1 else 'were'}" if named else "the library's HTTP client was"
    note_queued(
        f"{what} still loading, on first use in this process",
        time.monotonic() - since,
        sent=sent,
        detail=LOADING,
        advice="Later calls find it loaded; give the first call more time.",
    )


def _done(future: Future[None]) -> None:
    with _under_way_lock:
        _under_way.discard(future)


def _finish_under_way() -> None:
    """Wait (at most :data:`EXIT_WAIT`) for the imports under way: before the exit, or a fork."""
    with _under_way_lock:
        under_way = list(_under_way)
    if under_way:
        wait(under_way, EXIT_WAIT)


def _forget_under_way() -> None:
    """In a forked child the imports under way stayed in the parent: its exit waits for none."""
    global _under_way_lock
    _under_way.clear()
    _under_way_lock = threading.Lock()


atexit.register(_finish_under_way)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_finish_under_way, after_in_child=_forget_under_way)
