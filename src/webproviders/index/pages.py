"""What the index holds (one page per canonical URL), what a search over it returns, and the
one interface every store implements.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

from ..urls import canonicalize, host_of, is_http_url

#: ``time_range`` as seconds before now, applied to when a page was fetched.
TIME_RANGE_SECONDS = {"day": 86_400, "week": 7 * 86_400, "month": 30 * 86_400, "year": 365 * 86_400}
#: Where a page item may carry its publication date (providers name it differently).
_PUBLISHED_KEYS = ("published_at", "published_date", "publishedDate", "date")


@dataclass(frozen=True)
class IndexedPage:
    """One stored page. ``url`` is made canonical; ``fetched_at`` is seconds since the epoch."""

    url: str
    title: str
    content: str
    fetched_at: float
    provider: str | None = None
    published_at: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "url", canonicalize(self.url))

    @property
    def host(self) -> str:
        return host_of(self.url)


@dataclass(frozen=True)
class Hit:
    """A search match: the page, a highlighted snippet around the match, a relevance score
    (higher is better; only comparable within one answer)."""

    page: IndexedPage
    snippet: str
    score: float


@dataclass(frozen=True)
class Filters:
    """Search filters: domains (a domain covers its subdomains) and the oldest fetch time."""

    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    fetched_after: float | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any], now: float | None = None) -> Filters:
        """From the validated common search options (``time_range``, ``*_domains``)."""
        window = TIME_RANGE_SECONDS.get(options.get("time_range") or "")
        start = None if window is None else (time.time() if now is None else now) - window
        return cls(
            tuple(_domain(d) for d in options.get("include_domains") or ()),
            tuple(_domain(d) for d in options.get("exclude_domains") or ()),
            start,
        )


class PageStore(Protocol):
    """What the ``local`` provider, the CLI and the filling hook need from an index.

    Every method blocks and raises :class:`~webproviders.errors.WebProviderError` subclasses.
    ``remove`` and ``prune`` return how many pages went, or None when the store only queued
    the deletion (a search engine that applies writes as background tasks).
    """

    location: str

    def add(self, pages: Sequence[IndexedPage]) -> int: ...

    def get(self, urls: Sequence[str]) -> dict[str, IndexedPage]: ...

    def search(self, query: str, limit: int, filters: Filters) -> list[Hit]: ...

    def remove(self, urls: Sequence[str]) -> int | None: ...

    def prune(self, before: float) -> int | None: ...

    def stats(self) -> dict[str, Any]: ...


def _domain(value: str) -> str:
    return value.strip().lower().rstrip(".")


def parent_domains(host: str) -> list[str]:
    """``docs.python.org`` -> ``[docs.python.org, python.org, org]``: what a domain filter matches."""
    parts = host.split(".")
    return [".".join(parts[i:]) for i in range(len(parts)) if parts[i]]


def iso_utc(timestamp: float) -> str:
    """Seconds since the epoch as an ISO 8601 UTC time (``2026-05-01T12:00:00Z``)."""
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _published(item: Mapping[str, Any]) -> str | None:
    metadata = item.get("metadata")
    for source in (item, metadata if isinstance(metadata, Mapping) else {}):
        for key in _PUBLISHED_KEYS:
            value = source.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return None


def pages_from_items(
    items: Iterable[Any], provider: str | None, skip: str, fetched_at: float
) -> list[IndexedPage]:
    """The pages worth indexing among extract / crawl items.

    Failed items, items without content and items served by ``skip`` (the index itself)
    are left out. ``provider`` names who served items that do not say so themselves.
    """
    pages: dict[str, IndexedPage] = {}
    for item in items:
        if not isinstance(item, Mapping) or item.get("error") or not is_http_url(item.get("url")):
            continue
        content = item.get("content")
        source = item.get("provider") or provider
        if not isinstance(content, str) or not content.strip() or source == skip:
            continue
        title = item.get("title") if isinstance(item.get("title"), str) else ""
        page = IndexedPage(
            item["url"], title.strip() or canonicalize(item["url"]), content, fetched_at,
            source if isinstance(source, str) else None, _published(item),
        )
        pages[page.url] = page
    return list(pages.values())
