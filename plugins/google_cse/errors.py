"""Google's API error envelope.

``{"error": {"code", "message", "status", "errors": [{"reason"}], "details": [...]}}``.

A bad key is a **400** (``API_KEY_INVALID`` / ``keyInvalid``), the daily query quota a 429
(or a legacy 403 ``dailyLimitExceeded``), the per-minute limit a 429 as well: the reasons
and the message tell them apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import AuthError, QuotaExceededError, WebProviderError
from webproviders.kit import error_for_status, quote, said

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
    listed = [error.get("errors"), error.get("details")]
    for item in [item for items in listed if isinstance(items, list) for item in items]:
        if isinstance(item, dict):
            reasons.add(str(item.get("reason") or ""))
            metadata = item.get("metadata")
            if isinstance(metadata, dict):
                quota_limit = str(metadata.get("quota_limit") or quota_limit)
    return reasons - {""}, quota_limit


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Google's reasons decide (a 400 bad key, a 403 or 429 daily quota); then the status table."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    code = error.get("code") if isinstance(error.get("code"), int) else response.status_code
    message = str(error.get("message") or "").strip()
    reasons, quota_limit = _reasons(error)
    if reasons & BAD_KEY:
        return AuthError(f"Google rejected the API key{said(quote(message))}")
    if reasons & DAILY_QUOTA or "per day" in message.lower() or "perday" in quota_limit.lower():
        return QuotaExceededError(
            f"Google Custom Search's daily query quota is used up{said(quote(message))} "
            "It resets at midnight Pacific time."
        )
    if reasons & RATE_LIMIT:
        code = 429
    elif code in (401, 403) or reasons & NO_ACCESS or error.get("status") == "PERMISSION_DENIED":
        return AuthError(
            f"Google refused this key access to the Custom Search JSON API{said(quote(message))} "
            f"{SUNSET}"
        )
    return error_for_status(
        code, "google-cse", response.headers, vendor="Google Custom Search", message=message
    )
