"""OpenTelemetry traces and metrics of every dispatch, when ``opentelemetry-api`` is installed.

A call is a span named ``webproviders.<capability>``; each attempt at a provider is a child
span ``webproviders.attempt``. Counters count calls, requests and dollars, and a histogram
records call latency. Without the package nothing here is imported (:func:`get` returns
None) and dispatch does no tracing work at all. The API is a no-op until the application
installs an SDK; until then no span is started and nothing is counted (see
:meth:`Telemetry.collecting`), so installing the extra alone costs next to nothing.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from .._version import __version__
from ..forklock import ForkLock
from ..redact import get_logger, scrub
from .cost import Cost

#: Attribute names, all under the ``webproviders.`` prefix.
PROVIDER = "webproviders.provider"
CAPABILITY = "webproviders.capability"
OUTCOME = "webproviders.outcome"
ERROR_CODE = "webproviders.error_code"
CACHED = "webproviders.cached"
COST_USD = "webproviders.cost.usd"
COST_UNITS = "webproviders.cost.units"
COST_UNIT = "webproviders.cost.unit"
COST_ESTIMATED = "webproviders.cost.estimated"
HITS = "webproviders.hits"
PAGES = "webproviders.pages"
#: An attempt's outcome that is no failure: given up on once another member of a hedged chain
#: answered (or the caller left). Never an envelope's error code, so no error on its span.
CANCELLED = "cancelled"

_UNSET: Any = object()
_instance: Any = _UNSET
#: Held while first-use set-up imports modules: a fork waits for it (:mod:`~webproviders.forklock`).
_lock = ForkLock()
#: Variables that name a provider for the API to load (from an entry point) on first use.
_PROVIDER_VARIABLES = ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER")
#: Whether the application's SDK has failed a call once already (it is logged once).
_complained = False

log = get_logger("webproviders.accounting.telemetry")


def get() -> Telemetry | None:
    """The process's telemetry, or None when ``opentelemetry-api`` is not installed or could
    not be set up (a provider named in ``OTEL_PYTHON_TRACER_PROVIDER`` that does not load).

    None too, asked again on the next call, while nothing could collect: no module of the API
    is imported (an application that sets up a provider imports it first) and none is named in
    the environment. The API's import and the entry points it scans as it loads cost a first
    call 20-60 ms, for tracing no one had set up."""
    global _instance
    if _instance is _UNSET:
        if not _may_collect():
            return None
        with _lock:
            if _instance is _UNSET:
                _instance = _quietly(Telemetry) if _installed() else None
    return _instance  # type: ignore[no-any-return]


def report_refused(capability: str, envelope: dict[str, Any], started: float) -> None:
    """A call refused before it had a registry (a ``config=`` that is not one, a config file
    that does not load): its span and its count, as every call's, under provider ``none``."""
    found = get()
    if found is not None and found.collecting():
        found.refused(capability, envelope, "none", time.perf_counter() - started)


def _quietly(work: Callable[..., Any], *args: Any) -> Any:
    """``work(*args)``, or None when the application's OpenTelemetry SDK raised in it: a
    processor, exporter or provider of its own must not fail or change a call."""
    try:
        return work(*args)
    except Exception as exc:  # noqa: BLE001 - whatever the application's SDK code raises
        _failed(exc)
        return None


def _failed(exc: Exception) -> None:
    global _complained
    if not _complained:
        _complained = True
        text = scrub(str(exc))
        named = " and ".join(name for name in _PROVIDER_VARIABLES if name in os.environ)
        log.warning(
            "OpenTelemetry raised %s%s%s; calls go on, and what it failed to take is not traced or counted "
            "(this is said once).", type(exc).__name__, f": {text}" if text else "",
            f" (the provider {named} names may not load)" if named else "",
        )


