"""The Brave Search provider (``brave`` and ``brave-free``)."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from webproviders import Config, warn
from webproviders.kit import VendorProvider, warn_unknown

from .errors import classify
from .params import build_params
from .parse import altered_query, parse_results

_API_PREFIX = "/res/v1"


class BraveProvider(VendorProvider):
    """Brave Search web API: ``GET /res/v1/web/search`` with ``X-Subscription-Token``.

    Search only. Domains are filtered with ``site:`` operators in the query; ``<strong>``
    highlighting is stripped from titles and descriptions.
    """

    provider_name: ClassVar[str] = "brave"
    default_base_url: ClassVar[str] = "https://api.search.brave.com"
    default_timeout: ClassVar[float] = 15.0
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    def __init__(self, config: Config, name: str = "brave") -> None:
        super().__init__(config, name)

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"X-Subscription-Token": key}

    def _path(self) -> str:
        # A base_url that already ends in /res/v1 (copied from Brave's docs) works too.
        return (
            "/web/search" if self.base_url().endswith(_API_PREFIX) else f"{_API_PREFIX}/web/search"
        )

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset(), search=True)
        params = build_params(self.name, query, limit, options)
        body = await self.call_api(
            "GET",
            self._path(),
            headers={"Accept": "application/json"},
            params=params,
            classify=partial(classify, self.name),
        )
        altered = altered_query(body)
        if altered:
            warn(
                f"{self.name} searched for '{altered}' (spelling corrected) "
                "instead of the query as given."
            )
        return parse_results(self.name, body)
