"""Running a plan: a chain tries providers in turn (the first success wins), fusion asks all at once."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Awaitable
from typing import Any

from ..dependable.fusion import fuse
from ..envelope import failure, success
from ..errors import (
    BudgetExceededError,
    NotConfiguredError,
    ProviderError,
    WebProviderError,
    WebTimeoutError,
    to_provider_error,
)
from ..redact import get_logger
from ..registry.registration import ProviderEntry
from . import gaps, hedge, runner
from .call import Call
from .per_url import failed_count
from .plan import Plan
from .serve import Skipped, serve

log = get_logger("webproviders.dispatch")

#: Errors after which a chain moves on to its next provider (besides retryable ones).
#: ``too_large`` is about one provider's answer (or its read of a page) passing a cap on this
#: side: another provider may well answer within it.
FAILOVER_CODES = frozenset(
    {"not_configured", "quota_exceeded", "auth_error", "not_found", "budget_exceeded", "too_large"}
)


def _should_fail_over(error: WebProviderError, plan: Plan) -> bool:
    if error.code == "invalid_input":
        return False
    if plan.standby:
        return error.code == "not_configured"
    return error.retryable or error.code in FAILOVER_CODES


def _refused(name: str, error: WebProviderError) -> str:
    """Who refused whose credentials: a 407 comes from a proxy on the way, which refused its
    own, never from the provider (a keyless one has none); a policy hook refuses in its stead."""
    if error.hook is not None:  # a policy's refusal in the provider's stead, no credential's
        return f"The {error.hook} hook refused provider '{name}' ({error.message})"
    if error.status_code == 407:
        return f"A proxy on the way to provider '{name}' refused its proxy credentials (HTTP 407)"
    return f"Provider '{name}' rejected its credentials"


def _is_empty(data: Any) -> bool:
    """No hits (an extract or crawl that read no page never gets here: it is a failure)."""
    items = data.get("web") if isinstance(data, dict) else data
    return not items


def _succeed(call: Call, name: str, data: Any, provider_meta: dict[str, Any], cached: bool) -> dict[str, Any]:
    """The chain's answer. ``meta.cached`` only when the call sent no request at all: a member
    asked before (or beside) the one whose cached answer won may have been billed, its cost in
    ``meta.cost``, as in fusion. Before, a hedged chain said ``cached: true`` beside it."""
    call.warn(provider_meta.pop("warnings", None) or ())
    provider_meta.pop("cached", None)
    meta = call.meta(name, cached and not call.unanswered, provider_meta)
    failed = failed_count(data)
    if failed:
        meta["failed"] = failed
    return success(data, name, meta)


async def _unavailable(call: Call, entry: ProviderEntry) -> WebProviderError | None:
    """Why a member cannot be tried, or None. Finding out may run its plugin's code (its first
    load, which may import a vendor SDK; its ``is_available()``): that runs on a worker thread,
    so the loop (the caller's, or a hedge's timers) never waits on it."""
    name = entry.manifest.name
    availability = functools.partial(call.registry.availability, entry, load=True)
    try:
        done, answer = runner.unless_plugin_code(availability)
        available, reason = answer if done and answer is not None else await runner.off_loop(availability)
    except WebTimeoutError as exc:  # its plugin was still loading at the deadline: skipped
        call.attempts.append({"provider": name, "outcome": "skipped", "error_code": exc.code, "reason": str(exc)})
        return exc
    if available:
        return None
    error = NotConfiguredError(f"{name} is not available: {reason}.", provider=name)
    call.attempts.append({"provider": name, "outcome": "skipped", "error_code": error.code, "reason": reason})
    return error


def _stand_in(call: Call, plan: Plan, index: int) -> bool:
    """Whether a member after ``index`` could answer instead, as far as its manifest tells
    without running its code (a key, a URL, a package): only then is the member at ``index``
    left out rather than waited for (its request budget's next slot, a pause a vendor asked
    for). Before, a chain whose later members lacked their keys skipped a member with a slot
    a few seconds off, and failed ``not_configured`` naming the next."""
    for name in plan.candidates[index + 1 :]:
        entry = call.registry.get(name)
        if entry is not None and entry.manifest.missing(call.config.provider(name)) is None:
            return True
    return False


class _Chain:
    """A chain while it runs: the failure to report, an empty answer held back, the winner."""

    __slots__ = (
        "call", "plan", "last", "last_name", "asked", "empty", "won", "stopped", "waitable", "patient", "left_out"
    )

    def __init__(self, call: Call, plan: Plan) -> None:
        self.call = call
        self.plan = plan
        self.last: WebProviderError | None = None
        self.last_name: str | None = None
        #: ``last`` is the failure of a member that was asked: one left out never hides it.
        self.asked = False
        self.empty: tuple[str, Any, dict[str, Any], bool] | None = None
        self.won: tuple[int, str, Any, dict[str, Any], bool] | None = None
        #: No further member is started (a failure a chain does not move on from).
        self.stopped = False
        #: Members left out only for a pause or a budget slot still to come (:func:`_worth_waiting_for`).
        self.waitable: list[int] = []
        #: Every member waits for its slot or pause within the deadline, as a last member does.
        self.patient = False
        #: Members the plan left out, not yet recorded (:meth:`record_left_out`).
        self.left_out = list(plan.skipped)

    def record_left_out(self, before: int | None = None) -> None:
        """Record the members the plan left out that stood before candidate ``before`` (all
        of them when None), so ``meta.attempts`` keeps chain order. Before, they came first."""
        while self.left_out and (before is None or self.left_out[0].before <= before):
            left = self.left_out.pop(0)
            self.call.attempts.append(
                {"provider": left.name, "outcome": "skipped", "error_code": left.code, "reason": left.reason}
            )

    async def entry(self, index: int, call: Call) -> ProviderEntry | None:
        """The member at ``index``, or None when it cannot be tried (recorded in ``call``)."""
        name = self.plan.candidates[index]
        entry = call.registry.get(name)
        if entry is None:
            return None
        if self.plan.mode != "single":
            unavailable = await _unavailable(call, entry)
            if unavailable is not None:
                # A member that cannot run never hides the failure of one that was asked, as
                # in fusion: a 503 before it was reported as a missing key, not retryable.
                if self.last is None or self.last.code == "not_configured":
                    self.last, self.last_name = unavailable, name
                return None
        return entry

    def skip(self, index: int, skipped: Skipped, attempts: list[dict[str, Any]]) -> None:
        """Record a member that was left out without a request (cooling down, paused, over a budget)."""
        name, plan, error = self.plan.candidates[index], self.plan, skipped.error
        if _worth_waiting_for(skipped, self.call):
            self.waitable.append(index)
        attempts.append({"provider": name, "outcome": "skipped", "error_code": error.code, "reason": error.message})
        if not self.asked:
            self.last, self.last_name = error, name
        self.stopped = self.stopped or (plan.standby and not _should_fail_over(error, plan))

    def judge(self, index: int, outcome: Any, attempts: list[dict[str, Any]], more: bool) -> bool:
        """Take one member's outcome (an answer or the error it raised); True when it wins.

        ``more``: another member may still answer. ``attempts`` holds the member's records.
        """
        name, plan, call = self.plan.candidates[index], self.plan, self.call
        if isinstance(outcome, Skipped):
            self.skip(index, outcome, attempts)
            return False
        if isinstance(outcome, BaseException):
            error = outcome if isinstance(outcome, WebProviderError) else to_provider_error(outcome, name)
            if not self.stopped:
                self.last, self.last_name, self.asked = error, name, True
            moves_on = _should_fail_over(error, plan) and call.remaining() > 0
            if error.code == "auth_error" and more and moves_on:
                # said only when the next member runs (a standby chain stays with its first)
                log.warning("%s; trying the next backend.", _refused(name, error))
            if not moves_on:
                self.stopped = True
            return False
        data, provider_meta, cached = outcome
        if more and call.config.web.failover_on_empty and _is_empty(data):
            attempts[-1]["empty"] = True
            if self.empty is None:
                self.empty = (name, data, provider_meta, cached)
            return False
        self.won = (index, name, data, provider_meta, cached)
        return True


async def run_plan(call: Call, plan: Plan) -> dict[str, Any]:
    """Try the plan's providers in order (the first success wins), or fuse them.

    With ``hedge_after`` a chain starts its next provider also when the current one has been
    silent that long (:mod:`.hedge`); an auto-detected standby chain is not hedged.
    """
    chain = _Chain(call, plan)
    if plan.mode == "fuse" and call.capability == "search":
        chain.record_left_out()
        return await run_fusion(call, plan)
    if call.hedge_after is not None and plan.mode != "single" and not plan.standby:
        await _run_hedged(chain, call.hedge_after)
    else:
        await _run_in_turn(chain)
    chain.record_left_out()
    if chain.won is None and chain.empty is None and not chain.stopped:
        await _ask_the_waitable(chain)
    if chain.won is not None:
        index, name, data, provider_meta, cached = chain.won
        if plan.mode != "single" and call.capability == "extract":
            data = await _fill_gaps(call, plan, index + 1, name, data)
        return _succeed(call, name, data, provider_meta, cached)
    if chain.empty is not None:
        return _succeed(call, *chain.empty)
    final = chain.last or ProviderError("No backend could be tried.")
    return failure(final, chain.last_name, call.meta(None))


async def _ask_the_waitable(chain: _Chain) -> None:
    """No member answered: those left out only so as not to hold up the others (a pause or a
    budget slot still to come) are asked again in turn, each waiting as a last member does,
    within the deadline. Before, a chain ``[brave-free, ddgs]`` whose ``ddgs`` failed ended
    there, with ``brave-free``'s slot 1.5 s off and seconds of the call left."""
    call, plan = chain.call, chain.plan
    if not chain.waitable or call.remaining() <= 0:
        return
    rest = dataclasses.replace(plan, candidates=[plan.candidates[i] for i in sorted(chain.waitable)], skipped=[])
    again = _Chain(call, rest)
    again.patient = True
    await _run_in_turn(again)
    chain.won = None if again.won is None else (plan.candidates.index(again.won[1]), *again.won[1:])
    chain.empty = again.empty
    if again.asked or not chain.asked:
        chain.last, chain.last_name = again.last, again.last_name


