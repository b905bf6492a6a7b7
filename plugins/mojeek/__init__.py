"""The ``mojeek`` provider: the Mojeek Search API (``GET /search?fmt=json``, key in ``api_key``).

Mojeek runs its own index. ``time_range`` becomes ``since=YYYYMMDD``; ``include_domains``
becomes ``site`` (one site per request: the first is used, with a warning when there are
more); ``country`` and ``lang`` become the region and language *boosts* ``rb`` / ``lb``
(they rank matching pages higher, they do not filter). Exclusions and safe search are not
offered by the API.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from webproviders import PluginContext, warn
from webproviders.kit import VendorProvider, language_code, warn_unknown

from .parse import classify, parse_hits

_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
#: Boost strength (1-100) for ``rb`` / ``lb``; Mojeek recommends 10.
BOOST = 10


def since(time_range: str, today: date | None = None) -> str:
    """Mojeek's ``since`` as ``YYYYMMDD`` (its own ``day|month|year`` has no week)."""
    return ((today or date.today()) - timedelta(days=_DAYS[time_range])).strftime("%Y%m%d")


class MojeekProvider(VendorProvider):
    provider_name = "mojeek"
    key_param = "api_key"
    default_base_url = "https://api.mojeek.com"
    search_options = frozenset({"time_range", "include_domains", "country", "lang"})

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset(), search=True)
        params: dict[str, Any] = {"q": query, "t": limit, "fmt": "json"}
        include = options.get("include_domains") or []
        if include:
            params["site"] = include[0]
            if len(include) > 1:
                warn(f"mojeek restricts a search to one site; only {include[0]} was used.")
        if options.get("time_range"):
            params["since"] = since(options["time_range"])
        if options.get("country"):
            params.update(rb=str(options["country"]).upper(), rbb=BOOST)
        if options.get("lang"):
            params.update(lb=language_code(options["lang"]).upper(), lbb=BOOST)
        data = await self.call_api("GET", "/search", params=params, classify=classify)
        return parse_hits(data)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(MojeekProvider(ctx.config))
