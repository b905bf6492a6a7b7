"""Cleanup that runs as a caller's event loop shuts down.

The library keeps HTTP clients per event loop, for connections to stay open between calls.
A loop the caller runs ends without telling the library, except in one way: ``asyncio.run``,
``asyncio.Runner``, ``uvloop.run`` and test runners close the loop's async generators
(``loop.shutdown_asyncgens()``) before they close the loop. So a loop's clients are tied to
an async generator paused at its one ``yield``, whose ``finally`` closes them while the loop
still runs. Before, every ``asyncio.run`` left its loop, and the loop's open connections,
for the life of the process.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable

__all__ = ["LoopEnd"]


async def _until_shutdown(
    loop: asyncio.AbstractEventLoop, cleanup: Callable[[], Awaitable[None]]
) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        if not loop.is_closed():
            await cleanup()


class LoopEnd:
    """``cleanup()``, run once on the running loop: when the loop shuts down its async
    generators, or when :meth:`run` is awaited on it first."""

    __slots__ = ("_generator",)

    def __init__(self, cleanup: Callable[[], Awaitable[None]]) -> None:
        self._generator = _until_shutdown(asyncio.get_running_loop(), cleanup)
        # To its yield, here and now: the loop's first-iteration hook registers it (weakly,
        # so this object keeps it).
        try:
            self._generator.asend(None).send(None)
        except StopIteration:
            pass

    async def run(self) -> None:
        """``cleanup()`` now, on its loop, unless it has run already."""
        await self._generator.aclose()

    def forget(self) -> None:
        """The loop is closed: there is nothing left to run the cleanup on. Finished here,
        the generator is not handed to the closed loop's finalizer when it is freed."""
        try:
            self._generator.aclose().send(None)
        except StopIteration:
            pass
