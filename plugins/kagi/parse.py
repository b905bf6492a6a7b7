"""Kagi Search API (v0) answers and its in-band error list.

Every answer is ``{"meta": {...}, "data": [...]}``; a failure has ``"data": null`` and
``"error": [{"code", "msg", "ref"}]`` — the code, not the HTTP status, says what went wrong.
``data`` mixes search results (``t: 0``) with related searches (``t: 1``), which are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    BadGatewayError,
    InvalidInputError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    WebProviderError,
)
from webproviders.kit import answer_objects, error_for_status

if TYPE_CHECKING:
    import httpx

PROVIDER = "kagi"
SEARCH_RESULT = 0


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Map the first entry of Kagi's ``error`` list (whatever the status) to our errors."""
    errors = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(errors, list) or not errors:
        return None
    first = errors[0] if isinstance(errors[0], Mapping) else {}
    code = first.get("code")
    text = f"{first.get('msg') or 'no message'} (Kagi error code {code})"
    if code == 2:
        return AuthError(
            f"Kagi refused the API token: {text}. "
            "Check KAGI_API_KEY (or web.providers.kagi.api_key).",
            provider=PROVIDER,
        )
    if code in (100, 101):
        return QuotaExceededError(
            f"Kagi cannot bill this search: {text}. Top up the API balance.", provider=PROVIDER
        )
    if code == 1:
        return InvalidInputError(f"Kagi rejected the request: {text}.", provider=PROVIDER)
    if code == 0 and response.status_code != 429:
        # "Internal error" is Kagi's catch-all: under a 429 the status says more (slow down,
        # and for how long), so it is left to the status mapping below.
        return BadGatewayError(f"Kagi failed on its side: {text}.", provider=PROVIDER)
    if response.status_code >= 400:
        return error_for_status(
            response.status_code, PROVIDER, response.headers, vendor="Kagi", message=text
        )
    return ProviderError(f"Kagi answered with an error: {text}.", provider=PROVIDER)


def plain_text(snippet: Any) -> str:
    """Kagi snippets are HTML (``<b>`` highlighting, entities); callers get plain text."""
    if not isinstance(snippet, str) or not snippet.strip():
        return ""
    from lxml import etree, html  # loaded on first search, not when providers are listed

    try:
        return " ".join(
            html.fragment_fromstring(snippet, create_parent="div").text_content().split()
        )
    except (etree.ParserError, ValueError):
        return snippet.strip()


def parse(body: Any) -> dict[str, Any]:
    """``{"web": [...], "meta": {...}}``: hits, plus the account's ``api_balance`` when given."""
    data = body.get("data") if isinstance(body, Mapping) else None
    if not isinstance(data, list):
        raise ParseError("Kagi answered without a 'data' list.", provider=PROVIDER)
    hits: list[dict[str, Any]] = []
    for item in answer_objects(data, "data", "Kagi", PROVIDER):
        if item.get("t") != SEARCH_RESULT:
            continue
        hit: dict[str, Any] = {
            "title": item.get("title") or "",
            "url": item.get("url") or "",
            "description": plain_text(item.get("snippet")),
        }
        if item.get("published"):
            hit["published_at"] = item["published"]
        hits.append(hit)
    meta: dict[str, Any] = {}
    vendor_meta = body.get("meta")
    if isinstance(vendor_meta, Mapping) and isinstance(
        vendor_meta.get("api_balance"), (int, float)
    ):
        meta["api_balance"] = vendor_meta["api_balance"]
    return {"web": hits, "meta": meta}
