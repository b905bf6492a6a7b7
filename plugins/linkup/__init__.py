"""The ``linkup`` provider: Linkup ``/search`` (raw ``searchResults``) and ``/fetch`` for extract.

Search depth is ``standard`` unless the call passes ``depth=`` or the config sets
``web.providers.linkup.depth`` (``flash``, ``fast``, ``standard`` or ``deep``; deep costs
more and is slower). ``time_range`` becomes ``fromDate``; there is no country, language or safe-search
control.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from webproviders import InvalidInputError, PluginContext, report_usage
from webproviders.kit import SWITCH, VendorProvider, check_kinds, fetch_each, spelled, warn_unknown

from .parse import NoResults, classify, parse_hits, parse_page

DEPTHS = ("flash", "fast", "standard", "deep")
_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
FETCH_CONCURRENCY = 5
#: Linkup bills a deep search as ten standard ones and a page fetched with JavaScript as five
#: plain ones; the manifest's prices are the standard search's and the plain fetch's.
DEEP_SEARCH_REQUESTS = 10
RENDERED_PAGE_URLS = 5


def from_date(time_range: str, today: date | None = None) -> str:
    """The first day a ``time_range`` covers, as Linkup's ``YYYY-MM-DD``."""
    return ((today or date.today()) - timedelta(days=_DAYS[time_range])).isoformat()


class LinkupProvider(VendorProvider):
    provider_name = "linkup"
    default_base_url = "https://api.linkup.so/v1"
    search_options = frozenset({"include_domains", "exclude_domains", "time_range"})

    def _depth(self, options: dict[str, Any]) -> str:
        depth = options.get("depth") or self.settings.option("depth") or "standard"
        if depth not in DEPTHS:
            raise InvalidInputError(
                f"linkup depth must be one of {', '.join(DEPTHS)}; got {depth!r}."
            )
        return str(depth)

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset({"depth"}), search=True)
        body: dict[str, Any] = {
            "q": query,
            "depth": self._depth(options),
            "outputType": "searchResults",
            "maxResults": limit,
        }
        if options.get("include_domains"):
            body["includeDomains"] = list(options["include_domains"])
        if options.get("exclude_domains"):
            body["excludeDomains"] = list(options["exclude_domains"])
        if options.get("time_range"):
            body["fromDate"] = from_date(options["time_range"])
        try:
            data = await self.call_api("POST", "/search", json=body, classify=classify)
        except NoResults:
            return []
        if body["depth"] == "deep":
            report_usage(DEEP_SEARCH_REQUESTS, unit="request")
        return parse_hits(data)

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, kwargs, frozenset({"render_js"}))
        # bool("false") is True: JavaScript rendering at five times the price
        check_kinds(self.name, kwargs, {"render_js": SWITCH})
        render_js = kwargs.get("render_js", spelled(self.settings.option("render_js")))  # "false" from a ${VAR}

        async def fetch(url: str) -> dict[str, Any]:
            body: dict[str, Any] = {"url": url}
            if render_js is not None:
                body["renderJs"] = bool(render_js)
            data = await self.call_api("POST", "/fetch", json=body, classify=classify)
            page = parse_page(data, url)
            if body.get("renderJs"):
                report_usage(RENDERED_PAGE_URLS, unit="url")
            return page

        return await fetch_each(urls, fetch, provider=self.name, concurrency=FETCH_CONCURRENCY, settings=self.settings)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(LinkupProvider(ctx.config))
