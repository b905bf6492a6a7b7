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
    RateLimitedError,
    WebProviderError,
)
from webproviders.kit import request_error, retry_after_from_headers

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
    """xAI-specific verdicts; None leaves the generic status mapping in charge."""
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
            f"{name} rejected the API key; check XAI_API_KEY or web.providers.{name}.api_key "
            f"(keys are at {CONSOLE_URL}).",
            provider=name,
        )
    if status == 402 or any(w in words for w in _QUOTA_WORDS):
        return QuotaExceededError(
            f"{name}: the team has used all its credits or reached its monthly spending limit; "
            f"add credits or raise the limit at {CONSOLE_URL}.",
            provider=name,
        )
    if status == 429 or "rate limit" in words:
        retry_after = retry_after_from_headers(response.headers)
        when = f" Retry after {retry_after:.0f} s." if retry_after is not None else ""
        return RateLimitedError(
            f"{name} is rate limiting requests: {message or code}.{when}",
            provider=name,
            retry_after=retry_after,
        )
    if status == 404 and "model" in words:
        return NotConfiguredError(
            f"{name}: {message or code}. Set web.providers.{name}.model to a model your team "
            "can use with the web_search tool.",
            provider=name,
        )
    if status == 403:
        return AuthError(
            f"{name} refused the request (HTTP 403): {message or code}.", provider=name
        )
    if status >= 400:
        return request_error(name, name, status, f"{message or code}.")
    return ProviderError(
        f"{name} answered HTTP {status} with an error instead of results: "
        f"{message or code or 'status failed'}.",
        provider=name,
    )
