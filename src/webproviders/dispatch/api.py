"""``dispatch_search`` / ``dispatch_extract`` / ``dispatch_crawl`` and their async twins.

Each call validates its input, resolves a plan, tries the planned providers under one
deadline, normalises what comes back and returns an envelope. Nothing a caller or a
provider can do wrong raises out of here: it becomes a failure envelope.

Every provider gets the dependable layer for free: cached answers with single flight,
request budgets, retries of transient failures, cool-downs for failing providers, failover
along a chain and rank fusion (see ``docs/dependable-dispatch.md``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

from .. import context
from ..config import BackendSpec, Config
from ..dependable.cache import cache_key
from ..dependable.fusion import fuse
from ..dependable.health import Cooling
from ..dependable.ratelimit import BudgetExhaustedError
from ..dependable.retry import MIN_REQUEST_TIME
from ..dependable.state import DispatchState, state_for
from ..envelope import failure, normalise_pages, normalise_search, success
from ..errors import (
    InvalidInputError,
    NotConfiguredError,
    ProviderError,
    RateLimitedError,
    UnsupportedError,
    WebProviderError,
    WebTimeoutError,
    error_for_code,
)
from ..exceptions import to_provider_error
from ..manifest import Capability
from ..redact import get_logger, scrub
from ..registry.loader import ProviderEntry
from ..registry.providers import Registry, get_registry
from ..validate import (
    COMMON_SEARCH_OPTIONS,
    check_limit,
    check_query,
    check_search_options,
    check_url,
    check_urls,
)
from . import gaps, runner
from .plan import Plan, resolve

log = get_logger("webproviders.dispatch.api")

#: Errors after which a chain moves on to its next provider (besides retryable ones).
FAILOVER_CODES = frozenset({"not_configured", "quota_exceeded", "auth_error", "not_found"})
#: The longest deadline a call may ask for, in seconds.
MAX_TIMEOUT = 3600
#: ``mode=`` values a call may pass.
MODES = ("chain", "fuse")


@dataclass
class Call:
    """One dispatch call: what was asked, and what has happened so far."""

    capability: Capability
    arguments: dict[str, Any]
    config: Config
    registry: Registry
    requested: Any
    deadline: float
    started: float = field(default_factory=time.perf_counter)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    plan: Plan | None = None
    use_cache: bool = True
    state: DispatchState | None = None

    def meta(self, served_by: str | None, cached: bool = False, **extra: Any) -> dict[str, Any]:
        """The envelope's ``meta``; ``extra`` (e.g. a provider's own meta) never overrides ours.

        ``cached: True`` appears only on an answer served without an upstream request.
        """
        meta: dict[str, Any] = dict(extra)
        meta |= {
            "requested_backend": self.requested,
            "served_by": served_by,
            "latency_ms": round((time.perf_counter() - self.started) * 1000, 3),
            "attempts": self.attempts,
        }
        if cached:
            meta["cached"] = True
        if self.warnings:
            meta["warnings"] = self.warnings
        return meta

    def record(
        self, provider: str, outcome: str, started: float, error: WebProviderError | None = None, **extra: Any
    ) -> None:
        attempt: dict[str, Any] = {
            "provider": provider,
            "outcome": outcome,
            "latency_ms": round((time.perf_counter() - started) * 1000, 3),
        }
        if error is not None:
            attempt["error_code"] = error.code
        if extra:
            attempt.update(extra)
        self.attempts.append(attempt)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


class _Skipped(Exception):
    """A provider was left out without a request (cooling down, paused); carries the error."""

    def __init__(self, error: WebProviderError) -> None:
        super().__init__(error)
        self.error = error


def _requested_repr(backend: BackendSpec | None) -> Any:
    if backend is None or isinstance(backend, str):
        return backend
    return backend if isinstance(backend, (list, dict)) else str(backend)


def _validate(capability: Capability, arguments: dict[str, Any]) -> dict[str, Any]:
    if capability == "search":
        options = check_search_options(arguments["options"])
        return {"query": check_query(arguments["query"]), "limit": check_limit(arguments["limit"]), "options": options}
    if capability == "extract":
        return {"urls": check_urls(arguments["urls"]), "options": dict(arguments["options"])}
    return {"url": check_url(arguments["url"]), "options": dict(arguments["options"])}


def _option_warnings(call: Call, entry: ProviderEntry) -> None:
    """Report (or refuse) common search options the provider cannot honour."""
    if call.capability != "search":
        return
    given = COMMON_SEARCH_OPTIONS & set(call.arguments["options"])
    unsupported = sorted(given - set(getattr(entry.provider, "search_options", frozenset())))
    if not unsupported:
        return
    message = f"{entry.manifest.name} does not support {', '.join(unsupported)}; ignored."
    if call.config.web.on_unsupported == "error":
        raise UnsupportedError(
            f"{entry.manifest.name} does not support the option(s) {', '.join(unsupported)} "
            "(web.on_unsupported is 'error').",
            provider=entry.manifest.name,
        )
    if message not in call.warnings:
        call.warnings.append(message)


async def _invoke(call: Call, entry: ProviderEntry) -> Any:
    provider = entry.provider
    args = call.arguments
    timeout = call.remaining()
    own = call.config.provider(entry.manifest.name).timeout
    if own is not None:
        timeout = min(timeout, own)
    if timeout <= 0:
        raise WebTimeoutError("The call's deadline passed before this provider could be tried.")
    inline = bool(getattr(provider, "runs_inline", False))
    try:
        if call.capability == "search":
            return await runner.call(
                provider.search, args["query"], args["limit"], timeout=timeout, inline=inline, **args["options"]
            )
        if call.capability == "extract":
            return await runner.call(provider.extract, list(args["urls"]), timeout=timeout, inline=inline, **args["options"])
        return await runner.call(provider.crawl, args["url"], timeout=timeout, inline=inline, **args["options"])
    except asyncio.TimeoutError:
        raise WebTimeoutError(
            f"{entry.manifest.name} did not answer within {timeout:.1f} s.", provider=entry.manifest.name
        ) from None


def _normalise(call: Call, raw: Any) -> tuple[Any, dict[str, Any]]:
    if call.capability == "search":
        hits, meta = normalise_search(raw, call.arguments["limit"])
        return {"web": hits}, meta
    return normalise_pages(raw)


def _before(call: Call, entry: ProviderEntry) -> None:
    """Policy hooks and option checks, once per provider (a cache hit included)."""
    call.registry.hooks.hook.before_dispatch(
        capability=call.capability, backend=entry.manifest.name, arguments=call.arguments
    )
    _option_warnings(call, entry)


async def attempt(call: Call, entry: ProviderEntry) -> tuple[Any, dict[str, Any]]:
    """One request to one provider: the call and normalisation.

    Returns ``(data, provider_meta)`` or raises a :class:`WebProviderError`.
    """
    try:
        return _normalise(call, await _invoke(call, entry))
    except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
        raise to_provider_error(exc, entry.manifest.name) from None


def _cooling_error(name: str, cooling: Cooling) -> WebProviderError:
    when = f"tried again in {cooling.seconds_left:.0f} s" if cooling.seconds_left else "being tried"
    return error_for_code(
        cooling.code,
        f"{name} is cooling down ({cooling.reason}); it will be {when}.",
        provider=name,
        retry_after=cooling.seconds_left or None,
    )


async def _check_pause(name: str, state: DispatchState) -> None:
    """In a chain or fusion, a provider paused by a 429 is skipped rather than waited for."""
    paused = await state.limits.paused_for(name)
    if paused > 0:
        raise _Skipped(
            RateLimitedError(
                f"{name} asked for a pause (Retry-After); {paused:.1f} s are left.", provider=name, retry_after=paused
            )
        )


async def _upstream(call: Call, entry: ProviderEntry, failover: bool) -> dict[str, Any]:
    """Requests to one provider: budget, retries with back-off, health bookkeeping."""
    name = entry.manifest.name
    state: DispatchState = call.state  # type: ignore[assignment]
    cooling = state.health.cooling(name)
    if cooling is not None:
        raise _Skipped(_cooling_error(name, cooling))
    if failover and not state.limits.unlimited(name):
        await _check_pause(name, state)
    policy = state.retry_policy(name)
    retry = 0
    while True:
        started = time.perf_counter()
        try:
            if not state.limits.unlimited(name):
                await state.limits.acquire(name, call.remaining() - MIN_REQUEST_TIME, state.sleep)
            data, meta = await attempt(call, entry)
        except WebProviderError as error:
            extra = {"retry": retry} if retry else {}
            call.record(name, "error", started, error, **extra)
            if isinstance(error, BudgetExhaustedError):
                state.health.failed(name, error)  # not counted; it only ends a trial call
                raise
            if error.code == "rate_limited" and error.retry_after:
                await state.limits.pause(name, error.retry_after)
            delay = None if failover and error.code == "rate_limited" else policy.delay(retry, error, call.remaining())
            if delay is None:
                state.health.failed(name, error)
                raise
            retry += 1
            await state.sleep(delay)
            continue
        if retry:
            call.record(name, "ok", started, retry=retry)
        else:
            call.record(name, "ok", started)
        state.health.succeeded(name)
        return {"data": data, "meta": meta}


async def serve(call: Call, entry: ProviderEntry, failover: bool = False) -> tuple[Any, dict[str, Any], bool]:
    """One provider's answer, ``(data, provider_meta, cached)``, through the cache when on.

    ``failover`` says another provider could answer instead: a paused provider is skipped and
    a 429 is not retried. Raises :class:`WebProviderError` (``_Skipped`` when no request
    was spent).
    """
    name = entry.manifest.name
    try:
        _before(call, entry)
    except Exception as exc:  # noqa: BLE001 - a refusing hook is an envelope
        error = to_provider_error(exc, name)
        call.record(name, "error", time.perf_counter(), error)
        raise error from None
    state: DispatchState = call.state  # type: ignore[assignment]
    cache = state.cache
    cacheable = cache is not None and call.use_cache and entry.manifest.cache
    ttl = cache.ttl_for(call.capability) if cacheable else 0.0  # type: ignore[union-attr]
    if not ttl:
        value = await _upstream(call, entry, failover)
        return value["data"], value["meta"], False
    started = time.perf_counter()
    fetched = False

    async def fetch() -> dict[str, Any]:
        nonlocal fetched
        fetched = True
        return await _upstream(call, entry, failover)

    key = cache_key(call.capability, name, call.arguments)
    try:
        value, cached = await cache.get_or_fetch(  # type: ignore[union-attr]
            key, ttl, fetch, call.remaining, keep=lambda value: not _has_failed_item(value["data"])
        )
    except WebProviderError as error:
        if not fetched:  # another caller's identical request failed; it is ours too
            call.record(name, "error", started, error, shared=True)
        raise
    if cached:
        call.record(name, "ok", started, cached=True)
    return value["data"], value["meta"], cached


def _should_fail_over(error: WebProviderError) -> bool:
    if error.code == "invalid_input":
        return False
    return error.retryable or error.code in FAILOVER_CODES


def _has_failed_item(data: Any) -> bool:
    """Extract results where some URL failed are not cached: the failure may be transient."""
    return isinstance(data, list) and any(isinstance(item, dict) and item.get("error") for item in data)


def _is_empty(data: Any) -> bool:
    items = data.get("web") if isinstance(data, dict) else data
    return not items or all(isinstance(item, dict) and item.get("error") for item in items)


def _succeed(call: Call, name: str, data: Any, provider_meta: dict[str, Any], cached: bool) -> dict[str, Any]:
    for message in provider_meta.pop("warnings", None) or []:
        if str(message) not in call.warnings:
            call.warnings.append(str(message))
    provider_meta.pop("cached", None)
    return success(data, name, call.meta(name, cached, **provider_meta))


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
        if chain:
            unavailable = _unavailable(call, entry)
            if unavailable is not None:
                last, last_name = unavailable, name
                continue
        try:
            data, provider_meta, cached = await serve(call, entry, failover=more)
        except _Skipped as skipped:
            call.attempts.append(
                {"provider": name, "outcome": "skipped", "error_code": skipped.error.code, "reason": skipped.error.message}
            )
            last, last_name = skipped.error, name
            continue
        except WebProviderError as error:
            last, last_name = error, name
            if error.code == "auth_error" and more:
                log.warning("Provider '%s' rejected its credentials; trying the next backend.", name)
            if not _should_fail_over(error) or call.remaining() <= 0:
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
    asked = gaps.missing(data, _should_fail_over) if start < len(plan.candidates) else []
    filled: list[dict[str, Any]] = []
    filler = served_by
    if asked and call.remaining() > 0:
        rest = Plan(plan.capability, plan.candidates[start:], "chain", plan.source, plan.requested)
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
        if isinstance(outcome, _Skipped):
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


def _prepare(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
    mode: str | None = None,
    cache: bool = True,
) -> Call | dict[str, Any]:
    """Validate and resolve (no I/O); returns the call to run, or a failure envelope."""
    started = time.perf_counter()
    requested = _requested_repr(backend)
    try:
        registry = get_registry(config)
    except Exception as exc:  # noqa: BLE001 - a broken config is still an envelope
        meta = {"requested_backend": requested, "served_by": None, "latency_ms": 0.0, "attempts": []}
        return failure(to_provider_error(exc, None), None, meta)
    cfg = registry.config
    budget = cfg.web.timeout if timeout is None else timeout
    budget_ok = not isinstance(budget, bool) and isinstance(budget, (int, float)) and 0 < budget <= MAX_TIMEOUT
    deadline = time.monotonic() + (budget if budget_ok else cfg.web.timeout)
    call = Call(capability, arguments, cfg, registry, requested, deadline, started, use_cache=cache)
    try:
        if not budget_ok:
            raise InvalidInputError(
                f"timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT}, not {budget!r}."
            )
        if not isinstance(cache, bool):
            raise InvalidInputError(f"cache must be True or False, not {cache!r}.")
        call.arguments = _validate(capability, arguments)
        call.plan = resolve(capability, backend, registry)
        if mode is not None:
            _apply_mode(call.plan, mode)
        if timeout is None and "timeout" not in cfg.web.model_fields_set:
            call.deadline += _slow_provider_allowance(call.plan, registry, budget)
        call.state = state_for(registry)
    except Exception as exc:  # noqa: BLE001
        error = to_provider_error(exc, None)
        envelope = failure(error, error.provider, call.meta(None))
        _after(call, envelope)
        return envelope
    return call


def _slow_provider_allowance(plan: Plan, registry: Registry, budget: float) -> float:
    """Extra seconds for a plan whose providers need longer than the default deadline.

    Only when neither the call nor the config chose a deadline: a provider's manifest
    ``timeout`` or its configured ``web.providers.<name>.timeout`` then sets the call's.
    """
    longest = budget
    for name in plan.candidates:
        entry = registry.get(name)
        if entry is not None:
            own = registry.config.provider(name).timeout or entry.manifest.timeout or 0.0
            longest = max(longest, min(own, MAX_TIMEOUT))
    return longest - budget


def _apply_mode(plan: Plan, mode: str) -> None:
    """``mode="fuse"`` merges the resolved providers; ``mode="chain"`` tries them in turn."""
    if mode not in MODES:
        raise InvalidInputError(f"mode must be 'chain' or 'fuse', not {mode!r}.")
    if mode == "fuse" and plan.capability != "search":
        raise InvalidInputError("mode='fuse' merges search results; extract and crawl take a chain instead.")
    if mode == "fuse" or len(plan.candidates) > 1:
        plan.mode = mode  # type: ignore[assignment]


async def _execute(call: Call) -> dict[str, Any]:
    """Run a prepared call's plan under its deadline."""
    call.warnings = context.collect_warnings()
    context.set_deadline(call.deadline)
    try:
        envelope = await run_plan(call, call.plan)  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001
        error = to_provider_error(exc, None)
        envelope = failure(error, error.provider, call.meta(None))
    _after(call, envelope)
    return envelope


