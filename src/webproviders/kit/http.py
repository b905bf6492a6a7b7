"""The shared HTTP stack: one pooled ``httpx.AsyncClient`` per event loop, and JSON calls.

Vendor providers call configured endpoints (trusted, even on localhost) through
:func:`request_json`; fetching URLs that arrive at run time goes through the safe-fetching
layer instead. A sync dispatch call alone on its loop sends vendor requests with a pooled
blocking ``httpx.Client`` instead (see :func:`~webproviders.dispatch.runner.may_block`).
Tests swap the transport with ``respx``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping
from typing import Any

import httpx

from ..config import Config, user_agent
from ..context import remaining_time
from ..dispatch.runner import may_block
from ..fetching.pinning import http2_available
from ..responses import Classifier, read_response

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], httpx.AsyncClient]] = (
    weakref.WeakKeyDictionary()
)
_blocking_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], httpx.Client]] = (
    weakref.WeakKeyDictionary()
)



def get_client(config: Config | None = None, **overrides: Any) -> httpx.AsyncClient:
    """The pooled client for the running loop and these network settings.

    ``overrides`` (e.g. ``transport=``, ``follow_redirects=``) make a separate pooled client
    keyed by them, so the safe-fetching layer can pin addresses without touching vendor calls.
    """
    return _pooled(_clients, httpx.AsyncClient, config, overrides)


def _blocking_client(config: Config | None) -> httpx.Client:
    """The running loop's pooled blocking client, for a sync call alone on its own loop."""
    return _pooled(_blocking_clients, httpx.Client, config, {})


def _pooled(
    pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]],
    kind: type[Any],
    config: Config | None,
    overrides: dict[str, Any],
) -> Any:
    loop = asyncio.get_running_loop()
    agent = user_agent(config)
    proxy = config.web.proxy if config is not None else None
    key = (agent, proxy, tuple(sorted((k, id(v)) for k, v in overrides.items())))
    per_loop = pools.setdefault(loop, {})
    client = per_loop.get(key)
    if client is None or client.is_closed:
        options: dict[str, Any] = {
            "timeout": DEFAULT_TIMEOUT,
            "limits": DEFAULT_LIMITS,
            "headers": {"User-Agent": agent},
            "http2": http2_available(),
            "proxy": proxy,
        }
        options.update(overrides)
        client = kind(**options)
        per_loop[key] = client
    return client


async def request_json(
    method: str,
    url: str,
    *,
    provider: str,
    config: Config | None = None,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    json: Any = None,
    data: Mapping[str, Any] | None = None,
    timeout: float | None = None,
    classify: Classifier | None = None,
) -> Any:
    """Send one request to a vendor API and return the parsed JSON body.

    Errors are :func:`~webproviders.responses.read_response`'s. A 2xx with an error object must be caught by
    ``classify``.
    """
    request: dict[str, Any] = {
        "headers": dict(headers or {}),
        "params": {k: v for k, v in (params or {}).items() if v is not None} or None,
        "json": json,
        "data": data,
    }
    if may_block():
        # Nothing can cancel a blocking read, so every wait is bounded by the call's time left.
        bounds = [t for t in (timeout, remaining_time()) if t is not None]
        response = _blocking_client(config).request(
            method, url, timeout=min(bounds) if bounds else httpx.USE_CLIENT_DEFAULT, **request
        )
    else:
        response = await get_client(config).request(
            method, url, timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT, **request
        )
    body, error = read_response(response, provider, classify)
    if error is not None:
        raise error
    return body
