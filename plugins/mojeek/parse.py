"""Mojeek Search API answers (``fmt=json``) and its in-band status.

Everything is wrapped in ``{"response": {...}}``; ``response.status`` is ``"OK"`` or
``"ERROR: <message>"`` (e.g. ``"ERROR: Daily Limit Reached"``), usually with HTTP 200, so
the status text decides the error.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from webproviders import AuthError, ParseError, ProviderError, QuotaExceededError, WebProviderError
from webproviders.kit import answer_objects, error_for_status

if TYPE_CHECKING:
    import httpx

PROVIDER = "mojeek"
_PERIOD_WORDS = ("quota", "daily", "monthly")
_AUTH_WORDS = ("key", "auth", "access", "denied", "forbidden", "permission")


def _status(body: Any) -> str | None:
    response = body.get("response") if isinstance(body, Mapping) else None
    status = response.get("status") if isinstance(response, Mapping) else None
    return status.strip() if isinstance(status, str) else None


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """An ``ERROR: ...`` status is a failure whatever the HTTP status says."""
    status = _status(body)
    if status is None or status.upper() == "OK":
        return None
    text = status.split(":", 1)[1].strip() if ":" in status else status
    lowered = text.lower()
    periodic = any(word in lowered for word in _PERIOD_WORDS)
    if periodic or "limit" in lowered:
        if response.status_code == 429 and not periodic:
            # A limit under HTTP 429 is a rate of requests, over in seconds (its Retry-After);
            # only the plan's daily or monthly allowance waits for the next period.
            return error_for_status(429, PROVIDER, response.headers, vendor="Mojeek", message=text)
        return QuotaExceededError(
            f"Mojeek refused the search: {text}. The plan's request limit is used up.",
            provider=PROVIDER,
        )
    if any(word in lowered for word in _AUTH_WORDS):
        return AuthError(
            f"Mojeek refused the API key: {text}. "
            "Check MOJEEK_API_KEY (or web.providers.mojeek.api_key).",
            provider=PROVIDER,
        )
    if response.status_code >= 400:
        return error_for_status(
            response.status_code, PROVIDER, response.headers, vendor="Mojeek", message=text
        )
    return ProviderError(f"Mojeek refused the search: {text}.", provider=PROVIDER)


def _published(value: Any) -> str | None:
    """``pdate``, the publication time, is a Unix timestamp (``date`` is the page's
    last-modified time as formatted text, not a publication date)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return datetime.fromtimestamp(value, tz=timezone.utc).isoformat()


def parse_hits(body: Any) -> list[dict[str, Any]]:
    response = body.get("response") if isinstance(body, Mapping) else None
    if not isinstance(response, Mapping):
        raise ParseError("Mojeek answered without a 'response' object.", provider=PROVIDER)
    if "head" not in response and "results" not in response:
        # Every search Mojeek answers, one that found nothing too, carries its ``head`` (the
        # query, counts): a bare ``{"response": {"status": "OK"}}`` is not a search.
        raise ParseError(
            "Mojeek answered without 'response.head' or 'response.results'; its answer is not "
            "in the shape Mojeek documents.",
            provider=PROVIDER,
        )
    results = response.get("results", [])
    if not isinstance(results, list):
        raise ParseError("Mojeek's 'response.results' is not a list.", provider=PROVIDER)
    hits: list[dict[str, Any]] = []
    for item in answer_objects(results, "response.results", "Mojeek", PROVIDER):
        hit: dict[str, Any] = {
            "title": item.get("title") or "",
            "url": item.get("url") or "",
            "description": item.get("desc") or "",
        }
        published = _published(item.get("pdate"))
        if published:
            hit["published_at"] = published
        hits.append(hit)
    return hits
