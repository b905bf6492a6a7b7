"""What one request cost: units counted or reported, priced with the provider's tariff.

A success is charged for what it returned (one request, the URLs read, the pages crawled)
unless the provider reported the vendor's own figure. A failure is charged nothing, as
vendors do not bill refused or failed requests, except when the vendor may have done the
work anyway (a timeout, an answer we could not read): then the planned units are charged
and the cost is marked ``estimated``. An extract or crawl answer whose every page failed
(each page's own timeout included) is a failure of the pages, not of the request: the vendor
answered, and read nothing to bill.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..context import Usage
from ..errors import WebProviderError
from .prices import DEFAULT_CRAWL_PAGES, Tariff

#: Failures after which the vendor may still bill the request (``cancelled``: a hedged
#: chain's request given up on after it was sent).
BILLED_FAILURES = frozenset({"timeout", "parse_error", "too_large", "cancelled"})


@dataclass(slots=True)
class Cost:
    """Dollars and units; ``unit`` is ``"mixed"`` once costs in different units are added."""

    usd: float = 0.0
    units: float = 0.0
    unit: str | None = None
    estimated: bool = False

    def __iadd__(self, other: Cost) -> Cost:
        if other.units:
            self.unit = other.unit if self.unit in (None, other.unit) else "mixed"
        self.usd += other.usd
        self.units += other.units
        self.estimated = self.estimated or other.estimated
        return self

    def spent(self) -> bool:
        return bool(self.usd or self.units)

    def as_dict(self) -> dict[str, Any]:
        units = int(self.units) if float(self.units).is_integer() else round(self.units, 6)
        return {"usd": round(self.usd, 6), "units": units, "unit": self.unit, "estimated": self.estimated}


def planned_units(capability: str, per: str, arguments: dict[str, Any], settings: Any) -> float:
    """The units a request will likely use, known before it is sent (for budgets); only a
    crawl reads the provider's ``settings`` (None will do for the others)."""
    if per == "request":
        return 1.0
    if capability == "extract":
        return float(len(arguments["urls"]))
    if capability == "search":
        return float(arguments["limit"])
    options = arguments["options"]  # ``limit`` is ``max_pages``'s alias for every crawler
    # The section's as its crawler reads it: "50" from a ${VAR}, or 50.0, is fifty pages.
    try:
        configured = settings.number("max_pages", None)
    except WebProviderError:  # no number of pages: the crawler refuses it, naming the key
        configured = None
    pages = options.get("max_pages") or options.get("limit") or configured or DEFAULT_CRAWL_PAGES
    return float(pages) if isinstance(pages, int) and not isinstance(pages, bool) and pages > 0 else DEFAULT_CRAWL_PAGES


def counted_units(per: str, data: Any) -> float:
    """Units a successful answer used: one request, or the items returned without an error."""
    if per == "request":
        return 1.0
    items = data.get("web") if isinstance(data, dict) else data
    return float(sum(1 for item in items or [] if isinstance(item, dict) and not item.get("error")))


def charge(
    tariff: Tariff,
    capability: str,
    planned: float,
    *,
    data: Any = None,
    error: WebProviderError | None = None,
    reported: Usage | None = None,
) -> Cost:
    """The cost of one request that reached the vendor."""
    rate = tariff.rate(capability)
    if reported is not None and (reported.usd is not None or reported.units is not None):
        cost = _reported(tariff, rate.usd, rate.per, rate.estimated, reported, data, error)
        # Reports that add up, or price out, beyond any float are nonsense, ignored as one is.
        if math.isfinite(cost.usd) and math.isfinite(cost.units):
            return cost
    if error is None:
        units = counted_units(rate.per, data)
        return Cost(units * rate.usd, units, rate.per, rate.estimated and rate.usd > 0)
    if error.code in BILLED_FAILURES and error.failures is None:  # else it answered URL by URL: none read
        return Cost(planned * rate.usd, planned, rate.per, rate.usd > 0)
    return Cost(unit=rate.per)


def _reported(
    tariff: Tariff, price: float, per: str, estimated: bool, reported: Usage, data: Any, error: WebProviderError | None
) -> Cost:
    units, unit = reported.units, reported.unit or per
    if units is None:
        units, unit = (counted_units(per, data) if error is None else 0.0), per
    if reported.usd is not None:
        return Cost(reported.usd, units, unit, False)
    if unit == per:
        return Cost(units * price, units, unit, estimated and price > 0)
    if unit == "credit" and tariff.credit_usd is not None:
        return Cost(units * tariff.credit_usd, units, unit, tariff.credit_estimated)
    counted = counted_units(per, data) if error is None else 0.0
    return Cost(counted * price, units, unit, price > 0)
