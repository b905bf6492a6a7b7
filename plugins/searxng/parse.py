"""Turning a SearXNG JSON response into search hits and warnings.

Only ``results`` are hits; ``answers``, ``infoboxes``, ``suggestions`` and ``corrections``
are not pages and are skipped, as is any result without an http(s) URL. A malformed
result is skipped, never allowed to break the call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from webproviders import ParseError
from webproviders.kit import answer_objects, is_http_url


def _score(item: Mapping[str, Any]) -> float:
    score = item.get("score")
    return float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else 0.0


def _hit(item: Mapping[str, Any]) -> dict[str, Any]:
    hit: dict[str, Any] = {
        "title": item.get("title") if isinstance(item.get("title"), str) else "",
        "url": item["url"].strip(),
        "description": item.get("content") if isinstance(item.get("content"), str) else "",
    }
    if isinstance(item.get("publishedDate"), str) and item["publishedDate"]:
        hit["published_at"] = item["publishedDate"]
    if isinstance(item.get("score"), (int, float)) and not isinstance(item["score"], bool):
        hit["score"] = item["score"]
    engines = item.get("engines")
    if isinstance(engines, list):
        hit["engines"] = [str(engine) for engine in engines]
    return hit


def parse_results(
    name: str,
    body: Any,
    limit: int,
    wanted: Callable[[str], bool] | None = None,
    seen: set[str] | None = None,
) -> list[dict[str, Any]]:
    """The best ``limit`` hits by SearXNG's score (ties keep SearXNG's order) whose URL is
    ``wanted`` and not in ``seen`` (the URLs of earlier pages; each URL looked at is added).
    Only those are mapped: the caller receives no more, and mapping every hit of a big
    answer held the call past its deadline."""
    if not isinstance(body, dict):
        raise ParseError(f"{name} answered with JSON that is not a search response.", provider=name)
    if body.get("results") is None:
        # SearXNG's JSON always holds ``results`` (``[]`` when nothing matched): an answer
        # without it is another service's at that address, not "nothing found".
        raise ParseError(
            f"{name} answered without a 'results' list, which every SearXNG search answer holds; "
            f"check that web.providers.{name}.base_url is the address of a SearXNG instance.",
            provider=name,
        )
    ranked = sorted(answer_objects(body.get("results"), "results", name, name), key=_score, reverse=True)
    if ranked and not any(isinstance(item.get("url"), str) for item in ranked):
        # A result whose URL is not http(s) is dropped on purpose; results without any URL are
        # the answer out of shape, as every other vendor's are (not "nothing found").
        raise ParseError(f"{name} sent results none of which has a 'url'.", provider=name)
    hits: list[dict[str, Any]] = []
    seen = set() if seen is None else seen
    for item in ranked:
        if len(hits) >= limit:
            break
        if not is_http_url(item.get("url")):
            continue
        url = item["url"].strip()
        if url in seen:
            continue
        seen.add(url)
        if wanted is None or wanted(url):
            hits.append(_hit(item))
    return hits


def _engine_and_reason(entry: Any) -> tuple[Any, Any]:
    """``["google", "CAPTCHA"]`` (SearXNG's own shape), ``{"engine": ..., "error": ...}`` (as
    some instances and proxies send it) or a bare name."""
    if isinstance(entry, (list, tuple)) and entry:
        return entry[0], entry[1] if len(entry) > 1 else None
    if isinstance(entry, dict):
        engine = entry.get("engine") or entry.get("name")
        return engine, entry.get("error") or entry.get("reason") or entry.get("message")
    return (entry, None) if isinstance(entry, str) else (None, None)


def unresponsive(body: Any) -> list[str]:
    """``unresponsive_engines`` as "engine (reason)" strings; the entries' shape is not trusted."""
    entries = body.get("unresponsive_engines") if isinstance(body, dict) else None
    found = []
    for entry in entries if isinstance(entries, list) else []:
        engine, reason = _engine_and_reason(entry)
        if engine:
            found.append(f"{engine} ({reason})" if reason else str(engine))
    return found
