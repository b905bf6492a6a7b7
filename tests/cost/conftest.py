"""Fixtures for cost, budget, usage and telemetry tests: priced offline providers, in-memory OpenTelemetry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict
from webproviders.registry.providers import get_registry

PLUGINS = Path(__file__).parent / "plugins"


def cost_config(**web: Any) -> Config:
    """A config that loads the priced providers; no answer cache unless ``web`` sets one."""
    settings: dict[str, Any] = {"retry": {"backoff": 0.0}, "cache": False}
    settings.update(web)
    return config_from_dict({"web": settings, "plugins": {"paths": [str(PLUGINS)], "enabled": ["priced"]}})


def scripted(config: Config, name: str) -> Any:
    entry = get_registry(config).get(name)
    assert entry is not None, f"{name} is not registered"
    return entry.provider


@pytest.fixture(scope="session")
def otel() -> Iterator[tuple[Any, Any]]:
    """The global OpenTelemetry providers, recording to memory (they can be set once per process)."""
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(tracer_provider)
    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    yield exporter, reader
    tracer_provider.shutdown()
