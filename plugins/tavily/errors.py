"""Reading Tavily's failures by status and body.

Tavily answers ``{"detail": {"error": "..."}}`` (FastAPI style) with 400/401/403/429 and
432 (plan credit limit) / 433 (pay-as-you-go limit). The SDK turns 403, 432 and 433 all
into ``ForbiddenError`` and hides the response of a 429, so the provider keeps the last
response itself (see :class:`webproviders.kit.ResponseLog`) and reads it here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import (
    ParseError,
    ProviderError,
    QuotaExceededError,
    WebProviderError,
    WebTimeoutError,
)
from webproviders.kit import (
    error_for_status,
    quote,
    response_error,
    said,
    to_provider_error,
    transport_error,
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
    """Tavily's own statuses (432, 433) and in-band errors; the status table decides the rest."""
    status = response.status_code
    message = vendor_message(body)
    if 200 <= status < 300:  # any success status: an error in its body, or no answer at all
        if (
            isinstance(body, Mapping)
            and "results" not in body
            and (body.get("detail") or body.get("error"))
        ):
            return ProviderError(f"Tavily answered HTTP {status} with an error{said(message)}")
        if body is not None and not isinstance(body, Mapping):
            return ParseError(f"Tavily answered HTTP {status} with JSON that is not an object.")
        return None
    if status in QUOTA_STATUSES:
        return QuotaExceededError(
            f"Tavily refused the request because {QUOTA_STATUSES[status]} is reached "
            f"(HTTP {status}){said(message)} Add credits or raise the limit at "
            "https://app.tavily.com/."
        )
    error = body.get("error") if isinstance(body, Mapping) else None
    seconds = error.get("retry_after_seconds") if isinstance(error, Mapping) else None
    return error_for_status(
        status,
        NAME,
        response.headers,
        vendor="Tavily",
        message=message,
        retry_after=float(seconds) if isinstance(seconds, (int, float)) else None,
    )


def failure(exc: BaseException, response: httpx.Response | None) -> WebProviderError:
    """Our error for an exception the SDK raised, read from the last response when there is one
    (or the library's own, when the transport refused the answer or cut it off)."""
    own = transport_error(exc)
    if own is not None:
        return own
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
