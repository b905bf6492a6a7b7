"""Prices: what a provider charges per unit, from its ``plugin.yaml`` or the operator's config.

A keyed provider's manifest declares list prices (``price:``); ``web.providers.<name>.price``
overrides them, since plans differ. Prices are finite numbers (``inf`` or ``NaN`` is refused
with the key named, before it can reach a budget's arithmetic). A provider used without a key (the jina reader) or
against its own ``base_url`` when the manifest says that is self-hosted costs nothing, and
so does every provider without a price.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from ..config import ProviderSettings
    from ..manifest import ProviderManifest

Unit = Literal["request", "url", "page"]
#: The unit each capability is counted in when its price names none (or there is no price).
DEFAULT_UNITS: dict[str, str] = {"search": "request", "extract": "url", "crawl": "page"}
#: Pages a crawl priced per page is assumed to return, when neither the call nor the
#: provider's section sets ``max_pages`` (the built-in crawler's default).
DEFAULT_CRAWL_PAGES = 25


class UnitPrice(BaseModel):
    """``{usd: 0.005, per: request}``: dollars for one unit of one capability."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    usd: float = Field(ge=0)
    per: Unit = "request"
    #: This figure could not be confirmed from the vendor (the whole sheet may say so too).
    estimated: bool = False


class PriceSheet(BaseModel):
    """A provider's prices: one entry per capability, plus where the figures come from."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    search: UnitPrice | None = None
    extract: UnitPrice | None = None
    crawl: UnitPrice | None = None
    #: Dollars per vendor credit, used when the provider reports credits it spent.
    credit_usd: float | None = Field(default=None, ge=0)
    as_of: datetime.date | None = None
    #: The vendor's pricing page.
    source: str = ""
    #: The figures could not be confirmed from the vendor; costs built on them say so.
    estimated: bool = False
    #: With ``base_url`` set the provider is a self-hosted instance, which costs nothing.
    self_hosted_free: bool = False
    #: Everything is free (``price: 0`` in a provider's config section).
    free: bool = False

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        """``price: 0``, ``price: false`` or ``price: free`` mean the provider costs nothing."""
        if value is False or value == "free" or (type(value) in (int, float) and value == 0):
            return {"free": True}
        return value

    def entry(self, capability: str) -> UnitPrice | None:
        found: UnitPrice | None = getattr(self, capability, None)
        return found


@dataclass(frozen=True)
class Rate:
    """The resolved price of one capability of one provider."""

    usd: float
    per: str
    estimated: bool = False


@dataclass(frozen=True)
class Tariff:
    """The resolved prices of one provider (an empty tariff is free)."""

    rates: dict[str, Rate] = field(default_factory=dict)
    credit_usd: float | None = None
    credit_estimated: bool = False

    def rate(self, capability: str) -> Rate:
        found = self.rates.get(capability)
        return found if found is not None else Rate(0.0, DEFAULT_UNITS.get(capability, "request"))

    @property
    def free(self) -> bool:
        return not any(rate.usd for rate in self.rates.values()) and not self.credit_usd


FREE = Tariff()


def _keyed(manifest: ProviderManifest, settings: ProviderSettings) -> bool:
    """Whether the provider runs with a key (a provider that declares no key always counts)."""
    secrets = [var for var in manifest.env if var.secret]
    if not secrets or settings.api_keys():
        return True
    return any(var.value() is not None for var in secrets)


def _self_hosted(manifest: ProviderManifest, settings: ProviderSettings) -> bool:
    if settings.base_url:
        return True
    return any(var.config_key == "base_url" and var.value() is not None for var in manifest.env)


def tariff_for(manifest: ProviderManifest, settings: ProviderSettings) -> Tariff:
    """The prices that apply to a provider now: the operator's, else the manifest's list prices."""
    own: PriceSheet | None = getattr(settings, "price", None)
    listed = manifest.price
    if own is not None and own.free:
        return FREE
    if own is None:
        if listed is None or not _keyed(manifest, settings):
            return FREE
        if listed.self_hosted_free and _self_hosted(manifest, settings):
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
