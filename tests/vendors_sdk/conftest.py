"""Fixtures for the SDK-backed providers (tavily, exa, firecrawl, parallel)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import Callable
from typing import Any

import pytest

from webproviders import (
    adispatch_crawl,
    adispatch_extract,
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
)
from webproviders.config import Config


def settings(name: str, **provider: Any) -> dict[str, Any]:
    """Config for one provider with no cache and no dispatcher retries, so each call reaches
    the (mocked) vendor exactly once and an error shows up exactly as it was mapped."""
    return {"web": {"cache": False, "retry": {"max_retries": 0}, "providers": {name: provider}}}


def assert_no_secret(envelope: dict[str, Any], secret: str) -> None:
    """Neither the key nor its tail appears anywhere in the envelope."""
    text = json.dumps(envelope)
    assert secret not in text
    assert secret[-10:] not in text


def body_of(route: Any) -> Any:
    """The JSON body of the last request a respx route received."""
    return json.loads(route.calls.last.request.content)


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Callable[..., dict[str, Any]]:
    """``run(capability, config, *args, **kwargs)`` through ``dispatch_*`` or ``adispatch_*``."""
    sync = {"search": dispatch_search, "extract": dispatch_extract, "crawl": dispatch_crawl}
    asynchronous = {
        "search": adispatch_search,
        "extract": adispatch_extract,
        "crawl": adispatch_crawl,
    }

    def call(capability: str, config: Config, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if request.param == "sync":
            return sync[capability](*args, config=config, **kwargs)
        return asyncio.run(asynchronous[capability](*args, config=config, **kwargs))

    return call


@pytest.fixture
def hide_module(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Make ``find_spec`` report a module as not installed, as on a machine without the extra."""
    real = importlib.util.find_spec

    def hide(name: str) -> None:
        def fake(module: str, *args: Any, **kwargs: Any) -> Any:
            return (
                None
                if module == name or module.startswith(name + ".")
                else real(module, *args, **kwargs)
            )

        monkeypatch.setattr(importlib.util, "find_spec", fake)

    return hide
