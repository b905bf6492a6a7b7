"""The Brave Search provider (``brave`` and ``brave-free``)."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from webproviders import Config, report_usage, warn
from webproviders.kit import VendorProvider, capped_count, later_page, spelled, warn_unknown

from .errors import classify
from .params import MAX_COUNT, MAX_OFFSET, build_params
from .parse import altered_query, more_results, parse_results

_API_PREFIX = "/res/v1"


class BraveProvider(VendorProvider):
    """Brave Search web API: ``GET /res/v1/web/search`` with ``X-Subscription-Token``.

    Search only. Domains are filtered with ``site:`` operators in the query; ``<strong>``
    highlighting is stripped from titles and descriptions. Brave serves 20 results a request,
    so a larger ``limit`` reads the next pages (``offset``), each one a request Brave bills;
    ``brave-free`` does not, its plan taking one request a second.
    """

    provider_name: ClassVar[str] = "brave"
    default_base_url: ClassVar[str] = "https://api.search.brave.com"
    default_timeout: ClassVar[float] = 15.0
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    def __init__(self, config: Config, name: str = "brave", *, pages: bool = True) -> None:
        super().__init__(config, name)
        self.pages = pages

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"X-Subscription-Token": key}

    def _path(self) -> str:
        # A base_url that already ends in /res/v1 (copied from Brave's docs) works too.
        return (
            "/web/search" if self.base_url().endswith(_API_PREFIX) else f"{_API_PREFIX}/web/search"
        )

    async def _page(self, params: dict[str, Any], offset: int) -> Any:
        body = await self.call_api(
            "GET",
            self._path(),
            headers={"Accept": "application/json"},
            params={**params, "offset": offset} if offset else params,
            classify=partial(classify, self.name),
        )
        report_usage(1, unit="request")  # each page is a request Brave bills
        return body

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset(), search=True)
        count = min(limit, MAX_COUNT) if self.pages else capped_count(self.name, limit, MAX_COUNT)
        params = build_params(self.name, query, count, options)
        # Brave sends a hit's other excerpts only when asked, and only to plans that have them
        # (another answers OPTION_NOT_IN_PLAN): asked for when the set-up says so.
        if spelled(self.settings.option("extra_snippets", False)) is True:
            params["extra_snippets"] = "true"
        body = await self._page(params, 0)
        altered = altered_query(body)
        if altered:
            warn(
                f"{self.name} searched for '{altered}' (spelling corrected) "
                "instead of the query as given."
            )
        hits = parse_results(self.name, body)
        offset = 0
        # Each page is billed: a limit one request covers is never paged for, nor brave-free's.
        while self.pages and hits and limit > count and len(hits) < limit and offset < MAX_OFFSET:
            if not more_results(body, count):
                break
            offset += 1
            body = await later_page(self.name, len(hits), partial(self._page, params, offset))
            if body is None:
                break
            page = parse_results(self.name, body)
            if not page:
                break
            hits += page
        return hits
