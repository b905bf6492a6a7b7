"""What the index holds (one page per canonical URL), what a search over it returns, and the
one interface every store implements.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol
from urllib.parse import urlsplit

from ..context import warn
from ..errors import WebTimeoutError
from ..urls import canonicalize, host_of, is_http_url, page_identity, shorten

#: ``time_range`` as seconds before now, applied to when a page was fetched.
TIME_RANGE_SECONDS = {"day": 86_400, "week": 7 * 86_400, "month": 30 * 86_400, "year": 365 * 86_400}
#: Where a page item may carry its publication date (providers name it differently).
_PUBLISHED_KEYS = ("published_at", "published_date", "publishedDate", "date")
#: Where it may carry its language (``<html lang>`` for the http provider).
_LANGUAGE_KEYS = ("language", "lang")


def page_url(url: str) -> str:
    """The key a page is stored under: the canonical URL (:func:`~webproviders.urls.canonicalize`)
    with one spelling of percent-escapes (:func:`~webproviders.urls.page_identity`), so
    ``/caf%c3%a9``, ``/café`` and ``/caf%C3%A9`` are one page."""
    return page_identity(canonicalize(url))


def page_keys(url: str) -> list[str]:
    """The keys a page asked for by ``url`` may be held under: :func:`page_url`, and the same
    with its host in the other IDNA spelling (``münchen.example``, ``xn--mnchen-3ya.example``):
    a page is kept under its URL as read, and vendors and links give either."""
    key = page_url(url)
    try:
        host = urlsplit(key).hostname
    except ValueError:
        return [key]
    other = _other_spelling(host) if host else None
    if other is None:
        return [key]
    scheme, rest = key.split("://", 1)
    at = rest.find("@", 0, rest.find("/")) + 1  # a user:password@ (refused when indexing) stays
    return [key, f"{scheme}://{rest[:at]}{other}{rest[at + len(host):]}"]


@dataclass(frozen=True)
class IndexedPage:
    """One stored page. ``url`` is made canonical (:func:`page_url`); ``fetched_at`` is
    seconds since the epoch; ``language`` is what the page declared (``en``, ``de-AT``), if
    anything."""

    url: str
    title: str
    content: str
    fetched_at: float
    provider: str | None = None
    published_at: str | None = None
    language: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "url", page_url(self.url))

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
        return cls(_domains(options.get("include_domains")), _domains(options.get("exclude_domains")), start)


class PageStore(Protocol):
    """What the ``local`` provider, the CLI and the filling hook need from an index.

    Every method blocks and raises :class:`~webproviders.errors.WebProviderError` subclasses.
    ``remove`` and ``prune`` return how many pages went, or None when the store only queued
    the deletion (a search engine that applies writes as background tasks).
    """

    location: str

    def add(self, pages: Sequence[IndexedPage]) -> int: ...

    def get(self, urls: Sequence[str]) -> dict[str, IndexedPage]:
        """The held pages among ``urls``, keyed by each URL as given."""
        ...

    def search(self, query: str, limit: int, filters: Filters) -> list[Hit]: ...

    def remove(self, urls: Sequence[str]) -> int | None: ...

    def prune(self, before: float) -> int | None: ...

    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None:
        """Let go of connections; the store opens new ones if it is used again."""
        ...


#: Pages, and characters of their text, written per statement at most: a store bounds each
#: statement by its timeout, and a crawl's 5,000 pages of 4 KB in one took longer than 10 s.
BATCH_PAGES = 500
BATCH_CHARS = 1_000_000


def batches(pages: Sequence[IndexedPage], chars_per_page: int | None = None) -> list[list[IndexedPage]]:
    """``pages`` in order, in batches of at most :data:`BATCH_PAGES` pages and about
    :data:`BATCH_CHARS` characters (each page counted up to ``chars_per_page``, the part a
    store indexes; a longer page is a batch of its own)."""
    found: list[list[IndexedPage]] = []
    size = 0
    for page in pages:
        chars = len(page.title) + min(len(page.content), chars_per_page or len(page.content))
        if not found or len(found[-1]) >= BATCH_PAGES or size + chars > BATCH_CHARS:
            found.append([])
            size = 0
        found[-1].append(page)
        size += chars
    return found


def never_filled(location: str, emptied: bool = False) -> list[Hit]:
    """The answer to a search of an index nothing was ever added to (or, ``emptied``, whose
    every page was removed or pruned): none, said so in ``meta.warnings``, since a caller (an
    agent) would take an empty answer for "no page matches"."""
    from ..context import warn

    state = "no pages (every page was removed or pruned)" if emptied else "no pages yet"
    warn(
        f"The local index ({location}) holds {state}, so nothing can match: pages are added "
        "by extracts and crawls with web.local.index: true, or by: webproviders index URL."
    )
    return []


def no_words(query: str) -> list[Hit]:
    """The answer to a question holding no word (``*``, ``-``, ``""``): none, said so in
    ``meta.warnings``, since a caller would take an empty answer for "no page matches"."""
    warn(
        f"The query {shorten(query, 80)!r} holds no word to search for: the local index matches words (letters "
        "or digits), and punctuation and operators are not searched; ask with words."
    )
    return []


def words_left_out(query: str) -> list[Hit]:
    """The answer to a question whose every word the index leaves out of its pages (the
    common words a language's text search configuration drops): none, said so, since the
    pages may well hold them and an empty answer would read as "no page matches"."""
    warn(
        f"The local index keeps none of the words of {shorten(query, 80)!r} (the languages of its "
        "pages leave out common words, such as 'the' and 'who' in English); ask with rarer words."
    )
    return []


def still_searching(location: str) -> WebTimeoutError:
    """What a search a store stopped at the call's deadline fails with (the dispatcher, which
    gave up on it then, has answered already; a caller of the store itself reads this)."""
    return WebTimeoutError(
        f"The local index ({location}) was still searching at the call's deadline; give the call "
        "more time (timeout=), or search with fewer or rarer words.",
        provider="local",
    )


def held(urls: Sequence[str], pages: Mapping[str, IndexedPage]) -> dict[str, IndexedPage]:
    """``pages`` (keyed by :func:`page_url`) keyed by each of ``urls`` as given instead (the
    one read last, of a page held under both spellings of its host)."""
    found: dict[str, IndexedPage] = {}
    for url in urls:
        spellings = [pages[key] for key in page_keys(url) if key in pages]
        if spellings:
            found[url] = max(spellings, key=lambda page: page.fetched_at)
    return found


def _domains(values: Iterable[str] | None) -> tuple[str, ...]:
    """Each domain as given and in its other IDNA spelling (``münchen.example``,
    ``xn--mnchen-3ya.example``): a page keeps its host as its URL spelled it, and a vendor may
    give either, so a filter in one spelling missed the pages stored in the other."""
    found: dict[str, None] = {}
    for value in values or ():
        address, _, path = value.strip().lower().partition("/")
        host, _, port = address.partition(":")  # a page's host is kept without its port
        # "*.gov" and ".gov" (every domain under it, to some vendors) are what a domain means here.
        name = host.removeprefix("*").removeprefix(".").rstrip(".")
        if path or port:
            warn(f"The local index filters by domain only: {value!r} was applied as {name!r}, all its pages.")
        found[name] = None
        other = _other_spelling(name)
        if other:
            found[other] = None
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _other_spelling(name: str) -> str | None:
    if name.isascii() and "xn--" not in name:
        return None  # the common case, with one spelling: no IDNA work (2,000 names took 0.1 s)
    import idna  # httpx's, which spells hosts this way (UTS 46) when it sends them

    try:
        other = idna.decode(name) if name.isascii() else idna.encode(name, uts46=True).decode("ascii")
    except UnicodeError:  # idna.IDNAError: not a name IDNA can spell otherwise (an underscore, say)
        return None
    return other if other != name else None


def iso_utc(timestamp: float) -> str:
    """Seconds since the epoch as an ISO 8601 UTC time (``2026-05-01T12:00:00Z``)."""
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _item_text(item: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` that holds text, in the item or its metadata."""
    metadata = item.get("metadata")
    for source in (item, metadata if isinstance(metadata, Mapping) else {}):
        for key in keys:
            value = source.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return None