def _may_collect() -> bool:
    """Whether an application may have set up OpenTelemetry: it imported the API (to set a
    provider), or names a provider for the API to load from the environment."""
    modules = sys.modules
    return "opentelemetry.trace" in modules or "opentelemetry.metrics" in modules or _named_in_environment()


@functools.cache
def _named_in_environment() -> bool:
    """Whether the environment names a provider for the API to load: read once, as the
    process starts with it (this is asked at every call while nothing collects)."""
    return any(name in os.environ for name in _PROVIDER_VARIABLES)


def _installed() -> bool:
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except (ImportError, ValueError):
        return False


class Telemetry:
    """A tracer and the instruments, from the global providers the application set up."""

    def __init__(self) -> None:
        from opentelemetry import metrics, trace

        self._trace = trace
        self._metrics = metrics
        self._no_sdk = trace.ProxyTracerProvider
        #: The API's stand-in meter provider before the application sets one (not public;
        #: without it metrics are counted always, as the proxy forwards them once one is set).
        internal = importlib.import_module("opentelemetry.metrics._internal")
        self._no_meter_sdk: Any = getattr(internal, "_ProxyMeterProvider", None)
        #: Where the API keeps the providers the application sets (module globals, read per call:
        #: the public getters cost a failed environment lookup each). Without them, or with a
        #: provider named in the environment, the public getters are asked.
        self._globals = (trace, internal) if _has_globals(trace, internal) else None
        self.tracer = trace.get_tracer("webproviders", __version__)
        meter = metrics.get_meter("webproviders", __version__)
        self.calls = meter.create_counter("webproviders.calls", unit="{call}", description="dispatch calls")
        self.requests = meter.create_counter(
            "webproviders.requests", unit="{request}", description="requests that reached a provider"
        )
        self.spend = meter.create_counter("webproviders.cost", unit="USD", description="dollars spent")
        self.duration = meter.create_histogram(
            "webproviders.call.duration", unit="s", description="latency of dispatch calls"
        )

    def tracing(self) -> bool:
        """Whether the application installed a tracer provider (until then spans would record nothing)."""
        return not isinstance(self._trace.get_tracer_provider(), self._no_sdk)

    def metering(self) -> bool:
        """Whether the application installed a meter provider (until then counts would go nowhere)."""
        proxy = self._no_meter_sdk
        return proxy is None or not isinstance(self._metrics.get_meter_provider(), proxy)

    def collecting(self) -> bool:
        """Whether a call has anything to report to (checked once per call)."""
        found = self._globals
        if found is not None:
            return found[0]._TRACER_PROVIDER is not None or found[1]._METER_PROVIDER is not None
        return self.tracing() or self.metering()

    @contextlib.contextmanager
    def call_span(self, capability: str) -> Iterator[Any]:
        """The span of one call, current while the call runs (vendor HTTP spans nest in it);
        None when the SDK failed to start it."""
        span = _quietly(self._start_call, capability)
        if span is None:
            yield None
            return
        try:
            with self._trace.use_span(span, record_exception=False, set_status_on_exception=False):
                yield span
        finally:
            _quietly(span.end)

    def _start_call(self, capability: str) -> Any:
        return self.tracer.start_span(
            f"webproviders.{capability}", attributes={CAPABILITY: capability},
            record_exception=False, set_status_on_exception=False,
        )

    def start_attempt(self, parent: Any, capability: str, provider: str) -> Any:
        """A request's span under its call's (None when the SDK failed to start it)."""
        return _quietly(self._start_attempt, parent, capability, provider)

    def _start_attempt(self, parent: Any, capability: str, provider: str) -> Any:
        context = self._trace.set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(
            "webproviders.attempt", context=context, attributes={CAPABILITY: capability, PROVIDER: provider}
        )

    def end_attempt(self, span: Any, cost: Cost, error_code: str | None) -> None:
        """End a request's span, described when the SDK records it."""
        _quietly(self._end_attempt, span, cost, error_code)

    def _end_attempt(self, span: Any, cost: Cost, error_code: str | None) -> None:
        try:
            if span.is_recording():  # without an SDK spans record nothing: skip the attributes
                span.set_attributes({OUTCOME: error_code or "ok", **_cost_attributes(cost.as_dict())})
                if error_code and error_code != CANCELLED:
                    span.set_attribute(ERROR_CODE, error_code)
                    span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, error_code))
        finally:
            span.end()

    def refused(self, capability: str, envelope: dict[str, Any], provider: str, seconds: float) -> None:
        """A call refused before any provider was asked: its span (when traced) and its count."""
        with self.call_span(capability) if self.tracing() else contextlib.nullcontext() as span:
            self.end_call(span, capability, envelope, Cost(), seconds, [], provider)

    def end_call(
        self,
        span: Any,
        capability: str,
        envelope: dict[str, Any],
        cost: Cost,
        seconds: float,
        requests: list[tuple[str, str, float, int]],
        provider: str | None = None,
    ) -> None:
        """Describe the finished call on its span and count it (``requests``: provider, outcome,
        usd, and how many requests each attempt sent; ``provider``: who answered, when the
        envelope's own is not to be taken)."""
        meta = envelope.get("meta") or {}
        provider = provider or meta.get("served_by") or envelope.get("provider") or "none"
        code = None if envelope.get("success") else str(envelope.get("error_code"))
        if span is not None:
            _quietly(self._describe_call, span, envelope, meta, provider, code, cost)
        _quietly(self._count_call, capability, provider, code, seconds, requests)

    def _describe_call(
        self, span: Any, envelope: dict[str, Any], meta: dict[str, Any], provider: str, code: str | None, cost: Cost
    ) -> None:
        if span.is_recording():
            span.set_attributes(_call_attributes(envelope, meta, provider, code, cost.as_dict()))
            if code:
                span.set_attribute(ERROR_CODE, code)
                span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, code))

    def _count_call(
        self,
        capability: str,
        provider: str,
        code: str | None,
        seconds: float,
        requests: list[tuple[str, str, float, int]],
    ) -> None:
        labels = {CAPABILITY: capability, PROVIDER: provider, OUTCOME: code or "ok"}
        self.calls.add(1, labels)
        self.duration.record(seconds, labels)
        for name, outcome, usd, sent in requests:
            request_labels = {CAPABILITY: capability, PROVIDER: name, OUTCOME: outcome}
            self.requests.add(sent, request_labels)
            if usd:
                self.spend.add(usd, request_labels)


