"""Our arguments to Tavily's request fields, and Tavily's answers to our hits and pages."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import InvalidInputError, ProviderError, ProviderSettings, WebProviderError, warn
from webproviders.kit import (
    LIST,
    SWITCH,
    SWITCH_OR_TEXT,
    TEXT,
    WHOLE,
    answer_list,
    answer_objects,
    capped_count,
    check_kinds,
    one_item_per_url,
    quote,
    said,
    url_key,
    warn_unknown,
)

from .countries import tavily_country

if TYPE_CHECKING:
    import httpx

#: Most results Tavily returns for one search.
MAX_RESULTS = 20
#: Tavily-specific search options a call may pass; ``topic`` and ``search_depth`` may also
#: come from ``web.providers.tavily``.
SEARCH_KWARGS = frozenset(
    {
        "topic",
        "search_depth",
        "chunks_per_source",
        "start_date",
        "end_date",
        "include_answer",
        "exact_match",
        "auto_parameters",
    }
)
#: What each of them must be, checked before sending (``include_answer`` takes a switch or a
#: name, ``basic`` or ``advanced``, which the vendor judges).
SEARCH_KINDS = {
    "topic": TEXT,
    "include_answer": SWITCH_OR_TEXT,
    "search_depth": TEXT,
    "chunks_per_source": WHOLE,
    "start_date": TEXT,
    "end_date": TEXT,
    "exact_match": SWITCH,
    "auto_parameters": SWITCH,
}
EXTRACT_KINDS = {"extract_depth": TEXT, "query": TEXT, "chunks_per_source": WHOLE, "format": TEXT}
#: The page formats Tavily returns, as the library's ``format`` option names them.
FORMATS = ("markdown", "text")
EXTRACT_KWARGS = frozenset(EXTRACT_KINDS)
#: Crawl options: ours (left) to Tavily's request fields (right).
CRAWL_FIELDS = {
    "max_depth": "max_depth",
    "max_breadth": "max_breadth",
    "max_pages": "limit",
    "limit": "limit",
    "instructions": "instructions",
    "include_paths": "select_paths",
    "exclude_paths": "exclude_paths",
    "include_domains": "select_domains",
    "exclude_domains": "exclude_domains",
    "allow_external": "allow_external",
    "extract_depth": "extract_depth",
}
#: What the crawl options Tavily reads must be (the counts are checked for every backend).
CRAWL_KINDS = {
    "max_breadth": WHOLE,
    "instructions": TEXT,
    "include_paths": LIST,
    "exclude_paths": LIST,
    "include_domains": LIST,
    "exclude_domains": LIST,
    "allow_external": SWITCH,
    "extract_depth": TEXT,
}
#: Pages a crawl asks for when neither the call nor ``web.providers.tavily.max_pages`` says
#: (Tavily's own default is 50; a budget reserves the library's 25).
DEFAULT_MAX_PAGES = 25


def search_request(
    query: str, limit: int, options: dict[str, Any], settings: ProviderSettings
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncTavilyClient.search``."""
    warn_unknown("tavily", options, SEARCH_KWARGS, search=True)
    check_kinds("tavily", options, SEARCH_KINDS)
    request: dict[str, Any] = {
        "query": query,
        "max_results": capped_count("tavily", limit, MAX_RESULTS),
    }
    for key in ("topic", "search_depth"):
        value = options.get(key, settings.option(key))
        if value:
            request[key] = value
    request.update({key: options[key] for key in SEARCH_KWARGS if key in options})
    for key in ("time_range", "include_domains", "exclude_domains"):
        if options.get(key):
            request[key] = options[key]
    if options.get("country"):
        _add_country(request, options["country"])
    return request


def _add_country(request: dict[str, Any], country: str) -> None:
    topic = request.get("topic", "general")
    if topic != "general":
        warn(f"tavily applies country only to the general topic, not '{topic}'; country ignored.")
        return
    name = tavily_country(country)
    if name is None:
        warn(f"tavily does not know the country code '{country}'; country ignored.")
        return
    request["country"] = name


