"""One call's accounting: budget checks before each request, its cost after, and the totals.

Dispatch calls :meth:`Meter.start` before a request is sent (a budget may refuse it),
:meth:`Meter.stop` when it ends (the cost goes into that attempt's record), and
:meth:`Meter.finish` with the final envelope (``meta.cost``, ledger rows, metrics).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import context
from ..errors import WebProviderError
from ..redact import scrub
from .book import Accounts
from .cost import Cost, charge, planned_units
from .prices import Tariff
from .usage import UsageRecord

if TYPE_CHECKING:
    from .budget import Hold

#: Failures raised before anything was sent to the vendor: no ledger row.
NOT_SENT = frozenset({"not_configured", "unsupported", "unsafe_url", "budget_exceeded", "budget_store_unavailable"})
#: What a request that cost nothing adds to its attempt's record (shared: it is only read).
_NOTHING: dict[str, Any] = {}
_UNTRACED = contextlib.nullcontext()


@dataclass(slots=True)
class Spend:
    """A request under way: its prices, reservation, usage bucket and span."""

    provider: str
    tariff: Tariff
    planned: float
    hold: Hold | None
    usage: context.Usage
    span: Any
    wall: float
    started: float
    #: Reservations of the requests it sent after its first (a paged search's later pages).
    more: list[Hold] = field(default_factory=list)


@dataclass(slots=True)
class Request:
    """A request that reached the vendor, with what it cost (``sent``: how many requests it
    took, a paged search's later pages and an extract's requests per URL counted)."""

    spend: Spend
    cost: Cost
    outcome: str
    latency_ms: float
    sent: int = 1


def _refused_by_limiter(error: WebProviderError | None) -> bool:
    """Our own request budget said no: nothing was sent."""
    from ..dependable.ratelimit import BudgetExhaustedError  # here: dependable imports this module

    return isinstance(error, BudgetExhaustedError)


class Meter:
    """The accounting of one dispatch call.

    What is off costs nothing: no budget is asked without a cap set, no span is started and
    no metric counted unless the application collects them, no ledger row is written with
    the ledger off.
    """

    __slots__ = ("_started", "_telemetry", "accounts", "arguments", "capability", "requests", "span", "tags", "total")

    def __init__(self, accounts: Accounts, capability: str, arguments: dict[str, Any], tags: dict[str, str]) -> None:
        self.accounts = accounts
        self.capability = capability
        self.arguments = arguments
        self.tags = tags
        self.total = Cost()
        self.requests: list[Request] = []
        self.span: Any = None
        self._started = time.perf_counter()
        telemetry = accounts.telemetry
        #: The telemetry this call reports to: only while the application collects traces or metrics.
        self._telemetry = telemetry if telemetry is not None and telemetry.collecting() else None

    def observe(self) -> contextlib.AbstractContextManager[Any]:
        """The call's span, current while the plan runs (nothing without OpenTelemetry)."""
        telemetry = self._telemetry
        if telemetry is None or not telemetry.tracing():
            return _UNTRACED
        return self._observed(telemetry)

    @contextlib.contextmanager
    def _observed(self, telemetry: Any) -> Any:
        with telemetry.call_span(self.capability) as span:
            self.span = span
            yield span

    async def start(self, provider: str, arguments: dict[str, Any]) -> Spend:
        """Before a request: reserve its estimated cost (may raise ``BudgetExceededError``).

        ``arguments`` are the request's own, which may ask for fewer URLs than the call: an
        extract chain passes on only those the index could not answer, a provider is given
        only the URLs it may fetch."""
        accounts = self.accounts
        tariff = accounts.tariff(provider)
        rate = tariff.rate(self.capability)
        capability = self.capability
        settings = accounts.registry.config.provider(provider) if capability == "crawl" else None  # only a crawl reads it
        planned = planned_units(capability, rate.per, arguments, settings)
        hold = None
        if rate.usd and accounts.budgets is not None:
            hold = await accounts.budgets.reserve(provider, self.tags, planned * rate.usd)
        span = None
        if self.span is not None:  # traced: the request gets a child span
            span = accounts.telemetry.start_attempt(self.span, self.capability, provider)  # type: ignore[union-attr]
        return Spend(provider, tariff, planned, hold, context.start_usage(), span, time.time(), time.perf_counter())

    def spending_more(self, spend: Spend) -> Callable[[], Awaitable[None]] | None:
        """What reserves a further request of ``spend``'s attempt against the budgets (None
        when nothing need be): a provider priced per request is billed for each page of a
        paged search, and its call reserved one request. An extract's or a crawl's further
        requests are within the URLs or pages it reserved."""
        budgets = self.accounts.budgets
        if budgets is None or self.capability != "search":
            return None
        rate = spend.tariff.rate(self.capability)
        if not rate.usd or rate.per != "request":
            return None

        async def reserve() -> None:
            hold = await budgets.reserve(spend.provider, self.tags, rate.usd)
            if hold is not None:
                spend.more.append(hold)

        return reserve

    def stop(
        self, spend: Spend, data: Any = None, error: WebProviderError | None = None, sent: bool = True, further: int = 0
    ) -> dict[str, Any]:
        """After a request: its cost; returns the keys to add to the attempt's record.

        ``sent=False``: it was given up on before it went out (nothing charged or recorded).
        ``further``: the requests it sent after its first (its later pages, its URLs).
        """
        cost = (
            charge(spend.tariff, self.capability, spend.planned, data=data, error=error, reported=spend.usage)
            if sent
            else Cost()
        )
        budgets = self.accounts.budgets
        if budgets is not None:
            further = 0.0
            for hold in spend.more:  # each is released; what the requests cost falls on the first
                budgets.settle(hold, hold.amount / 1_000_000)
                further += hold.amount / 1_000_000
            if spend.hold is not None:
                budgets.settle(spend.hold, cost.usd - further)
        code = None if error is None else error.code
        if spend.span is not None:
            self.accounts.telemetry.end_attempt(spend.span, cost, code)  # type: ignore[union-attr]
        if sent and code not in NOT_SENT and not (code == "rate_limited" and _refused_by_limiter(error)):
            latency = round((time.perf_counter() - spend.started) * 1000, 3)
            self.requests.append(Request(spend, cost, code or "ok", latency, 1 + further))
            self.total += cost
        return {"cost": cost.as_dict()} if cost.usd else _NOTHING

    def finish(self, envelope: dict[str, Any]) -> None:
        """With the final envelope: ``meta.cost`` (when anything was spent), ledger rows, metrics."""
        meta = envelope.get("meta")
        if self.total.usd > 0 and isinstance(meta, dict):
            meta["cost"] = self.total.as_dict()
        ledger = self.accounts.ledger
        if ledger is not None and self.requests:
            outage = ledger.outage()
            if outage is not None and isinstance(meta, dict):
                warnings = meta.setdefault("warnings", [])
                if outage not in warnings:
                    warnings.append(outage)
            query = self._query() if ledger.record_queries else None
            for request in self.requests:
                cost = request.cost
                ledger.record(
                    UsageRecord(
                        request.spend.wall, request.spend.provider, self.capability, request.outcome, cost.units,
                        cost.unit or "request", cost.usd, cost.estimated, request.latency_ms, self.tags, query,
                    )
                )
        telemetry = self._telemetry
        if telemetry is not None:
            seconds = time.perf_counter() - self._started
            requests = [(r.spend.provider, r.outcome, r.cost.usd, r.sent) for r in self.requests]
            telemetry.end_call(self.span, self.capability, envelope, self.total, seconds, requests)

    def refuse(self, envelope: dict[str, Any]) -> None:
        """Report a call refused before any provider was asked (bad input, a backend that
        cannot run) as every call is: its span and its count. Only a provider the registry
        knows labels it: a backend name the caller made up is ``none``, so labels stay few."""
        telemetry = self._telemetry
        if telemetry is None:
            return
        named = envelope.get("provider")
        provider = named if isinstance(named, str) and self.accounts.registry.get(named) is not None else "none"
        telemetry.refused(self.capability, envelope, provider, time.perf_counter() - self._started)

    def _query(self) -> str:
        """The call's query or URLs as the ledger keeps them: scrubbed, as a log line is (a
        caller's ``?api_key=`` or ``user:password@`` in a URL is no business of the ledger's)."""
        arguments = self.arguments
        if self.capability == "search":
            return scrub(str(arguments["query"]))
        if self.capability == "extract":
            return scrub(" ".join(arguments["urls"]))
        return scrub(str(arguments["url"]))
