"""The ``bocha`` provider: ``POST /v1/web-search`` with freshness, domain filters and summaries.

Settings come from ``web.providers.bocha`` first, then the environment: ``api_key`` /
``BOCHA_API_KEY``, ``base_url`` / ``BOCHA_BASE_URL``, ``timeout`` (seconds) /
``BOCHA_TIMEOUT_MS`` (milliseconds), ``top_k_default`` / ``BOCHA_TOP_K_DEFAULT``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from webproviders import NotConfiguredError, ParseError
from webproviders.kit import (
    SWITCH,
    TEXT,
    VendorProvider,
    answer_objects,
    check_kinds,
    spelled,
    warn_unknown,
)

from .errors import classify

FRESHNESS = {"day": "oneDay", "week": "oneWeek", "month": "oneMonth", "year": "oneYear"}
#: Bocha's ``count`` range.
MIN_COUNT, MAX_COUNT = 1, 50
DEFAULT_TOP_K = 5


def _whole_number(value: Any, name: str) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise NotConfiguredError(f"{name} must be a whole number, not {value!r}.") from None
    if number <= 0:
        raise NotConfiguredError(f"{name} must be above 0, not {number}.")
    return number


def _hit(item: Mapping[str, Any]) -> dict[str, Any]:
    hit: dict[str, Any] = {
        "title": item.get("name"),
        "url": item.get("url"),
        # With summary=true Bocha adds a long ``summary``; it is the better description.
        "description": item.get("summary") or item.get("snippet"),
    }
    # dateLastCrawled is UTC+8 wall time marked "Z"; only datePublished is trustworthy.
    if item.get("datePublished"):
        hit["published_at"] = item["datePublished"]
    if item.get("siteName"):
        hit["site_name"] = item["siteName"]
    return hit


def hits_from(body: Any) -> list[dict[str, Any]]:
    """The web results of a successful answer (``data.webPages.value``)."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), dict):
        raise ParseError("Bocha answered without the documented 'data' object.")
    if not {"_type", "queryContext", "webPages"} & body["data"].keys():
        # Bocha's ``data`` is a Bing-style ``SearchResponse`` that names itself and echoes the
        # query, one that found nothing too: ``data: {}`` is not a search.
        raise ParseError(
            "Bocha answered with a 'data' object without '_type', 'queryContext' or 'webPages'; "
            "its answer is not in the shape Bocha documents."
        )
    pages = body["data"].get("webPages") or {}
    values = pages.get("value") if isinstance(pages, dict) else None
    return [_hit(item) for item in answer_objects(values, "webPages.value", "Bocha")]


class BochaProvider(VendorProvider):
    provider_name = "bocha"
    default_base_url = "https://api.bochaai.com"
    default_timeout = 15.0
    search_options = frozenset({"time_range", "include_domains", "exclude_domains"})

    def timeout(self) -> float:
        if self.settings.timeout:
            return self.settings.timeout
        raw = (os.environ.get("BOCHA_TIMEOUT_MS") or "").strip()
        return _whole_number(raw, "BOCHA_TIMEOUT_MS") / 1000 if raw else self.default_timeout

    def top_k_default(self) -> int:
        """Results asked for when a caller gives no ``limit`` (the provider called directly)."""
        configured = self.settings.option("top_k_default")
        name = "web.providers.bocha.top_k_default"
        if configured in (None, ""):
            configured, name = (
                (os.environ.get("BOCHA_TOP_K_DEFAULT") or "").strip(),
                "BOCHA_TOP_K_DEFAULT",
            )
        if not configured:
            return DEFAULT_TOP_K
        return min(MAX_COUNT, _whole_number(configured, name))

    def request_body(self, query: str, count: int, options: dict[str, Any]) -> dict[str, Any]:
        summary = options.get("summary", spelled(self.settings.option("summary", False)))  # "false" from a ${VAR}
        body: dict[str, Any] = {
            "query": query,
            "count": max(MIN_COUNT, min(MAX_COUNT, count)),
            "summary": bool(summary),
        }
        if options.get("freshness"):  # Bocha's own value, e.g. "2025-01-01..2025-03-31"
            body["freshness"] = str(options["freshness"])
        elif options.get("time_range"):
            body["freshness"] = FRESHNESS[options["time_range"]]
        if options.get("include_domains"):
            body["include"] = "|".join(options["include_domains"])
        if options.get("exclude_domains"):
            body["exclude"] = "|".join(options["exclude_domains"])
        return body

    async def search(
        self, query: str, limit: int | None = None, **options: Any
    ) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset({"summary", "freshness"}), search=True)
        check_kinds(self.name, options, {"summary": SWITCH, "freshness": TEXT})
        body = self.request_body(query, limit or self.top_k_default(), options)
        answer = await self.call_api("POST", "/v1/web-search", json=body, classify=classify)
        return hits_from(answer)
