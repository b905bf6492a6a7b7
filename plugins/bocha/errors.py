"""Bocha's error bodies: ``{"code": "401", "message": "Invalid API KEY", "log_id": ...}``.

The HTTP status is mirrored in ``code`` (a string in error bodies, the number 200 on
success), and even a 200 may carry an error code, so the body's code decides. A missing key
is a 400 (what Bocha says tells it from a bad parameter). Bocha's error table gives 403 one
meaning, 余额不足 (the balance is used up), whatever words the message uses ("You do not
have enough money", or the Chinese itself), so a 403 is ``quota_exceeded`` unless it speaks
of the key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import QuotaExceededError, WebProviderError
from webproviders.kit import error_for_status, mentions_bad_key, quote, said

if TYPE_CHECKING:
    import httpx


def _status(body: dict[str, Any], status: int) -> int:
    """The status Bocha's ``code`` reports (the HTTP one when it reports none or 200)."""
    try:
        code = int(str(body.get("code")).strip())
    except ValueError:
        return status
    return status if code == 200 else code


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """The error a Bocha answer carries (in the status or in-band), or None."""
    if not isinstance(body, dict):
        return None
    status = _status(body, response.status_code) if "code" in body else response.status_code
    if status < 400:
        return None
    message = str(body.get("message") or body.get("msg") or "").strip()
    if status == 403 and not mentions_bad_key(message):
        return QuotaExceededError(
            f"Bocha says the account balance is used up{said(quote(message))} "
            "Top it up to search again."
        )
    return error_for_status(status, "bocha", response.headers, vendor="Bocha", message=message)