def states_results(body: Any, response: httpx.Response) -> bool:
    """Whether Tavily's answer held its ``results`` list. Its SDK puts ``[]`` in place of a
    missing one (search, extract), so an empty or missing list is looked up in the response
    itself: an answer without it is out of shape, never "nothing found". A body without the
    key's text anywhere is told by one scan of its bytes; only one that has it is parsed."""
    if isinstance(body, Mapping) and body.get("results"):
        return True  # something is there: _results reads it (a list, or parse_error)
    content = response.content
    if b'"results"' not in content:  # a JSON string holding those words escapes their quotes
        return False
    try:
        raw = json.loads(content)
    except (ValueError, RecursionError):
        return False
    return isinstance(raw, Mapping) and isinstance(raw.get("results"), list)


def _results(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The objects of ``body["results"]``: results of which none is an object are out of
    shape (``parse_error``), never "nothing found"."""
    return answer_objects(body.get("results"), "results", "Tavily", "tavily")


def hits(body: Mapping[str, Any]) -> dict[str, Any]:
    """``{"web": [...]}`` from a search answer, with Tavily's answer (when asked) in ``meta``."""
    found = []
    for item in _results(body):
        hit = {
            "title": item.get("title"),
            "url": item.get("url"),
            "description": item.get("content"),
        }
        if isinstance(item.get("score"), (int, float)):
            hit["score"] = item["score"]
        if item.get("published_date"):
            hit["published_at"] = item["published_date"]
        found.append(hit)
    answer = body.get("answer")
    return {"web": found, "meta": {"answer": answer}} if answer else {"web": found}


def page_format(options: dict[str, Any]) -> str:
    """The call's ``format``, which Tavily returns itself (plain text or markdown)."""
    chosen = options.get("format") or "markdown"
    if chosen not in FORMATS:
        raise InvalidInputError(f"format must be 'markdown' or 'text', not {str(chosen)[:40]!r}.")
    return str(chosen)


def extract_request(
    urls: list[str], options: dict[str, Any], settings: ProviderSettings
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncTavilyClient.extract`` (markdown, one request for all URLs)."""
    warn_unknown("tavily", options, EXTRACT_KWARGS)
    check_kinds("tavily", options, EXTRACT_KINDS)
    request: dict[str, Any] = {"urls": urls, "format": page_format(options), "include_favicon": True}
    depth = options.get("extract_depth", settings.option("extract_depth"))
    if depth:
        request["extract_depth"] = depth
    request.update({key: options[key] for key in ("query", "chunks_per_source") if key in options})
    return request


def crawl_request(url: str, options: dict[str, Any], settings: ProviderSettings) -> dict[str, Any]:
    """Keyword arguments for ``AsyncTavilyClient.crawl``."""
    warn_unknown("tavily", options, frozenset({*CRAWL_FIELDS, "format"}))
    check_kinds("tavily", options, {**CRAWL_KINDS, "format": TEXT})
    request: dict[str, Any] = {
        "url": url,
        "format": page_format(options),
        "limit": settings.number("max_pages", DEFAULT_MAX_PAGES),
        "include_favicon": True,
    }
    depth = settings.option("extract_depth")
    if depth:
        request["extract_depth"] = depth
    for ours, theirs in CRAWL_FIELDS.items():
        if options.get(ours) is not None:
            request[theirs] = options[ours]
    if request.get("max_depth") == 0:
        # The start page alone, which every crawler here takes; Tavily's depth starts at 1
        # (the start page and its links), and its first page processed is the start page.
        request.update(max_depth=1, limit=1)
    return request


def _page(item: Mapping[str, Any]) -> dict[str, Any]:
    # ``favicon`` comes with every extract and crawl request's ``include_favicon``; unasked,
    # Tavily leaves it out.
    metadata = {"favicon": item["favicon"]} if item.get("favicon") else {}
    return {
        "url": item.get("url"),
        "title": item.get("title") or "",
        "content": item.get("raw_content") or "",
        "metadata": metadata,
    }


def pages(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Pages from an extract or crawl answer (``results[].raw_content`` is the markdown)."""
    return [_page(item) for item in _results(body)]


def extract_items(urls: list[str], body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One item per URL asked for: the page, or Tavily's reason (``failed_results``) it has none."""
    found = {url_key(str(page["url"])): page for page in pages(body)}
    failed: dict[str, WebProviderError] = {}
    for item in answer_list(body.get("failed_results"), "failed_results", "Tavily", "tavily"):
        if isinstance(item, Mapping) and isinstance(item.get("url"), str):
            reason = f"Tavily could not extract this URL{said(quote(item.get('error')))}"
            failed[url_key(item["url"])] = ProviderError(reason, provider="tavily")
    return one_item_per_url(urls, found, failed, "Tavily")
