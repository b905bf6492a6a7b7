"""Our arguments to ``AsyncExa`` keyword arguments, and Exa's results to our hits and pages."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from webproviders import NotConfiguredError, ProviderSettings, warn
from webproviders.kit import (
    LIST,
    NUMBER,
    TEXT,
    WHOLE,
    answer_texts,
    check_kinds,
    one_item_per_url,
    truncate,
    url_key,
    warn_unknown,
)

#: Most results Exa returns for one search.
MAX_RESULTS = 100
#: Longest description taken from page text when there are no highlights.
DESCRIPTION_CHARS = 500
TIME_RANGES = {
    "day": timedelta(days=1),
    "week": timedelta(weeks=1),
    "month": timedelta(days=30),
    "year": timedelta(days=365),
}
#: What a search asks Exa for to build each hit's description (``web.providers.exa.contents``).
CONTENTS = {
    "highlights": {"highlights": True},
    "summary": {"summary": True},
    "text": {"text": {"max_characters": DESCRIPTION_CHARS}},
    "none": False,
}
#: Exa-specific search options a call may pass straight through, and what each must be.
SEARCH_KWARGS = {
    "type": TEXT,
    "category": TEXT,
    "include_text": LIST,
    "exclude_text": LIST,
    "start_published_date": TEXT,
    "end_published_date": TEXT,
}
EXTRACT_KWARGS = {"max_age_hours": NUMBER, "max_characters": WHOLE}
#: Share of the call's time left that a live crawl may take (``livecrawl_timeout``), so that
#: Exa answers with the other pages before the call's deadline; and the least it is given.
SERVER_SHARE = 0.8
MIN_LIVECRAWL_MS = 1000
#: Categories Exa filters by neither date nor excluded domain: a search of one that sends
#: ``startPublishedDate`` or ``excludeDomains`` is refused with HTTP 400 (Exa's search docs).
NARROW_CATEGORIES = frozenset({"company", "people"})


def since(time_range: str, now: datetime | None = None) -> str:
    """The ISO 8601 instant ``time_range`` ago, as Exa's ``startPublishedDate`` wants it."""
    start = (now or datetime.now(timezone.utc)) - TIME_RANGES[time_range]
    return start.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def search_request(
    limit: int, options: dict[str, Any], settings: ProviderSettings
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncExa.search`` (after the query)."""
    warn_unknown("exa", options, SEARCH_KWARGS, search=True)
    check_kinds("exa", options, SEARCH_KWARGS)
    contents = str(settings.option("contents", "highlights"))
    if contents not in CONTENTS:  # a typo asked for highlights unsaid
        raise NotConfiguredError(
            f"web.providers.exa.contents must be one of {', '.join(CONTENTS)}; it is {contents!r}.",
            provider="exa",
        )
    request: dict[str, Any] = {
        "num_results": min(limit, MAX_RESULTS),
        "contents": CONTENTS[contents],
    }
    if settings.option("type"):
        request["type"] = settings.option("type")
    for key in ("include_domains", "exclude_domains"):
        if options.get(key):
            request[key] = list(options[key])
    if options.get("time_range"):
        request["start_published_date"] = since(options["time_range"])
    if options.get("country"):
        request["user_location"] = str(options["country"]).upper()
    if options.get("safe_search") in ("moderate", "strict"):
        request["moderation"] = True
    category = options.get("category")
    if category in NARROW_CATEGORIES:
        for option, field in (("time_range", "start_published_date"), ("exclude_domains", "exclude_domains")):
            if request.pop(field, None) is not None:
                warn(f"exa filters the {category} category by neither date nor excluded domain; {option} ignored.")
    request.update({key: options[key] for key in SEARCH_KWARGS if options.get(key) is not None})
    return request


def _description(result: Any) -> str:
    highlights = answer_texts(getattr(result, "highlights", None))
    if highlights:
        return " … ".join(h.strip() for h in highlights)
    summary = getattr(result, "summary", None)
    if summary:
        return str(summary)
    text = " ".join(str(getattr(result, "text", None) or "").split())
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1] + "…"


def hits(results: list[Any]) -> list[dict[str, Any]]:
    """Search hits from the SDK's ``Result`` objects."""
    found = []
    for result in results:
        hit: dict[str, Any] = {
            "title": result.title,
            "url": result.url,
            "description": _description(result),
        }
        if isinstance(result.score, (int, float)):
            hit["score"] = result.score
        if result.published_date:
            hit["published_at"] = result.published_date
        if result.author:
            hit["author"] = result.author
        found.append(hit)
    return found


def extract_request(
    options: dict[str, Any], settings: ProviderSettings, budget: float | None = None
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncExa.get_contents`` (after the URLs): the whole page text.
    ``budget`` is the seconds the call has left: a page Exa crawls live waits for part of it."""
    warn_unknown("exa", options, EXTRACT_KWARGS)
    check_kinds("exa", options, EXTRACT_KWARGS)
    limit = text_limit(options, settings)
    # one character past the cap: a page Exa cut is told from one exactly that long (``page``)
    request: dict[str, Any] = {"text": {"max_characters": limit + 1} if limit else True}
    if options.get("max_age_hours") is not None:
        request["max_age_hours"] = options["max_age_hours"]
    if budget is not None:
        # Exa waits 10 s for a live crawl unless told; a page it gives up on is its own
        # CRAWL_TIMEOUT status, and the others come back within the call's time.
        request["livecrawl_timeout"] = max(MIN_LIVECRAWL_MS, int(budget * SERVER_SHARE * 1000))
    return request


def text_limit(options: dict[str, Any], settings: ProviderSettings) -> int | None:
    """The characters of page text asked for (``max_characters``), if capped."""
    limit = options.get("max_characters")
    limit = settings.number("max_characters", None) if limit is None else limit
    return int(limit) if limit else None


def page(result: Any, limit: int | None = None) -> dict[str, Any]:
    """One extracted page from a ``Result``; text past ``limit`` (Exa's cut, one character
    over it) cut to it and said so (``metadata.truncated``), as the dispatcher's own cut says."""
    found = {
        "published_at": result.published_date,
        "author": result.author,
        "image": getattr(result, "image", None),
        "favicon": getattr(result, "favicon", None),
    }
    metadata: dict[str, Any] = {key: value for key, value in found.items() if value}
    text = result.text or ""
    if limit is not None and len(text) > limit:
        text, metadata["truncated"] = truncate(text, limit), True
    return {
        "url": result.url,
        "title": result.title or "",
        "content": text,
        "metadata": metadata,
    }


def extract_items(urls: list[str], response: Any, limit: int | None = None) -> list[dict[str, Any]]:
    """One item per URL asked for: the page (matched by ``id`` or ``url``), or the error
    ``statuses`` gives for it."""
    from .errors import status_error

    found: dict[str, dict[str, Any]] = {}
    for result in response.results:
        for name in (result.id, result.url):
            if isinstance(name, str):
                found.setdefault(url_key(name), page(result, limit))
    failed = {
        url_key(status.id): status_error(
            status.error.tag if status.error else None,
            status.error.http_status_code if status.error else None,
        )
        for status in response.statuses or []
        if status.status == "error" and isinstance(status.id, str)
    }
    return one_item_per_url(urls, found, failed, "Exa")
