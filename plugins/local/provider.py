"""The ``local`` provider's work: the index's hits and pages in the envelope's shape.

Kept apart from the plugin's ``__init__`` so that listing providers loads neither sqlite3
nor the index code.
"""

from __future__ import annotations

from typing import Any

from webproviders import Config, NotFoundError, warn
from webproviders.kit import (
    Filters,
    Hit,
    IndexedPage,
    PageOptions,
    iso_utc,
    mask_url,
    open_store,
    page_error,
    warn_unknown,
)

NAME = "local"
#: The page options a stored page can be read with (no fetching options: nothing is fetched).
PAGE_OPTIONS = frozenset({"format", "include_raw"})


def _hit(hit: Hit) -> dict[str, Any]:
    """A hit's URL with any credential masked: such pages are no longer indexed, but an index
    filled before (or by a script's ``store.add``) holds them, and every caller searches it."""
    page = hit.page
    item: dict[str, Any] = {
        "title": page.title,
        "url": mask_url(page.url),
        "description": hit.snippet,
        "score": hit.score,
        "fetched_at": iso_utc(page.fetched_at),
    }
    if page.published_at:
        item["published_at"] = page.published_at
    if page.provider:
        item["source_provider"] = page.provider
    return item


def search(config: Config, query: str, limit: int, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Best matches first (BM25; a title match weighs more), each with a highlighted snippet.
    An option it does not read (``offset``, a misspelt ``include_domain``) is named in
    ``meta.warnings``: the same hits without a word would read as its answer."""
    warn_unknown(NAME, options, frozenset(), search=True)
    hits = open_store(config).search(query, limit, Filters.from_options(options))
    return [_hit(hit) for hit in hits]


def _page(url: str, page: IndexedPage) -> dict[str, Any]:
    """The stored page as an item (``max_chars`` is the dispatcher's, as for every provider)."""
    metadata: dict[str, Any] = {"fetched_at": iso_utc(page.fetched_at), "canonical_url": page.url}
    if page.provider:
        metadata["source_provider"] = page.provider
    if page.published_at:
        metadata["published_at"] = page.published_at
    return {"url": url, "title": page.title, "content": page.content, "raw_content": None, "metadata": metadata}


def extract(config: Config, urls: list[str], kwargs: dict[str, Any]) -> list[dict[str, Any]]:
    """One item per URL, in input order: the stored page, or a ``not_found`` item."""
    warn_unknown(NAME, kwargs, PAGE_OPTIONS)
    options = PageOptions.from_kwargs(kwargs)
    if options.format != "markdown":
        warn(f"{NAME} stores pages as markdown; format={options.format!r} is ignored.")
    if options.include_raw:
        warn(f"{NAME} keeps no raw page text; include_raw is ignored.")
    found = open_store(config).get(urls)
    items = []
    for url in urls:
        page = found.get(url)
        if page is None:
            missing = NotFoundError(
                f"{url} is not in the local index; read it with another backend (a chain such as "
                "[local, http] does that), or add it with: webproviders index URL.",
                provider=NAME,
            )
            items.append(page_error(url, missing))
        else:
            items.append(_page(url, page))
    return items
