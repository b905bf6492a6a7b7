"""The registry: every loaded provider, what it can do, and whether it can run now.

One registry is built per :class:`~webproviders.config.Config` (plugins enabled, disabled
and provider settings all come from it) and cached, so dispatch does not reload plugins.
A provider's ``is_available()`` runs under ``plugins.availability_timeout`` and its answer
is remembered briefly (see :meth:`Registry.availability`), so plugin code that hangs never
stalls a call.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import pluggy

from .. import context, redact
from ..config import Config, default_config
from ..errors import WebTimeoutError
from ..manifest import CAPABILITIES, Capability
from .bounded import Overran, call_bounded
from .loader import LoadedPlugins, load_plugins
from .registration import PluginRecord, ProviderEntry

log = redact.get_logger("webproviders.registry")

#: Seconds an ``is_available()`` answer is reused while the provider's environment
#: variables stay the same.
AVAILABILITY_TTL = 2.0
Availability = tuple[bool, str | None]


class Registry:
    """Providers by name, with manifest facts, for one config."""

    def __init__(self, config: Config, loaded: LoadedPlugins) -> None:
        self.config = config
        self._providers = loaded.providers
        self.plugins: list[PluginRecord] = loaded.plugins
        self.hooks: pluggy.PluginManager = loaded.manager
        #: Cache, health and rate-limit state of dispatch (:mod:`webproviders.dispatch.state`).
        self.dispatch_state: Any = None
        #: Recent ``is_available()`` answers: name -> (environment fingerprint, expiry, answer).
        self._answers: dict[str, tuple[tuple[str | None, ...], float, Availability]] = {}
        #: ``is_available()`` calls that overran and have not returned yet.
        self._hung: dict[str, Future[Availability]] = {}
        redact.remember(*config.secrets())
        for entry in self._providers.values():
            redact.watch_env(*(n for var in entry.manifest.env if var.secret for n in var.names()))
            redact.watch_url_env(*(n for var in entry.manifest.env if var.config_key == "base_url" for n in var.names()))

    def names(self) -> list[str]:
        return sorted(self._providers)

    def get(self, name: str) -> ProviderEntry | None:
        return self._providers.get(name)

    def entries(self) -> list[ProviderEntry]:
        return [self._providers[name] for name in self.names()]

    def supports(self, entry: ProviderEntry, capability: Capability) -> bool:
        """Capability check against the provider's own flags (the manifest only lists them)."""
        try:
            return bool(getattr(entry.provider, f"supports_{capability}")())
        except Exception:  # noqa: BLE001 - a broken flag means "no"
            return False

    def availability(self, entry: ProviderEntry) -> Availability:
        """``(available, reason)``; never raises, never touches the network, never hangs.

        ``is_available()`` runs for at most ``plugins.availability_timeout`` seconds (less
        when the current call's deadline is nearer); a provider that overruns is reported
        unavailable, and is not asked again until that call returns. An answer is reused
        for :data:`AVAILABILITY_TTL` seconds unless one of the environment variables its
        manifest declares changes.
        """
        name = entry.manifest.name
        fingerprint = tuple(os.environ.get(var) for env in entry.manifest.env for var in env.names())
        now = time.monotonic()
        remembered = self._answers.get(name)
        if remembered is not None and remembered[0] == fingerprint and now < remembered[1]:
            return remembered[2]
        hung = self._hung.get(name)
        if hung is not None:
            if not hung.done():
                return False, "is_available() has not returned yet; the provider is skipped until it does"
            self._hung.pop(name, None)
        limit = self.config.plugins.availability_timeout
        left = context.remaining_time()
        bound = limit if left is None else min(limit, left)
        try:
            answer = call_bounded(self._ask_availability, bound, entry)
        except Overran as overran:
            self._hung[name] = overran.future
            if bound < limit:
                return False, "the call's deadline passed while is_available() was running"
            log.warning("Provider '%s': is_available() did not return within %g s; it is skipped.", name, limit)
            return False, (
                f"is_available() did not return within {limit:g} s (plugins.availability_timeout); "
                "the provider is skipped until it does"
            )
        self._answers[name] = (fingerprint, now + AVAILABILITY_TTL, answer)
        return answer

    def _ask_availability(self, entry: ProviderEntry) -> Availability:
        provider = entry.provider
        try:
            if provider.is_available():
                return True, None
            reason = provider.unavailable_reason()
        except Exception as exc:  # noqa: BLE001
            return False, f"is_available() failed: {type(exc).__name__}"
        if reason:
            return False, reason
        settings = self.config.provider(entry.manifest.name)
        present = {key for key, value in settings if value not in (None, "", [])}
        present |= {key for key, value in (settings.model_extra or {}).items() if value}
        return False, entry.manifest.missing(present) or "the provider reports it is not available"

    def describe(self, entry: ProviderEntry) -> dict[str, Any]:
        """One row of :func:`list_providers`."""
        available, reason = self.availability(entry)
        return {
            "name": entry.manifest.name,
            "display_name": _safe(lambda: entry.provider.display_name, entry.manifest.name),
            "capabilities": [c for c in CAPABILITIES if self.supports(entry, c)],
            "available": available,
            "reason": reason,
            "source": entry.source,
            "plugin": entry.plugin,
            "priority": entry.manifest.priority,
            "auto_detect": entry.manifest.auto_detect,
            "load_error": None,
        }

    def list_providers(self) -> list[dict[str, Any]]:
        """Every provider, then every plugin that failed to load (with its error)."""
        rows = [self.describe(entry) for entry in self.entries()]
        for record in self.plugins:
            if record.error and not record.providers:
                rows.append(
                    {
                        "name": record.name,
                        "display_name": record.name,
                        "capabilities": [],
                        "available": False,
                        "reason": "the plugin failed to load",
                        "source": record.source,
                        "plugin": record.name,
                        "priority": None,
                        "auto_detect": False,
                        "load_error": record.error,
                    }
                )
            elif record.error:
                for row in rows:
                    if row["plugin"] == record.name and row["source"] == record.source:
                        row["load_error"] = record.error
        return rows


