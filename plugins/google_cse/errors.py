"""Google's API error envelope.

``{"error": {"code", "message", "status", "errors": [{"reason"}], "details": [...]}}``.

A bad key is a **400** (``API_KEY_INVALID`` / ``keyInvalid``), the daily query quota a 429
(or a legacy 403 ``dailyLimitExceeded``), the per-minute limit a 429 as well: the reasons
and the message tell them apart.
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

BAD_KEY = {"keyInvalid", "keyExpired", "API_KEY_INVALID", "API_KEY_EXPIRED"}
DAILY_QUOTA = {
    "dailyLimitExceeded",
    "dailyLimitExceededUnreg",
    "quotaExceeded",
    "billingNotEnabled",
}
RATE_LIMIT = {"rateLimitExceeded", "userRateLimitExceeded", "RATE_LIMIT_EXCEEDED"}
NO_ACCESS = {"accessNotConfigured", "forbidden", "SERVICE_DISABLED", "API_KEY_SERVICE_BLOCKED"}
SUNSET = "The Custom Search JSON API is closed to new customers and shuts down on 1 January 2027."


def _reasons(error: dict[str, Any]) -> tuple[set[str], str]:
    """Every ``reason`` in ``errors`` and ``details``, and the quota limit name if given."""
    reasons: set[str] = set()
    quota_limit = ""
    for item in (error.get("errors") or []) + (error.get("details") or []):
        if isinstance(item, dict):
            reasons.add(str(item.get("reason") or ""))
            metadata = item.get("metadata")
            if isinstance(metadata, dict):
                quota_limit = str(metadata.get("quota_limit") or quota_limit)
    return reasons - {""}, quota_limit


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """The error a Custom Search answer carries, or None."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    code = error.get("code") if isinstance(error.get("code"), int) else response.status_code
    message = str(error.get("message") or "").strip()
    said = f" ({message})" if message else ""
    lowered = message.lower()
    reasons, quota_limit = _reasons(error)
    if reasons & BAD_KEY or "api key not valid" in lowered or "api key expired" in lowered:
        return AuthError(f"Google rejected the API key{said}; check GOOGLE_CSE_API_KEY.")
    if reasons & DAILY_QUOTA or "per day" in lowered or "perday" in quota_limit.lower():
        return QuotaExceededError(
            f"Google Custom Search's daily query quota is used up{said}; "
            "it resets at midnight Pacific time."
        )
    if code == 429 or reasons & RATE_LIMIT:
        return RateLimitedError(
            f"Google Custom Search is rate limiting requests{said}.",
            retry_after=retry_after_from_headers(response.headers),
        )
    if code in (401, 403) or reasons & NO_ACCESS or error.get("status") == "PERMISSION_DENIED":
        return AuthError(
            f"Google refused this key access to the Custom Search JSON API{said}. {SUNSET}"
        )
    if code >= 500:
        return BadGatewayError(
            f"Google Custom Search failed on its side (HTTP {code}){said}; try again later."
        )
    if code == 400:
        return InvalidInputError(
            f"Google Custom Search rejected the request{said}; check the cx and options."
        )
    return ProviderError(f"Google Custom Search reported error {code}{said}.")