def _needs_shared_loop(call: Call) -> bool:
    """Async provider methods run on the background loop, where the shared pool lives."""
    state: DispatchState = call.state  # type: ignore[assignment]
    for name in call.plan.candidates if call.plan else []:
        if state.is_async(name, call.capability):
            return True
    return False


async def _dispatch(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
    mode: str | None = None,
    cache: bool = True,
) -> dict[str, Any]:
    prepared = _prepare(capability, arguments, backend, config, timeout, mode, cache)
    return prepared if isinstance(prepared, dict) else await _execute(prepared)


def _dispatch_sync(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
    mode: str | None = None,
    cache: bool = True,
) -> dict[str, Any]:
    prepared = _prepare(capability, arguments, backend, config, timeout, mode, cache)
    if isinstance(prepared, dict):
        return prepared
    return runner.run_sync(_execute(prepared), shared_loop=_needs_shared_loop(prepared))


def _after(call: Call, envelope: dict[str, Any]) -> None:
    try:
        call.registry.hooks.hook.after_dispatch(
            capability=call.capability, arguments=call.arguments, envelope=envelope, config=call.config
        )
    except Exception as exc:  # noqa: BLE001 - an observer must not break the call
        log.warning("An after_dispatch hook failed: %s: %s", type(exc).__name__, scrub(str(exc)))


