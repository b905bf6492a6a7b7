"""What accounting keeps for one registry (one config): tariffs, budgets, the ledger, telemetry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import telemetry
from .prices import FREE, Tariff, tariff_for
from .usage import Ledger

if TYPE_CHECKING:
    from ..registry.providers import Registry
    from .budget import Budgets


class Accounts:
    """Built once per registry, beside the cache and the rate limits."""

    def __init__(self, registry: Registry) -> None:
        web = registry.config.web
        self.registry = registry
        self.ledger: Ledger | None = Ledger(web.usage) if web.usage.enabled else None
        self.budgets: Budgets | None = None
        if web.budget.active():  # budgets load only when some cap is set
            from .budget import Budgets, caps_without_provider, log

            self.budgets = Budgets(web.budget, web.rate_limit.url, web.rate_limit.namespace, self.ledger)
            for sentence in caps_without_provider(web.budget, [e.manifest.name for e in registry.entries()]):
                log.warning(sentence)
        self._tariffs: dict[str, Tariff] = {}

    @property
    def telemetry(self) -> telemetry.Telemetry | None:
        """The process's telemetry, asked per call: an application may set OpenTelemetry up
        after its first call."""
        return telemetry.get()

    def tariff(self, name: str) -> Tariff:
        """The prices that apply to provider ``name`` (resolved once: keys and URLs come from config)."""
        found = self._tariffs.get(name)
        if found is None:
            entry = self.registry.get(name)
            found = FREE if entry is None else tariff_for(entry.manifest, self.registry.config.provider(name))
            self._tariffs[name] = found
        return found
