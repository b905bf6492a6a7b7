"""The ``ddgs`` provider: keyless metasearch through the ``ddgs`` package.

``ddgs`` is sync, can hang, and reports rate limits as a generic "No results found" error.
The dispatcher runs it in a worker thread under the call deadline (and ddgs gets its own
request timeout); "No results found" becomes an empty success with a warning in
``meta.warnings`` (see docs/providers.md), never a silent nothing.
"""

from __future__ import annotations

from typing import Any

from webproviders import (
    Config,
    NetworkError,
    PluginContext,
    WebSearchProvider,
    WebTimeoutError,
    warn,
)
from webproviders.kit import site_query

_TIMELIMIT = {"day": "d", "week": "w", "month": "m", "year": "y"}
_SAFESEARCH = {"off": "off", "moderate": "moderate", "strict": "on"}
NO_RESULTS_WARNING = (
    "ddgs found no results. ddgs reports rate limits the same way, so if this query should "
    "have results, wait a minute or use another backend."
)


class DDGSProvider(WebSearchProvider):
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def name(self) -> str:
        return "ddgs"

    def is_available(self) -> bool:
        return self.packages_installed()

    def _region(self, options: dict[str, Any]) -> str:
        settings = self.config.provider(self.name)
        country, lang = options.get("country"), options.get("lang")
        if country or lang:
            return f"{(country or 'us').lower()}-{(lang or 'en').lower()}"
        return str(settings.option("region", "us-en"))

    def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        from ddgs import DDGS
        from ddgs.exceptions import DDGSException, TimeoutException

        settings = self.config.provider(self.name)
        request_timeout = int(settings.timeout or 10)
        text = site_query(
            query, options.get("include_domains", []), options.get("exclude_domains", [])
        )
        try:
            with DDGS(proxy=self.config.web.proxy, timeout=request_timeout) as client:
                results = client.text(
                    text,
                    region=self._region(options),
                    safesearch=_SAFESEARCH[options.get("safe_search", "moderate")],
                    timelimit=_TIMELIMIT.get(options.get("time_range", "")),
                    max_results=limit,
                    backend=str(settings.option("backend", "auto")),
                )
        except TimeoutException as exc:
            raise WebTimeoutError(f"ddgs timed out: {exc}", provider=self.name) from None
        except DDGSException as exc:
            if "no results" in str(exc).lower():
                warn(NO_RESULTS_WARNING)
                return []
            raise NetworkError(f"ddgs could not get results: {exc}", provider=self.name) from None
        return [
            {"title": r.get("title", ""), "url": r.get("href", ""), "description": r.get("body", "")}
            for r in results or []
        ]


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(DDGSProvider(ctx.config))
