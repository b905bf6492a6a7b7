"""The ``kagi`` provider: Kagi's Search API v0 (``GET /search``, ``Authorization: Bot <token>``).

The API has no country, language, safe-search or date parameters (account settings apply);
domain filters are written into the query as ``site:`` / ``-site:`` operators, which Kagi
honours. The remaining prepaid balance is reported as ``meta.api_balance``.
"""

from __future__ import annotations

from typing import Any

from webproviders import PluginContext
from webproviders.kit import VendorProvider, site_query, warn_unknown

from .parse import classify, parse


class KagiProvider(VendorProvider):
    provider_name = "kagi"
    default_base_url = "https://kagi.com/api/v0"
    search_options = frozenset({"include_domains", "exclude_domains"})

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bot {key}"}

    async def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
        warn_unknown(self.name, options, frozenset(), search=True)
        q = site_query(
            query,
            options.get("include_domains") or [],
            options.get("exclude_domains") or [],
            group=True,
        )
        data = await self.call_api(
            "GET", "/search", params={"q": q, "limit": limit}, classify=classify
        )
        return parse(data)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(KagiProvider(ctx.config))
