"""SerpAPI's error bodies: ``{"error": "<message>"}``, on 4xx/5xx and on some 200s.

An empty result set is a 200 whose ``error`` says Google returned no results: that is an
empty success, not a failure. Running out of searches is a 429 with its own message. A 200
whose ``error`` is about the API key is a rejected key, as a 401 is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import AuthError, ProviderError, QuotaExceededError, WebProviderError
from webproviders.kit import error_for_status, mentions_bad_key, quote, said

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
    if "out of searches" in message.lower():
        return QuotaExceededError(f"SerpAPI says the account is out of searches{said(quote(message))}")
    if status < 400 and mentions_bad_key(message):
        return AuthError(f"SerpAPI rejected the API key{said(quote(message))}")
    if status < 400:
        return ProviderError(f"SerpAPI reported an error{said(quote(message))}")
    return error_for_status(status, "serpapi", response.headers, vendor="SerpAPI", message=message)
