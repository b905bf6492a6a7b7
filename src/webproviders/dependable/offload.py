"""Blocking I/O to a shared store (SQLite, Redis) that can never stall a call.

Store calls run in a small dedicated pool, so they never queue behind hung provider
threads, and each is awaited for at most a short bound: the store's ``timeout`` setting, or
a quarter of the call's remaining time when that is less (but :data:`MIN_BOUND`, or all
that is left, at least). A store call that fails or overruns raises
:class:`StoreUnavailable`; the store is then skipped by every call for
:data:`SKIP_AFTER_FAILURE` seconds, so a frozen Redis or a locked SQLite file costs one
bound, not one per operation. Callers answer without the store and say so in
``meta.warnings``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from .. import context
from ..pools import LazyPool
from ..redact import get_logger, scrub

T = TypeVar("T")

_store = LazyPool(8, "webproviders-store")

#: Share of the call's remaining time one store operation may use.
STORE_SHARE = 0.25
#: The shortest bound worth a verdict: below it the call, not the store, is out of time.
MIN_BOUND = 0.1
#: Seconds a store is left alone after it failed or overran.
SKIP_AFTER_FAILURE = 5.0
#: Seconds between two log lines about the same failing store (every call still warns).
LOG_EVERY = 60.0

log = get_logger("webproviders.dependable")


async def offload(fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn(*args)`` in the store pool and await its result on the running loop."""
    return await _store.run(fn, *args)


class StoreUnavailable(Exception):
    """A store operation failed, overran its bound, or was skipped after a recent failure."""


class StoreGuard:
    """Bounded calls to one shared store, skipped for a while after a failure."""

    def __init__(self, what: str, timeout: float, clock: Callable[[], float] = time.monotonic) -> None:
        #: How warnings name the store, e.g. ``"the cache (redis)"``.
        self.what = what
        self.timeout = timeout
        self.clock = clock
        self._skip_until = 0.0
        self._reason = ""
        self._logged = float("-inf")

    def bound(self) -> float:
        """Seconds the next operation may take: the timeout, or less near the call's deadline."""
        left = context.remaining_time()
        if left is None:
            return self.timeout
        return min(self.timeout, max(left * STORE_SHARE, min(left, MIN_BOUND)))

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` off the loop within :meth:`bound`; raises :class:`StoreUnavailable`."""
        if self.clock() < self._skip_until:
            raise StoreUnavailable(f"is skipped for now: it {self._reason}")
        bound = self.bound()
        if bound <= 0:
            raise StoreUnavailable("was skipped: the call had no time left for it")
        try:
            return await asyncio.wait_for(offload(fn, *args), bound)
        except asyncio.TimeoutError:
            reason = f"did not answer within {bound:.2f} s"
            if bound < min(self.timeout, MIN_BOUND):  # the call ran out of time; no verdict on the store
                raise StoreUnavailable(reason) from None
        except Exception as exc:  # noqa: BLE001 - any store failure is reported the same way
            reason = f"failed ({type(exc).__name__}: {scrub(str(exc))})"
        self._skip_until = self.clock() + SKIP_AFTER_FAILURE
        self._reason = reason
        raise StoreUnavailable(reason)

    def warn(self, problem: StoreUnavailable, consequence: str) -> None:
        """Add the ``meta.warnings`` line for a bypassed store to the current call, and log it
        at most once a minute, so an outage does not flood the log."""
        message = f"{self.what[0].upper()}{self.what[1:]} {problem}; {consequence}."
        context.warn(message)
        now = time.monotonic()
        if now - self._logged > LOG_EVERY:
            self._logged = now
            log.warning("%s", scrub(message))
