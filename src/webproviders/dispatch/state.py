"""What dispatch remembers between calls for one registry: cache, health, budgets, retry
policies, accounts and the vendor HTTP clients (the pieces come from
:mod:`webproviders.dependable`, :mod:`webproviders.accounting` and :mod:`webproviders.kit`).

It hangs off a :class:`~webproviders.registry.providers.Registry` (one per config), so two configs
never share a cache or a cool-down. Clocks and the sleep function are attributes, so tests
can drive cool-downs and back-offs without waiting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..accounting.book import Accounts
from ..dependable.cache import ResultCache, build_cache
from ..dependable.cache.fingerprint import config_setup, settings_setup
from ..dependable.health import HealthBoard
from ..dependable.ratelimit import RateLimits
from ..dependable.retry import RetryPolicy
from ..forklock import ForkLock
from ..redact import compile_patterns
from .plan import Planner

if TYPE_CHECKING:
    from ..config import Config
    from ..manifest import Capability, ProviderManifest
    from ..registry.providers import Registry
    from ..vendorhttp.clients import HTTPClients

#: Held while first-use set-up imports modules: a fork waits for it (:mod:`~webproviders.forklock`).
_lock = ForkLock()


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
        #: Plans of named backends, kept (:class:`.plan.Planner`).
        self.planner = Planner(registry)
        #: Whether the config sets ``web.timeout`` (then no provider stretches a call's deadline).
        self.timeout_set = "timeout" in web.model_fields_set
        self._clients: HTTPClients | None = None
        #: How retries and limiter waits sleep; tests swap in a fake.
        self.sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
        self._policies: dict[str, RetryPolicy] = {}
        self._timeouts: dict[str, float | None] = {}
        self._setups: dict[tuple[str, Capability], dict[str, Any]] = {}
        # What the first call would otherwise build as it runs, on an async caller's event
        # loop (tens of milliseconds, every other task held): built here, in its preparation,
        # which runs off the loop while the registry is new.
        compile_patterns()
        if self.cache is not None:
            settings_setup(registry.config.provider(""))  # the settings' serializer, for cache keys

    def clients(self) -> HTTPClients:
        """The long-lived vendor clients every call of this registry sends through (made on
        first use, so a call that sends nothing loads no HTTP stack)."""
        owner = self._clients
        if owner is None:
            with _lock:
                if self._clients is None:
                    from ..vendorhttp.clients import HTTPClients

                    self._clients = HTTPClients()
                owner = self._clients
        return owner

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


    def own_timeout(self, name: str) -> float | None:
        """``web.providers.<name>.timeout``: seconds one request to it may take (None: the call's)."""
        try:
            return self._timeouts[name]
        except KeyError:
            found = self._timeouts[name] = self.registry.config.provider(name).timeout
            return found

    def config_setup(self, manifest: ProviderManifest, capability: Capability) -> dict[str, Any]:
        """What the config sets that can change a provider's answers for ``capability`` (a part
        of its cache keys), worked out once: a config does not change."""
        key = (manifest.name, capability)
        try:
            return self._setups[key]
        except KeyError:
            found = self._setups[key] = config_setup(self.registry.config, manifest, capability)
            return found


def state_for(registry: Registry) -> DispatchState:
    """The registry's dispatch state, built on first use."""
    state = registry.dispatch_state
    if state is None:
        with _lock:
            state = registry.dispatch_state
            if state is None:
                state = registry.dispatch_state = DispatchState(registry)
    return state


def http_clients(config: Config | None = None) -> HTTPClients:
    """The owner of the vendor clients that calls with ``config`` use (the default config when
    None): ``with`` / ``async with`` it to close them when a block ends."""
    from ..registry.providers import get_registry

    return state_for(get_registry(config)).clients()
