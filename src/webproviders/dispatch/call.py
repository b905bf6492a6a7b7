"""One dispatch call: what was asked, its deadline and record, and preparing it without I/O.

Preparing validates the input and resolves a plan, so a bad argument or a backend that
cannot run becomes a failure envelope before anything is sent.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from ..accounting.meter import Meter
from ..accounting.tags import check_tags
from ..config import BackendSpec, Config, default_config
from ..context import deadline_scope
from ..envelope import failure
from ..errors import (
    InvalidInputError,
    WebProviderError,
    to_provider_error,
)
from ..manifest import Capability
from ..redact import get_logger, scrub
from ..registry.providers import Registry, get_registry
from ..validate import (
    check_backend,
    check_limit,
    check_query,
    check_search_options,
    check_url,
    check_urls,
)
from .per_url import Refused, refused_item
from .plan import Plan, resolve
from .state import DispatchState, state_for

log = get_logger("webproviders.dispatch")

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
    #: Input URLs refused before any provider saw them; they join the answer at the end.
    refused: list[Refused] = field(default_factory=list)
    #: Caller-supplied labels for the usage ledger and per-tag budgets (never sent to providers).
    tags: dict[str, str] = field(default_factory=dict)
    meter: Meter | None = None
    #: Seconds of silence after which a chain also starts its next provider (None: in turn).
    hedge_after: float | None = None

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
        if self.warnings:  # the same list: a store warned about later still shows
            self.warnings[:] = [scrub(str(warning)) for warning in self.warnings]
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



def _requested_repr(backend: Any) -> Any:
    """The ``backend=`` argument as ``meta.requested_backend`` shows it (JSON-able, whatever it was)."""
    if backend is None or isinstance(backend, str):
        return backend
    if isinstance(backend, (list, tuple)) and all(isinstance(name, str) for name in backend):
        return list(backend)
    if isinstance(backend, dict) and isinstance(backend.get("fuse"), list) and len(backend) == 1:
        return backend
    return f"<{type(backend).__name__}>"


def _validate(capability: Capability, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[Refused]]:
    """The checked arguments, plus the malformed URLs of an extract batch as error items."""
    if capability == "search":
        options = check_search_options(arguments["options"])
        checked = {"query": check_query(arguments["query"]), "limit": check_limit(arguments["limit"]), "options": options}
        return checked, []
    if capability == "extract":
        urls, bad = check_urls(arguments["urls"])
        refused = [refused_item(position, url, error) for position, url, error in bad]
        return {"urls": urls, "options": dict(arguments["options"])}, refused
    return {"url": check_url(arguments["url"]), "options": dict(arguments["options"])}, []


def prepare(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
    mode: str | None = None,
    cache: bool = True,
    tags: Any = None,
    hedge_after: Any = None,
) -> Call | dict[str, Any]:
    """Validate and resolve (no I/O); returns the call to run, or a failure envelope."""
    started = time.perf_counter()
    requested = _requested_repr(backend)
    try:
        cfg = config if config is not None else default_config()
        budget = cfg.web.timeout if timeout is None else timeout
        budget_ok = not isinstance(budget, bool) and isinstance(budget, (int, float)) and 0 < budget <= MAX_TIMEOUT
        deadline = time.monotonic() + (budget if budget_ok else cfg.web.timeout)
        registry = get_registry(cfg, timeout=max(0.0, deadline - time.monotonic()))
        registry.ready_for_dispatch(max(0.0, deadline - time.monotonic()))
    except Exception as exc:  # noqa: BLE001 - a broken config or a slow plugin is still an envelope
        meta = {
            "requested_backend": requested,
            "served_by": None,
            "latency_ms": round((time.perf_counter() - started) * 1000, 3),
            "attempts": [],
        }
        return failure(to_provider_error(exc, None), None, meta)
    call = Call(capability, arguments, cfg, registry, requested, deadline, started, use_cache=cache)
    try:
        if not budget_ok:
            raise InvalidInputError(
                f"timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT}, not {budget!r}."
            )
        if not isinstance(cache, bool):
            raise InvalidInputError(f"cache must be True or False, not {cache!r}.")
        chosen = check_backend(backend)
        call.hedge_after = _hedge_after(hedge_after, cfg.web.hedge_after)
        call.arguments, call.refused = _validate(capability, arguments)
        call.tags = check_tags(tags)
        with deadline_scope(deadline):
            call.plan = resolve(capability, chosen, registry)
        if mode is not None:
            _apply_mode(call.plan, mode)
        if timeout is None and "timeout" not in cfg.web.model_fields_set:
            call.deadline += _slow_provider_allowance(call.plan, registry, budget)
        call.state = state_for(registry)
        call.meter = Meter(call.state.accounts, capability, call.arguments, call.tags)
    except Exception as exc:  # noqa: BLE001
        error = to_provider_error(exc, None)
        envelope = failure(error, error.provider, call.meta(None))
        after(call, envelope)
        return envelope
    return call


def _hedge_after(value: Any, configured: float | None) -> float | None:
    """A call's ``hedge_after=`` (seconds, above 0 and finite), else ``web.hedge_after``."""
    if value is None:
        return configured
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise InvalidInputError(f"hedge_after must be a number of seconds above 0, not {value!r}.")
    return float(value)


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


def after(call: Call, envelope: dict[str, Any]) -> None:
    hook = call.registry.hook("after_dispatch")
    if hook is None:
        return
    try:
        hook(
            capability=call.capability, arguments=call.arguments, envelope=envelope, config=call.config,
            cost=call.meter.total.as_dict() if call.meter is not None else None,
        )
    except Exception as exc:  # noqa: BLE001 - an observer must not break the call
        log.warning("An after_dispatch hook failed: %s: %s", type(exc).__name__, scrub(str(exc)))


