"""Reading search hits out of a Responses API answer, most trustworthy shape first.

1. the ``{"results": [...]}`` JSON block the prompt asks for (prose or code fences around
   it are tolerated);
2. else the ``url_citation`` annotations on the answer text (URLs the tool returned, but
   their ``title`` is usually a citation number);
3. else the top-level ``citations`` list (every URL the search saw, cited or not).

Hits from the JSON block carry ``cited``: whether the URL is among those the search tool
reported, so a caller can spot a URL the model made up.
"""

from __future__ import annotations

import json
import re
from typing import Any

from webproviders import ParseError
from webproviders.kit import answer_list, is_http_url

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_DESCRIPTION_KEYS = ("description", "snippet", "summary", "content")
_DATE_KEYS = ("published_at", "published_date", "date", "published")


def _output_texts(body: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Every ``output_text`` part of every assistant message."""
    parts: list[dict[str, Any]] = []
    for item in answer_list(body.get("output"), "output", "xAI", name):
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        for part in answer_list(item.get("content"), "output[].content", "xAI", name):
            if isinstance(part, dict) and part.get("type") == "output_text":
                parts.append(part)
    return parts


def _decode_results(text: str) -> list[Any] | None:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start >= 0:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict) and isinstance(value.get("results"), list):
            return value["results"]
        start = text.find("{", end)
    return None


def json_block(text: str) -> list[Any] | None:
    """The ``results`` list of the first ``{"results": [...]}`` object in ``text``, if any."""
    for chunk in [*_FENCE.findall(text), text]:
        results = _decode_results(chunk)
        if results is not None:
            return results
    return None


def _first_text(item: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _json_hits(results: list[Any]) -> list[dict[str, Any]]:
    hits = []
    for item in results:
        url = _http_url(item.get("url")) if isinstance(item, dict) else None
        if url is None:
            continue
        hit: dict[str, Any] = {
            "title": _first_text(item, ("title",)) or "",
            "url": url,
            "description": _first_text(item, _DESCRIPTION_KEYS) or "",
        }
        published = _first_text(item, _DATE_KEYS)
        if published:
            hit["published_at"] = published
        hits.append(hit)
    return hits


def _http_url(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and is_http_url(value) else None


def _annotation_hits(parts: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    hits = []
    for part in parts:
        for note in answer_list(part.get("annotations"), "annotations", "xAI", name):
            if not isinstance(note, dict) or note.get("type") != "url_citation":
                continue
            url = _http_url(note.get("url"))
            if url is None:
                continue
            title = note["title"].strip() if isinstance(note.get("title"), str) else ""
            # The title is usually the citation number ("1") or the URL itself, not a page title.
            if title.isdigit() or title == url:
                title = ""
            hits.append({"title": title, "url": url, "description": ""})
    return hits


def _citation_urls(body: dict[str, Any], name: str) -> list[str]:
    urls = []
    for entry in answer_list(body.get("citations"), "citations", "xAI", name):
        url = _http_url(entry.get("url") if isinstance(entry, dict) else entry)
        if url is not None:
            urls.append(url)
    return urls


def _source_urls(body: dict[str, Any], name: str) -> list[str]:
    """URLs in ``web_search_call.action.sources`` (present when the caller asks for them)."""
    urls = []
    for item in answer_list(body.get("output"), "output", "xAI", name):
        action = item.get("action") if isinstance(item, dict) else None
        sources = action.get("sources") if isinstance(action, dict) else None
        for source in answer_list(sources, "action.sources", "xAI", name):
            url = _http_url(source.get("url")) if isinstance(source, dict) else None
            if url is not None:
                urls.append(url)
    return urls


def _key(url: str) -> str:
    return url.rstrip("/")


def parse_response(name: str, body: Any) -> tuple[list[dict[str, Any]], str]:
    """``(hits, source)`` where source is ``json``, ``annotations``, ``citations`` or ``none``."""
    if not isinstance(body, dict):
        raise ParseError(
            f"{name} answered with JSON that is not a Responses API object.", provider=name
        )
    if body.get("output") is None:
        # Every Responses API answer holds ``output``: one without it (``{}`` from another
        # service at the base URL) is out of shape, not a search that found nothing.
        raise ParseError(
            f"{name} answered without an 'output' list, which every Responses API answer holds.",
            provider=name,
        )
    parts = _output_texts(body, name)
    text = "\n".join(p["text"] for p in parts if isinstance(p.get("text"), str))
    annotated = _annotation_hits(parts, name)
    cited = _citation_urls(body, name)
    seen = {_key(u) for u in [*(h["url"] for h in annotated), *cited, *_source_urls(body, name)]}

    results = json_block(text)
    hits = _json_hits(results) if results is not None else []
    if hits:
        if seen:
            for hit in hits:
                hit["cited"] = _key(hit["url"]) in seen
        return hits, "json"
    if annotated:
        return annotated, "annotations"
    if cited:
        return [{"title": "", "url": url, "description": ""} for url in cited], "citations"
    return [], "none"


def incomplete_reason(body: Any) -> str | None:
    """Why the model stopped early (``status: incomplete``), if it did."""
    if not isinstance(body, dict) or body.get("status") != "incomplete":
        return None
    details = body.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    return str(reason or "no reason given")
