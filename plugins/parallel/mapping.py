"""Our arguments to ``AsyncParallel`` keyword arguments, and its results to our hits and pages."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from pydantic import BaseModel

from webproviders import ParseError, ProviderError, ProviderSettings, warn
from webproviders.kit import (
    TEXT,
    TEXTS,
    WHOLE,
    answer_list,
    answer_objects,
    answer_texts,
    capped_count,
    check_kinds,
    one_item_per_url,
    truncate,
    url_key,
    warn_unknown,
)

#: Most results Parallel's search returns for one request (``advanced_settings.max_results``).
MAX_RESULTS = 40
#: Parallel's bounds on ``search_queries``: at most 5 keyword queries of 200 characters each.
MAX_QUERIES = 5
MAX_QUERY_CHARS = 200
TIME_RANGES = {
    "day": timedelta(days=1),
    "week": timedelta(weeks=1),
    "month": timedelta(days=30),
    "year": timedelta(days=365),
}
#: Parallel-specific search options: ``objective`` (the goal, default: the query), ``queries``
#: (more keyword queries), ``search_mode`` (Parallel's ``mode``: turbo|fast|basic|advanced;
#: ``mode`` itself is the dispatcher's), ``max_chars_total``, ``session_id``.
SEARCH_KWARGS = {
    "objective": TEXT,
    "queries": TEXTS,
    "search_mode": TEXT,
    "max_chars_total": WHOLE,
    "session_id": TEXT,
}
EXTRACT_KWARGS = {
    "objective": TEXT,
    "queries": TEXTS,
    "max_chars_per_result": WHOLE,
    "session_id": TEXT,
}


def search_request(
    query: str,
    limit: int,
    options: dict[str, Any],
    settings: ProviderSettings,
    today: date | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncParallel.search``."""
    warn_unknown("parallel", options, SEARCH_KWARGS, search=True)
    check_kinds("parallel", options, SEARCH_KWARGS)
    extra = options.get("queries") or []
    queries = keyword_queries([query, *([extra] if isinstance(extra, str) else list(extra))])
    advanced: dict[str, Any] = {"max_results": capped_count("parallel", limit, MAX_RESULTS)}
    policy: dict[str, Any] = {}
    for key in ("include_domains", "exclude_domains"):
        if options.get(key):
            policy[key] = list(options[key])
    if policy.get("include_domains") and policy.get("exclude_domains"):
        warn("parallel ignores exclude_domains when include_domains is given.")
    if options.get("time_range"):
        policy["after_date"] = (
            (today or date.today()) - TIME_RANGES[options["time_range"]]
        ).isoformat()
    if policy:
        advanced["source_policy"] = policy
    if options.get("country"):
        advanced["location"] = str(options["country"]).upper()
    request: dict[str, Any] = {
        "objective": options.get("objective") or query,
        "search_queries": queries,
        "advanced_settings": advanced,
    }
    mode = options.get("search_mode", settings.option("mode"))
    if mode:
        request["mode"] = mode
    request.update(
        {
            key: options[key]
            for key in ("max_chars_total", "session_id")
            if options.get(key) is not None
        }
    )
    return request


def keyword_queries(queries: list[str]) -> list[str]:
    """``search_queries`` within Parallel's bounds, which it refuses a request past: each cut
    to 200 characters at a word break, the first 5 kept, and either said in ``meta.warnings``.
    A long query loses nothing as the objective, which takes 5,000 characters."""
    cut = list(dict.fromkeys(truncate(query, MAX_QUERY_CHARS) for query in queries))
    longer = sum(len(query) > MAX_QUERY_CHARS for query in dict.fromkeys(queries))
    if longer:
        warn(
            f"parallel takes keyword queries of at most {MAX_QUERY_CHARS} characters; "
            f"{longer} longer one(s) were cut to fit (the objective is not cut)."
        )
    if len(cut) > MAX_QUERIES:
        warn(
            f"parallel takes at most {MAX_QUERIES} keyword queries; {len(cut)} were given, "
            f"the first {MAX_QUERIES} were sent."
        )
    return cut[:MAX_QUERIES]


def _listed(result: Any, field: str) -> list[Any]:
    """The objects of ``result.<field>``. The SDK builds its models without checking the
    answer, so a field that is not a list is ``parse_error``, and an item that is not an
    object is skipped."""
    items = answer_list(getattr(result, field, None), field, "Parallel", "parallel")
    return [item for item in items if isinstance(item, BaseModel)]


