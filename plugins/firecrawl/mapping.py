"""Our arguments to Firecrawl's search body and ``AsyncFirecrawl`` keyword arguments; its
answers to our hits and pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webproviders import (
    BlockedError,
    InvalidInputError,
    NotFoundError,
    ParseError,
    ProviderError,
    ProviderSettings,
    WebProviderError,
)
from webproviders.kit import (
    GOOGLE_TBS,
    LIST,
    SWITCH,
    TEXT,
    WHOLE,
    answer_objects,
    check_kinds,
    language_code,
    site_query,
    spelled,
    warn_unknown,
)

#: Most results Firecrawl returns for one search.
MAX_RESULTS = 100
#: The longest ``timeout`` (ms) Firecrawl accepts for a search.
MAX_TIMEOUT_MS = 300_000
#: The longest ``waitFor`` (ms) Firecrawl accepts; it must also be at most half the ``timeout``.
MAX_WAIT_FOR_MS = 60_000
SEARCH_KWARGS = {"location": TEXT, "categories": LIST, "tbs": TEXT}
EXTRACT_KWARGS = {"only_main_content": SWITCH, "wait_for": WHOLE, "max_age": WHOLE, "mobile": SWITCH, "proxy": TEXT}
#: Crawl options: ours (left) to ``start_crawl`` keyword arguments (right).
CRAWL_FIELDS = {
    "max_pages": "limit",
    "limit": "limit",
    "max_depth": "max_discovery_depth",
    "instructions": "prompt",
    "include_paths": "include_paths",
    "exclude_paths": "exclude_paths",
    "allow_external": "allow_external_links",
    "allow_subdomains": "allow_subdomains",
    "crawl_entire_domain": "crawl_entire_domain",
}
#: The kinds of the crawl options the SDK checks itself (``CrawlRequest``, before any request).
CRAWL_KINDS = {
    "instructions": TEXT,
    "include_paths": LIST,
    "exclude_paths": LIST,
    "allow_external": SWITCH,
    "allow_subdomains": SWITCH,
    "crawl_entire_domain": SWITCH,
}
#: Pages a crawl asks for when the call does not say (Firecrawl's own default is 10,000).
DEFAULT_MAX_PAGES = 25


def search_body(query: str, limit: int, options: dict[str, Any], timeout_ms: int) -> dict[str, Any]:
    """The JSON body of ``POST /v2/search``."""
    warn_unknown("firecrawl", options, SEARCH_KWARGS, search=True)
    check_kinds("firecrawl", options, SEARCH_KWARGS)
    body: dict[str, Any] = {
        "query": site_query(
            query, options.get("include_domains", []), options.get("exclude_domains", [])
        ),
        "limit": min(limit, MAX_RESULTS),
        "sources": [{"type": "web"}],
        "timeout": min(timeout_ms, MAX_TIMEOUT_MS),
    }
    if options.get("time_range"):
        body["tbs"] = GOOGLE_TBS[options["time_range"]]
    if options.get("country"):
        body["country"] = str(options["country"]).lower()
    if options.get("lang"):  # Firecrawl's search takes the language code (``en`` by default)
        body["lang"] = language_code(str(options["lang"]))
    for key in ("tbs", "location"):
        if options.get(key) is not None:
            body[key] = options[key]
    if options.get("categories") is not None:
        body["categories"] = [
            {"type": c} if isinstance(c, str) else c for c in options["categories"]
        ]
    return body


def _field(item: Mapping[str, Any], metadata: Mapping[str, Any], *keys: str) -> Any:
    """The first non-empty value of ``keys`` on the item itself, else in its ``metadata``."""
    for source in (item, metadata):
        for key in keys:
            if source.get(key):
                return source[key]
    return None


def hits(body: Any) -> list[dict[str, Any]]:
    """Search hits from ``data.web``: plain results, or scraped documents (with ``markdown``,
    with or without ``metadata``). The item's own ``title`` / ``description`` (the search
    result) come before the scraped page's."""
    data = body.get("data") if isinstance(body, Mapping) else None
    if data is None:  # every search answer holds ``data``: one without it is not "nothing found"
        raise ParseError(
            "Firecrawl answered its search without 'data'; its answer is not in the shape it documents.",
            provider="firecrawl",
        )
    items = data.get("web") if isinstance(data, Mapping) else data
    if items is not None and not isinstance(items, list):
        raise ParseError("Firecrawl sent search results that are not a list.", provider="firecrawl")
    urls_or_items = [{"url": item} if isinstance(item, str) else item for item in items or []]
    found = []
    for item in answer_objects(urls_or_items, "data.web", "Firecrawl", "firecrawl"):
        metadata = item.get("metadata") if isinstance(item.get("metadata"), Mapping) else {}
        found.append(
            {
                "title": _field(item, metadata, "title"),
                "url": _field(item, metadata, "url", "sourceURL"),
                "description": _field(item, metadata, "description"),
            }
        )
    return found


