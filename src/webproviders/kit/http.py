"""The shared HTTP stack: JSON calls to vendor APIs, and one pooled ``httpx.AsyncClient`` per loop.

Vendor providers call configured endpoints (trusted, even on localhost) through
:func:`request_json`, which sends over the lean wire of :mod:`.wire`; a sync dispatch call
alone on its loop waits on the socket itself (see
:func:`~webproviders.dispatch.runner.may_block`). SDK transports and HTML scrapers use the
pooled client of :func:`get_client`. Fetching URLs that arrive at run time goes through the
safe-fetching layer instead. Tests swap the transport with ``respx``.
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
from . import wire
from .wire import DEFAULT_LIMITS, DEFAULT_TIMEOUT

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], httpx.AsyncClient]] = (
    weakref.WeakKeyDictionary()
)


def get_client(config: Config | None = None, **overrides: Any) -> httpx.AsyncClient:
    """The pooled client for the running loop and these network settings.

    SDK transports and scrapers share it. ``overrides`` (e.g. ``follow_redirects=True``) make a
    separate pooled client keyed by them, so one plugin's needs never change another's client.
    """
    loop = asyncio.get_running_loop()
    agent = user_agent(config)
    proxy = config.web.proxy if config is not None else None
    key = (agent, proxy, tuple(sorted((k, id(v)) for k, v in overrides.items())))
    per_loop = _clients.setdefault(loop, {})
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
        client = httpx.AsyncClient(**options)
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
    blocking = may_block()
    if blocking:
        # Nothing can cancel a blocking read, so every wait is bounded by the call's time left.
        left = remaining_time()
        if left is not None:
            timeout = left if timeout is None else min(timeout, left)
    response = await wire.send(
        method,
        url,
        config=config,
        headers=headers,
        params={k: v for k, v in params.items() if v is not None} if params else None,
        json=json,
        data=data,
        timeout=timeout,
        blocking=blocking,
    )
    body, error = read_response(response, provider, classify)
    if error is not None:
        raise error
    return body
