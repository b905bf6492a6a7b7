"""Helpers for the jina, linkup, perplexity, kagi, you, mojeek and crawl4ai provider tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import respx

from webproviders import (
    adispatch_crawl,
    adispatch_extract,
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
)
from webproviders.config import config_from_dict, set_default_config

_SYNC = {"search": dispatch_search, "extract": dispatch_extract, "crawl": dispatch_crawl}
_ASYNC = {"search": adispatch_search, "extract": adispatch_extract, "crawl": adispatch_crawl}

Dispatch = Callable[..., dict[str, Any]]


@pytest.fixture(autouse=True)
def _plain_dispatch() -> Iterator[None]:
    """Calls without an explicit config fail at the first vendor error and are never served
    from the answer cache (core tests cover retries and caching)."""
    plain = {"web": {"retry": {"max_retries": 0}, "cache": False}}
    set_default_config(config_from_dict(plain, source="<test>"))
    yield
    set_default_config(None)


@pytest.fixture(params=["sync", "async"])
def dispatch(request: pytest.FixtureRequest) -> Dispatch:
    """``dispatch("search", query, ...)`` through the sync API, then again through the async one."""

    def call(kind: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if request.param == "sync":
            return _SYNC[kind](*args, **kwargs)
        return asyncio.run(_ASYNC[kind](*args, **kwargs))

    return call


@pytest.fixture
def mock() -> Iterator[respx.MockRouter]:
    """A respx router; any request it has no route for fails the test (no network)."""
    with respx.mock(assert_all_called=False) as router:
        yield router
