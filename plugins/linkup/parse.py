"""Linkup's answers and errors.

Errors come as ``{"error": {"code", "message", "details": [{"field", "message"}]}}``. The
status alone misleads: running out of credit is a **429** (``INSUFFICIENT_FUNDS_CREDITS``),
and "no results" is a **400** (``SEARCH_QUERY_NO_RESULT``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    TooLargeError,
    UnsupportedError,
    WebProviderError,
)
from webproviders.kit import answer_objects, error_for_status

if TYPE_CHECKING:
    import httpx

PROVIDER = "linkup"
_QUOTA_CODES = {"INSUFFICIENT_FUNDS_CREDITS", "EXCEED_BUDGET_LIMIT"}
_UNSUPPORTED_FETCH = {"FETCH_UNSUPPORTED_CONTENT_TYPE", "FETCH_URL_IS_FILE"}
_FAILED_FETCH = {"FETCH_ERROR", "FETCH_TARGET_UNREACHABLE"}


class NoResults(ProviderError):
    """Linkup found nothing for the query (``SEARCH_QUERY_NO_RESULT``)."""


def _error_parts(body: Any) -> tuple[str, str] | None:
    error = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(error, Mapping):
        return None
    code = str(error.get("code") or "")
    text = str(error.get("message") or "no message").strip()
    details = error.get("details")
    if isinstance(details, list):
        extra = [
            f"{d.get('field', '')}: {d.get('message', '')}".strip(": ")
            for d in details
            if isinstance(d, Mapping)
        ]
        if extra:
            text = f"{text} ({'; '.join(extra)})"
    return code, text


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Linkup's error codes decide first; the status table decides the rest."""
    parts = _error_parts(body)
    status = response.status_code
    if parts is None:
        return None
    code, text = parts
    said = f"{text} [{code}]" if code else text
    if code == "SEARCH_QUERY_NO_RESULT":
        return NoResults(f"Linkup found no results: {text}", provider=PROVIDER)
    if code in _QUOTA_CODES:
        return QuotaExceededError(
            f"Linkup says the account cannot pay for this request: {said}", provider=PROVIDER
        )
    if code == "IP_NOT_WHITELISTED":  # the key is valid; this machine's address is not listed
        return AuthError(
            f"Linkup refused the request from this machine's address, which is not on the API key's "
            f"allow list of IP addresses (HTTP {status}): {said}. Add this machine's public address to "
            "the key's allow list in Linkup's dashboard, or use a key without one.",
            provider=PROVIDER,
        )
    if code == "FETCH_RESPONSE_TOO_LARGE":
        return TooLargeError(f"Linkup could not fetch the page: {said}", provider=PROVIDER)
    if code in _UNSUPPORTED_FETCH:
        return UnsupportedError(f"Linkup cannot read this address: {said}", provider=PROVIDER)
    if code in _FAILED_FETCH:
        return ProviderError(f"Linkup could not fetch the page: {said}", provider=PROVIDER)
    return error_for_status(status, PROVIDER, response.headers, vendor="Linkup", message=said)


def parse_hits(body: Any) -> list[dict[str, Any]]:
    """Text results of a ``searchResults`` answer; image results are not pages and are skipped."""
    results = body.get("results") if isinstance(body, Mapping) else None
    if not isinstance(results, list):
        raise ParseError("Linkup answered without a 'results' list.", provider=PROVIDER)
    hits: list[dict[str, Any]] = []
    for item in answer_objects(results, "results", "Linkup", PROVIDER):
        if item.get("type", "text") != "text":
            continue
        hits.append(
            {
                "title": item.get("name") or "",
                "url": item.get("url") or "",
                "description": item.get("content") or "",
            }
        )
    return hits


def _title(markdown: str) -> str:
    """Linkup's fetch has no title field; the first level-one heading stands in for it."""
    for line in markdown.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def parse_page(body: Any, url: str) -> dict[str, Any]:
    """A ``/fetch`` answer as a page."""
    if not isinstance(body, Mapping) or not isinstance(body.get("markdown"), str):
        raise ParseError("Linkup's fetch answer has no 'markdown' text.", provider=PROVIDER)
    markdown = body["markdown"]
    if not markdown.strip():
        raise ProviderError("Linkup returned no content for this page.", provider=PROVIDER)
    metadata = {key: body[key] for key in ("contentType", "favicon") if body.get(key)}
    raw = body.get("rawContent")
    return {
        "url": url,
        "title": _title(markdown),
        "content": markdown,
        "raw_content": raw if isinstance(raw, str) and raw else None,
        "metadata": metadata,
    }
