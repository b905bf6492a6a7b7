"""Reading Parallel's failures by status and body.

Parallel answers ``{"type": "error", "error": {"ref_id", "message", "detail"}}`` with the usual
statuses. Its SDK (Stainless-generated) raises ``APIStatusError`` subclasses that carry the
response, so status, headers and body are read here; its own retries are turned off
because the dispatcher retries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders.dependable.retry_after import retry_after_from_headers
from webproviders.errors import (
    AuthError,
    BadGatewayError,
    BlockedError,
    InvalidInputError,
    NetworkError,
    NotFoundError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    WebProviderError,
    WebTimeoutError,
)
from webproviders.exceptions import to_provider_error
from webproviders.kit.sdk import mentions_bad_key, quote, said
from webproviders.kit.sdkhttp import response_error

if TYPE_CHECKING:
    import httpx


NAME = "parallel"
_OUT_OF_CREDITS = re.compile(
    r"insufficient (?:credit|balance|funds)|out of credits|credit limit|quota", re.IGNORECASE
)


def vendor_message(body: Any) -> str:
    if not isinstance(body, Mapping):
        return ""
    error = body.get("error")
    if isinstance(error, Mapping):
        return quote(error.get("message") or "")
    return quote(error or body.get("message") or "")


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Parallel's verdict on a response, or None to fall back to the generic status mapping."""
    status = response.status_code
    message = vendor_message(body)
    if status < 300:
        if isinstance(body, Mapping) and body.get("type") == "error":
            return ProviderError(f"Parallel answered HTTP {status} with an error{said(message)}")
        if body is not None and not isinstance(body, Mapping):
            return ParseError(f"Parallel answered HTTP {status} with JSON that is not an object.")
        return None
    if status == 402 or _OUT_OF_CREDITS.search(message):
        return QuotaExceededError(
            f"Parallel says the account is out of credits (HTTP {status}){said(message)}"
        )
    if status == 401 or (status in (400, 403, 422) and mentions_bad_key(message)):
        return AuthError(
            f"Parallel rejected the API key (HTTP {status}){said(message)} Check PARALLEL_API_KEY."
        )
    if status == 403:
        return AuthError(
            f"Parallel refused the request (HTTP 403){said(message)} Check the key's permissions."
        )
    if status == 429:
        return RateLimitedError(
            f"Parallel is rate limiting requests (HTTP 429){said(message)}",
            retry_after=retry_after_from_headers(response.headers),
        )
    if status >= 500:
        return BadGatewayError(
            f"Parallel failed on its side (HTTP {status}){said(message)} Try again later."
        )
    if status in (400, 404, 409, 422):
        return InvalidInputError(f"Parallel rejected the request (HTTP {status}){said(message)}")
    return None


def failure(exc: BaseException) -> WebProviderError:
    """Our error for an exception the SDK raised, read from its response when it has one."""
    import parallel

    response = getattr(exc, "response", None)
    import httpx  # loaded on a failure path only; listing providers stays light

    if isinstance(response, httpx.Response):
        error = response_error(response, NAME, classify)
        if error is not None:
            return error
    if isinstance(exc, parallel.APITimeoutError):
        return WebTimeoutError("Parallel did not answer in time.", provider=NAME)
    if isinstance(exc, parallel.APIConnectionError):
        return NetworkError("Parallel could not be reached.", provider=NAME)
    if isinstance(exc, (parallel.APIResponseValidationError, KeyError, TypeError, AttributeError)):
        return ParseError(
            "Parallel answered with JSON that does not have the documented shape.", provider=NAME
        )
    return to_provider_error(exc, NAME)


def url_error(error_type: str, http_status: int | None, content: str | None) -> WebProviderError:
    """The error for one URL that ``/v1/extract`` could not read (an item of ``errors``)."""
    where = f" (HTTP {http_status}, {error_type})" if http_status else f" ({error_type})"
    if "timeout" in error_type:
        return WebTimeoutError(f"Parallel timed out reading this page{where}.", provider=NAME)
    if http_status in (404, 410):
        return NotFoundError(f"Parallel found no page at this URL{where}.", provider=NAME)
    if http_status in (401, 403, 429):
        return BlockedError(
            f"The site refused Parallel's fetch{where}.",
            provider=NAME,
            detail=f"http_{http_status}",
        )
    return ProviderError(
        f"Parallel could not read this page{where}{said(quote(content))}", provider=NAME
    )
