"""OpenTelemetry: a span per call with a child per request, counters and a latency histogram."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from webproviders import adispatch_search, dispatch_extract, dispatch_search
from webproviders.errors import ParseError

from .conftest import cost_config, scripted


def _points(reader: Any) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else []:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                found.setdefault(metric.name, []).extend(metric.data.data_points)
    return found


def test_a_call_is_a_span_with_a_child_per_request(otel: tuple[Any, Any]) -> None:
    exporter, _ = otel
    exporter.clear()
    config = cost_config(search_backend=["priced", "pricey"], retry={"max_retries": 0, "backoff": 0})
    scripted(config, "priced").steps = [ParseError("garbled")]
    envelope = dispatch_search("tidal energy", config=config, limit=3)
    assert envelope["success"] is True
    spans = exporter.get_finished_spans()
    call = next(s for s in spans if s.name == "webproviders.search")
    attempts = [s for s in spans if s.name == "webproviders.attempt"]
    assert [a.attributes["webproviders.provider"] for a in attempts] == ["priced", "pricey"]
    assert all(a.parent is not None and a.parent.span_id == call.context.span_id for a in attempts)
    assert attempts[0].attributes["webproviders.error_code"] == "parse_error"
    assert attempts[0].status.status_code.name == "ERROR"
    assert attempts[1].attributes["webproviders.outcome"] == "ok"
    assert attempts[1].attributes["webproviders.cost.usd"] == 0.05
    assert dict(call.attributes) == {
        "webproviders.capability": "search",
        "webproviders.provider": "pricey",
        "webproviders.outcome": "ok",
        "webproviders.cached": False,
        "webproviders.cost.usd": 0.054,
        "webproviders.cost.units": 2.0,
        "webproviders.cost.unit": "request",
        "webproviders.cost.estimated": True,
        "webproviders.hits": 3,
    }


def test_failures_and_pages_are_described(otel: tuple[Any, Any]) -> None:
    exporter, _ = otel
    exporter.clear()
    config = cost_config(budget={"daily_usd": 0.0}, usage=False)
    refused = dispatch_search("x", backend="priced", config=config)
    assert refused["error_code"] == "budget_exceeded"
    read = dispatch_extract(["https://a.example/1", "https://a.example/2"], backend="free", config=config)
    assert read["success"] is True
    spans = {s.name: s for s in exporter.get_finished_spans()}
    failed = spans["webproviders.search"]
    assert failed.attributes["webproviders.error_code"] == "budget_exceeded"
    assert failed.status.status_code.name == "ERROR"
    assert spans["webproviders.extract"].attributes["webproviders.pages"] == 1


def test_a_hedged_member_given_up_on_is_no_failed_span(otel: tuple[Any, Any]) -> None:
    """The member a hedged chain stopped waiting for, once another answered, was an attempt
    span with status ERROR and ``error_code`` ``cancelled``, a code no envelope carries: every
    hedged call showed a failure in the trace, where nothing failed."""
    exporter, _ = otel
    exporter.clear()
    config = cost_config(retry={"max_retries": 0, "backoff": 0})
    scripted(config, "priced").steps = [3.0]  # silent past hedge_after: the next member answers
    envelope = dispatch_search("tidal energy", backend=["priced", "pricey"], hedge_after=0.2, config=config)
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("priced", "cancelled"), ("pricey", "ok")
    ], envelope
    spans = exporter.get_finished_spans()
    attempts = {s.attributes["webproviders.provider"]: s for s in spans if s.name == "webproviders.attempt"}
    given_up = attempts["priced"]
    assert given_up.attributes["webproviders.outcome"] == "cancelled"
    assert "webproviders.error_code" not in given_up.attributes
    assert given_up.status.status_code.name == "UNSET"
    call = next(s for s in spans if s.name == "webproviders.search")
    assert call.status.status_code.name == "UNSET" and "webproviders.error_code" not in call.attributes


def test_a_call_refused_before_any_provider_is_a_span_and_a_count(otel: tuple[Any, Any]) -> None:
    """A caller's bad input or a backend that cannot run was neither traced nor counted: an
    application watching ``webproviders.calls`` by outcome never saw them. A backend name the
    caller made up is no provider: it labels nothing (``none``), so labels stay few."""
    exporter, reader = otel
    exporter.clear()
    config = cost_config()

    def count(outcome: str, provider: str) -> float:
        return sum(
            p.value for p in _points(reader).get("webproviders.calls", [])
            if p.attributes["webproviders.outcome"] == outcome and p.attributes["webproviders.provider"] == provider
        )

    before = (count("invalid_input", "none"), count("not_configured", "tavily"))
    refused = [
        dispatch_search("x", backend="priced", config=config, limit=0),
        dispatch_search("x", backend="made-up-name", config=config),
        dispatch_extract(["ftp://a.example/"], backend="free", config=config),
        dispatch_search("x", backend="tavily", config=config),
        dispatch_search("x", config={"web": {}}),  # type: ignore[arg-type]  # not a Config: no registry to ask
    ]
    codes = ["invalid_input", "invalid_input", "invalid_input", "not_configured", "invalid_input"]
    assert [e["error_code"] for e in refused] == codes
    assert (count("invalid_input", "none") - before[0], count("not_configured", "tavily") - before[1]) == (4, 1)
    calls = [s for s in exporter.get_finished_spans() if s.name in ("webproviders.search", "webproviders.extract")]
    assert [s.attributes["webproviders.error_code"] for s in calls] == [e["error_code"] for e in refused]
    assert all(s.status.status_code.name == "ERROR" for s in calls)
    assert not [s for s in exporter.get_finished_spans() if s.name == "webproviders.attempt"]


def test_calls_requests_and_dollars_are_counted(otel: tuple[Any, Any]) -> None:
    _, reader = otel
    before = _points(reader)
    config = cost_config()
    dispatch_search("a", backend="priced", config=config)
    dispatch_search("b", backend="priced", config=config)
    after = _points(reader)

    def total(points: dict[str, list[Any]], name: str, provider: str) -> float:
        return sum(p.value for p in points.get(name, []) if p.attributes.get("webproviders.provider") == provider)

    assert total(after, "webproviders.calls", "priced") - total(before, "webproviders.calls", "priced") == 2
    assert total(after, "webproviders.requests", "priced") - total(before, "webproviders.requests", "priced") == 2
    spent = total(after, "webproviders.cost", "priced") - total(before, "webproviders.cost", "priced")
    assert abs(spent - 0.008) < 1e-9
    durations = [p for p in after["webproviders.call.duration"] if p.attributes["webproviders.provider"] == "priced"]
    assert sum(p.count for p in durations) >= 2


class _PagedSearxng(BaseHTTPRequestHandler):
    """A SearXNG instance on 127.0.0.1: ten new results on every page (``pageno``)."""

    asked: list[int] = []

    def do_GET(self) -> None:
        number = int(parse_qs(urlsplit(self.path).query)["pageno"][0])
        type(self).asked.append(number)
        hits = [{"title": f"r{number}.{n}", "url": f"https://site{number}-{n}.example/", "content": "c"} for n in range(10)]
        data = json.dumps({"query": "q", "number_of_results": 0, "results": hits, "answers": [], "corrections": [],
                           "infoboxes": [], "suggestions": [], "unresponsive_engines": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def test_every_page_of_a_paged_search_counts_as_a_request(otel: tuple[Any, Any], http_server: Any) -> None:
    """A search for 30 results reads three pages of SearXNG: three requests the instance
    saw, where ``webproviders.requests`` counted the call's one attempt."""
    _, reader = otel
    _PagedSearxng.asked = []
    port = http_server(_PagedSearxng).server_address[1]
    config = cost_config(retry={"max_retries": 0}, providers={"searxng": {"base_url": f"http://127.0.0.1:{port}"}})

    def total(name: str) -> float:
        return sum(p.value for p in _points(reader).get(name, []) if p.attributes["webproviders.provider"] == "searxng")

    calls, requests = total("webproviders.calls"), total("webproviders.requests")
    envelope = dispatch_search("tidal energy", backend="searxng", config=config, limit=30)
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 30, envelope
    assert _PagedSearxng.asked == [1, 2, 3]
    assert total("webproviders.calls") - calls == 1
    assert total("webproviders.requests") - requests == 3