def scrape_request(
    options: dict[str, Any], settings: ProviderSettings, timeout_ms: int
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncFirecrawl.scrape`` (after the URL): main content as markdown."""
    warn_unknown("firecrawl", options, EXTRACT_KWARGS)
    check_kinds("firecrawl", options, EXTRACT_KWARGS)
    request: dict[str, Any] = {
        "formats": ["markdown"],
        "only_main_content": bool(spelled(settings.option("only_main_content", True))),
        "timeout": timeout_ms,
    }
    request.update({key: options[key] for key in EXTRACT_KWARGS if options.get(key) is not None})
    wait = request.get("wait_for")
    if isinstance(wait, int) and wait > min(MAX_WAIT_FOR_MS, timeout_ms // 2):
        # Firecrawl refuses it with a 400 naming a ``timeout`` the caller never set.
        most = min(MAX_WAIT_FOR_MS, timeout_ms // 2)
        raise InvalidInputError(
            f"firecrawl's option wait_for ({wait} ms) may be at most {most} ms here: Firecrawl "
            f"waits at most {MAX_WAIT_FOR_MS} ms, and at most half the time it is given for the "
            f"page ({timeout_ms} ms within this call's deadline). Give a shorter wait_for, or the "
            "call a longer timeout."
        )
    return request


def crawl_request(options: dict[str, Any], settings: ProviderSettings) -> dict[str, Any]:
    """Keyword arguments for ``AsyncFirecrawl.start_crawl`` (after the URL)."""
    warn_unknown("firecrawl", options, frozenset(CRAWL_FIELDS))
    check_kinds("firecrawl", options, CRAWL_KINDS)
    request: dict[str, Any] = {
        "limit": settings.number("max_pages", DEFAULT_MAX_PAGES),
        "formats": ["markdown"],
        "only_main_content": bool(spelled(settings.option("only_main_content", True))),
    }
    for ours, theirs in CRAWL_FIELDS.items():
        if options.get(ours) is not None:
            request[theirs] = options[ours]
    if request.get("max_discovery_depth") == 0:
        # The start page alone: Firecrawl counts every page of the site's sitemap as depth 0
        # too, so depth 0 alone crawled (and billed) up to ``limit`` pages.
        request["limit"] = 1
    return request


def _page_failure(metadata: Any) -> WebProviderError | None:
    """The error a scraped document reports about its page (the site's status, Firecrawl's note)."""
    status = getattr(metadata, "status_code", None)
    if isinstance(status, int) and status in (401, 403, 429):
        return BlockedError(
            f"The site answered HTTP {status} to Firecrawl.",
            provider="firecrawl",
            detail=f"http_{status}",
        )
    if status in (404, 410):
        return NotFoundError(f"The page was not found (HTTP {status} to Firecrawl).", provider="firecrawl")
    if isinstance(status, int) and status >= 400:
        return ProviderError(f"The site answered HTTP {status} to Firecrawl.", provider="firecrawl")
    note = getattr(metadata, "error", None)
    return (
        ProviderError(f"Firecrawl could not read this page: {note}", provider="firecrawl")
        if note
        else None
    )


def page(document: Any, requested: str | None = None) -> dict[str, Any]:
    """One page from a scraped ``Document``; a page the site refused becomes an error item."""
    from webproviders.kit import page_error

    metadata = getattr(document, "metadata", None)
    url = requested or getattr(metadata, "source_url", None) or getattr(metadata, "url", None) or ""
    error = _page_failure(metadata)
    if error is not None:
        return page_error(url, error)
    details = {
        "final_url": getattr(metadata, "url", None),
        "status_code": getattr(metadata, "status_code", None),
        "content_type": getattr(metadata, "content_type", None),
        "language": getattr(metadata, "language", None),
        "description": getattr(metadata, "description", None),
        # Read by Firecrawl from the page's meta tags, under the names Exa's pages use.
        "published_at": getattr(metadata, "published_time", None),
        "image": getattr(metadata, "og_image", None),
        "favicon": getattr(metadata, "favicon", None),
    }
    return {
        "url": url,
        "title": getattr(metadata, "title", None) or "",
        "content": getattr(document, "markdown", None) or "",
        "metadata": {key: value for key, value in details.items() if value is not None},
    }