def _cut(item: Mapping[str, Any]) -> bool:
    """Whether the item's text was cut to the call's ``max_chars`` (``metadata.truncated``)."""
    metadata = item.get("metadata")
    return isinstance(metadata, Mapping) and metadata.get("truncated") is True


def pages_from_items(
    items: Iterable[Any], provider: str | None, skip: str, fetched_at: float
) -> list[IndexedPage]:
    """The pages worth indexing among extract / crawl items.

    Failed items, items without content, items served by ``skip`` (the index itself) and
    pages cut to a call's ``max_chars`` are left out: the index would hand such a beginning
    back as the whole page, in place of the whole copy it may hold. ``provider`` names who
    served items that do not say so themselves.
    """
    pages: dict[str, IndexedPage] = {}
    for item in items:
        if not isinstance(item, Mapping) or item.get("error") or not is_http_url(item.get("url")) or _cut(item):
            continue
        content = item.get("content")
        source = item.get("provider") or provider
        if not isinstance(content, str) or not content.strip() or source == skip:
            continue
        title = item.get("title") if isinstance(item.get("title"), str) else ""
        page = IndexedPage(
            item["url"], title.strip() or canonicalize(item["url"]), content, fetched_at,
            source if isinstance(source, str) else None, _item_text(item, _PUBLISHED_KEYS),
            _item_text(item, _LANGUAGE_KEYS),
        )
        pages[page.url] = page
    return list(pages.values())
