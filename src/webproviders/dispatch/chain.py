"""Running a plan: a chain tries providers in turn (the first success wins), fusion asks all at once."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from typing import Any

from ..dependable.fusion import fuse
from ..envelope import failure, success
from ..errors import (
    NotConfiguredError,
    ProviderError,
    WebProviderError,
    to_provider_error,
)
from ..redact import get_logger
from ..registry.registration import ProviderEntry
from . import gaps
from .call import Call
from .per_url import failed_count
from .plan import Plan
from .serve import Skipped, serve

log = get_logger("webproviders.dispatch")

#: Errors after which a chain moves on to its next provider (besides retryable ones).
FAILOVER_CODES = frozenset({"not_configured", "quota_exceeded", "auth_error", "not_found", "budget_exceeded"})


def _should_fail_over(error: WebProviderError, plan: Plan) -> bool:
    if error.code == "invalid_input":
        return False
    if plan.standby:
        return error.code == "not_configured"
    return error.retryable or error.code in FAILOVER_CODES


def _is_empty(data: Any) -> bool:
    """No hits (an extract or crawl that read no page never gets here: it is a failure)."""
    items = data.get("web") if isinstance(data, dict) else data
    return not items


def _succeed(call: Call, name: str, data: Any, provider_meta: dict[str, Any], cached: bool) -> dict[str, Any]:
    for message in provider_meta.pop("warnings", None) or []:
        if str(message) not in call.warnings:
            call.warnings.append(str(message))
    provider_meta.pop("cached", None)
    meta = call.meta(name, cached, **provider_meta)
    failed = failed_count(data)
    if failed:
        meta["failed"] = failed
    return success(data, name, meta)


def _unavailable(call: Call, entry: ProviderEntry) -> WebProviderError | None:
    available, reason = call.registry.availability(entry)
    if available:
        return None
    name = entry.manifest.name
    error = NotConfiguredError(f"{name} is not available: {reason}.", provider=name)
    call.attempts.append({"provider": name, "outcome": "skipped", "error_code": error.code, "reason": reason})
    return error


async def run_plan(call: Call, plan: Plan) -> dict[str, Any]:
    """Try the plan's providers in order (the first success wins), or fuse them."""
    for name, code, reason in plan.skipped:
        call.attempts.append({"provider": name, "outcome": "skipped", "error_code": code, "reason": reason})
    if plan.mode == "fuse" and call.capability == "search":
        return await run_fusion(call, plan)
    last: WebProviderError | None = None
    last_name: str | None = None
    empty: tuple[str, Any, dict[str, Any], bool] | None = None
    chain = plan.mode != "single"
    count = len(plan.candidates)
    for index, name in enumerate(plan.candidates):
        entry = call.registry.get(name)
        if entry is None:
            continue
        more = index + 1 < count
        failover = more and not plan.standby
        if chain:
            unavailable = _unavailable(call, entry)
            if unavailable is not None:
                last, last_name = unavailable, name
                continue
        try:
            data, provider_meta, cached = await serve(call, entry, failover=failover)
        except Skipped as skipped:
            call.attempts.append(
                {"provider": name, "outcome": "skipped", "error_code": skipped.error.code, "reason": skipped.error.message}
            )
            last, last_name = skipped.error, name
            if plan.standby and not _should_fail_over(skipped.error, plan):
                break
            continue
        except WebProviderError as error:
            last, last_name = error, name
            if error.code == "auth_error" and more:
                log.warning("Provider '%s' rejected its credentials; trying the next backend.", name)
            if not _should_fail_over(error, plan) or call.remaining() <= 0:
                break
            continue
        if more and call.config.web.failover_on_empty and _is_empty(data):
            call.attempts[-1]["empty"] = True
            if empty is None:
                empty = (name, data, provider_meta, cached)
            continue
        if chain and call.capability == "extract":
            data = await _fill_gaps(call, plan, index + 1, name, data)
        return _succeed(call, name, data, provider_meta, cached)
    if empty is not None:
        return _succeed(call, *empty)
    final = last or ProviderError("No backend could be tried.")
    return failure(final, last_name, call.meta(None))


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
    return gaps.merge(data, asked, filled, served_by, filler)


async def run_fusion(call: Call, plan: Plan) -> dict[str, Any]:
    """Query every candidate at once and merge their lists with reciprocal rank fusion."""
    entries: list[ProviderEntry] = []
    last: tuple[str, WebProviderError] | None = None
    for name in plan.candidates:
        entry = call.registry.get(name)
        if entry is None:
            continue
        unavailable = _unavailable(call, entry)
        if unavailable is not None:
            last = (name, unavailable)
            continue
        entries.append(entry)
    outcomes = await asyncio.gather(*(serve(call, entry, failover=True) for entry in entries), return_exceptions=True)
    ranked: list[tuple[str, list[dict[str, Any]]]] = []
    all_cached = True
    for entry, outcome in zip(entries, outcomes, strict=True):
        name = entry.manifest.name
        if isinstance(outcome, Skipped):
            call.attempts.append(
                {"provider": name, "outcome": "skipped", "error_code": outcome.error.code, "reason": outcome.error.message}
            )
            last = (name, outcome.error)
        elif isinstance(outcome, BaseException):
            last = (name, to_provider_error(outcome, name))
        else:
            data, provider_meta, cached = outcome
            for message in provider_meta.get("warnings") or []:
                if str(message) not in call.warnings:
                    call.warnings.append(str(message))
            ranked.append((name, data["web"]))
            all_cached = all_cached and cached
    if not ranked:
        error = last[1] if last else ProviderError("No backend could be tried.")
        return failure(error, last[0] if last else None, call.meta(None))
    hits = fuse(ranked, call.arguments["limit"])
    return success({"web": hits}, "fuse", call.meta("fuse", all_cached, fused=[name for name, _ in ranked]))


