"""Fixtures for the Brave / SearXNG / xAI provider tests: sync and async dispatch."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_search
from webproviders.config import Config


@pytest.fixture
def search() -> Callable[..., dict[str, Any]]:
    """``search(config, query, backend=..., **options)`` through the sync dispatcher."""

    def run(config: Config, query: str = "rust async runtime", **kwargs: Any) -> dict[str, Any]:
        return dispatch_search(query, config=config, **kwargs)

    return run


@pytest.fixture
def asearch() -> Callable[..., dict[str, Any]]:
    """The same through ``adispatch_search`` on a fresh event loop."""

    def run(config: Config, query: str = "rust async runtime", **kwargs: Any) -> dict[str, Any]:
        return asyncio.run(adispatch_search(query, config=config, **kwargs))

    return run
