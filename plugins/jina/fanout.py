"""Fetching several URLs one request each, where a page failure is an item, not a call failure.

Errors about the account (bad key, no credit, rate limit) fail the whole call at once, so
the dispatcher can fail over. Anything else becomes that URL's error item, unless every URL
failed because the vendor itself is down (5xx, timeout, unreachable, garbage): then the call
fails too, so a retry or another backend can help.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from webproviders.envelope import page_error
from webproviders.errors import (
    AuthError,
    BadGatewayError,
    NetworkError,
    NotConfiguredError,
    ParseError,
    QuotaExceededError,
    RateLimitedError,
    WebProviderError,
    WebTimeoutError,
)
from webproviders.exceptions import to_provider_error

ACCOUNT_ERRORS = (AuthError, QuotaExceededError, RateLimitedError, NotConfiguredError)
VENDOR_DOWN = (BadGatewayError, WebTimeoutError, NetworkError, ParseError)


def settle(
    urls: list[str], outcomes: list[dict[str, Any] | WebProviderError]
) -> list[dict[str, Any]]:
    """Pages in input order; raises when every URL failed because the vendor is down."""
    if outcomes and all(isinstance(o, VENDOR_DOWN) for o in outcomes):
        raise outcomes[0]  # type: ignore[misc]
    pairs = zip(urls, outcomes, strict=True)
    return [o if isinstance(o, dict) else page_error(url, o) for url, o in pairs]


async def fetch_each(
    urls: list[str],
    fetch: Callable[[str], Awaitable[dict[str, Any]]],
    *,
    provider: str,
    concurrency: int,
) -> list[dict[str, Any]]:
    """Run ``fetch`` for every URL (at most ``concurrency`` at once), results in input order."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(url: str) -> dict[str, Any] | WebProviderError:
        async with gate:
            try:
                return await fetch(url)
            except Exception as exc:  # noqa: BLE001 - sorted into call-level or per-URL below
                error = to_provider_error(exc, provider)
                if isinstance(error, ACCOUNT_ERRORS):
                    raise error from None
                return error

    tasks = [asyncio.ensure_future(one(url)) for url in urls]
    try:
        outcomes = list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
    return settle(urls, outcomes)
