"""One failure policy for every shared store (cache, rate limiter, budget counters, usage ledger).

A store can fail slowly: a Redis frozen mid-failover accepts connections and never answers,
a SQLite file can be held by another process's write lock. So every store sits behind a
:class:`StoreGuard`, a circuit breaker with a deadline:

- **A deadline per operation.** Store calls run in a small dedicated pool, so they never
  queue behind hung provider threads, and each is awaited for at most the store's
  ``timeout`` setting, or a quarter of the call's remaining time when that is less (but
  :data:`MIN_BOUND`, or all that is left, at least). Operations that run off the call path
  (ledger writes on the spool thread) are bounded by the store client's own timeout, which
  is the same setting.
- **A skip window after a stall or an error.** The store is then skipped by every call for
  :data:`SKIP_AFTER_FAILURE` seconds, so a frozen Redis costs one deadline, not one per
  operation (fifty calls that meet it at once all give up together, after one). Guards of
  the same location (one Redis server holding the cache, the rate limits and the budget
  counters) share this state: the server's outage costs one deadline, not one per use.
- **A half-open probe.** When the window ends, one operation is let through; the others
  keep skipping the store until it answers (the circuit closes) or fails (it opens again).

Each caller decides what a skipped store means for it (a cache miss, this process's rate
limit, a refused priced request) and says so with :meth:`StoreGuard.warn`: a
``meta.warnings`` line on the current call, and a log line at most once a minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from .. import context
from ..asynctimeout import within
from ..handback import awaitable
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


def begin(fn: Callable[..., T], *args: Any) -> Future[T]:
    """Start ``fn(*args)`` in the store pool without awaiting it (work a batch of callers awaits)."""
    return _store.executor().submit(fn, *args)


def when_done(future: Future[T], then: Callable[[T], object]) -> None:
    """``then(result)`` once ``future``, a store operation its caller stopped waiting for, has
    a result (not when it failed): how what the store did anyway (a claim, a slot) is undone.
    Nothing once the store threads are gone, as the process exits."""

    def done(finished: Future[T]) -> None:
        if finished.cancelled() or finished.exception() is not None:
            return
        with contextlib.suppress(RuntimeError):
            then(finished.result())

    future.add_done_callback(done)


def _refused_one_command(exc: Exception) -> bool:
    """Whether a Redis server answered one command with an error of that command's own (a
    key of another type in the namespace, a value a script cannot read): the server is up,
    and the other stores on it (the cache beside a rate limit) must not be skipped for it.
    Its subclasses (out of memory, read-only replica, no permission) concern the server."""
    redis = sys.modules.get("redis")
    return redis is not None and type(exc) is redis.exceptions.ResponseError


def _cluster_node(exc: Exception) -> bool:
    """Whether a Redis server refused a command as a Redis Cluster node does (a slot served
    elsewhere, keys in different slots, no slots served), which only a cluster client could use."""
    redis = sys.modules.get("redis")
    if redis is None:
        return False
    errors = redis.exceptions
    return isinstance(exc, (errors.ClusterError, errors.ClusterCrossSlotError, errors.AskError, errors.TryAgainError))


def _timed_out(exc: Exception) -> bool:
    """Whether an operation failed by its store client's socket timeout (the guard's ``timeout``)."""
    redis = sys.modules.get("redis")
    return isinstance(exc, TimeoutError) or (redis is not None and isinstance(exc, redis.exceptions.TimeoutError))


def _failure(exc: Exception, waited: str = "") -> str:
    """How a failed operation is named in warnings and logs (scrubbed), with what to do about a Redis Cluster."""
    said = f"failed{waited} ({type(exc).__name__}: {scrub(str(exc))})"
    if _cluster_node(exc):
        said += "; the server is a Redis Cluster node, which webproviders cannot use: point the URL at a standalone Redis"
    return said


#: How many times an overrun bound an operation must be given to go on asking a store that
#: overran it (see :meth:`StoreGuard._allowed_longer`).
LONGER_BOUND = 2.0


class StoreUnavailable(Exception):
    """A store operation failed, overran its bound, or was skipped after a recent failure."""


class _Breaker:
    """The open/closed state of one store (a Redis server, a SQLite file), shared by its guards."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.skip_until = 0.0
        self.reason = ""
        self.probing = False
        self.logged = float("-inf")
        #: The bound an operation overran, when that opened the breaker (None: an error did).
        #: It says nothing of guards allowed longer: a cache given 0.05 s must not leave the
        #: budget counters beside it, given 1 s, skipped on a server 80 ms away.
        self.overrun: float | None = None


#: Breakers by store location: the cache, the rate limiter, the budget counters and the
#: ledger in one Redis server meet its outage once, not once each.
_breakers: dict[str, _Breaker] = {}
_breakers_lock = threading.Lock()


def _breaker(location: str | None) -> _Breaker:
    if location is None:
        return _Breaker()
    with _breakers_lock:
        return _breakers.setdefault(location, _Breaker())


