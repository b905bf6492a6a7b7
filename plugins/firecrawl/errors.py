"""Reading Firecrawl's failures by status and body.

Firecrawl answers ``{"success": false, "error": "<message>", "code"?: "...", "details"?: ...}``:
401 for a bad or missing token, 402 when credits run out, 403 for a website it will not
scrape, 408 for a scrape that timed out, 429 with "please retry after 42s" in the message
(the self-hosted server sets no ``Retry-After``), 5xx for its own failures. The SDK's
``FirecrawlError`` carries the response, so status, headers and body are read here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    BadGatewayError,
    InvalidInputError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    UnsupportedError,
    WebProviderError,
    WebTimeoutError,
)
from webproviders.kit import (
    mentions_bad_key,
    quote,
    response_error,
    retry_after_from_headers,
    said,
    to_provider_error,
)

if TYPE_CHECKING:
    import httpx


NAME = "firecrawl"
_RETRY_AFTER = re.compile(r"retry after (\d+(?:\.\d+)?)\s*s", re.IGNORECASE)
_OUT_OF_CREDITS = re.compile(r"insufficient credits|out of credits|credit limit", re.IGNORECASE)
#: Errors about the account, not one URL: an extract stops on them instead of listing them per URL.
ACCOUNT_CODES = frozenset({"auth_error", "quota_exceeded", "rate_limited", "not_configured"})


def vendor_message(body: Any) -> str:
    if not isinstance(body, Mapping):
        return ""
    return quote(body.get("error") or body.get("message") or "")


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Firecrawl's verdict on a response, or None to fall back to the generic status mapping."""
    status = response.status_code
    message = vendor_message(body)
    if status < 300:
        if isinstance(body, Mapping) and body.get("success") is False:
            return ProviderError(f"Firecrawl answered HTTP {status} with an error{said(message)}")
        if body is not None and not isinstance(body, Mapping):
            return ParseError(f"Firecrawl answered HTTP {status} with JSON that is not an object.")
        return None
    if status == 402 or _OUT_OF_CREDITS.search(message):
        return QuotaExceededError(
            f"Firecrawl says the account is out of credits (HTTP {status}){said(message)}"
        )
    if status == 401 or (status in (400, 403, 422) and mentions_bad_key(message)):
        return AuthError(
            f"Firecrawl rejected the API key (HTTP {status}){said(message)} "
            "Check FIRECRAWL_API_KEY."
        )
    if status == 403:
        return UnsupportedError(f"Firecrawl will not fetch this website (HTTP 403){said(message)}")
    if status == 408:
        return WebTimeoutError(f"Firecrawl timed out on this request (HTTP 408){said(message)}")
    if status == 429:
        retry_after = retry_after_from_headers(response.headers)
        match = _RETRY_AFTER.search(message) if retry_after is None else None
        return RateLimitedError(
            f"Firecrawl is rate limiting requests (HTTP 429){said(message)}",
            retry_after=float(match.group(1)) if match else retry_after,
        )
    if status >= 500:
        return BadGatewayError(
            f"Firecrawl failed on its side (HTTP {status}){said(message)} Try again later."
        )
    if status in (400, 404, 409, 422):
        return InvalidInputError(f"Firecrawl rejected the request (HTTP {status}){said(message)}")
    return None


def failure(exc: BaseException) -> WebProviderError:
    """Our error for an exception the SDK raised, read from its response when it has one."""
    from pydantic import ValidationError

    from firecrawl.v2.utils.error_handler import FirecrawlError

    if isinstance(exc, WebProviderError):
        return exc
    response = getattr(exc, "response", None)
    import httpx  # loaded on a failure path only; listing providers stays light

    if isinstance(response, httpx.Response):
        error = response_error(response, NAME, classify)
        if error is not None:
            return error
    if isinstance(exc, (ValidationError, KeyError, TypeError, AttributeError)):
        return ParseError(
            "Firecrawl answered with JSON that does not have the documented shape.", provider=NAME
        )
    if isinstance(exc, FirecrawlError):
        return ProviderError(f"Firecrawl reported an error{said(quote(str(exc)))}", provider=NAME)
    return to_provider_error(exc, NAME)
