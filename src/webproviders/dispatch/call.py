"""One dispatch call: what was asked, its deadline and record, and preparing it without I/O.

Preparing validates the input and resolves a plan, so a bad argument or a backend that
cannot run becomes a failure envelope before anything is sent.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..accounting.meter import Meter
from ..accounting.tags import check_tags
from ..accounting.telemetry import report_refused
from ..config import BackendSpec, Config, default_config
from ..context import reset_deadline, set_deadline
from ..envelope import failure
from ..errors import (
    InvalidInputError,
    ProviderError,
    WebProviderError,
    no_room,
    to_provider_error,
)
from ..manifest import Capability
from ..pools import NoThread
from ..redact import get_logger, scrub
from ..registry.providers import Registry, get_registry
from ..surrogates import sound
from ..validate import (
    check_backend,
    check_crawl_options,
    check_limit,
    check_option_values,
    check_page_options,
    check_query,
    check_search_options,
    check_url,
    check_urls,
    shown,
)
from .per_url import SetAside, mask_urls, refused_item, set_apart_repeats
from .plan import MAX_TIMEOUT, Plan
from .state import DispatchState, state_for

log = get_logger("webproviders.dispatch")


@dataclass(slots=True)
class Call:
    """One dispatch call: what was asked, and what has happened so far."""

    capability: Capability
    arguments: dict[str, Any]
    config: Config
    registry: Registry
    requested: Any
    deadline: float
    started: float
    attempts: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    plan: Plan | None = None
    use_cache: bool = True
    state: DispatchState | None = None
    #: Input URLs set aside before any provider saw them (refused, or repeated); they join
    #: the answer at the end.
    set_aside: list[SetAside] = field(default_factory=list)
    #: Caller-supplied labels for the usage ledger and per-tag budgets (never sent to providers).
    tags: dict[str, str] = field(default_factory=dict)
    meter: Meter | None = None
    #: Seconds of silence after which a chain also starts its next provider (None: in turn).
    hedge_after: float | None = None
    #: Providers sent a request that may have reached them and gave no answer (it failed, or
    #: a hedge cancelled it): the call then made an upstream request, whatever answered it.
    #: One list for a call and the copies its hedged members record in.
    unanswered: list[str] = field(default_factory=list)

    def meta(self, served_by: str | None, cached: bool = False, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The envelope's ``meta``; ``extra`` (e.g. a provider's own meta) never overrides ours.
        It is a mapping, not keywords: a provider's (or a shared cache entry's) key named
        ``served_by`` must be overridden, not fail the call.

        ``cached: True`` appears only on an answer served without an upstream request.
        """
        meta: dict[str, Any] = dict(extra) if extra else {}
        meta["requested_backend"] = self.requested
        meta["served_by"] = served_by
        meta["latency_ms"] = round((time.perf_counter() - self.started) * 1000, 3)
        meta["attempts"] = self.attempts
        if cached:
            meta["cached"] = True
        warnings = self.warnings
        if warnings:  # the same list: a store warned about later still shows
            warnings[:] = [scrub(str(warning)) for warning in warnings]
            meta["warnings"] = warnings
        return meta

    def warn(self, messages: Iterable[Any]) -> None:
        """Add sentences (a provider's own may be any type: each is made text) to the
        envelope's ``meta.warnings``, each once."""
        warnings = self.warnings
        for message in messages:
            text = str(message)
            if text not in warnings:
                warnings.append(text)

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


#: Longest backend name ``meta.requested_backend`` repeats, and the most names of a list it shows.
_SHOWN_NAME = 100
_SHOWN_NAMES = 20


def _requested_repr(backend: Any, registry: Registry | None = None) -> Any:
    """The ``backend=`` argument as ``meta.requested_backend`` shows it: JSON and UTF-8 whatever
    it was, a secret in it masked (a key pasted where a backend's name goes is masked in the
    error, and must be here too) and its size bounded. A provider's name is shown as it is."""
    if backend is None:
        return None
    if isinstance(backend, str):
        backend = str.__str__(backend)  # a subclass's own methods (its __eq__) are not called
        return backend if registry is not None and registry.get(backend) is not None else _shown_name(backend)
    if isinstance(backend, (list, tuple)) and all(isinstance(name, str) for name in backend):
        return _shown_names(backend)
    if isinstance(backend, dict) and len(backend) == 1:
        names = backend.get("fuse")
        if isinstance(names, list) and all(isinstance(name, str) for name in names):
            return {"fuse": _shown_names(names)}
    return f"<{type(backend).__name__}>"


def _shown_name(name: str) -> str:
    shown = scrub(sound(str.__str__(name)))  # masked before it is cut: a cut secret would not be found
    return shown if len(shown) <= _SHOWN_NAME else shown[:_SHOWN_NAME] + "…"


def _shown_names(names: list[str] | tuple[str, ...]) -> list[str]:
    shown = [_shown_name(name) for name in names[:_SHOWN_NAMES]]
    if len(names) > _SHOWN_NAMES:
        shown.append(f"… ({len(names) - _SHOWN_NAMES} more)")
    return shown


