"""Request budgets per provider: ``rate_limit: "1/s"`` in config (or the manifest's default).

Callers wait for a slot as long as their deadline allows (a caller with other providers to
ask, only as long as its ``patience``), otherwise they get ``rate_limited`` at once without a
request being sent; time a shared store takes to answer comes out of that wait. A vendor's
429 or 503 with ``Retry-After`` pauses the provider for every caller. Budgets live in this process unless
``web.rate_limit.url`` names a Redis server, which makes one budget for a whole fleet (per
provider and set of configured keys: a vendor counts requests and answers 429 per key).
Every Redis operation is bounded (``web.rate_limit.timeout``, see :mod:`..offload`), and
those asked for together go in one round trip (:mod:`..batch`); when
Redis fails or overruns, the call uses this process's budget and says so in
``meta.warnings``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from ...errors import RateLimitedError, WebTimeoutError
from ...redact import get_logger
from ...retry_after import MAX_QUOTA_RESET
from ..batch import Batcher
from ..health import CALL_DEADLINE
from ..offload import StoreGuard, StoreUnavailable, offload, when_done
from .local import LocalLimiter
from .spec import Rate, parse_rate, rate_or_none

if TYPE_CHECKING:
    from ...registry.providers import Registry

__all__ = ["BudgetExhaustedError", "LocalLimiter", "Rate", "RateLimits", "parse_rate", "rate_or_none"]

log = get_logger("webproviders.dependable.ratelimit")

_UNSET: Any = object()
#: Seconds a slot may lie past a vendor's pause and still be the pause's doing (the time
#: the store took, the caller's own clock): such a refusal names the pause, not the budget.
PAUSE_SLACK = 0.5


class BudgetExhaustedError(RateLimitedError):
    """Our own budget (or a vendor's pause) has no slot before the deadline; nothing was sent."""

    #: ``retry_after`` is when the budget's next slot is, known exactly (``10/day``: hours
    #: off): information for the caller, never a pause, so not held to an hour.
    retry_after_ceiling = MAX_QUOTA_RESET


class RateLimits:
    """The budgets and pauses of one registry's providers."""

    def __init__(
        self,
        registry: Registry,
        url: str | None = None,
        namespace: str = "webproviders",
        clock: Callable[[], float] = time.monotonic,
        timeout: float = 1.0,
    ) -> None:
        self._registry = registry
        self.local = LocalLimiter(clock)
        self._url = url
        self._namespace = namespace
        self._timeout = timeout
        self._guard = StoreGuard("the shared rate limiter (redis)", timeout, location=url)
        self._batcher: Batcher[tuple[str, tuple[Any, ...]], Any] | None = None
        self._connecting = threading.Lock()
        self._rates: dict[str, Rate | None] = {}
        self._shared_names: dict[str, str] = {}

    def rate(self, name: str) -> Rate | None:
        """The budget of ``name``: ``web.providers.<name>.rate_limit``, else the manifest's."""
        rate = self._rates.get(name, _UNSET)
        if rate is _UNSET:
            configured = self._registry.config.provider(name).rate_limit
            if configured is None:
                entry = self._registry.get(name)
                configured = entry.manifest.rate_limit if entry is not None else None
            rate = self._rates[name] = rate_or_none(configured)
        return rate

    def unlimited(self, name: str) -> bool:
        """True when ``name`` has no budget and no pause here, so :meth:`acquire` can be skipped."""
        return self._url is None and self.rate(name) is None and self.local.paused_for(name) <= 0

    async def acquire(
        self,
        name: str,
        max_wait: float,
        sleep: Callable[[float], Awaitable[Any]],
        patience: float | None = None,
    ) -> None:
        """Wait for a slot of ``name`` at most ``max_wait`` seconds (what the call's deadline
        leaves), or ``patience`` when that is less (the caller could ask another provider);
        raise :class:`BudgetExhaustedError` if the slot is further off. A vendor's pause that
        began in this process while the caller waited is waited out as well (or, with
        ``patience``, refused: the provider is skipped)."""
        rate = self.rate(name)
        limit = max_wait if patience is None else min(max_wait, patience)
        slot, spare, own_slot = None, 0.0, None
        if self._url is None:
            wait, taken, own_slot = self.local.reserve(name, rate, limit)
        else:
            asked = time.monotonic()

            def here() -> tuple[float, bool, None]:  # the store failed: this process's budget, in the time left
                nonlocal own_slot
                wait, taken, own_slot = self.local.reserve(name, rate, limit - (time.monotonic() - asked))
                return wait, taken, None

            # Only a slot the call can still wait for once the store has answered (within its
            # bound) is taken: one taken at the edge of the wait was given up, late, by most
            # callers of a loaded process, and the fleet's budget went mostly unused. That time
            # is kept from the deadline, not from ``patience``: a chain member kept it from its
            # one second, and waited for no slot at all.
            spare = self._guard.bound()
            ask = max(0.0, min(limit, max_wait - spare))
            wait, taken, slot = await self._shared("reserve", self.shared_name(name), rate, ask, here=here)
            took = time.monotonic() - asked  # the store's delay came out of the call's time
            max_wait, limit = max_wait - took, limit - took
        if not taken or wait > max_wait:
            if slot is not None:  # taken, but the store's delay left no time to use it
                self._give_back(name, slot)
            elif own_slot is not None:
                self.local.give_back(name, own_slot)
            if wait <= 0:  # a slot is free, but the call has no time left to use it
                raise self._no_time(name)
            paused = self.local.paused_for(name) if self._url is None else await self.paused_for(name)
            by_pause = paused > 0 and wait <= paused + PAUSE_SLACK  # the 429's wait, not the budget's
            if spare and wait <= limit:  # within reach, but not with the store's time to spare
                raise self._too_near(name, None if by_pause else rate, wait, spare)
            raise self._exhausted(name, None if by_pause else rate, wait, patience if wait <= max_wait else None)
        if wait > 0:
            unpaused = self.local.paused_for(name) <= 0  # else the slot already lies past the pause
            try:
                await sleep(wait)
            except asyncio.CancelledError:  # the caller left (a hedged chain took another answer)
                if slot is not None:
                    self._give_back(name, slot)
                elif own_slot is not None:
                    self.local.give_back(name, own_slot)
                raise
            paused = self.local.paused_for(name) if unpaused else 0.0
            if paused > 0:  # a vendor's 429 or 503 paused the provider while this caller waited for its slot
                if patience is not None:  # another provider is asked, as a paused one is skipped
                    raise self._exhausted(name, None, paused, patience)
                await self.acquire(name, max_wait - wait, sleep)

    def _give_back(self, name: str, slot: int) -> None:
        """Offer a shared slot taken for a request that will not be sent to the next caller
        (not awaited; while the store is skipped, or failing, the slot is simply unused)."""
        batcher = self._batcher
        if batcher is not None and self._guard.skipped_because() is None:
            with contextlib.suppress(RuntimeError):  # the store threads are gone: the process is exiting
                batcher.submit(("give_back", (self.shared_name(name), slot)))

    async def pause(self, name: str, seconds: float) -> None:
        """Hold every caller of ``name`` back for ``seconds`` (shared when Redis is set)."""
        self.local.pause(name, seconds)
        if self._url is not None:
            await self._shared("pause", self.shared_name(name), seconds, here=lambda: None)

    async def paused_for(self, name: str) -> float:
        """Seconds left in a pause of ``name`` (asks Redis when budgets are shared)."""
        local = self.local.paused_for(name)
        if self._url is None or local > 0:
            return local
        return float(await self._shared("paused_for", self.shared_name(name), here=lambda: local))

    def shared_name(self, name: str) -> str:
        """The name ``name``'s budget and pauses have in Redis. A vendor counts requests, and
        answers 429, per key: configs with keys of their own (a tenant's, an MCP client's)
        each have their own, and processes with the same keys (or keys from the environment
        alone) share one. A provider asked without configured keys is told apart by the
        endpoints set for it (``base_url``, ``SEARXNG_URL``): two SearXNG instances are two
        servers, each counting its own requests."""
        shared = self._shared_names.get(name)
        if shared is None:
            settings = self._registry.config.provider(name)
            keys = settings.api_keys()
            if keys:
                told_by = "\n".join(sorted(keys))
            else:
                entry = self._registry.get(name)
                endpoints = entry.manifest.configured_endpoints(settings) if entry is not None else []
                told_by = "endpoints\n" + "\n".join(endpoints) if endpoints else ""
            digest = hashlib.sha256(told_by.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            shared = self._shared_names[name] = f"{name}@{digest}" if told_by else name
        return shared

    async def _shared(self, method: str, *args: Any, here: Callable[[], Any]) -> Any:
        """Run a Redis limiter method, bounded; fall back to this process on failure (``here``)."""
        sent: list[Future[Any]] = []

        def submit(batcher: Batcher[tuple[str, tuple[Any, ...]], Any]) -> Future[Any]:
            sent.append(batcher.submit((method, args)))
            return sent[-1]

        try:
            batcher = self._batcher
            if batcher is None:  # importing the client is slow once, and never hangs: unbounded
                batcher = await offload(self._connect)
            return await self._guard.wait(lambda: submit(batcher))
        except StoreUnavailable as problem:  # a store outage must not fail or stall searches
            self._unwanted(method, args, sent)
            self._guard.warn(problem, "this call used this process's budget instead")
            return here()
        except asyncio.CancelledError:
            self._unwanted(method, args, sent)
            raise

    def _unwanted(self, method: str, args: tuple[Any, ...], sent: list[Future[Any]]) -> None:
        """A reservation its caller stopped waiting for (cancelled, or past the store's bound)
        that the server makes anyway is given back once it answers, so the slot goes to the next
        caller instead of staying spent for the whole fleet."""
        batcher = self._batcher
        if method != "reserve" or not sent or batcher is None:
            return

        def give_back(answer: tuple[float, bool, int | None]) -> None:
            _wait, taken, slot = answer
            if taken and slot is not None:
                batcher.submit(("give_back", (args[0], slot)))

        when_done(sent[-1], give_back)

    def _connect(self) -> Batcher[tuple[str, tuple[Any, ...]], Any]:
        """The one batcher (and Redis client) of this limiter, however many first calls ask at once."""
        with self._connecting:
            if self._batcher is None:
                from .redis_limiter import RedisLimiter

                self._batcher = Batcher(RedisLimiter(self._url or "", self._namespace, self._timeout).run)
            return self._batcher

    @staticmethod
    def _no_time(name: str) -> WebTimeoutError:
        """The caller's deadline, not the provider's doing: a slot was there, the time was not."""
        return WebTimeoutError(
            f"The call's deadline passed before {name} could be asked.", provider=name, detail=CALL_DEADLINE
        )

    @staticmethod
    def _too_near(name: str, rate: Rate | None, wait: float, spare: float) -> BudgetExhaustedError:
        """The refusal of a shared slot the call could reach only without the store's time to answer."""
        waiting = f"{name} asked callers to wait" if rate is None else f"{name}'s request budget ({rate.text}) has its next free slot in"
        message = (f"{waiting} {wait:.1f} s, too near this call's deadline, which must also leave the shared rate "
                   f"limiter up to {spare:.2f} s to answer.")
        return BudgetExhaustedError(message, provider=name, retry_after=wait)

    @staticmethod
    def _exhausted(name: str, rate: Rate | None, wait: float, patience: float | None) -> BudgetExhaustedError:
        """The refusal of a slot ``wait`` s off: past the deadline, or past ``patience`` (when given)."""
        if patience is not None:
            waiting = f"{name} asked callers to wait" if rate is None else f"{name}'s request budget ({rate.text}) has its next free slot in"
            message = f"{waiting} {wait:.1f} s; other providers are asked rather than wait more than {patience:g} s."
        elif rate is None:
            message = f"{name} asked callers to wait {wait:.1f} s, longer than this call's deadline allows."
        else:
            message = (
                f"{name}'s request budget ({rate.text}) has no free slot before this call's deadline; "
                f"the next one is in {wait:.1f} s."
            )
        return BudgetExhaustedError(message, provider=name, retry_after=wait)
