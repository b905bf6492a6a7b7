"""Serper's error bodies: ``{"message": "...", "statusCode": N}``.

A bad key is a 403 ``Unauthorized.``, an empty credit balance a **400**
``Not enough credits``, so the message decides before the status does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import WebProviderError
from webproviders.kit import error_for_status

if TYPE_CHECKING:
    import httpx


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """The error a Serper answer carries (also a 2xx with ``statusCode`` >= 400), or None."""
    in_band = body.get("statusCode") if isinstance(body, dict) else None
    status = in_band if isinstance(in_band, int) and in_band >= 400 else response.status_code
    if status < 400:
        return None
    message = str(body.get("message") or "").strip() if isinstance(body, dict) else ""
    return error_for_status(status, "serper", response.headers, vendor="Serper", message=message)
