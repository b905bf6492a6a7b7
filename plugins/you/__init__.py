"""The ``you`` provider: You.com Web Search (``POST /v1/search``) and Contents (``/v1/contents``).

Search returns web hits; news hits are added only with ``include_news=True`` (You.com
sends them when it detects news intent). ``include_domains`` and ``exclude_domains`` cannot
be combined in one request, so when both are given the include list wins (with a warning).
Contents reads at most 10 URLs per request; larger calls are split.
"""

from __future__ import annotations

from typing import Any

from webproviders import PluginContext, ProviderError, WebProviderError, warn
from webproviders.kit import (
    SWITCH,
    Pacer,
    VendorProvider,
    check_kinds,
    gather_or_cancel,
    per_url_error,
    settle,
    url_key,
    warn_unknown,
)

from .codes import locale_fields
from .parse import classify, parse_contents, parse_hits

#: ``count`` is per section (web, news) and at most 100.
MAX_COUNT = 100
CONTENTS_BATCH = 10
#: You.com's bounds for ``crawl_timeout``, the seconds it waits for each page (10 unsaid).
CRAWL_TIMEOUT = (1, 60)


class YouProvider(VendorProvider):
    provider_name = "you"
    default_base_url = "https://ydc-index.io"
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"X-API-Key": key}

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset({"include_news"}), search=True)
        check_kinds(self.name, options, {"include_news": SWITCH})
        include_news = bool(options.get("include_news", False))
        body: dict[str, Any] = {"query": query, "count": min(limit, MAX_COUNT)}
        if options.get("time_range"):
            body["freshness"] = options["time_range"]
        body.update(locale_fields(options))
        if options.get("safe_search"):
            body["safesearch"] = options["safe_search"]
        include, exclude = (
            options.get("include_domains") or [],
            options.get("exclude_domains") or [],
        )
        if include:
            body["include_domains"] = list(include)
            if exclude:
                warn(
                    "you cannot combine include_domains with exclude_domains; "
                    "exclude_domains was ignored."
                )
        elif exclude:
            body["exclude_domains"] = list(exclude)
        data = await self.call_api("POST", "/v1/search", json=body, classify=classify)
        return parse_hits(data, include_news)

    async def _contents(self, urls: list[str], budget: float | None) -> list[dict[str, Any] | WebProviderError]:
        """One Contents request: a page or an error per URL (account errors fail the call)."""
        body: dict[str, Any] = {"urls": urls, "formats": ["markdown", "metadata"]}
        if budget is not None:
            # Each page's wait ends within the call's time, so that one slow page leaves
            # You.com time to answer with the others rather than losing the whole request.
            body["crawl_timeout"] = max(CRAWL_TIMEOUT[0], min(CRAWL_TIMEOUT[1], int(budget * 0.8)))
        try:
            data = await self.call_api("POST", "/v1/contents", json=body, classify=classify)
            pages = parse_contents(data)
        except Exception as exc:  # noqa: BLE001 - account errors fail the call, others each URL
            error = per_url_error(exc, self.name)
            return [error for _ in urls]
        missing = ProviderError("You.com returned no content for this URL.", provider=self.name)
        outcomes: list[dict[str, Any] | WebProviderError] = []
        for url in urls:
            page = pages.get(url_key(url))
            outcomes.append({**page, "url": url} if page else missing)
        return outcomes

    async def _in_time(
        self, urls: list[str], budget: float | None, pacer: Pacer
    ) -> list[dict[str, Any] | WebProviderError]:
        """One Contents request, ended a little before the call's deadline: its URLs are then
        ``timeout`` items, and the other requests' pages are kept. Each request after the
        first waits for its slot of the request budget; with none in time its URLs are not asked."""
        import asyncio

        from webproviders.kit import unread_by_deadline, within

        async def paced() -> list[dict[str, Any] | WebProviderError]:
            try:
                await pacer.slot(budget)
            except WebProviderError as exc:
                return [exc for _ in urls]
            return await self._contents(urls, budget)

        try:
            return await within(paced(), budget)
        except asyncio.TimeoutError:
            late = unread_by_deadline("You.com had not read this page by the call's deadline.", self.name, "You.com")
            return [late for _ in urls]

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        from webproviders.kit import time_budget

        warn_unknown(self.name, kwargs, frozenset())
        batches = [urls[i : i + CONTENTS_BATCH] for i in range(0, len(urls), CONTENTS_BATCH)]
        budget = time_budget(self.settings)
        pacer = Pacer()
        results = await gather_or_cancel(self._in_time(batch, budget, pacer) for batch in batches)
        return settle(urls, [outcome for batch in results for outcome in batch])


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(YouProvider(ctx.config))