async def _run_in_turn(chain: _Chain) -> None:
    """One member at a time: the next starts when the current one has failed."""
    call, plan = chain.call, chain.plan
    count = len(plan.candidates)
    for index in range(count):
        chain.record_left_out(index)
        entry = await chain.entry(index, call)
        if entry is None:
            continue
        more = index + 1 < count
        try:
            patient = plan.standby or chain.patient
            outcome = await serve(call, entry, failover=more and not patient and _stand_in(call, plan, index))
        except (Skipped, WebProviderError) as error:
            outcome = error
        if chain.judge(index, outcome, call.attempts, more) or chain.stopped:
            return


async def _run_hedged(chain: _Chain, delay: float) -> None:
    """Members started ``delay`` apart while none answers (:func:`.hedge.race`).

    Each member records its attempts apart (a copy of the call with its own list); they join
    ``meta.attempts`` in chain order, members still running at the end as ``cancelled``.
    """
    call, plan = chain.call, chain.plan
    count = len(plan.candidates)
    members: dict[int, tuple[Call, float]] = {}
    active = 0

    async def run(index: int, member: Call) -> Any:
        nonlocal active
        active += 1
        try:
            entry = await chain.entry(index, member)
            if entry is None:
                raise hedge.NotTried()
            try:
                return await serve(member, entry, failover=_stand_in(member, plan, index))
            except Skipped as skipped:  # nothing was sent: it holds no hedge slot
                chain.skip(index, skipped, member.attempts)
                if isinstance(skipped.error, BudgetExceededError) and skipped.error.held and active > 1:
                    # The members running beside it may hold the room it lacks, and give it
                    # back when they end without a cost: then it is asked, as in a plain chain.
                    raise hedge.Deferred() from None
                raise hedge.NotTried() from None
        finally:
            active -= 1

    def start(index: int) -> Awaitable[Any]:
        member = members[index][0] if index in members else dataclasses.replace(call, attempts=[])
        members[index] = (member, time.perf_counter())
        return run(index, member)

    def accept(index: int, outcome: Any, others: bool) -> bool:
        return chain.judge(index, outcome, members[index][0].attempts, others or index + 1 < count)

    winner, cancelled = await hedge.race(count, start, accept, lambda: chain.stopped, delay, call.remaining)
    for index in cancelled:
        member, started = members[index]
        if not member.attempts or member.attempts[-1]["outcome"] != "cancelled":
            member.record(plan.candidates[index], "cancelled", started)
    for index in sorted(members):
        chain.record_left_out(index)
        call.attempts.extend(members[index][0].attempts)
    if winner is None and cancelled:
        chain.last = WebTimeoutError("The call's deadline passed before any provider of the chain answered.")
        chain.last_name = None


