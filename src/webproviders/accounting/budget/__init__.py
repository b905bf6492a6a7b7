"""Budgets: ``web.budget`` caps on spending per day and month, globally, per provider, per tag.

Before a priced request is sent, its estimated cost is reserved against every budget that
applies; if one would go over, the request is refused with ``budget_exceeded`` and nothing
is sent (a chain moves on to its next, perhaps free, provider). After the answer the
reservation is corrected to what the request really cost.

Days and months are UTC. With ``web.rate_limit.url`` set, the counters live in that Redis
and are shared by every process; otherwise they live in this process, starting from what
the usage ledger already recorded for the period.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...dependable.outage import OutageLog
from ...errors import BudgetExceededError
from ...redact import get_logger, scrub
from ..usage.spool import spool
from .local import LocalCounters

if TYPE_CHECKING:
    from ...config import BudgetLimits, BudgetSettings
    from ..usage import Ledger

log = get_logger("webproviders.accounting.budget")

#: How long Redis keeps a period's counter after the period starts.
_TTL = {"daily": 3 * 86400, "monthly": 35 * 86400}


def micros(usd: float) -> int:
    return round(usd * 1_000_000)


def dollars(usd: float) -> str:
    """An amount as written for a person: cents at least, and every further digit it has
    (a $0.005 cap is ``$0.005``, not ``$0.01``)."""
    whole, _, fraction = f"{usd:.6f}".rstrip("0").partition(".")
    return f"${whole}.{fraction.ljust(2, '0')}"


@dataclass(frozen=True, slots=True)
class Check:
    """One budget that applies to a request: its counter key, limit and how to describe it."""

    key: str
    limit: int
    ttl: int
    period: str
    #: Start and end of the period (wall-clock seconds).
    starts: float
    ends: float
    #: What the budget covers, for messages ("", "for provider tavily", "for user=alice").
    scope: str
    #: The config key that sets it.
    setting: str
    provider: str | None = None
    tag: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Hold:
    """A reservation: the counters it went to and how much was taken."""

    keys: tuple[str, ...]
    amount: int
    shared: bool


def _periods(now: float) -> dict[str, tuple[str, float, float]]:
    day = time.gmtime(now)
    day_start = calendar.timegm((day.tm_year, day.tm_mon, day.tm_mday, 0, 0, 0))
    month_start = calendar.timegm((day.tm_year, day.tm_mon, 1, 0, 0, 0))
    next_month = (day.tm_year + day.tm_mon // 12, day.tm_mon % 12 + 1)
    return {
        "daily": (time.strftime("%Y-%m-%d", day), day_start, day_start + 86400),
        "monthly": (time.strftime("%Y-%m", day), month_start, calendar.timegm((*next_month, 1, 0, 0, 0))),
    }


class Budgets:
    """The budgets of one config, and the counters they are checked against."""

    def __init__(
        self,
        settings: BudgetSettings,
        url: str | None = None,
        namespace: str = "webproviders",
        ledger: Ledger | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.local = LocalCounters()
        self._url = url
        self._prefix = f"{namespace}:{{budget}}"
        self._ledger = ledger
        self._clock = clock
        self._remote: Any = None
        self._outage = OutageLog(
            log, "The shared budget counters are unreachable ({error}); budgets apply per process until they are back."
        )
        self._known: dict[tuple[Any, ...], list[Check]] = {}
        self._known_until = 0.0

    def checks(self, provider: str, tags: dict[str, str], now: float) -> list[Check]:
        """Every budget a request to ``provider`` with ``tags`` must fit in (remembered until midnight UTC)."""
        if now >= self._known_until:
            self._known.clear()
            self._known_until = _periods(now)["daily"][2]
        key = (provider, *sorted(tags.items()))
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = self._build_checks(provider, tags, now)
        return found

    def _build_checks(self, provider: str, tags: dict[str, str], now: float) -> list[Check]:
        scopes: list[tuple[BudgetLimits, str, str, str, str | None, tuple[str, str] | None]] = [
            (self.settings, "all", "", "web.budget", None, None)
        ]
        own = self.settings.per_provider.get(provider)
        if own is not None:
            scopes.append((own, f"provider:{provider}", f" for provider {provider}",
                           f"web.budget.per_provider.{provider}", provider, None))
        for name, value in tags.items():
            limits = self.settings.per_tag.get(name)
            if limits is not None:
                scopes.append((limits, f"tag:{name}={value}", f" for {name}={value}",
                               f"web.budget.per_tag.{name}", None, (name, value)))
        periods = _periods(now)
        found: list[Check] = []
        for limits, scope, label, setting, for_provider, tag in scopes:
            for period, cap in (("daily", limits.daily_usd), ("monthly", limits.monthly_usd)):
                if cap is None:
                    continue
                stamp, starts, ends = periods[period]
                found.append(
                    Check(f"{self._prefix}:{stamp}:{scope}", micros(cap), _TTL[period], period, starts, ends,
                          label, f"{setting}.{period}_usd", for_provider, tag)
                )
        return found

    async def reserve(self, provider: str, tags: dict[str, str], usd: float) -> Hold | None:
        """Take ``usd`` from every budget that applies, or raise :class:`BudgetExceededError`."""
        from ...dependable.offload import offload

        checks = self.checks(provider, tags, self._clock())
        if not checks:
            return None
        keys = [c.key for c in checks]
        limits = [c.limit for c in checks]
        amount = micros(usd)
        refused: tuple[int, int] | None = None
        shared = False
        if self._url is not None:
            try:
                refused = await offload(self._remote_counters().reserve, keys, limits, [c.ttl for c in checks], amount)
                shared = True
            except Exception as exc:  # noqa: BLE001 - a store outage must not fail searches
                self._outage.warn(exc)
        if not shared:
            unseeded = [c for c in checks if not self.local.known(c.key)]
            if unseeded:
                await offload(self._seed, unseeded)
            refused = self.local.reserve(keys, limits, amount)
        if refused is not None:
            index, used = refused
            raise _exceeded(checks[index], used, amount, provider)
        return Hold(tuple(keys), amount, shared)

    def settle(self, hold: Hold | None, usd: float) -> None:
        """Correct a reservation to what the request really cost."""
        if hold is None:
            return
        delta = micros(usd) - hold.amount
        if not delta:
            return
        if hold.shared:
            spool.submit(lambda: self._remote_counters().add(hold.keys, delta))
        else:
            self.local.add(hold.keys, delta)

    def _seed(self, checks: list[Check]) -> None:
        """Start this process's counters at what the ledger recorded for their periods."""
        for check in checks:
            spent = 0.0
            if self._ledger is not None:
                try:
                    spent = self._ledger.spent(check.starts, check.provider, check.tag)
                except Exception as exc:  # noqa: BLE001 - an unreadable ledger counts as nothing spent
                    log.warning("Could not read past spending from the usage ledger (%s: %s).",
                                type(exc).__name__, scrub(str(exc)))
            self.local.seed(check.key, micros(spent))

    def _remote_counters(self) -> Any:
        if self._remote is None:
            from .redis_backend import RedisCounters

            self._remote = RedisCounters(self._url or "")
        return self._remote



def _exceeded(check: Check, used: int, amount: int, provider: str) -> BudgetExceededError:
    resets = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(check.ends))
    return BudgetExceededError(
        f"{provider} would cost about ${amount / 1e6:.4f}, which would take the {check.period} budget{check.scope} "
        f"({dollars(check.limit / 1e6)}, {check.setting}) over: ${used / 1e6:.4f} is already spent. "
        f"It resets at {resets}; a free provider can still answer, or raise the budget.",
        provider=provider,
    )
