"""The ``google-cse`` provider: ``GET https://www.googleapis.com/customsearch/v1``.

Google serves at most 10 results per request, so a larger ``limit`` is fetched in pages
with ``start`` (each page is one billed query, and is reported as one request to the cost
ledger); a later page that fails or would run past the deadline ends the paging with the
pages read (``kit.later_page``). The key goes in the ``key`` query
parameter and the engine id in ``cx``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import partial
from typing import Any

from webproviders import NotConfiguredError, ParseError, report_usage
from webproviders.kit import (
    GOOGLE_SAFE,
    VendorProvider,
    answer_objects,
    language_code,
    later_page,
    site_query,
    warn_unknown,
)

from .errors import classify

PAGE_SIZE = 10
#: Google never returns results past the 100th (``start + num`` <= 101).
MAX_RESULTS = 100
DATE_RESTRICT = {"day": "d1", "week": "w1", "month": "m1", "year": "y1"}
#: Google's ``lr`` names where they are not ``lang_`` + the ISO 639-1 code.
_LR_NAMES = {"he": "iw", "nb": "no", "nn": "no"}
#: Subtags that mark traditional Chinese (``lang_zh-TW``); other Chinese is ``lang_zh-CN``.
_TRADITIONAL = {"hant", "tw", "hk", "mo"}


def language_restrict(lang: str) -> str:
    """Google's ``lr`` for a language tag: ``lang_pt`` for ``pt-BR``, ``lang_zh-TW`` for
    ``zh-Hant``; Google knows two-letter codes only, apart from its two Chinese ones."""
    code = language_code(lang)
    if code == "zh":
        subtags = set(lang.lower().replace("_", "-").split("-")[1:])
        return "lang_zh-TW" if subtags & _TRADITIONAL else "lang_zh-CN"
    return f"lang_{_LR_NAMES.get(code, code)}"


def _hit(item: Mapping[str, Any]) -> dict[str, Any]:
    hit: dict[str, Any] = {
        "title": item.get("title"),
        "url": item.get("link"),
        "description": item.get("snippet"),
    }
    if item.get("displayLink"):
        hit["display_link"] = item["displayLink"]
    metatags = ((item.get("pagemap") or {}).get("metatags") or [{}])[0]
    if isinstance(metatags, dict) and metatags.get("article:published_time"):
        hit["published_at"] = metatags["article:published_time"]
    return hit


class GoogleCSEProvider(VendorProvider):
    provider_name = "google-cse"
    key_param = "key"
    default_base_url = "https://www.googleapis.com"
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    def engine_id(self) -> str:
        """``web.providers.google-cse.cx``, else ``GOOGLE_CSE_ID``."""
        return str(self.settings.option("cx") or os.environ.get("GOOGLE_CSE_ID") or "").strip()

    def is_available(self) -> bool:
        return super().is_available() and bool(self.engine_id())

    def base_params(self, query: str, options: dict[str, Any]) -> dict[str, Any]:
        include = options.get("include_domains", [])
        exclude = options.get("exclude_domains", [])
        params: dict[str, Any] = {"cx": self.engine_id()}
        if len(include) == 1 and not exclude:
            params["siteSearch"], params["siteSearchFilter"] = include[0], "i"
            params["q"] = query
        elif len(exclude) == 1 and not include:
            params["siteSearch"], params["siteSearchFilter"] = exclude[0], "e"
            params["q"] = query
        else:  # siteSearch takes one domain; several go into the query as operators
            params["q"] = site_query(query, include, exclude)
        if options.get("time_range"):
            params["dateRestrict"] = DATE_RESTRICT[options["time_range"]]
        if options.get("country"):
            params["gl"] = options["country"].lower()
        if options.get("lang"):
            params["lr"] = language_restrict(options["lang"])
        if options.get("safe_search") in GOOGLE_SAFE:
            params["safe"] = GOOGLE_SAFE[options["safe_search"]]
        return params

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset(), search=True)
        if not self.engine_id():
            raise NotConfiguredError(
                "google-cse needs GOOGLE_CSE_ID (or web.providers.google-cse.cx), "
                "the search engine id.",
                provider=self.name,
            )
        base = self.base_params(query, options)

        async def page(start: int, num: int) -> tuple[list[Mapping[str, Any]], int | None]:
            """A page's items, and where the next page starts (None: there is none)."""
            answer = await self.call_api(
                "GET",
                "/customsearch/v1",
                params={**base, "start": start, "num": num},
                classify=classify,
            )
            report_usage(1, unit="request")  # each page answered is one query Google bills
            if not isinstance(answer, dict):
                raise ParseError(
                    "Google Custom Search answered with something other than a JSON object."
                )
            if "items" not in answer and answer.get("kind") != "customsearch#search":
                # ``items`` is left out when nothing matched, but every answer is a
                # ``customsearch#search``: ``{}`` (another service) is not "nothing found".
                raise ParseError(
                    "Google Custom Search answered without 'kind': 'customsearch#search' or "
                    "'items'; its answer is not in the shape Google documents.",
                    provider=self.name,
                )
            # absent, not [], when there are no results
            items = answer_objects(answer.get("items") or [], "items", "Google Custom Search")
            next_page = (answer.get("queries") or {}).get("nextPage") or []
            following = int(next_page[0].get("startIndex") or start + len(items)) if items and next_page else None
            return items, following

        items, start = await page(1, min(PAGE_SIZE, limit))
        hits = [_hit(item) for item in items]
        while start is not None and len(hits) < limit and start + PAGE_SIZE - 1 <= MAX_RESULTS:
            got = await later_page(self.name, len(hits), partial(page, start, min(PAGE_SIZE, limit - len(hits))))
            if got is None:
                break
            items, start = got
            hits += [_hit(item) for item in items]
        return hits[:limit]
