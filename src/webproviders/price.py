"""The ``price:`` schema: what a provider charges per unit, as ``plugin.yaml`` and config write it.

A keyed provider's manifest declares list prices (``price:``); ``web.providers.<name>.price``
overrides them, since plans differ. Prices are finite numbers (``inf`` or ``NaN`` is refused
with the key named, before it can reach a budget's arithmetic). Here only so that the config
and the manifests can check a price where it is written; what a call is charged is worked
out in :mod:`webproviders.accounting.prices`, loaded with the first dispatch.
"""

# No ``from __future__ import annotations`` here: pydantic reads these annotations when the
# module is imported, and as strings each would be compiled first (milliseconds at start-up).

import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .pydanticplugins import look_up_plugins

look_up_plugins()  # before the first model: another package's broken entry points fail it

Unit = Literal["request", "url", "page"]


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
