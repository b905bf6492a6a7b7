"""Serper's error bodies: ``{"message": "...", "statusCode": N}``.

A bad key is a 403 ``Unauthorized.``, an empty credit balance a **400**
``Not enough credits``, so the message decides before the status does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    BadGatewayError,
    InvalidInputError,
    QuotaExceededError,
    RateLimitedError,
    WebProviderError,
)
from webproviders.kit import retry_after_from_headers

if TYPE_CHECKING:
    import httpx


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """The error a Serper answer carries (also a 2xx with ``statusCode`` >= 400), or None."""
    in_band = body.get("statusCode") if isinstance(body, dict) else None
    status = in_band if isinstance(in_band, int) and in_band >= 400 else response.status_code
    if status < 400:
        return None
    message = str(body.get("message") or "").strip() if isinstance(body, dict) else ""
    said = f" ({message})" if message else ""
    lowered = message.lower()
    if "credit" in lowered:
        return QuotaExceededError(
            f"Serper says the account is out of credits{said}; buy more to search again."
        )
    if status in (401, 403) or "unauthorized" in lowered or "api key" in lowered:
        return AuthError(f"Serper rejected the API key{said}; check SERPER_API_KEY.")
    if status == 429:
        return RateLimitedError(
            f"Serper is rate limiting requests{said}; "
            "the plan's queries-per-second ceiling was hit.",
            retry_after=retry_after_from_headers(response.headers),
        )
    if status >= 500:
        return BadGatewayError(f"Serper failed on its side (HTTP {status}){said}; try again later.")
    if status == 400 and message:
        return InvalidInputError(f"Serper rejected the request{said}.")
    return None
