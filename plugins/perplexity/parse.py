"""Perplexity Search answers and errors.

Errors are OpenAI-style ``{"error": {"message", "type", "code"}}``; a bad key often gets an
HTML 401 page from the edge instead (the status mapping covers that). An exhausted balance
is recognised by its type/code whatever the status.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import ParseError, QuotaExceededError, WebProviderError
from webproviders.kit import answer_objects, error_for_status

if TYPE_CHECKING:
    import httpx

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
    if any(marker in kind.lower() for marker in _QUOTA_MARKERS):
        return QuotaExceededError(
            f"Perplexity says the account is out of credit: {said}", provider=PROVIDER
        )
    return error_for_status(status, PROVIDER, response.headers, vendor="Perplexity", message=said)


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
    for item in answer_objects(_flatten(results), "results", "Perplexity", PROVIDER):
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