async def adispatch_search(
    query: str,
    limit: int = 5,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    **options: Any,
) -> dict[str, Any]:
    """Search the web; returns ``{"success": True, "data": {"web": [...]}, ...}`` or a failure.

    ``mode="fuse"`` queries the resolved providers at once and merges their rankings;
    ``cache=False`` neither reads nor writes the answer cache.
    """
    arguments = {"query": query, "limit": limit, "options": options}
    return await _dispatch("search", arguments, backend, config, timeout, mode, cache)


async def adispatch_extract(
    urls: str | list[str],
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    **kwargs: Any,
) -> dict[str, Any]:
    """Read pages as markdown; one item per URL, a failed URL is an item with ``error``."""
    return await _dispatch("extract", {"urls": urls, "options": kwargs}, backend, config, timeout, mode, cache)


async def adispatch_crawl(
    url: str,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    **kwargs: Any,
) -> dict[str, Any]:
    """Crawl a site from ``url``; returns the pages found, in discovery order."""
    return await _dispatch("crawl", {"url": url, "options": kwargs}, backend, config, timeout, mode, cache)


def dispatch_search(
    query: str,
    limit: int = 5,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    **options: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_search`; safe inside a running event loop."""
    arguments = {"query": query, "limit": limit, "options": options}
    return _dispatch_sync("search", arguments, backend, config, timeout, mode, cache)


def dispatch_extract(
    urls: str | list[str],
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    **kwargs: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_extract`."""
    return _dispatch_sync("extract", {"urls": urls, "options": kwargs}, backend, config, timeout, mode, cache)


def dispatch_crawl(
    url: str,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    **kwargs: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_crawl`."""
    return _dispatch_sync("crawl", {"url": url, "options": kwargs}, backend, config, timeout, mode, cache)
