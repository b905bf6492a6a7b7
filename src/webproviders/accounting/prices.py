"""Tariffs: the prices that apply to a provider now, resolved from its ``price:`` sheets.

``web.providers.<name>.price`` overrides the manifest's list prices, since plans differ. A
provider used without a key (the jina reader) or against its own ``base_url`` when the
manifest says that is self-hosted costs nothing, and so does every provider without a price.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..config import ProviderSettings
    from ..manifest import ProviderManifest
    from ..price import PriceSheet

#: The unit each capability is counted in when its price names none (or there is no price).
DEFAULT_UNITS: dict[str, str] = {"search": "request", "extract": "url", "crawl": "page"}
#: Pages a crawl priced per page is assumed to return, when neither the call nor the
#: provider's section sets ``max_pages`` (the built-in crawler's default).
DEFAULT_CRAWL_PAGES = 25


class Rate(NamedTuple):
    """The resolved price of one capability of one provider."""

    usd: float
    per: str
    estimated: bool = False


class Tariff(NamedTuple):
    """The resolved prices of one provider (an empty tariff is free)."""

    rates: dict[str, Rate]
    credit_usd: float | None = None
    credit_estimated: bool = False

    def rate(self, capability: str) -> Rate:
        found = self.rates.get(capability)
        return found if found is not None else _UNPRICED.get(capability, _UNPRICED["search"])

    @property
    def free(self) -> bool:
        return not any(rate.usd for rate in self.rates.values()) and not self.credit_usd


FREE = Tariff({})
#: The rate of a capability without a price, in its default unit.
_UNPRICED = {capability: Rate(0.0, unit) for capability, unit in DEFAULT_UNITS.items()}


def _self_hosted(manifest: ProviderManifest, settings: ProviderSettings) -> bool:
    if settings.base_url:
        return True
    return any(var.config_key == "base_url" and var.value() is not None for var in manifest.env)


def tariff_for(manifest: ProviderManifest, settings: ProviderSettings) -> Tariff:
    """The prices that apply to a provider now: the operator's, else the manifest's list prices
    (which a keyless or self-hosted setup does not pay)."""
    own: PriceSheet | None = getattr(settings, "price", None)
    listed = manifest.price_sheet()
    if own is not None and own.free:
        return FREE
    # Without its key, or self-hosted, the list prices are not what the setup costs: an
    # operator's price for one capability left the others at list prices (a self-hosted
    # firecrawl priced per crawled page was charged Firecrawl's price for every search).
    if listed is not None and (not manifest.has_key(settings) or (listed.self_hosted_free and _self_hosted(manifest, settings))):
        listed = None
    if own is None and listed is None:
        return FREE
    rates: dict[str, Rate] = {}
    for capability in DEFAULT_UNITS:
        for sheet in (own, listed):
            entry = sheet.entry(capability) if sheet is not None else None
            if entry is not None:
                rates[capability] = Rate(entry.usd, entry.per, entry.estimated or sheet.estimated)  # type: ignore[union-attr]
                break
    credit_from = own if own is not None and own.credit_usd is not None else listed
    credit = credit_from.credit_usd if credit_from is not None else None
    return Tariff(rates, credit, bool(credit_from and credit_from.estimated))
