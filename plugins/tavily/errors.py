"""Reading Tavily's failures by status and body.

Tavily answers ``{"detail": {"error": "..."}}`` (FastAPI style) with 400/401/403/429 and
432 (plan credit limit) / 433 (pay-as-you-go limit). The SDK turns 403, 432 and 433 all
into ``ForbiddenError`` and hides the response of a 429, so the provider keeps the last
response itself (see :class:`webproviders.kit.sdk.ResponseLog`) and reads it here.
"""

from __future__ import annotations

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

NAME = "tavily"
#: Tavily's own statuses for "the plan's credits are used up" and "the pay-as-you-go cap is hit".
QUOTA_STATUSES = {432: "the plan's credit limit", 433: "the pay-as-you-go spending limit"}


def vendor_message(body: Any) -> str:
    """The human text in a Tavily error body (``detail.error``, ``detail`` or ``error.message``)."""
    if not isinstance(body, Mapping):
        return ""
    detail = body.get("detail")
    if isinstance(detail, Mapping):
        return quote(detail.get("error") or detail.get("message") or "")
    if isinstance(detail, str):
        return quote(detail)
    error = body.get("error")
    if isinstance(error, Mapping):
        return quote(error.get("message") or error.get("code") or "")
    return quote(error) if isinstance(error, str) else ""


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Tavily's verdict on a response, or None to fall back to the generic status mapping."""
    status = response.status_code
    message = vendor_message(body)
    if status == 200:
        if (
            isinstance(body, Mapping)
            and "results" not in body
            and (body.get("detail") or body.get("error"))
        ):
            return ProviderError(f"Tavily answered HTTP 200 with an error{said(message)}")
        if body is not None and not isinstance(body, Mapping):
            return ParseError("Tavily answered HTTP 200 with JSON that is not an object.")
        return None
    if status in QUOTA_STATUSES:
        return QuotaExceededError(
            f"Tavily refused the request because {QUOTA_STATUSES[status]} is reached "
            f"(HTTP {status})"
            f"{said(message)} Add credits or raise the limit at https://app.tavily.com/."
        )
    if status == 401 or (status in (400, 422) and mentions_bad_key(message)):
        return AuthError(
            f"Tavily rejected the API key (HTTP {status}){said(message)} Check TAVILY_API_KEY."
        )
    if status == 403:
        return AuthError(
            f"Tavily refused the request (HTTP 403){said(message)} The key's plan may not "
            "include this endpoint."
        )
    if status == 429:
        retry_after = retry_after_from_headers(response.headers)
        if (
            retry_after is None
            and isinstance(body, Mapping)
            and isinstance(body.get("error"), Mapping)
        ):
            seconds = body["error"].get("retry_after_seconds")
            retry_after = float(seconds) if isinstance(seconds, (int, float)) else None
        return RateLimitedError(
            f"Tavily is rate limiting requests (HTTP 429){said(message)}", retry_after=retry_after
        )
    if status >= 500:
        return BadGatewayError(
            f"Tavily failed on its side (HTTP {status}){said(message)} Try again later."
        )
    if status in (400, 422):
        return InvalidInputError(f"Tavily rejected the request (HTTP {status}){said(message)}")
    return None


def failure(exc: BaseException, response: httpx.Response | None) -> WebProviderError:
    """Our error for an exception the SDK raised, read from the last response when there is one."""
    if response is not None:
        error = response_error(response, NAME, classify)
        if error is not None:
            return error
    from tavily.errors import TimeoutError as TavilyTimeout

    if isinstance(exc, TavilyTimeout):
        return WebTimeoutError("Tavily did not answer in time.", provider=NAME)
    if isinstance(exc, (KeyError, TypeError, AttributeError)):
        return ParseError(
            "Tavily answered with JSON that does not have the documented shape.", provider=NAME
        )
    return to_provider_error(exc, NAME)
