"""Bocha's error bodies: ``{"code": "401", "message": "Invalid API KEY", "log_id": ...}``.

The HTTP status is mirrored in ``code`` (a string in error bodies, the number 200 on
success), and a missing key is a 400 and an empty balance a 403, so the body decides.
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


def _code(body: dict[str, Any], status: int) -> int:
    try:
        return int(str(body.get("code")).strip())
    except ValueError:
        return status


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """The error a Bocha answer carries (in the status or in-band), or None."""
    if not isinstance(body, dict):
        return None
    code = _code(body, response.status_code) if "code" in body else response.status_code
    if code == 200:
        code = response.status_code
    if code < 400:
        return None
    message = str(body.get("message") or body.get("msg") or "").strip()
    said = f" ({message})" if message else ""
    lowered = message.lower()
    if code == 401 or (code == 400 and "api key" in lowered):
        return AuthError(f"Bocha rejected the API key{said}; check BOCHA_API_KEY.")
    if code == 403 and ("money" in lowered or "balance" in lowered):
        return QuotaExceededError(
            f"Bocha says the account balance is used up{said}; top it up to search again."
        )
    if code == 403:
        return AuthError(f"Bocha refused access{said}; check BOCHA_API_KEY and its permissions.")
    if code == 429:
        retry_after = retry_after_from_headers(response.headers)
        return RateLimitedError(
            f"Bocha is rate limiting requests{said}; "
            "its limit grows with the account's total top-up.",
            retry_after=retry_after,
        )
    if code >= 500:
        return BadGatewayError(f"Bocha failed on its side (code {code}){said}; try again later.")
    if code == 400:
        return InvalidInputError(f"Bocha rejected the request{said}.")
    return ProviderError(f"Bocha reported error {code}{said}.")
