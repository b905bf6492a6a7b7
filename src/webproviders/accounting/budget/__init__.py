"""Budgets: ``web.budget`` caps on spending per day and month, globally, per provider, per tag.

Before a priced request is sent, its estimated cost is reserved against every budget that
applies; if one would go over, the request is refused with ``budget_exceeded`` and nothing
is sent (a chain moves on to its next, perhaps free, provider). After the answer the
reservation is corrected to what the request really cost.

Days and months are UTC. With ``web.rate_limit.url`` set, the counters live in that Redis
and are shared by every process; otherwise they live in this process (shared by every config
that records to the same ledger), each starting from the usage ledger's running total for its
period (one lookup, not a scan of the ledger).

The store that holds spending (the Redis counters, or the ledger a counter starts from)
follows the one store policy (:mod:`webproviders.dependable.offload`): each operation has a
deadline (``web.budget.timeout``), and a store that stalls or fails is skipped for a while.
What a priced request does then is ``web.budget.on_store_error``: ``refuse`` (the default:
``budget_store_unavailable``, nothing sent, a chain moves on to a free provider) or
``local`` (this process's own counters decide); either way ``meta.warnings`` says so.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...dependable.batch import Batcher
from ...dependable.offload import StoreGuard, StoreUnavailable
from ...errors import BudgetExceededError, BudgetStoreUnavailableError
from ...redact import get_logger, scrub
from ..periods import ALL, KEEP, periods, provider_scope, tag_scope
from ..usage.spool import spool
from .local import GONE, LocalCounters, counters_for
from .redis_backend import MISSING, Reservation

if TYPE_CHECKING:
    from ...config import BudgetLimits, BudgetSettings
    from ..usage import Ledger

log = get_logger("webproviders.accounting.budget")

#: ``(provider, tags)`` combinations whose budget list is remembered (until midnight UTC).
_KNOWN_COMBINATIONS = 4096


def micros(usd: float) -> int:
    return round(usd * 1_000_000)


def dollars(usd: float) -> str:
    """An amount as written for a person: cents at least, and every further digit it has
    (a $0.005 cap is ``$0.005``, not ``$0.01``)."""
    whole, _, fraction = f"{usd:.6f}".rstrip("0").partition(".")
    return f"${whole}.{fraction.ljust(2, '0')}"


def caps_without_provider(settings: BudgetSettings, providers: list[str]) -> list[str]:
    """A sentence for each ``per_provider`` cap whose name no provider has: a cap under
    ``Serper`` (for ``serper``) or ``serpr`` applies to nothing, and the spending it was set to stop goes on."""
    from ...suggest import closest  # here: only a cap under a name no provider has needs it

    known = set(providers)
    sentences = []
    for name in settings.per_provider:
        if name not in known:
            meant = next((p for p in sorted(known) if p.lower() == name.lower()), None) or closest(name.lower(), known)
            hint = f" (did you mean {meant!r}?)" if meant else ""
            sentences.append(
                f"web.budget.per_provider.{name} names no installed provider{hint}, so its cap applies to "
                f"nothing (providers: {', '.join(sorted(known))})."
            )
    return sentences


@dataclass(frozen=True, slots=True)
class Check:
    """One budget that applies to a request: its counter key, limit and how to describe it."""

    key: str
    limit: int
    period: str
    #: The period's stamp (``2026-11-25``, ``2026-11``) and end (wall-clock seconds).
    stamp: str
    ends: float
    #: The ledger scope it totals (``all``, ``provider:tavily``, ``tag:user=alice``).
    total: str
    #: What the budget covers, for messages ("", "for provider tavily", "for user=alice").
    scope: str
    #: The config key that sets it.
    setting: str

    @property
    def ttl(self) -> int:
        """Seconds a shared counter is kept."""
        return KEEP[self.period]


@dataclass(frozen=True, slots=True)
class Hold:
    """A reservation: the counters it went to and how much was taken."""

    keys: tuple[str, ...]
    amount: int
    shared: bool
    #: What this process's counters track the reservation by (see :meth:`LocalCounters.held`).
    ticket: object = field(default=None, compare=False)


class _Handoff:
    """A shared reservation between the store thread that makes it and the caller awaiting it.

    A caller may stop waiting (a hedged chain took another answer, the store overran its
    deadline) while the reservation is on its way; whichever side comes second gives the
    money back, so a request that was never sent holds none of a budget.
    """

    __slots__ = ("_lock", "_waiting", "_made")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting = True
        self._made = False

    def hand_over(self) -> bool:
        """From the store thread, once the reservation is made: True while the caller waits."""
        with self._lock:
            self._made = self._waiting
            return self._waiting

    def abandon(self) -> bool:
        """From the caller, which stops waiting: True when a reservation was already handed over."""
        with self._lock:
            self._waiting = False
            return self._made


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
        self.local = counters_for(None if ledger is None else ledger.identity, settings.max_counters)
        self._url = url
        self._prefix = f"{namespace}:{{budget}}"
        self._ledger = ledger
        self._clock = clock
        self._remote: Any = None
        self._batcher: Batcher[tuple[_Handoff, Reservation], tuple[int, int] | None] | None = None
        #: The shared counters' store (the ledger has its own guard).
        self.guard = StoreGuard("the shared budget store (redis)", settings.timeout, location=url)
        self._known: OrderedDict[tuple[Any, ...], list[Check]] = OrderedDict()
        #: When the UTC day the remembered budget lists belong to starts and ends.
        self._known_from = self._known_until = 0.0

    def checks(self, provider: str, tags: dict[str, str], now: float) -> list[Check]:
        """Every budget a request to ``provider`` with ``tags`` must fit in (remembered until midnight UTC)."""
        if now >= self._known_until:
            self._known.clear()
            _stamp, self._known_from, self._known_until = periods(now)["daily"]
        key = (provider, *sorted(tags.items()))
        found = self._known.get(key)
        if found is None:
            found = self._build_checks(provider, tags, now)
            # A caller that read the clock before another thread started the new day gets
            # its own day's budgets, which are not remembered for the calls of the new one.
            if now >= self._known_from:
                self._known[key] = found
                if len(self._known) > _KNOWN_COMBINATIONS:
                    self._known.popitem(last=False)
        return found

    def _build_checks(self, provider: str, tags: dict[str, str], now: float) -> list[Check]:
        scopes: list[tuple[BudgetLimits, str, str, str]] = [(self.settings, ALL, "", "web.budget")]
        own = self.settings.per_provider.get(provider)
        if own is not None:
            scopes.append((own, provider_scope(provider), f" for provider {provider}",
                           f"web.budget.per_provider.{provider}"))
        for name, value in tags.items():
            limits = self.settings.per_tag.get(name)
            if limits is not None:
                scopes.append((limits, tag_scope(name, value), f" for {name}={value}", f"web.budget.per_tag.{name}"))
        spans = periods(now)
        found: list[Check] = []
        for limits, total, label, setting in scopes:
            for period, cap in (("daily", limits.daily_usd), ("monthly", limits.monthly_usd)):
                if cap is not None:
                    stamp, _starts, ends = spans[period]
                    found.append(Check(f"{self._prefix}:{stamp}:{total}", micros(cap), period, stamp, ends,
                                       total, label, f"{setting}.{period}_usd"))
        return found

    async def reserve(self, provider: str, tags: dict[str, str], usd: float) -> Hold | None:
        """Take ``usd`` from every budget that applies, or raise :class:`BudgetExceededError`
        (or :class:`BudgetStoreUnavailableError` when spending cannot be checked)."""
        now = self._clock()
        checks = self.checks(provider, tags, now)
        if not checks:
            return None
        keys = [c.key for c in checks]
        limits = [c.limit for c in checks]
        amount = micros(usd)
        if self._url is not None:
            handoff = _Handoff()
            ttls = [c.ttl for c in checks]
            try:
                # Asked to: a counter Redis lacks must start from the ledger, not from zero.
                refused = await self._reserve_shared(handoff, (keys, limits, ttls, amount, self._ledger is not None))
                if refused == MISSING and self._ledger is not None:
                    starts = await self._ledger_totals(self._ledger, checks, provider)
                    if starts is not None:
                        refused = await self._reserve_shared(handoff, (keys, limits, ttls, amount, starts))
            except asyncio.CancelledError:
                self._give_back(handoff, keys, amount)
                raise
            except StoreUnavailable as problem:
                self._give_back(handoff, keys, amount)
                self._store_failed(self.guard, problem, provider)
            else:
                if refused != MISSING:  # else the ledger is down and this process's counters decide
                    self._refuse(checks, refused, amount, provider, None)
                    return Hold(tuple(keys), amount, True)
        pending = [c for c in checks if not self.local.known(c.key)]
        # Tracked with its loop: a caller that closes its loop mid-call leaves no one to release it.
        ticket, loop = object(), asyncio.get_running_loop()
        refused = self.local.reserve(keys, limits, amount, now, await self._starts(pending, provider), ticket, loop)
        if refused == GONE:
            # A counter was evicted while the ledger was read (callers of many tag values at
            # once): it restarted from zero, and a cap was spent again. All start from the ledger.
            refused = self.local.reserve(keys, limits, amount, now, await self._starts(checks, provider), ticket, loop)
        self._refuse(checks, refused, amount, provider, self.local)
        return Hold(tuple(keys), amount, False, ticket)

    async def _reserve_shared(self, handoff: _Handoff, request: Reservation) -> tuple[int, int] | None:
        """The shared reservation, sent with those asked for meanwhile (:mod:`...dependable.batch`);
        raises :class:`StoreUnavailable`."""
        if self._batcher is None:
            self._batcher = Batcher(self._reserve_batch)
        batcher = self._batcher
        return await self.guard.wait(lambda: batcher.submit((handoff, request)))

    def _reserve_batch(self, batch: list[tuple[_Handoff, Reservation]]) -> list[tuple[int, int] | None | Exception]:
        """On a store thread: the reservations of a batch (``starts`` as for
        :meth:`.redis_backend.RedisCounters.reserve`). Those made after their callers stopped
        waiting (cancelled, or past the store's deadline) are given back at once, together, on
        this thread: the store has just answered, though its guard may be skipping it for that
        overrun. One round trip, however many: the next batch waits behind this one."""
        counters = self._remote_counters()
        answers = counters.reserve([request for _, request in batch])
        unused = [(keys, -amount) for (handoff, (keys, *_, amount, _starts)), refused in zip(batch, answers, strict=True)
                  if refused is None and not handoff.hand_over()]
        if unused:
            try:
                counters.add(unused)
            except Exception as exc:  # noqa: BLE001 - nobody awaits this thread's answer any more
                problem = StoreUnavailable(f"failed ({type(exc).__name__}: {scrub(str(exc))})")
                self.guard.warn(problem, "reservations their requests never used could not be given back")
        return answers

    def _give_back(self, handoff: _Handoff, keys: list[str], amount: int) -> None:
        """The caller stops waiting for a shared reservation: one already made is given back
        (a later one is given back by the thread that makes it)."""
        if handoff.abandon():
            self.settle(Hold(tuple(keys), amount, True), 0.0)

    def settle(self, hold: Hold | None, usd: float) -> None:
        """Correct a reservation to what the request really cost."""
        if hold is None:
            return
        if not hold.shared:
            self.local.release(hold.keys, hold.amount, hold.ticket)
        delta = micros(usd) - hold.amount
        if not delta:
            return
        if hold.shared:
            spool.submit(lambda: self._settle_shared(hold.keys, delta))
        else:
            self.local.add(hold.keys, delta)

    def _settle_shared(self, keys: tuple[str, ...], delta: int) -> None:
        """On the spool thread: correct the shared counters (lost, and said so, if Redis is down)."""
        try:
            self.guard.run(self._remote_counters().add, [(keys, delta)])
        except StoreUnavailable as problem:
            self.guard.warn(problem, "a reservation could not be corrected to what the request cost")

    async def _starts(self, checks: list[Check], provider: str) -> dict[str, tuple[int, float]]:
        """Where this process's counters for ``checks`` start: the ledger's running totals for
        their periods (zero without a ledger), and when each period ends."""
        if not checks:
            return {}
        ledger = self._ledger
        totals = None if ledger is None else await self._ledger_totals(ledger, checks, provider)
        return {check.key: (spent, check.ends) for check, spent in zip(checks, totals or [0] * len(checks), strict=True)}

    async def _ledger_totals(self, ledger: Ledger, checks: list[Check], provider: str) -> list[int] | None:
        """What the ledger says each budget has spent in its period, in micro-dollars; None when
        the ledger is unavailable and ``on_store_error: local`` lets the call go on (else this
        raises :class:`BudgetStoreUnavailableError`)."""
        # Within web.budget.timeout too, as the counters are: the ledger's own guard waited
        # web.usage.timeout alone. This one shares its breaker (a guard per location).
        bound = min(self.settings.timeout, ledger.guard.timeout)
        guard = StoreGuard(ledger.guard.what, bound, location=ledger.location)
        try:
            totals = await guard.call(ledger.totals, [(c.stamp, c.total) for c in checks])
        except StoreUnavailable as problem:
            self._store_failed(guard, problem, provider)  # local: counts from zero
            return None
        return [micros(spent) for spent in totals]

    def _store_failed(self, guard: StoreGuard, problem: StoreUnavailable, provider: str) -> None:
        """Spending cannot be read: refuse the request, or (``on_store_error: local``) say that
        this process's own counters decide."""
        if self.settings.on_store_error == "local":
            guard.warn(problem, "budgets were checked against this process's own counters for this call")
            return
        guard.warn(problem, f"{provider} was not asked, since its cost could not be checked against web.budget")
        raise BudgetStoreUnavailableError(
            f"{provider} was not asked: its cost could not be checked against web.budget because "
            f"{guard.what} {problem}. Nothing was sent; a free provider can still answer "
            "(web.budget.on_store_error: local would let this process's own counters decide).",
            provider=provider,
        )

    @staticmethod
    def _refuse(
        checks: list[Check], refused: tuple[int, int] | None, amount: int, provider: str, local: LocalCounters | None
    ) -> None:
        """Raise the refusal of the budget that would go over. ``local``: the counters that
        know which part of it requests still under way hold; a shared counter does not tell."""
        if refused is not None:
            index, used = refused
            held = None if local is None else local.held(checks[index].key)
            raise _exceeded(checks[index], used, held, amount, provider)

    def _remote_counters(self) -> Any:
        if self._remote is None:
            from .redis_backend import RedisCounters

            self._remote = RedisCounters(self._url or "", self.settings.timeout)
        return self._remote


def _exceeded(check: Check, used: int, held: int | None, amount: int, provider: str) -> BudgetExceededError:
    """The refusal. ``held``: how much of ``used`` requests still under way have reserved
    (None: not known, as in a shared counter); a reservation is not money spent, and the
    request holding it may end up costing nothing."""
    resets = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(check.ends))
    if held is None:
        taken = f"${used / 1e6:.4f} is already spent or reserved by requests still under way"
    elif held:
        taken = (
            f"${held / 1e6:.4f} is reserved by requests still under way in this process (not spent yet) "
            f"and ${(used - held) / 1e6:.4f} is already spent"
        )
    else:
        taken = f"${used / 1e6:.4f} is already spent"
    error = BudgetExceededError(
        f"{provider} would cost about ${amount / 1e6:.4f}, which would take the {check.period} budget{check.scope} "
        f"({dollars(check.limit / 1e6)}, {check.setting}) over: {taken}. "
        f"It resets at {resets}; a free provider can still answer, or raise the budget.",
        provider=provider,
    )
    error.held = held is None or held > 0
    return error
