"""xAI's error answers, mapped to our error classes.

xAI's body is ``{"code": "...", "error": "..."}`` (not OpenAI's nested object, though that is
read too). A bad key is HTTP 400 ``invalid-argument`` "Incorrect API key provided"; used-up
credits or a reached spending limit are 403 (sometimes 402); a 200 may still carry an error
or ``status: "failed"``. Messages about the key are our own words: xAI's echo part of the key.
Some answers arrive percent-encoded (``Incorrect%20API%20key%20provided``, as gRPC carries a
status message), as JSON or as plain text: the text is decoded before it is matched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

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


#: The most of a text body read for its message.
_TEXT_CHARS = 2_000


def vendor_error(body: Any, text: str = "") -> tuple[str, str]:
    """``(code, message)`` from either error shape, a JSON string or a text body (``text``),
    percent-decoded; empty strings when there is none."""
    if isinstance(body, dict):
        error, code = body.get("error"), body.get("code")
        if isinstance(error, dict):
            code = error.get("code") or error.get("type") or code
            error = error.get("message")
    else:
        code, error = "", body if isinstance(body, str) else text[:_TEXT_CHARS]
    return unquote(str(code or "")), unquote(str(error or "")).strip()


def _error_text(response: httpx.Response, body: Any) -> str:
    """The text of an error answered without JSON; an HTML page (a proxy's) says nothing."""
    if body is not None or response.status_code < 400:
        return ""
    try:
        text = response.text
    except Exception:  # noqa: BLE001 - a body never read (an SDK's stream) has no text
        return ""
    kind = response.headers.get("content-type", "").lower()
    return "" if "html" in kind or text.lstrip().startswith("<") else text


def classify(name: str, response: httpx.Response, body: Any) -> WebProviderError | None:
    """xAI-specific verdicts; the status table decides the rest."""
    status = response.status_code
    code, message = vendor_error(body, _error_text(response, body))
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
    if body is None:  # a text body: the generic path words it and quotes it
        return None
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
