"""SerpAPI's error bodies: ``{"error": "<message>"}``, on 4xx/5xx and on some 200s.

An empty result set is a 200 whose ``error`` says Google returned no results: that is an
empty success, not a failure. Running out of searches is a 429 with its own message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    BadGatewayError,
    InvalidInputError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    WebProviderError,
)
from webproviders.kit import retry_after_from_headers

if TYPE_CHECKING:
    import httpx

NO_RESULTS_MARKER = "hasn't returned any results"


def is_no_results(message: str) -> bool:
    return NO_RESULTS_MARKER in message.lower()


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """The error a SerpAPI answer carries, or None (also for the "no results" 200)."""
    message = str(body.get("error") or "").strip() if isinstance(body, dict) else ""
    status = response.status_code
    if not message or (status < 400 and is_no_results(message)):
        return None
    said = f" ({message})"
    lowered = message.lower()
    if "out of searches" in lowered:
        return QuotaExceededError(f"SerpAPI says the account is out of searches{said}.")
    if status == 401 or "api key" in lowered:
        return AuthError(f"SerpAPI rejected the API key{said}; check SERPAPI_API_KEY.")
    if status == 403:
        return AuthError(f"SerpAPI refused access for this account{said}.")
    if status == 429:
        return RateLimitedError(
            f"SerpAPI is rate limiting requests{said}; the plan's hourly throughput was hit.",
            retry_after=retry_after_from_headers(response.headers),
        )
    if status >= 500:
        return BadGatewayError(
            f"SerpAPI failed on its side (HTTP {status}){said}; try again later."
        )
    if status in (400, 404, 410):
        return InvalidInputError(f"SerpAPI rejected the request{said}.")
    return ProviderError(f"SerpAPI reported an error{said}.")
