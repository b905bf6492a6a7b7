"""Importing heavy modules off the event loop.

A cold import takes long: a vendor SDK 0.15-0.7 s, the HTTP stack (httpx, httpcore, h11,
anyio and what they pull in) 80-350 ms, longer on a busy machine. On the event loop it would
stop the loop's clock: the call's deadline, a hedge's timer and every other call on that loop
would wait for it. In a worker thread, the deadline ends the call on time and the import
finishes for the next one.
"""

from __future__ import annotations

import importlib

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
    if missing:
        await _importers.run(_import_all, missing)
