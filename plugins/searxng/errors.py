"""SearXNG's failure answers, mapped to our error classes.

A 403 almost always means the instance does not allow ``format=json`` (it is off unless
``search.formats`` in ``settings.yml`` lists it); a 429 comes from its bot limiter and is
plain text; parameter errors and engine failures are ``{"error": "..."}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    NotConfiguredError,
    ParseError,
    RateLimitedError,
    WebProviderError,
)
from webproviders.kit import error_for_status, retry_after_from_headers

if TYPE_CHECKING:
    import httpx

JSON_FORMAT_HINT = (
    "enable the JSON format in the instance's settings.yml (search: formats: [html, json]) "
    "and restart it"
)


def _message(body: Any) -> str | None:
    error = body.get("error") if isinstance(body, dict) else None
    return str(error).strip() or None if error else None


def classify(
    name: str, base_url: str, has_key: bool, response: httpx.Response, body: Any
) -> WebProviderError | None:
    """SearXNG-specific verdicts; the status table decides the rest."""
    status = response.status_code
    if status == 403:
        proxy = (
            " If the instance sits behind an authenticating proxy, check SEARXNG_API_KEY."
            if has_key
            else ""
        )
        return NotConfiguredError(
            f"{name} at {base_url} refused the JSON search (HTTP 403): {JSON_FORMAT_HINT}.{proxy}",
            provider=name,
        )
    if status == 401:
        return AuthError(
            f"{name} at {base_url} asks for credentials (HTTP 401): its proxy expects a token.",
            provider=name,
        )
    if status == 429:
        return RateLimitedError(
            f"{name} at {base_url} refused the request with its bot limiter (HTTP 429); "
            "wait, or turn the limiter off (server: limiter: false) for a private instance.",
            provider=name,
            retry_after=retry_after_from_headers(response.headers),
        )
    message = _message(body)
    if message is not None:
        return error_for_status(status, name, response.headers, message=message)
    content_type = response.headers.get("content-type", "")
    if status < 400 and body is None and response.content and "html" in content_type:
        return ParseError(
            f"{name} at {base_url} answered with an HTML page instead of JSON; check that the URL "
            f"points at the instance itself (not a login page) and {JSON_FORMAT_HINT}.",
            provider=name,
        )
    return None
