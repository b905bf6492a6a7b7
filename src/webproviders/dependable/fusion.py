"""Reciprocal rank fusion: one ranked list from several providers' ranked lists.

A hit scores ``sum(1 / (k + rank))`` over the lists it appears in, so a page that several
providers rank well beats one that a single provider ranks first. Hits are matched by
canonical URL (:func:`same_page_key`); the shown URL, title and description come from the best-placed copy (a
longer description from another provider wins, since snippets are often cut short).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..urls import canonicalize, page_identity

#: The usual RRF constant: damps the weight of the very first ranks.
RRF_K = 60


def same_page_key(url: str) -> str:
    """What two hits must share to be one result.

    The crawler's canonical form (case, default ports, fragment, tracking parameters) with
    one spelling of percent-escapes (one engine sends ``/wiki/Caf%C3%A9``, another
    ``/wiki/Café``), and looser still, since two search engines may spell one page
    differently: a trailing slash and the order of query parameters are ignored too.
    """
    parts = urlsplit(page_identity(canonicalize(url)))
    path = parts.path.rstrip("/") or "/"
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True))) if parts.query else ""
    return urlunsplit((parts.scheme, parts.netloc, path, query, ""))


def fuse(
    ranked: Sequence[tuple[str, Sequence[dict[str, Any]]]], limit: int, k: int = RRF_K
) -> list[dict[str, Any]]:
    """Merge ``[(provider, hits), ...]`` (each list best first) into at most ``limit`` hits.

    Every hit gets ``providers`` (who returned it, best rank first), ``fusion_score`` and a
    fresh 1-based ``position``.
    """
    merged: dict[str, dict[str, Any]] = {}
    scores: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    ranks: dict[str, list[tuple[int, str]]] = {}
    for order, (provider, hits) in enumerate(ranked):
        counted: set[str] = set()
        for rank, hit in enumerate(hits, start=1):
            key = same_page_key(hit["url"])
            if key in counted:
                continue  # a provider listing the same page twice counts once
            counted.add(key)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
            ranks.setdefault(key, []).append((rank, provider))
            place = rank * 1000 + order
            current = merged.get(key)
            if current is None:
                merged[key], best_rank[key] = dict(hit), place
                continue
            _absorb(current, hit, better=place < best_rank[key])
            best_rank[key] = min(best_rank[key], place)
    ordered = sorted(merged, key=lambda key: (-scores[key], best_rank[key]))[:limit]
    fused: list[dict[str, Any]] = []
    for position, key in enumerate(ordered, start=1):
        hit = merged[key]
        seen: list[str] = []
        for _, provider in sorted(ranks[key]):
            if provider not in seen:
                seen.append(provider)
        hit["providers"] = seen
        hit["fusion_score"] = round(scores[key], 6)
        hit["position"] = position
        fused.append(hit)
    return fused


def _absorb(current: dict[str, Any], other: dict[str, Any], *, better: bool) -> None:
    """Fold a duplicate into the kept hit: best-placed URL/title, fuller description."""
    title = other.get("title")
    has_title = bool(title) and title != other.get("url")
    kept_title = bool(current.get("title")) and current.get("title") != current.get("url")
    if better:
        current["url"] = other["url"]
    if has_title and (better or not kept_title):
        current["title"] = title
    if len(other.get("description") or "") > len(current.get("description") or ""):
        current["description"] = other["description"]
    for key, value in other.items():
        current.setdefault(key, value)
