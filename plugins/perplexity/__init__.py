"""The ``perplexity`` provider: Perplexity's Search API (``POST /search``).

It returns ranked pages with long extracted snippets, not a generated answer. Domains go
into ``search_domain_filter`` (``-`` prefix to exclude; one mode per request, at most 20),
``time_range`` into ``search_recency_filter``, ``lang`` into ``search_language_filter``.
There is no safe-search control.
"""

from __future__ import annotations

from typing import Any

from webproviders import InvalidInputError, PluginContext, warn
from webproviders.kit import VendorProvider, capped_count, language_code, warn_unknown

from .parse import classify, parse_hits

#: The Search API returns at most 20 web results per request.
MAX_RESULTS = 20
MAX_DOMAINS = 20


def domain_filter(include: list[str], exclude: list[str]) -> list[str]:
    """``search_domain_filter``: an allow list or a deny list, never both."""
    if include and exclude:
        warn(
            "perplexity filters domains in one mode per request; exclude_domains was ignored "
            "because include_domains already limits the results."
        )
    chosen = list(include) if include else [f"-{domain}" for domain in exclude]
    if len(chosen) > MAX_DOMAINS:
        raise InvalidInputError(
            f"perplexity accepts at most {MAX_DOMAINS} domains in its filter; "
            f"{len(chosen)} were given."
        )
    return chosen


def language_filter(lang: str) -> dict[str, list[str]]:
    """``search_language_filter`` for a language tag. Perplexity takes two-letter ISO 639-1
    codes only and refuses the whole search for another (``fil``, ``haw``), as the caller's
    invalid_input that stops a chain: such a language is left out with a warning instead."""
    code = language_code(lang)
    if len(code) == 2:
        return {"search_language_filter": [code]}
    warn(f"perplexity filters by two-letter ISO 639-1 language codes only; lang '{lang}' was ignored.")
    return {}


class PerplexityProvider(VendorProvider):
    provider_name = "perplexity"
    default_base_url = "https://api.perplexity.ai"
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang"}
    )

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset(), search=True)
        body: dict[str, Any] = {
            "query": query,
            "max_results": capped_count(self.name, limit, MAX_RESULTS),
        }
        domains = domain_filter(
            options.get("include_domains") or [], options.get("exclude_domains") or []
        )
        if domains:
            body["search_domain_filter"] = domains
        if options.get("time_range"):
            body["search_recency_filter"] = options["time_range"]
        if options.get("country"):
            body["country"] = str(options["country"]).upper()
        if options.get("lang"):
            body.update(language_filter(str(options["lang"])))
        data = await self.call_api("POST", "/search", json=body, classify=classify)
        return parse_hits(data)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(PerplexityProvider(ctx.config))
