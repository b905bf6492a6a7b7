"""``dispatch_search`` / ``dispatch_extract`` / ``dispatch_crawl`` and their async twins.

Each call validates its input, resolves a plan, tries the planned providers under one
deadline, normalises what comes back and returns an envelope. Nothing a caller or a
provider can do wrong raises out of here: it becomes a failure envelope.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from dataclasses import dataclass, field
from typing import Any

from . import runner
from .config import BackendSpec, Config
from .envelope import failure, normalise_pages, normalise_search, success
from .errors import (
    InvalidInputError,
    NotConfiguredError,
    ProviderError,
    UnsupportedError,
    WebProviderError,
    WebTimeoutError,
)
from .exceptions import to_provider_error
from .manifest import Capability
from .plugins import ProviderEntry
from .redact import get_logger, scrub
from .registry import Registry, get_registry
from .resolve import Plan, resolve
from .validate import COMMON_SEARCH_OPTIONS, check_limit, check_query, check_search_options, check_url, check_urls

log = get_logger("webproviders.dispatch")

#: Errors after which a chain moves on to its next provider (besides retryable ones).
FAILOVER_CODES = frozenset({"not_configured", "quota_exceeded", "auth_error"})
#: The longest deadline a call may ask for, in seconds.
MAX_TIMEOUT = 3600


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

    def meta(self, served_by: str | None, **extra: Any) -> dict[str, Any]:
        """The envelope's ``meta``; ``extra`` (e.g. a provider's own meta) never overrides ours."""
        meta: dict[str, Any] = dict(extra)
        meta |= {
            "requested_backend": self.requested,
            "served_by": served_by,
            "latency_ms": round((time.perf_counter() - self.started) * 1000, 3),
            "attempts": self.attempts,
        }
        if self.warnings:
            meta["warnings"] = self.warnings
        return meta

    def record(self, provider: str, outcome: str, started: float, error: WebProviderError | None = None) -> None:
        attempt: dict[str, Any] = {
            "provider": provider,
            "outcome": outcome,
            "latency_ms": round((time.perf_counter() - started) * 1000, 3),
        }
        if error is not None:
            attempt["error_code"] = error.code
        self.attempts.append(attempt)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


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


async def attempt(call: Call, entry: ProviderEntry) -> tuple[Any, dict[str, Any]]:
    """One try of one provider: hooks, option checks, the call, normalisation.

    Returns ``(data, provider_meta)`` or raises a :class:`WebProviderError`.
    """
    name = entry.manifest.name
    try:
        call.registry.hooks.hook.before_dispatch(
            capability=call.capability, backend=name, arguments=call.arguments
        )
        _option_warnings(call, entry)
        raw = await _invoke(call, entry)
        return _normalise(call, raw)
    except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
        raise to_provider_error(exc, name) from None


def _should_fail_over(error: WebProviderError) -> bool:
    if error.code == "invalid_input":
        return False
    return error.retryable or error.code in FAILOVER_CODES


async def run_plan(call: Call, plan: Plan) -> dict[str, Any]:
    """Try the plan's providers in order; the first success wins."""
    for name, code, reason in plan.skipped:
        call.attempts.append({"provider": name, "outcome": "skipped", "error_code": code, "reason": reason})
    last: WebProviderError | None = None
    last_name: str | None = None
    for index, name in enumerate(plan.candidates):
        entry = call.registry.get(name)
        started = time.perf_counter()
        if entry is None:
            continue
        if plan.mode != "single":
            available, reason = call.registry.availability(entry)
            if not available:
                last = NotConfiguredError(f"{name} is not available: {reason}.", provider=name)
                call.record(name, "skipped", started, last)
                last_name = name
                continue
        try:
            data, provider_meta = await attempt(call, entry)
        except WebProviderError as error:
            call.record(name, "error", started, error)
            last, last_name = error, name
            if error.code == "auth_error" and index + 1 < len(plan.candidates):
                log.warning("Provider '%s' rejected its credentials; trying the next backend.", name)
            if not _should_fail_over(error) or call.remaining() <= 0:
                break
            continue
        call.record(name, "ok", started)
        for message in provider_meta.pop("warnings", None) or []:
            if str(message) not in call.warnings:
                call.warnings.append(str(message))
        return success(data, name, call.meta(name, **provider_meta))
    error = last or ProviderError("No backend could be tried.")
    return failure(error, last_name, call.meta(None))


def _prepare(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
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
    call = Call(capability, arguments, cfg, registry, requested, deadline, started)
    try:
        if not budget_ok:
            raise InvalidInputError(
                f"timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT}, not {budget!r}."
            )
        call.arguments = _validate(capability, arguments)
        call.plan = resolve(capability, backend, registry)
    except Exception as exc:  # noqa: BLE001
        error = to_provider_error(exc, None)
        envelope = failure(error, error.provider, call.meta(None))
        _after(call, envelope)
        return envelope
    return call


async def _execute(call: Call) -> dict[str, Any]:
    """Run a prepared call's plan under its deadline."""
    call.warnings = runner.collect_warnings()
    runner.set_deadline(call.deadline)
    try:
        envelope = await run_plan(call, call.plan)  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001
        error = to_provider_error(exc, None)
        envelope = failure(error, error.provider, call.meta(None))
    _after(call, envelope)
    return envelope


def _needs_shared_loop(call: Call) -> bool:
    """Async provider methods run on the background loop, where the shared pool lives."""
    for name in call.plan.candidates if call.plan else []:
        entry = call.registry.get(name)
        if entry is not None and inspect.iscoroutinefunction(getattr(entry.provider, call.capability)):
            return True
    return False


async def _dispatch(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
) -> dict[str, Any]:
    prepared = _prepare(capability, arguments, backend, config, timeout)
    return prepared if isinstance(prepared, dict) else await _execute(prepared)


def _dispatch_sync(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
) -> dict[str, Any]:
    prepared = _prepare(capability, arguments, backend, config, timeout)
    if isinstance(prepared, dict):
        return prepared
    return runner.run_sync(_execute(prepared), shared_loop=_needs_shared_loop(prepared))


def _after(call: Call, envelope: dict[str, Any]) -> None:
    try:
        call.registry.hooks.hook.after_dispatch(
            capability=call.capability, arguments=call.arguments, envelope=envelope
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
    **options: Any,
) -> dict[str, Any]:
    """Search the web; returns ``{"success": True, "data": {"web": [...]}, ...}`` or a failure."""
    arguments = {"query": query, "limit": limit, "options": options}
    return await _dispatch("search", arguments, backend, config, timeout)


async def adispatch_extract(
    urls: str | list[str],
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Read pages as markdown; one item per URL, a failed URL is an item with ``error``."""
    return await _dispatch("extract", {"urls": urls, "options": kwargs}, backend, config, timeout)


async def adispatch_crawl(
    url: str,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Crawl a site from ``url``; returns the pages found, in discovery order."""
    return await _dispatch("crawl", {"url": url, "options": kwargs}, backend, config, timeout)


def dispatch_search(
    query: str,
    limit: int = 5,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_search`; safe inside a running event loop."""
    arguments = {"query": query, "limit": limit, "options": options}
    return _dispatch_sync("search", arguments, backend, config, timeout)


def dispatch_extract(
    urls: str | list[str],
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_extract`."""
    return _dispatch_sync("extract", {"urls": urls, "options": kwargs}, backend, config, timeout)


def dispatch_crawl(
    url: str,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_crawl`."""
    return _dispatch_sync("crawl", {"url": url, "options": kwargs}, backend, config, timeout)