def _safe(getter: Any, default: str) -> str:
    try:
        return str(getter())
    except Exception:  # noqa: BLE001
        return default


_CACHE_SIZE = 8
_cache: OrderedDict[int, tuple[Config, Registry]] = OrderedDict()
#: Registries being built, so that concurrent callers wait for one build.
_building: dict[int, tuple[Config, Future[Registry]]] = {}
_lock = threading.Lock()


def get_registry(config: Config | None = None, *, timeout: float | None = None) -> Registry:
    """The registry for ``config`` (the default config when None), built once and cached.

    With ``timeout``, a caller waits at most that long for plugins to load and gets
    :class:`~webproviders.errors.WebTimeoutError` otherwise; the build goes on in the
    background and later calls use it.
    """
    cfg = config if config is not None else default_config()
    key = id(cfg)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is cfg:
            _cache.move_to_end(key)
            return hit[1]
        pending = _building.get(key)
        builder = pending is None or pending[0] is not cfg
        if builder:
            future: Future[Registry] = Future()
            _building[key] = (cfg, future)
        else:
            future = pending[1]  # type: ignore[index]
    if builder and timeout is None:
        _build(cfg, future)
    elif builder:
        threading.Thread(target=_build, args=(cfg, future), name="webproviders-registry", daemon=True).start()
    try:
        return future.result(timeout)
    except FutureTimeout:
        raise WebTimeoutError(
            f"Loading plugins took longer than this call's {timeout:.1f} s; they go on loading in the "
            f"background (a plugin's register() may take up to {cfg.plugins.register_timeout:g} s, "
            "plugins.register_timeout)."
        ) from None


def _build(cfg: Config, future: Future[Registry]) -> None:
    key = id(cfg)
    try:
        registry = Registry(cfg, load_plugins(cfg))
    except BaseException as exc:  # noqa: BLE001 - handed to every caller waiting for the build
        with _lock:
            if _building.get(key, (None, None))[1] is future:
                del _building[key]
        future.set_exception(exc)
        return
    with _lock:
        if _building.get(key, (None, None))[1] is future:
            del _building[key]
            _cache[key] = (cfg, registry)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    future.set_result(registry)


def clear_registry_cache() -> None:
    """Forget every built registry (after installing a plugin, or in tests)."""
    with _lock:
        _cache.clear()
        _building.clear()


def list_providers(config: Config | None = None) -> list[dict[str, Any]]:
    """Name, display name, capabilities, availability (and why not), source and load error."""
    return get_registry(config).list_providers()