def _results(result: Any) -> list[Any]:
    """``results``, which every answer of Parallel's holds: an answer without it is not an
    empty success but an error Parallel sent with a 200 (said as it said it), or out of shape."""
    if getattr(result, "results", None) is None:
        said = (getattr(result, "model_extra", None) or {}).get("error")
        if isinstance(said, dict):
            said = said.get("message")
        if isinstance(said, str) and said.strip():
            raise ProviderError(
                f"Parallel answered with an error: {said.strip()[:300]}", provider="parallel"
            )
        raise ParseError("Parallel's answer has no 'results' list.", provider="parallel")
    # results of which none is an object are out of shape, never "nothing found"
    return answer_objects(result.results, "results", "Parallel", "parallel", kind=BaseModel)


def hits(result: Any) -> list[dict[str, Any]]:
    """Search hits from a ``SearchResult``: the excerpts are the description."""
    found = []
    for item in _results(result):
        excerpts = [e.strip() for e in answer_texts(getattr(item, "excerpts", None))]
        hit: dict[str, Any] = {
            "title": item.title,
            "url": item.url,
            "description": " … ".join(excerpts),
        }
        if getattr(item, "publish_date", None):
            hit["published_at"] = item.publish_date
        found.append(hit)
    return found


def extract_request(
    urls: list[str], options: dict[str, Any], settings: ProviderSettings
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncParallel.extract``: the full content of each page."""
    warn_unknown("parallel", options, EXTRACT_KWARGS)
    check_kinds("parallel", options, EXTRACT_KWARGS)
    limit = text_limit(options, settings)
    request: dict[str, Any] = {
        "urls": list(urls),
        "advanced_settings": {
            # one character past the cap: a page Parallel cut is told from one exactly that long
            "full_content": {"max_chars_per_result": limit + 1} if limit else True
        },
    }
    if options.get("objective"):
        request["objective"] = options["objective"]
    if options.get("queries"):
        # "as in SearchRequest", Parallel's reference says of extract's keyword queries
        request["search_queries"] = keyword_queries(
            [options["queries"]] if isinstance(options["queries"], str) else list(options["queries"])
        )
    if options.get("session_id"):
        request["session_id"] = options["session_id"]
    return request


def text_limit(options: dict[str, Any], settings: ProviderSettings) -> int | None:
    """The characters of full content asked for per page (``max_chars_per_result``), if capped."""
    limit = options.get("max_chars_per_result")
    limit = settings.number("max_chars_per_result", None) if limit is None else limit
    return int(limit) if limit else None


def page(item: Any, limit: int | None = None) -> dict[str, Any]:
    """One page from an ``ExtractResult``: the full content, else the excerpts. Full content
    past ``limit`` (Parallel's cut, one character over it) is cut to it and said so
    (``metadata.truncated``), as the dispatcher's own cut says."""
    excerpts = answer_texts(getattr(item, "excerpts", None))
    metadata: dict[str, Any] = {"published_at": item.publish_date} if getattr(item, "publish_date", None) else {}
    content = item.full_content or ""
    if limit is not None and len(content) > limit:
        content, metadata["truncated"] = truncate(content, limit), True
    return {
        "url": item.url,
        "title": item.title or "",
        "content": content or "\n\n".join(excerpts),
        "metadata": metadata,
    }


def forward_warnings(result: Any) -> None:
    """Parallel's own ``warnings`` go into ``meta.warnings``."""
    warnings = getattr(result, "warnings", None)
    for item in warnings if isinstance(warnings, list) else []:
        message = getattr(item, "message", None)
        if isinstance(message, str) and message:
            warn(f"parallel: {message}")


def extract_items(urls: list[str], result: Any, limit: int | None = None) -> list[dict[str, Any]]:
    """One item per URL asked for: the page, or the error ``errors`` gives for it."""
    from .errors import url_error

    found = {
        url_key(item.url): page(item, limit) for item in _results(result) if isinstance(item.url, str)
    }
    failed = {
        url_key(item.url): url_error(
            item.error_type if isinstance(item.error_type, str) else "error",
            item.http_status_code if isinstance(item.http_status_code, int) else None,
            item.content if isinstance(item.content, str) else None,
        )
        for item in _listed(result, "errors")
        if isinstance(item.url, str)
    }
    return one_item_per_url(urls, found, failed, "Parallel")
