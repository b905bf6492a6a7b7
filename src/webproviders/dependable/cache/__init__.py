"""Caching provider answers, with single flight.

Only successes are stored, keyed per capability, provider and normalised arguments (see
:mod:`.keys`). Concurrent identical calls make one upstream call: in a process through
:class:`.flight.Flights`, across processes through claims in the shared store (SQLite or
Redis). A shared store's every operation is bounded (``web.cache.timeout``, less near the
call's deadline, see :mod:`..offload`); one that fails or overruns is logged, bypassed with
a ``meta.warnings`` line and skipped for a few seconds: it never fails or stalls a call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ...asynctimeout import within
from ...errors import WebProviderError, WebTimeoutError
from ...redact import get_logger
from ..health import CALL_DEADLINE
from ..offload import StoreGuard, StoreUnavailable, begin, when_done
from . import handover
from .fingerprint import cache_key
from .flight import Flights
from .memory import MemoryCache
from .shape import an_answer

if TYPE_CHECKING:
    from ...config import CacheSettings

__all__ = ["MemoryCache", "ResultCache", "build_cache", "cache_key"]

log = get_logger("webproviders.dependable.cache")

#: Polling interval bounds while another process fetches the same key.
_POLL_FIRST, _POLL_MAX = 0.02, 0.2
#: Seconds a claim in a shared store lasts unless its holder, still fetching, renews it (a
#: third of this apart): a worker killed while fetching holds the others up this long at most.
#: A claim that lasted the holder's whole deadline failed every identical call in the fleet
#: as ``timeout`` for that long (30 s by default) after the holder was killed.
CLAIM_LEASE = 3.0
#: When an answer was stored in a shared store (seconds since the epoch, by the writer's
#: clock): configs sharing it may keep answers for different times, and each is served
#: none older than its own ``web.cache.ttl`` allows.
STORED_AT = "stored_at"


class _LeaderGone(Exception):
    """The caller fetching for a flight left or failed for a reason of its own (cancelled,
    interrupted, out of its time, refused by its budget): a waiter tries again itself."""


class ResultCache:
    """A store (memory, SQLite or Redis) plus TTLs per capability and flight bookkeeping."""

    def __init__(self, store: Any, ttl: dict[str, float], guard: StoreGuard) -> None:
        self.store = store
        self.ttl = ttl
        self.flights = Flights()
        #: Bounds every operation of a shared store (the in-process store needs no bound).
        self.guard = guard
        #: The clock shared-store answers are stamped and aged by.
        self.clock: Callable[[], float] = time.time

    def ttl_for(self, capability: str) -> float:
        return self.ttl.get(capability, 0.0)

    async def get_or_fetch(
        self,
        key: str,
        ttl: float,
        fetch: Callable[[], Awaitable[Any]],
        remaining: Callable[[], float],
        keep: Callable[[Any], bool] | None = None,
        own: Callable[[Exception], bool] | None = None,
        scope: Callable[[], str] = str,
    ) -> tuple[Any, bool]:
        """``(value, cached)``: the stored value, a flight's shared one, or ``fetch()``'s.

        ``keep`` says whether a fetched value may be stored (it is shared with identical
        calls in flight either way). ``own`` says whether a failure of ``fetch()`` belongs to
        its caller alone (its deadline, its budget): identical calls waiting for it do not
        share it but try again themselves, each within its own deadline. ``scope()`` names the
        keys the provider is asked with: workers of other processes share a failure only
        with the same scope (asked for only then: a hit needs no digest of the keys).
        """
        value = await self.lookup(key, ttl)
        if value is not None:
            return value, True
        while True:
            future, leader, abandoned_at = self.flights.join(key, time.monotonic() + remaining())
            if not leader:
                left = remaining()
                abandoned_in = left if future.done() else abandoned_at - time.monotonic()
                try:
                    payload, shared = await within(
                        asyncio.shield(_awaitable(future)), max(0.0, min(left, abandoned_in))
                    )
                except _LeaderGone:
                    continue
                except asyncio.TimeoutError:
                    if abandoned_in < left:  # the leader's loop stopped for good: ask again
                        self.flights.land(key, future)
                        continue
                    raise WebTimeoutError(
                        "The call's deadline passed while an identical call was still being answered.",
                        detail=CALL_DEADLINE,
                    ) from None
                except Exception as exc:  # noqa: BLE001 - the leader's failure is ours too; raise a copy
                    raise copy.copy(exc) from None
                return (self.store.decode(payload) if payload is not None else copy.deepcopy(shared)), True
            try:
                value, cached = await self._fetch(key, ttl, fetch, remaining, keep, own, scope)
                future.set_result((self._encode(value), value))
                return value, cached
            except BaseException as exc:
                common = isinstance(exc, Exception) and not (own is not None and own(exc))
                if not common:  # landed first: waiters told to try again must not find it again
                    self.flights.land(key, future)
                future.set_exception(exc if common else _LeaderGone())
                raise
            finally:
                self.flights.land(key, future)

    async def lookup(self, key: str, ttl: float) -> Any:
        """The stored answer for ``key`` (a fresh copy), or None; an entry of a shared store that
        is not an answer (see :func:`.shape.an_answer`) is a miss, with a warning, and so is one
        stored longer ago than ``ttl`` (by a config that keeps answers longer)."""
        store = self.store
        payload = await self._safe(store.get, None, key) if store.shared else store.get(key)
        if payload is None:
            return None
        try:
            value = store.decode(payload)
        except (ValueError, RecursionError) as exc:  # nested too deep: failed the call as the provider's parse_error
            problem = type(exc).__name__
        else:
            if not store.shared:  # this process's memory holds only the answers it stored
                return value
            if an_answer(value):
                stored = value.pop(STORED_AT, None)  # stamped when stored there (see STORED_AT)
                if isinstance(stored, (int, float)) and self.clock() - stored > ttl:
                    return None  # older than this config keeps answers: the fresh one replaces it
                return value
            problem = "not an answer"
        # A torn write, another program's key, an older format: a miss, which the answer overwrites.
        self.guard.warn(StoreUnavailable(f"held an entry it could not read ({problem})"), "this call goes on without it")
        return None

    async def _fetch(
        self,
        key: str,
        ttl: float,
        fetch: Callable[[], Awaitable[Any]],
        remaining: Callable[[], float],
        keep: Callable[[Any], bool] | None,
        own: Callable[[Exception], bool] | None,
        scope: Callable[[], str],
    ) -> tuple[Any, bool]:
        token = None
        if self.store.shared:
            token = await self._claim(key, _lease(remaining()))
            if token is None:
                found, token = await self._wait_for_other(key, ttl, remaining, scope)
                if found is not None:
                    return found, True
        try:
            # Looked up again (an identical flight may have just landed), and only once the
            # claim is held: a worker stores its answer before it lets go of its claim, so an
            # answer stored between an earlier look and the claim is found, not fetched again.
            found = await self.lookup(key, ttl)
            if found is not None:
                return found, True
            try:
                value = await (self._leased(key, token, fetch) if token else fetch())
            except WebProviderError as exc:
                if token and not (own is not None and own(exc)):  # the provider's: waiting workers share it
                    await self._hand_over(key, handover.failure(exc, scope()))
                raise
            kept = keep is None or keep(value)
            payload = self._encode({**value, STORED_AT: self.clock()} if self.store.shared else value) if kept else None
            if payload is not None:
                if self.store.shared:
                    await self._safe(self.store.set, None, key, payload, ttl)
                else:
                    self.store.set(key, payload, ttl)
            elif token:  # not cached, yet the workers waiting for it share it
                await self._hand_over(key, value)
            return value, False
        finally:
            if token:
                await self._safe(self.store.release, None, key, token)

    async def _wait_for_other(
        self, key: str, ttl: float, remaining: Callable[[], float], scope: Callable[[], str]
    ) -> tuple[Any, str | None]:
        """Another process is fetching ``key``: wait for its answer, or take over if it gives up."""
        delay = _POLL_FIRST
        while remaining() > delay:
            await asyncio.sleep(delay)
            delay = min(_POLL_MAX, delay * 1.5)
            value = await self.lookup(key, ttl)
            if value is not None:
                return value, None
            if not await self._safe(self.store.claimed, False, key):
                left = await self._handed_over(key, scope)
                if left is not None:
                    return left, None
                token = await self._claim(key, _lease(remaining()))
                if token is not None:
                    return None, token
        raise WebTimeoutError(
            "The call's deadline passed while another worker was answering the same call.",
            detail=CALL_DEADLINE,
        )

    async def _claim(self, key: str, seconds: float) -> str | None:
        """A claim on ``key`` for ``seconds``: its token, None when another worker holds one,
        or "" when the store could not be asked (the call goes on without a claim)."""
        sent: list[concurrent.futures.Future[Any]] = []

        def start() -> concurrent.futures.Future[Any]:
            sent.append(begin(self.store.claim, key, seconds))
            return sent[-1]

        try:
            return await self.guard.wait(start)  # type: ignore[no-any-return]
        except StoreUnavailable as problem:
            self._unclaimed(key, sent)
            self.guard.warn(problem, "this call goes on without it")
            return ""
        except asyncio.CancelledError:
            self._unclaimed(key, sent)
            raise

    async def _leased(self, key: str, token: str, fetch: Callable[[], Awaitable[Any]]) -> Any:
        """``fetch()``, the claim ``token`` on ``key`` renewed while it runs (see :data:`CLAIM_LEASE`)."""
        renewing = asyncio.ensure_future(self._renew(key, token))
        try:
            return await fetch()
        finally:
            renewing.cancel()
            await asyncio.wait([renewing])  # ended here, not left pending on a loop that may close

    async def _renew(self, key: str, token: str) -> None:
        while True:
            await asyncio.sleep(CLAIM_LEASE / 3)
            await self._safe(self.store.renew, None, key, token, CLAIM_LEASE)

    def _unclaimed(self, key: str, sent: list[concurrent.futures.Future[Any]]) -> None:
        """A claim its caller stopped waiting for (cancelled, or past the store's bound) that the
        store makes anyway is let go as soon as it is made: no worker will answer it, and the
        others asking the same would wait on it until their deadlines."""
        if sent:
            when_done(sent[-1], lambda token: token and begin(self.store.release, key, token))

    async def _hand_over(self, key: str, value: Any) -> None:
        """Leave what the workers waiting on this claim would otherwise ask for again (see
        :mod:`.handover`); before the claim is let go."""
        payload = self._encode(value)
        if payload is not None:
            await self._safe(self.store.set, None, handover.PREFIX + key, payload, handover.TTL)

    async def _handed_over(self, key: str, scope: Callable[[], str]) -> Any:
        """What the worker that held the claim left for its waiters, or None; a provider's
        failure met with the keys ``scope`` names is raised."""
        payload = await self._safe(self.store.get, None, handover.PREFIX + key)
        if payload is None:
            return None
        try:
            value = self.store.decode(payload)
        except (ValueError, RecursionError):
            return None
        return handover.taken(value, scope())

    def _encode(self, value: Any) -> Any:
        try:
            return self.store.encode(value)
        except (TypeError, ValueError) as exc:
            log.debug("An answer could not be cached: %s", exc)
            return None

    async def _safe(self, fn: Callable[..., Any], default: Any, *args: Any) -> Any:
        """A bounded shared-store call; on failure warn the call, log now and then, return ``default``."""
        try:
            return await self.guard.call(fn, *args)
        except StoreUnavailable as problem:  # the cache must never fail or stall a call
            self.guard.warn(problem, "this call goes on without it")
            return default


def _lease(remaining: float) -> float:
    """How long a new claim lasts: :data:`CLAIM_LEASE`, or the caller's time left when that is
    less (a second at least)."""
    return max(1.0, min(CLAIM_LEASE, remaining))


def _awaitable(flight: concurrent.futures.Future[Any]) -> asyncio.Future[Any]:
    """``flight`` on this loop. A waiter that stops waiting (its deadline, its cancellation)
    leaves it behind, shielded so as not to cancel the flight: what the flight ends with is
    then taken here, or asyncio logs it as an error nobody retrieved."""
    waited = asyncio.wrap_future(flight)
    waited.add_done_callback(lambda done: done.cancelled() or done.exception())
    return waited


def build_cache(settings: CacheSettings) -> ResultCache | None:
    """The cache that ``web.cache`` describes, or None when caching is off."""
    if not settings.enabled:
        return None
    store: Any
    max_bytes = int(settings.max_mb * 2**20)
    if settings.backend == "redis":
        from .redis_backend import RedisCache

        store = RedisCache(settings.url or "", settings.namespace, settings.timeout)
    elif settings.backend == "sqlite":
        from .sqlite_backend import SQLiteCache

        store = SQLiteCache(settings.path, settings.max_entries, timeout=settings.timeout, max_bytes=max_bytes)
    else:
        store = MemoryCache(settings.max_entries, max_bytes)
    location = settings.url if settings.backend == "redis" else str(getattr(store, "path", "")) or None
    guard = StoreGuard(f"the cache ({settings.backend})", settings.timeout, location=location)
    return ResultCache(store, settings.ttl.model_dump(), guard)