async def _fill_gaps(call: Call, plan: Plan, start: int, served_by: str, data: list[dict[str, Any]]) -> Any:
    """Extract in a chain: URLs ``served_by`` could not answer go to the rest of the chain.

    Every item of the answer names the provider that produced it.
    """
    fails_over = functools.partial(_should_fail_over, plan=plan)
    asked = gaps.missing(data, fails_over) if start < len(plan.candidates) else []
    filled: list[dict[str, Any]] = []
    filler = served_by
    if asked and call.remaining() > 0:
        rest = dataclasses.replace(plan, candidates=plan.candidates[start:], mode="chain", skipped=[])
        envelope = await run_plan(dataclasses.replace(call, arguments={**call.arguments, "urls": asked}), rest)
        if envelope["success"]:
            filled, filler = envelope["data"], envelope["provider"]
        elif envelope["provider"] and envelope["meta"].get("failures"):
            filled, filler = gaps.failed_items(envelope["meta"]["failures"]), envelope["provider"]
    return gaps.merge(data, asked, filled, served_by, filler)


async def run_fusion(call: Call, plan: Plan) -> dict[str, Any]:
    """Query every candidate at once and merge their lists with reciprocal rank fusion."""
    entries: list[ProviderEntry] = []
    # The failure to report: a member's that was asked, else one's left out without a request.
    last: tuple[str, WebProviderError] | None = None
    left_out: tuple[str, WebProviderError] | None = None
    for name in plan.candidates:
        entry = call.registry.get(name)
        if entry is None:
            continue
        unavailable = await _unavailable(call, entry)
        if unavailable is not None:
            left_out = (name, unavailable)
            continue
        entries.append(entry)
    # A member asked alone (the others cannot run) waits for its slot, as a single backend does.
    others = len(entries) > 1
    outcomes = await asyncio.gather(*(serve(call, entry, failover=others) for entry in entries), return_exceptions=True)
    ranked: list[tuple[str, list[dict[str, Any]]]] = []
    all_cached = True

    def take(entry: ProviderEntry, outcome: Any) -> None:
        nonlocal last, left_out, all_cached
        name = entry.manifest.name
        if isinstance(outcome, Skipped):
            call.attempts.append(
                {"provider": name, "outcome": "skipped", "error_code": outcome.error.code, "reason": outcome.error.message}
            )
            left_out = (name, outcome.error)
        elif isinstance(outcome, BaseException):
            error = to_provider_error(outcome, name)
            if error.code == "auth_error" and others:  # a wrong key needs a person, as in a chain
                log.warning("%s; the others are fused without it.", _refused(name, error))
            last = (name, error)
            all_cached = False  # asked afresh, as a member that found nothing is
        else:
            data, provider_meta, cached = outcome
            call.warn(provider_meta.get("warnings") or ())
            ranked.append((name, data["web"]))
            all_cached = all_cached and cached
            if not data["web"]:
                _mark_empty(call.attempts, name)

    for entry, outcome in zip(entries, outcomes, strict=True):
        take(entry, outcome)
    # When no member answered, those left out only so as not to hold up the others (a pause
    # or a budget slot still to come) are asked again, waiting as a single backend does, within
    # the deadline: before, such a fusion failed at once, "other providers are asked".
    again = [entry for entry, outcome in zip(entries, outcomes, strict=True) if _worth_waiting_for(outcome, call)]
    if again and not ranked:
        outcomes = await asyncio.gather(*(serve(call, entry) for entry in again), return_exceptions=True)
        for entry, outcome in zip(again, outcomes, strict=True):
            take(entry, outcome)
    if not ranked:
        last = last or left_out
        error = last[1] if last else ProviderError("No backend could be tried.")
        return failure(error, last[0] if last else None, call.meta(None))
    hits = fuse(ranked, call.arguments["limit"])
    fused = [name for name, listed in ranked if listed]
    return success({"web": hits}, "fuse", call.meta("fuse", all_cached, {"fused": fused}))


def _worth_waiting_for(outcome: Any, call: Call) -> bool:
    """Whether a fusion member was left out only for a pause or a budget slot that comes
    before the deadline."""
    if not isinstance(outcome, Skipped) or not outcome.waitable:
        return False
    return (outcome.error.retry_after or 0.0) < call.remaining()


def _mark_empty(attempts: list[dict[str, Any]], name: str) -> None:
    """Mark ``name``'s answering attempt ``empty``: fusion asks at once, so its records interleave."""
    for attempt in reversed(attempts):
        if attempt["provider"] == name and attempt["outcome"] == "ok":
            attempt["empty"] = True
            return


