"""xAI's error answers, mapped to our error classes.

xAI's body is ``{"code": "...", "error": "..."}`` (not OpenAI's nested object, though that is
read too). A bad key is HTTP 400 ``invalid-argument`` "Incorrect API key provided"; used-up
credits or a reached spending limit are 403 (sometimes 402); a 200 may still carry an error
or ``status: "failed"``. Messages about the key are our own words: xAI's echo part of the key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    NotConfiguredError,
    ProviderError,
    QuotaExceededError,
    WebProviderError,
)
from webproviders.kit import error_for_status

if TYPE_CHECKING:
    import httpx

CONSOLE_URL = "https://console.x.ai"
_AUTH_WORDS = ("api key", "api-key", "unauthenticated", "unauthorized")
_QUOTA_WORDS = ("credits", "spending limit", "billing")


def vendor_error(body: Any) -> tuple[str, str]:
    """``(code, message)`` from either error shape; empty strings when there is none."""
    if not isinstance(body, dict):
        return "", ""
    error, code = body.get("error"), body.get("code")
    if isinstance(error, dict):
        code = error.get("code") or error.get("type") or code
        error = error.get("message")
    return str(code or ""), str(error or "").strip()


def classify(name: str, response: httpx.Response, body: Any) -> WebProviderError | None:
    """xAI-specific verdicts; the status table decides the rest."""
    status = response.status_code
    code, message = vendor_error(body)
    failed = isinstance(body, dict) and body.get("status") == "failed"
    if status < 400 and not message and not failed:
        return None
    if status >= 400 and not (code or message):
        return None
    words = f"{code} {message}".lower()
    if status == 401 or any(w in words for w in _AUTH_WORDS):
        return AuthError(
            f"{name} rejected the API key (new keys are at {CONSOLE_URL}).", provider=name
        )
    if status == 402 or any(w in words for w in _QUOTA_WORDS):
        return QuotaExceededError(
            f"{name}: the team has used all its credits or reached its monthly spending limit; "
            f"add credits or raise the limit at {CONSOLE_URL}.",
            provider=name,
        )
    if status == 404 and "model" in words:
        return NotConfiguredError(
            f"{name}: {message or code}. Set web.providers.{name}.model to a model your team "
            "can use with the web_search tool.",
            provider=name,
        )
    if status >= 400 or "rate limit" in words:
        return error_for_status(
            429 if "rate limit" in words else status, name, response.headers, message=message or code
        )
    return ProviderError(
        f"{name} answered HTTP {status} with an error instead of results: "
        f"{message or code or 'status failed'}.",
        provider=name,
    )
