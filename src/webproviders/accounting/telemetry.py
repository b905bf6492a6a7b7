"""OpenTelemetry traces and metrics of every dispatch, when ``opentelemetry-api`` is installed.

A call is a span named ``webproviders.<capability>``; each request to a provider is a child
span ``webproviders.attempt``. Counters count calls, requests and dollars, and a histogram
records call latency. Without the package nothing here is imported (:func:`get` returns
None) and dispatch does no tracing work at all. The API is a no-op until the application
installs an SDK; until then no span is started and nothing is counted (see
:meth:`Telemetry.collecting`), so installing the extra alone costs next to nothing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import threading
from typing import TYPE_CHECKING, Any

from .._version import __version__

if TYPE_CHECKING:
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

_UNSET: Any = object()
_instance: Any = _UNSET
_lock = threading.Lock()


def get() -> Telemetry | None:
    """The process's telemetry, or None when ``opentelemetry-api`` is not installed."""
    global _instance
    if _instance is _UNSET:
        with _lock:
            if _instance is _UNSET:
                _instance = Telemetry() if _installed() else None
    return _instance  # type: ignore[no-any-return]


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

    def call_span(self, capability: str) -> contextlib.AbstractContextManager[Any]:
        """The span of one call, current while the call runs (vendor HTTP spans nest in it)."""
        return self.tracer.start_as_current_span(
            f"webproviders.{capability}", attributes={CAPABILITY: capability},
            record_exception=False, set_status_on_exception=False,
        )

    def start_attempt(self, parent: Any, capability: str, provider: str) -> Any:
        context = self._trace.set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(
            "webproviders.attempt", context=context, attributes={CAPABILITY: capability, PROVIDER: provider}
        )

    def end_attempt(self, span: Any, cost: Cost, error_code: str | None) -> None:
        """End a request's span, described when the SDK records it."""
        if span.is_recording():  # without an SDK spans record nothing: skip the attributes
            span.set_attributes({OUTCOME: error_code or "ok", **_cost_attributes(cost.as_dict())})
            if error_code:
                span.set_attribute(ERROR_CODE, error_code)
                span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, error_code))
        span.end()

    def end_call(
        self,
        span: Any,
        capability: str,
        envelope: dict[str, Any],
        cost: Cost,
        seconds: float,
        requests: list[tuple[str, str, float]],
    ) -> None:
        """Describe the finished call on its span and count it (``requests``: provider, outcome, usd)."""
        meta = envelope.get("meta") or {}
        provider = meta.get("served_by") or envelope.get("provider") or "none"
        code = None if envelope.get("success") else str(envelope.get("error_code"))
        if span is not None and span.is_recording():
            span.set_attributes(_call_attributes(envelope, meta, provider, code, cost.as_dict()))
            if code:
                span.set_attribute(ERROR_CODE, code)
                span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, code))
        labels = {CAPABILITY: capability, PROVIDER: provider, OUTCOME: code or "ok"}
        self.calls.add(1, labels)
        self.duration.record(seconds, labels)
        for name, outcome, usd in requests:
            request_labels = {CAPABILITY: capability, PROVIDER: name, OUTCOME: outcome}
            self.requests.add(1, request_labels)
            if usd:
                self.spend.add(usd, request_labels)


def _has_globals(trace: Any, internal: Any) -> bool:
    """Whether the API keeps its providers where :meth:`Telemetry.collecting` reads them, and
    none is to be loaded from the environment (then only the getters know)."""
    named = {"OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER"} & set(os.environ)
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