def _has_globals(trace: Any, internal: Any) -> bool:
    """Whether the API keeps its providers where :meth:`Telemetry.collecting` reads them, and
    none is to be loaded from the environment (then only the getters know)."""
    named = set(_PROVIDER_VARIABLES) & set(os.environ)
    return not named and hasattr(trace, "_TRACER_PROVIDER") and hasattr(internal, "_METER_PROVIDER")


def _call_attributes(
    envelope: dict[str, Any], meta: dict[str, Any], provider: str, code: str | None, cost: dict[str, Any]
) -> dict[str, Any]:
    attributes: dict[str, Any] = {PROVIDER: provider, OUTCOME: code or "ok", CACHED: bool(meta.get("cached"))}
    attributes |= _cost_attributes(cost)
    data = envelope.get("data")
    if isinstance(data, dict):
        attributes[HITS] = len(data.get("web") or [])
    elif isinstance(data, list):
        attributes[PAGES] = sum(1 for item in data if isinstance(item, dict) and not item.get("error"))
    return attributes


def _cost_attributes(cost: dict[str, Any]) -> dict[str, Any]:
    if not cost:
        return {}
    found = {COST_USD: float(cost.get("usd") or 0.0), COST_UNITS: float(cost.get("units") or 0.0),
             COST_ESTIMATED: bool(cost.get("estimated"))}
    if cost.get("unit"):
        found[COST_UNIT] = str(cost["unit"])
    return found
