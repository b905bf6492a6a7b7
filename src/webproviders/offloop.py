"""Importing heavy modules off the event loop.

A cold import takes long: a vendor SDK 0.15-0.7 s, the HTTP stack (httpx, httpcore, h11,
anyio and what they pull in) 80-350 ms, longer on a busy machine. On the event loop it would
stop the loop's clock: the call's deadline, a hedge's timer and every other call on that loop
would wait for it. In a worker thread, the deadline ends the call on time and the import
finishes for the next one. The wait is marked on the call's record
(:func:`~webproviders.context.note_queued`, ``loading``): a request that time ran out on
before it was sent is no failure of the provider's, and costs nothing.
"""

from __future__ import annotations

import asyncio
import importlib
import time

from .context import note_queued
from .errors import LOADING
from .pools import LazyPool

#: Modules whose import through here has finished in this process (a module only begun by
#: another thread is in ``sys.modules`` already, so that is not the test).
_imported: set[str] = set()
#: Threads that import; daemon ones, so an import still running at exit holds nothing open.
_importers = LazyPool(2, "webproviders-import", daemon=True)


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
    try:
        await _importers.run(_import_all, missing)
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