def test_without_opentelemetry_nothing_is_imported_and_calls_work() -> None:
    script = (
        "import sys, json\n"
        "sys.modules['opentelemetry'] = None  # as if the package were not installed\n"
        "from webproviders import dispatch_search\n"
        "from webproviders.accounting import telemetry\n"
        "envelope = dispatch_search('x', backend='stub', cache=False)\n"
        "loaded = [m for m in sys.modules if m.startswith('opentelemetry.')]\n"
        "print(json.dumps({'ok': envelope['success'], 'telemetry': telemetry.get() is not None, 'loaded': loaded}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"ok": True, "telemetry": False, "loaded": []}


def test_with_opentelemetry_installed_but_not_set_up_a_call_loads_none_of_it() -> None:
    """A call imported the API and made its tracer and instruments, scanning every installed
    package's entry points as the API loads (20-60 ms of a process's first call), while no
    application had set up anything to collect; one set up after that call is still traced."""
    pytest.importorskip("opentelemetry.sdk")
    script = (
        "import sys, json\n"
        "from webproviders import dispatch_search\n"
        "first = dispatch_search('x', backend='stub', cache=False)\n"
        "loaded = [m for m in sys.modules if m.startswith('opentelemetry')]\n"
        "from opentelemetry import trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "from opentelemetry.sdk.trace.export import SimpleSpanProcessor\n"
        "from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter\n"
        "exporter = InMemorySpanExporter()\n"
        "provider = TracerProvider()\n"
        "provider.add_span_processor(SimpleSpanProcessor(exporter))\n"
        "trace.set_tracer_provider(provider)\n"
        "later = dispatch_search('y', backend='stub', cache=False)\n"
        "spans = sorted(s.name for s in exporter.get_finished_spans())\n"
        "print(json.dumps({'ok': [first['success'], later['success']], 'loaded': loaded, 'spans': spans}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_PYTHON_")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {
        "ok": [True, True], "loaded": [], "spans": ["webproviders.attempt", "webproviders.search"]
    }


def test_importing_and_listing_providers_loads_no_accounting_machinery() -> None:
    script = (
        "import sys, json, webproviders\n"
        "webproviders.list_providers()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    heavy = {"opentelemetry", "sqlite3", "redis", "webproviders.accounting.usage", "webproviders.accounting.budget",
             "webproviders.accounting.telemetry", "webproviders.accounting.meter"}
    assert not {m for m in loaded for h in heavy if m == h or m.startswith(h + ".")}


def _raising_processor(where: str) -> Any:
    """A span processor of the application's that raises when a span starts or ends."""
    from opentelemetry.sdk.trace import SpanProcessor

    class Raising(SpanProcessor):
        active = True

        def on_start(self, span: Any, parent_context: Any = None) -> None:
            if self.active and where == "start":
                raise RuntimeError("the processor broke")

        def on_end(self, span: Any) -> None:
            if self.active and where == "end":
                raise RuntimeError("the processor broke")

    return Raising()


@pytest.mark.parametrize("where", ["start", "end"])
def test_a_span_processor_that_raises_breaks_no_call(otel: tuple[Any, Any], where: str) -> None:
    from opentelemetry import trace

    processor = _raising_processor(where)
    trace.get_tracer_provider().add_span_processor(processor)  # type: ignore[attr-defined]
    try:
        config = cost_config(search_backend=["priced", "pricey"], retry={"max_retries": 0, "backoff": 0})
        scripted(config, "priced").steps = [ParseError("garbled")]
        envelope = dispatch_search("tidal energy", config=config, limit=3)
        assert envelope["success"] is True, envelope
        assert envelope["meta"]["cost"]["usd"] == 0.054
        answered = asyncio.run(adispatch_search("wave energy", config=config, limit=3))
        assert answered["success"] is True, answered
    finally:
        processor.active = False  # the provider keeps it: it stays, inert, for later tests


def test_a_provider_named_in_the_environment_that_does_not_load_breaks_no_call() -> None:
    script = (
        "import json\n"
        "from webproviders import dispatch_search\n"
        "envelope = dispatch_search('x', backend='stub', cache=False)\n"
        "print(json.dumps([envelope['success'], envelope.get('error')]))\n"
    )
    env = {**os.environ, "OTEL_PYTHON_TRACER_PROVIDER": "no_such_provider"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, None]
    assert "OTEL_PYTHON_TRACER_PROVIDER" in out.stderr  # said once, naming the variable
