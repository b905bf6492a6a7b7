"""Turning a Brave web-search response into search hits."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from webproviders import ParseError
from webproviders.kit import answer_objects, answer_texts

#: Brave marks query words in titles and descriptions with ``<strong>`` (text_decorations).
_HIGHLIGHT = re.compile(r"</?strong>", re.IGNORECASE)


def clean_text(value: Any) -> str:
    """Text without Brave's highlighting tags and HTML entities."""
    if not isinstance(value, str):
        return ""
    return html.unescape(_HIGHLIGHT.sub("", value)).strip()


def _hit(item: Mapping[str, Any]) -> dict[str, Any]:
    hit: dict[str, Any] = {
        "title": clean_text(item.get("title")),
        "url": item.get("url") if isinstance(item.get("url"), str) else "",
        "description": clean_text(item.get("description")),
    }
    # ``page_age`` is an ISO timestamp; ``age`` is human text ("2 weeks ago") and not kept.
    if isinstance(item.get("page_age"), str) and item["page_age"]:
        hit["published_at"] = item["page_age"]
    snippets = [clean_text(s) for s in answer_texts(item.get("extra_snippets"))]
    if snippets:
        hit["extra_snippets"] = snippets
    return hit


def parse_results(name: str, body: Any) -> list[dict[str, Any]]:
    """The ``web.results`` section as hits; a response without that section has none."""
    if not isinstance(body, dict):
        raise ParseError(f"{name} answered with JSON that is not a search response.", provider=name)
    web = body.get("web")
    if web is None:
        if body.get("type") != "search":
            # Every web-search answer is ``"type": "search"`` (its sections are optional): an
            # answer without either (``{}`` from another service) is not "nothing found".
            raise ParseError(
                f"{name} answered without 'type': 'search' or a 'web' section; its answer is not "
                "in the shape Brave documents.",
                provider=name,
            )
        return []
    results = web.get("results") if isinstance(web, dict) else None
    return [_hit(item) for item in answer_objects(results, "web.results", name, name)]


def altered_query(body: Any) -> str | None:
    """The spell-corrected query Brave searched instead of the one given, if it did."""
    query = body.get("query") if isinstance(body, dict) else None
    altered = query.get("altered") if isinstance(query, dict) else None
    return altered if isinstance(altered, str) and altered.strip() else None


def more_results(body: Any, count: int) -> bool:
    """Whether a next page may hold more: Brave says so in ``query.more_results_available``;
    without it, a full page says so."""
    query = body.get("query") if isinstance(body, dict) else None
    more = query.get("more_results_available") if isinstance(query, dict) else None
    if isinstance(more, bool):
        return more
    web = body.get("web") if isinstance(body, dict) else None
    results = web.get("results") if isinstance(web, dict) else None
    return isinstance(results, list) and len(results) >= count
