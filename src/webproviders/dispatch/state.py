"""What dispatch remembers between calls for one registry: cache, health, budgets, retry
policies and accounts (the pieces come from :mod:`webproviders.dependable` and
:mod:`webproviders.accounting`).

It hangs off a :class:`~webproviders.registry.providers.Registry` (one per config), so two configs
never share a cache or a cool-down. Clocks and the sleep function are attributes, so tests
can drive cool-downs and back-offs without waiting.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..accounting.book import Accounts
from ..dependable.cache import ResultCache, build_cache
from ..dependable.health import HealthBoard
from ..dependable.ratelimit import RateLimits
from ..dependable.retry import RetryPolicy

if TYPE_CHECKING:
    from ..registry.providers import Registry

_lock = threading.Lock()


class DispatchState:
    """Everything dispatch remembers between calls for one registry."""

    def __init__(self, registry: Registry) -> None:
        web = registry.config.web
        self.registry = registry
        self.health = HealthBoard(
            failures=web.health.failures,
            window=web.health.window,
            cooldown=web.health.cooldown,
            rate_limit_cooldown=web.health.rate_limit_cooldown,
            quota_cooldown=web.health.quota_cooldown,
        )
        self.limits = RateLimits(
            registry, web.rate_limit.url, web.rate_limit.namespace, timeout=web.rate_limit.timeout
        )
        self.cache: ResultCache | None = build_cache(web.cache)
        #: Prices, budgets, the usage ledger and telemetry (:mod:`webproviders.accounting`).
        self.accounts = Accounts(registry)
        #: How retries and limiter waits sleep; tests swap in a fake.
        self.sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
        self._policies: dict[str, RetryPolicy] = {}
        self._async: dict[tuple[str, str], bool] = {}

    def is_async(self, name: str, capability: str) -> bool:
        """Whether the provider's method for ``capability`` is ``async def`` (remembered)."""
        key = (name, capability)
        found = self._async.get(key)
        if found is None:
            entry = self.registry.get(name)
            method = getattr(entry.provider, capability, None) if entry is not None else None
            found = self._async[key] = inspect.iscoroutinefunction(method)
        return found

    def retry_policy(self, name: str) -> RetryPolicy:
        """``web.retry`` with ``web.providers.<name>.max_retries`` / ``backoff`` applied."""
        policy = self._policies.get(name)
        if policy is None:
            retry = self.registry.config.web.retry
            own = self.registry.config.provider(name)
            policy = self._policies[name] = RetryPolicy(
                max_retries=retry.max_retries if own.max_retries is None else own.max_retries,
                backoff=retry.backoff if own.backoff is None else own.backoff,
                max_backoff=retry.max_backoff,
            )
        return policy


def state_for(registry: Registry) -> DispatchState:
    """The registry's dispatch state, built on first use."""
    state = registry.dispatch_state
    if state is None:
        with _lock:
            state = registry.dispatch_state
            if state is None:
                state = registry.dispatch_state = DispatchState(registry)
    return state