class StoreGuard:
    """Bounded operations on one shared store, skipped for a while after a failure.

    Guards with the same ``location`` (the store's URL or file) share one breaker.
    """

    def __init__(
        self,
        what: str,
        timeout: float,
        clock: Callable[[], float] = time.monotonic,
        skip_for: float = SKIP_AFTER_FAILURE,
        location: str | None = None,
    ) -> None:
        #: How warnings name the store, e.g. ``"the cache (redis)"``.
        self.what = what
        self.timeout = timeout
        self.clock = clock
        self.skip_for = skip_for
        self._state = _breaker(location)

    def bound(self) -> float:
        """Seconds the next operation may take: the timeout, or less near the call's deadline."""
        left = context.remaining_time()
        if left is None:
            return self.timeout
        return min(self.timeout, max(left * STORE_SHARE, min(left, MIN_BOUND)))

    def skipped_because(self) -> str | None:
        """Why the store is being left alone right now ("failed (...)"); None when it is not."""
        state = self._state
        return state.reason if self.clock() < state.skip_until and not self._allowed_longer() else None

    def _allowed_longer(self) -> bool:
        """Whether the breaker is open for an overrun of a bound well short of this operation's
        (at most half of it: one about as long would most likely be overrun as well)."""
        overrun = self._state.overrun
        return overrun is not None and self.bound() >= LONGER_BOUND * overrun

    def _admit(self) -> bool:
        """Let an operation through, or raise while skipping; True when it is the half-open probe."""
        state = self._state
        if not state.skip_until:  # closed: the common case, without the lock
            return False
        with state.lock:
            if not state.skip_until or self._allowed_longer():
                return False
            if self.clock() < state.skip_until or state.probing:
                raise StoreUnavailable(f"is skipped for now: it {state.reason}")
            state.probing = True
            return True

    def _succeeded(self, probe: bool) -> None:
        state = self._state
        if probe or (state.skip_until and not self._allowed_longer()):
            with state.lock:
                state.skip_until, state.probing, state.overrun = 0.0, False, None

    def _failed(self, reason: str, overrun: float | None = None) -> StoreUnavailable:
        state = self._state
        with state.lock:
            state.skip_until = self.clock() + self.skip_for
            state.reason = reason
            state.probing = False
            state.overrun = overrun
        return StoreUnavailable(reason)

    def _verdict(self, probe: bool, exc: Exception, reason: str) -> StoreUnavailable:
        """The failure of one operation; the store is skipped for a while unless the failure
        was that operation's alone (see :func:`_refused_one_command`). A client's socket
        timeout is this guard's ``timeout`` overrun, as when the guard's own bound runs out
        first (the two race): a cache given 0.05 s must not have the budget counters beside
        it skipped."""
        if _refused_one_command(exc):
            self._released(probe)
            return StoreUnavailable(reason)
        if _timed_out(exc):
            return self._failed(f"did not answer within {self.timeout:.2f} s", self.timeout)
        return self._failed(reason)

    def _released(self, probe: bool) -> None:
        """An operation ended without a verdict on the store: another may probe it."""
        if probe:
            with self._state.lock:
                self._state.probing = False

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` off the loop within :meth:`bound`; raises :class:`StoreUnavailable`."""
        return await self.wait(lambda: begin(fn, *args))

    async def wait(self, start: Callable[[], Future[T]]) -> T:
        """The store operation ``start()`` hands to a store thread, awaited within :meth:`bound`
        (not started when the store is skipped); raises :class:`StoreUnavailable`.

        An operation found answered once the bound is up is taken: the store answered, and
        this event loop, busy with other calls, was late to hear it. Blaming the store opened
        its breaker, and a healthy Redis failed every call of a loaded process for a while."""
        probe = self._admit()
        bound = self.bound()
        if bound <= 0:
            self._released(probe)
            raise StoreUnavailable("was skipped: the call had no time left for it")
        try:
            operation = start()
            try:
                await within(awaitable(operation), bound)
            except asyncio.TimeoutError:
                if not operation.done() or operation.cancelled():
                    raise
            result = operation.result()
        except asyncio.TimeoutError:
            if operation.cancel():  # still queued: no verdict on a store this process did not ask
                self._released(probe)
                raise StoreUnavailable(f"was not asked within {bound:.2f} s, behind operations still under way") from None
            reason = f"did not answer within {bound:.2f} s"
            if bound < min(self.timeout, MIN_BOUND):  # the call ran out of time; no verdict on the store
                self._released(probe)
                raise StoreUnavailable(reason) from None
            raise self._failed(reason, bound) from None
        except asyncio.CancelledError:
            self._released(probe)
            raise
        except Exception as exc:  # noqa: BLE001 - any store failure is reported the same way
            raise self._verdict(probe, exc, _failure(exc)) from None
        self._succeeded(probe)
        return result

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on this thread (off the call path; the store client's timeout bounds it)."""
        probe = self._admit()
        started = time.monotonic()
        try:
            result = fn(*args)
        except Exception as exc:  # noqa: BLE001
            waited = time.monotonic() - started
            raise self._verdict(probe, exc, _failure(exc, f" after {waited:.2f} s")) from None
        self._succeeded(probe)
        return result

    def warn(self, problem: StoreUnavailable, consequence: str) -> None:
        """Add the ``meta.warnings`` line for a bypassed store to the current call (if any),
        and log it at most once a minute, so an outage does not flood the log."""
        subject = f"{self.what[0].upper()}{self.what[1:]} "
        message = f"{subject}{problem}; {consequence}."
        context.warn_call(message, once_for=subject)  # its first trouble in a call says why
        now = time.monotonic()
        if now - self._state.logged > LOG_EVERY:
            self._state.logged = now
            log.warning("%s", scrub(message))
