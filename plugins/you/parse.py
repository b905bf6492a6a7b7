"""You.com Search and Contents answers and errors.

Search answers ``{"results": {"web": [...], "news": [...]}, "metadata": {...}}`` (``news``
only when You.com detects news intent); Contents answers a list of pages. Error bodies
vary (``message``, FastAPI-style ``detail``, or ``error``), so the text is looked up in
each; the status decides the class.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from webproviders import ParseError, ProviderError, WebProviderError, warn
from webproviders.kit import answer_objects, answer_texts, error_for_status, url_key

if TYPE_CHECKING:
    import httpx

PROVIDER = "you"


def error_text(body: Any) -> str | None:
    """The human part of a You.com error body, if it has one."""
    if not isinstance(body, Mapping):
        return None
    for key in ("message", "detail", "error"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, Mapping) and value.get("message"):
            return str(value["message"]).strip()
        if isinstance(value, list) and value:
            parts = [str(v.get("msg") or v) if isinstance(v, Mapping) else str(v) for v in value]
            return "; ".join(parts)
    return None


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Vendor text on error statuses; a 200 carrying an ``error`` is a failure, not "no results"."""
    status = response.status_code
    text = error_text(body)
    if status < 400:
        if isinstance(body, Mapping) and body.get("error"):
            return ProviderError(f"You.com answered with an error: {text}", provider=PROVIDER)
        return None
    return error_for_status(status, PROVIDER, response.headers, vendor="You.com", message=text or "")


def _hit(item: Mapping[str, Any], source: str) -> dict[str, Any]:
    snippets = [s for s in answer_texts(item.get("snippets")) if s.strip()]
    hit: dict[str, Any] = {
        "title": item.get("title") or "",
        "url": item.get("url") or "",
        "description": item.get("description") or (snippets[0] if snippets else ""),
        "source": source,
    }
    if snippets:
        hit["snippets"] = snippets
    if item.get("page_age"):
        hit["published_at"] = item["page_age"]
    authors = [a.strip() for a in answer_texts(item.get("authors")) if a.strip()]
    if authors:  # ``author`` as Exa's hits carry it: one line of text
        hit["author"] = ", ".join(authors)
    return hit


def parse_hits(body: Any, include_news: bool) -> list[dict[str, Any]]:
    """Web hits; with news asked for, web and news hits in turn. You.com sends up to ``count``
    of each, so news put after the web hits were cut by the call's limit and never seen."""
    results = body.get("results") if isinstance(body, Mapping) else None
    if not isinstance(results, Mapping):
        raise ParseError("You.com answered without a 'results' object.", provider=PROVIDER)
    if not {"web", "news"} & results.keys() and "metadata" not in body:
        # Every search You.com answers, one that found nothing too, carries its ``metadata``
        # (``request_uuid``, ``query``): ``{"results": {}}`` alone is not a search.
        raise ParseError(
            "You.com answered without 'metadata' or a 'results.web' section; its answer is not "
            "in the shape You.com documents.",
            provider=PROVIDER,
        )
    web = [_hit(item, "web") for item in answer_objects(results.get("web") or [], "results.web", "You.com", PROVIDER)]
    if not include_news:
        return web
    try:
        news = [_hit(item, "news") for item in answer_objects(results.get("news") or [], "results.news", "You.com", PROVIDER)]
    except ParseError as out_of_shape:
        if not web:  # nothing else to answer with: the answer is out of shape
            raise
        # The web hits stand: a news section out of shape costs only itself, and says so.
        warn(f"{out_of_shape} The news section was left out; the web hits are kept.")
        return web
    return [hit for turn in zip_longest(web, news) for hit in turn if hit is not None]


def parse_contents(body: Any) -> dict[str, dict[str, Any]]:
    """Contents pages keyed by :func:`url_key`; a page without markdown is left out."""
    items = body
    if isinstance(body, Mapping):
        items = next(
            (body[k] for k in ("results", "contents", "data") if isinstance(body.get(k), list)),
            None,
        )
    if not isinstance(items, list):
        raise ParseError("You.com's contents answer is not a list of pages.", provider=PROVIDER)
    pages: dict[str, dict[str, Any]] = {}
    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("url"), str):
            continue
        markdown = item.get("markdown")
        if not isinstance(markdown, str) or not markdown.strip():
            continue
        metadata = item.get("metadata")
        pages[url_key(item["url"])] = {
            "url": item["url"],
            "title": item.get("title") or "",
            "content": markdown,
            "raw_content": None,
            "metadata": dict(metadata) if isinstance(metadata, Mapping) else {},
        }
    return pages
