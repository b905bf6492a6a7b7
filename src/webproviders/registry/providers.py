"""The registry: every loaded provider, what it can do, and whether it can run now.

One registry is built per :class:`~webproviders.config.Config` (plugins enabled, disabled
and provider settings all come from it) and cached, so dispatch does not reload plugins.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import pluggy

from .. import redact
from ..config import Config, default_config
from ..manifest import CAPABILITIES, Capability
from .loader import LoadedPlugins, load_plugins
from .registration import PluginRecord, ProviderEntry


class Registry:
    """Providers by name, with manifest facts, for one config."""

    def __init__(self, config: Config, loaded: LoadedPlugins) -> None:
        self.config = config
        self._providers = loaded.providers
        self.plugins: list[PluginRecord] = loaded.plugins
        self.hooks: pluggy.PluginManager = loaded.manager
        #: Cache, health and rate-limit state of dispatch (:mod:`webproviders.dispatch.state`).
        self.dispatch_state: Any = None
        redact.remember(*config.secrets())
        for entry in self._providers.values():
            redact.watch_env(*(n for var in entry.manifest.env if var.secret for n in var.names()))

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

    def availability(self, entry: ProviderEntry) -> tuple[bool, str | None]:
        """``(available, reason)``; never raises, never touches the network."""
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
_lock = threading.Lock()


def get_registry(config: Config | None = None) -> Registry:
    """The registry for ``config`` (the default config when None), built once and cached."""
    cfg = config if config is not None else default_config()
    key = id(cfg)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is cfg:
            _cache.move_to_end(key)
            return hit[1]
        registry = Registry(cfg, load_plugins(cfg))
        _cache[key] = (cfg, registry)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        return registry


def clear_registry_cache() -> None:
    """Forget every built registry (after installing a plugin, or in tests)."""
    with _lock:
        _cache.clear()


def list_providers(config: Config | None = None) -> list[dict[str, Any]]:
    """Name, display name, capabilities, availability (and why not), source and load error."""
    return get_registry(config).list_providers()
