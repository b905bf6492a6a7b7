"""Reading Exa's failures by status and body.

Exa answers ``{"requestId", "error": "<message>", "tag": "<MACHINE_TAG>"}``. The SDK turns
every status of 400 and above into a plain ``ValueError`` carrying the body, without the
headers, so the provider keeps the last response itself (an httpx response hook on the
SDK's own client) and reads status, tag and ``Retry-After`` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders.dependable.retry_after import retry_after_from_headers
from webproviders.errors import (
    AuthError,
    BadGatewayError,
    BlockedError,
    InvalidInputError,
    NotFoundError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    UnsupportedError,
    WebProviderError,
    WebTimeoutError,
)
from webproviders.exceptions import to_provider_error
from webproviders.kit.sdk import mentions_bad_key, quote, said
from webproviders.kit.sdkhttp import response_error

if TYPE_CHECKING:
    import httpx

NAME = "exa"
QUOTA_TAGS = frozenset({"NO_MORE_CREDITS", "API_KEY_BUDGET_EXCEEDED", "INSUFFICIENT_CREDITS"})
#: 403 tags about the content asked for, not about the key.
CONTENT_TAGS = frozenset({"ROBOTS_FILTER_FAILED", "PROHIBITED_CONTENT"})


def _fields(body: Any) -> tuple[str, str]:
    """``(message, tag)`` of an Exa error body."""
    if not isinstance(body, Mapping):
        return "", ""
    error = body.get("error")
    message = error.get("message") if isinstance(error, Mapping) else error
    tag = body.get("tag")
    return quote(message or ""), tag if isinstance(tag, str) else ""


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Exa's verdict on a response, or None to fall back to the generic status mapping."""
    status = response.status_code
    message, tag = _fields(body)
    where = f"HTTP {status}, {tag}" if tag else f"HTTP {status}"
    text = f"({where}){said(message)}"
    if status == 200:
        if isinstance(body, Mapping) and "results" not in body and body.get("error"):
            return ProviderError(f"Exa answered with an error {text}")
        if body is not None and not isinstance(body, Mapping):
            return ParseError("Exa answered HTTP 200 with JSON that is not an object.")
        return None
    if status == 402 or tag in QUOTA_TAGS:
        return QuotaExceededError(
            f"Exa says the account is out of credits or over its budget {text} "
            "Add credits at https://dashboard.exa.ai/."
        )
    if (
        status == 401
        or tag == "INVALID_API_KEY"
        or (status in (400, 422) and mentions_bad_key(message))
    ):
        return AuthError(f"Exa rejected the API key {text} Check EXA_API_KEY.")
    if status == 403:
        if tag == "FEATURE_DISABLED":
            return UnsupportedError(f"Exa has not enabled this feature for the account {text}")
        if tag in CONTENT_TAGS:
            return BlockedError(f"Exa refused to fetch this content {text}", detail="http_403")
        return AuthError(f"Exa refused the request {text} Check the key's permissions.")
    if status == 429:
        return RateLimitedError(
            f"Exa is rate limiting requests {text}",
            retry_after=retry_after_from_headers(response.headers),
        )
    if status >= 500:
        return BadGatewayError(f"Exa failed on its side {text} Try again later.")
    if status in (400, 404, 409, 422):
        return InvalidInputError(f"Exa rejected the request {text}")
    return None


def failure(exc: BaseException, response: httpx.Response | None) -> WebProviderError:
    """Our error for an exception the SDK raised, read from the last response when there is one."""
    if response is not None:
        error = response_error(response, NAME, classify)
        if error is not None:
            return error
    if isinstance(exc, (KeyError, TypeError, AttributeError)):
        return ParseError(
            "Exa answered with JSON that does not have the documented shape.", provider=NAME
        )
    return to_provider_error(exc, NAME)


def status_error(tag: str | None, http_status: int | None) -> WebProviderError:
    """The error for one URL that ``/contents`` could not read."""
    where = f" (HTTP {http_status}, {tag})" if http_status else f" ({tag})" if tag else ""
    if tag == "CRAWL_TIMEOUT" or http_status == 408:
        return WebTimeoutError(f"Exa timed out reading this page{where}.", provider=NAME)
    if tag == "SOURCE_NOT_AVAILABLE" or http_status in (401, 403, 429):
        return BlockedError(
            f"The site refused Exa's crawler{where}.",
            provider=NAME,
            detail=f"http_{http_status or 403}",
        )
    if tag == "CRAWL_NOT_FOUND" or http_status in (404, 410):
        return NotFoundError(f"Exa found no page at this URL{where}.", provider=NAME)
    return ProviderError(f"Exa could not read this page{where}.", provider=NAME)
