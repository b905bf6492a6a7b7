"""Sorting Contents failures into per-URL items and call failures.

Errors about the account (bad key, no credit, rate limit) fail the whole call at once, so
the dispatcher can fail over. Anything else becomes that URL's error item, unless every URL
failed because the vendor itself is down (5xx, timeout, unreachable, garbage): then the call
fails too, so a retry or another backend can help.
"""

from __future__ import annotations

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
