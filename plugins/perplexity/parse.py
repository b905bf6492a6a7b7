"""Perplexity Search answers and errors.

Errors are OpenAI-style ``{"error": {"message", "type", "code"}}``; a bad key often gets an
HTML 401 page from the edge instead (the status mapping covers that). An exhausted balance
is recognised by its type/code whatever the status.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from webproviders.errors import (
    AuthError,
    BadGatewayError,
    InvalidInputError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    WebProviderError,
)
from webproviders.retry_after import retry_after_from_headers

PROVIDER = "perplexity"
_QUOTA_MARKERS = ("insufficient_quota", "insufficient_credit", "quota_exceeded", "billing")


def _error(body: Any) -> tuple[str, str] | None:
    if not isinstance(body, Mapping):
        return None
    error = body.get("error")
    if isinstance(error, Mapping):
        kind = f"{error.get('type') or ''} {error.get('code') or ''}".strip()
        return kind, str(error.get("message") or "no message").strip()
    if isinstance(error, str) and error.strip():
        return "", error.strip()
    return None


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Map Perplexity's error object to our errors; a 200 carrying one is a failure too."""
    found = _error(body)
    if found is None:
        return None
    kind, text = found
    status = response.status_code
    said = f"{text} ({kind})" if kind else text
    if any(marker in kind.lower() for marker in _QUOTA_MARKERS) or status == 402:
        return QuotaExceededError(
            f"Perplexity says the account is out of credit: {said}", provider=PROVIDER
        )
    if status in (401, 403):
        return AuthError(
            f"Perplexity refused the API key (HTTP {status}): {said} Check PERPLEXITY_API_KEY "
            "(or web.providers.perplexity.api_key).",
            provider=PROVIDER,
        )
    if status == 429:
        return RateLimitedError(
            f"Perplexity is rate limiting requests: {said}",
            provider=PROVIDER,
            retry_after=retry_after_from_headers(response.headers),
        )
    if status >= 500:
        return BadGatewayError(
            f"Perplexity failed on its side (HTTP {status}): {said}", provider=PROVIDER
        )
    if status >= 400:
        return InvalidInputError(
            f"Perplexity rejected the request (HTTP {status}): {said}", provider=PROVIDER
        )
    return ProviderError(f"Perplexity answered with an error: {said}", provider=PROVIDER)


def _flatten(results: list[Any]) -> list[Any]:
    """A multi-query request groups results per query (a list of lists); flatten in order."""
    flat: list[Any] = []
    for item in results:
        flat.extend(item if isinstance(item, list) else [item])
    return flat


def parse_hits(body: Any) -> list[dict[str, Any]]:
    results = body.get("results") if isinstance(body, Mapping) else None
    if not isinstance(results, list):
        raise ParseError("Perplexity answered without a 'results' list.", provider=PROVIDER)
    hits: list[dict[str, Any]] = []
    for item in _flatten(results):
        if not isinstance(item, Mapping):
            continue
        hit: dict[str, Any] = {
            "title": item.get("title") or "",
            "url": item.get("url") or "",
            "description": item.get("snippet") or "",
        }
        if item.get("date"):
            hit["published_at"] = item["date"]
        if item.get("last_updated"):
            hit["last_updated"] = item["last_updated"]
        hits.append(hit)
    return hits
