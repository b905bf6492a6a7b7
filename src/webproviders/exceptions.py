"""Mapping anything a provider raises to a :class:`~webproviders.errors.WebProviderError`.

Messages are scrubbed of API keys and credential headers on the way.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .dependable.retry_after import retry_after_from_headers
from .errors import (
    AuthError,
    BadGatewayError,
    InvalidInputError,
    NetworkError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    UnsupportedError,
    WebProviderError,
    WebTimeoutError,
)
from .redact import scrub


def _who(provider: str | None) -> str:
    return f"{provider}" if provider else "The provider"


def error_for_status(
    status: int, provider: str | None, headers: Any = None, message: str | None = None
) -> WebProviderError:
    """The error class for an HTTP status from a vendor API."""
    who = _who(provider)
    if status in (401, 403):
        return AuthError(
            message or f"{who} rejected the API key (HTTP {status}); check the key and its permissions.",
            provider=provider, status_code=status,
        )
    if status == 402:
        return QuotaExceededError(
            message or f"{who} says the account is out of credits (HTTP 402).",
            provider=provider, status_code=status,
        )
    if status == 429:
        retry_after = retry_after_from_headers(headers) if headers is not None else None
        when = f" Retry after {retry_after:.0f} s." if retry_after else ""
        return RateLimitedError(
            message or f"{who} is rate limiting requests (HTTP 429).{when}",
            provider=provider, retry_after=retry_after, status_code=status,
        )
    if status >= 500:
        return BadGatewayError(
            message or f"{who} failed on its side (HTTP {status}); try again later.",
            provider=provider, status_code=status,
        )
    if status in (400, 404, 405, 409, 413, 415, 422):
        return InvalidInputError(
            message or f"{who} rejected the request (HTTP {status}).", provider=provider, status_code=status
        )
    return ProviderError(message or f"{who} answered HTTP {status}.", provider=provider, status_code=status)


def to_provider_error(exc: BaseException, provider: str | None) -> WebProviderError:
    """Map an exception to our hierarchy, scrubbing secrets from the message."""
    error = _map(exc, provider)
    error.message = scrub(error.message)
    error.args = (error.message,)
    if error.provider is None:
        error.provider = provider
    return error


def _is_asyncio_timeout(exc: BaseException) -> bool:
    """``asyncio.TimeoutError`` (its own class before 3.11) without importing asyncio at start-up."""
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(exc, asyncio.TimeoutError)


def _from_httpx(exc: BaseException, who: str, provider: str | None) -> WebProviderError | None:
    """httpx's own errors; an httpx error means httpx is loaded, so this never loads it."""
    httpx = sys.modules.get("httpx")
    if httpx is None:
        return None
    if isinstance(exc, httpx.TimeoutException):
        return WebTimeoutError(f"{who} timed out ({type(exc).__name__}).", provider=provider)
    if isinstance(exc, httpx.HTTPStatusError):
        return error_for_status(exc.response.status_code, provider, exc.response.headers)
    if isinstance(exc, (httpx.NetworkError, httpx.ProxyError, httpx.RemoteProtocolError)):
        return NetworkError(f"{who} could not be reached: {type(exc).__name__}: {exc}", provider=provider)
    if isinstance(exc, httpx.DecodingError):
        return ParseError(f"{who} sent a body that could not be decoded: {exc}", provider=provider)
    return None


def _map(exc: BaseException, provider: str | None) -> WebProviderError:
    who = _who(provider)
    if isinstance(exc, WebProviderError):
        return exc
    if isinstance(exc, NotImplementedError):
        return UnsupportedError(f"{who} does not support this operation.", provider=provider)
    if isinstance(exc, TimeoutError) or _is_asyncio_timeout(exc):
        return WebTimeoutError(f"{who} timed out.", provider=provider)
    mapped = _from_httpx(exc, who, provider)
    if mapped is not None:
        return mapped
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
        return ParseError(f"{who} sent a response that is not valid JSON: {exc}", provider=provider)
    if isinstance(exc, ConnectionError):
        return NetworkError(f"{who} could not be reached: {exc}", provider=provider)
    text = str(exc) or type(exc).__name__
    return ProviderError(f"{who} failed: {type(exc).__name__}: {text}", provider=provider)