def validate_arguments(
    capability: Capability, arguments: dict[str, Any]
) -> tuple[dict[str, Any], list[SetAside]]:
    """The checked arguments, plus the URLs of an extract batch set aside: the malformed ones
    as error items, the repeats by the URL they repeat."""
    check_option_values(arguments["options"])
    if capability == "search":
        options = check_search_options(arguments["options"])
        checked = {"query": check_query(arguments["query"]), "limit": check_limit(arguments["limit"]), "options": options}
        return checked, []
    if capability == "extract":
        urls, bad = check_urls(arguments["urls"])
        refused = [refused_item(position, url, error) for position, url, error in bad]
        distinct, repeats = set_apart_repeats(urls, refused)
        return {"urls": distinct, "options": check_page_options(arguments["options"])}, [*refused, *repeats]
    return {"url": check_url(arguments["url"], single=True), "options": check_crawl_options(arguments["options"])}, []


def _no_call_meta(requested: Any, started: float) -> dict[str, Any]:
    return {
        "requested_backend": requested,
        "served_by": None,
        "latency_ms": round((time.perf_counter() - started) * 1000, 3),
        "attempts": [],
    }


def could_not_start(exc: Exception) -> ProviderError:
    """The process had no room for the call (a descriptor for its loop, a worker thread):
    nothing was sent, so no provider is named."""
    return ProviderError(f"The call could not start: {exc}; {no_room(exc)}", provider=None)


def never_started(error: WebProviderError, backend: BackendSpec | None) -> dict[str, Any]:
    """The failure envelope of a call that could not start at all."""
    return failure(error, None, _no_call_meta(_requested_repr(backend), time.perf_counter()))


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
    """Validate and resolve (no I/O); returns the call to run, or a failure envelope.

    What depends only on the config (the plan of a named backend, its deadline allowance,
    retry policies, prices, hook lists) is worked out once per config and kept
    (:class:`.state.DispatchState`); a call pays for its own input and for what can change
    between calls (whether its provider can run now).
    """
    started = time.perf_counter()
    try:
        cfg = config if config is not None else default_config()
        if not isinstance(cfg, Config):
            raise InvalidInputError(
                f"config must be a Config (from load_config or config_from_dict), not {type(cfg).__name__}."
            )
        budget = cfg.web.timeout if timeout is None else timeout
        budget_ok = not isinstance(budget, bool) and isinstance(budget, (int, float)) and 0 < budget <= MAX_TIMEOUT
        deadline = time.monotonic() + (budget if budget_ok else cfg.web.timeout)
        registry = get_registry(cfg, timeout=max(0.0, deadline - time.monotonic()))
        registry.ready_for_dispatch(max(0.0, deadline - time.monotonic()))
    except Exception as exc:  # noqa: BLE001 - a broken config or a slow plugin is still an envelope
        error = could_not_start(exc) if isinstance(exc, NoThread) else to_provider_error(exc, None)
        envelope = failure(error, None, _no_call_meta(_requested_repr(backend), started))
        report_refused(capability, envelope, started)
        return envelope
    requested = _requested_repr(backend, registry)  # once the registry has named the keys to mask in it
    call = Call(capability, arguments, cfg, registry, requested, deadline, started, use_cache=cache)
    try:
        call.state = state = state_for(registry)
        if not budget_ok:
            raise InvalidInputError(
                f"timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT}, not {shown(budget)}."
            )
        if cache is not True and cache is not False:
            raise InvalidInputError(f"cache must be True or False, not {shown(cache)}.")
        chosen = check_backend(backend)
        call.hedge_after = _hedge_after(hedge_after, cfg.web.hedge_after)
        call.arguments, call.set_aside = validate_arguments(capability, arguments)
        if tags is not None:
            call.tags = check_tags(tags)
        token = set_deadline(deadline)
        try:
            call.plan, allowance = state.planner.plan(capability, chosen, mode)
        finally:
            reset_deadline(token)
        if timeout is None and not state.timeout_set:
            call.deadline += allowance
        call.meter = Meter(state.accounts, capability, call.arguments, call.tags)
    except Exception as exc:  # noqa: BLE001
        error = could_not_start(exc) if isinstance(exc, NoThread) else to_provider_error(exc, None)
        envelope = failure(error, error.provider, call.meta(None))
        if capability != "search":
            mask_urls(envelope)
        if call.state is not None:  # not call.meter: the after_dispatch hook is told no cost
            Meter(call.state.accounts, capability, call.arguments, call.tags).refuse(envelope)
        from .hooks import after  # here: hooks are built on the call

        after(call, envelope)
        return envelope
    return call


def _hedge_after(value: Any, configured: float | None) -> float | None:
    """A call's ``hedge_after=`` (seconds, above 0 and at most the longest deadline), else
    ``web.hedge_after``. Bounded before it becomes a float: a huge int would overflow there."""
    if value is None:
        return configured
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT:
        raise InvalidInputError(
            f"hedge_after must be a number of seconds above 0 and at most {MAX_TIMEOUT}, not {shown(value)}."
        )
    return float(value)
