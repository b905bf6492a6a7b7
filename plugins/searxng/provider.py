"""The SearXNG provider: ``GET <instance>/search?format=json``."""

from __future__ import annotations

import os
from functools import partial
from typing import Any, ClassVar

from webproviders import warn
from webproviders.kit import VendorProvider, get_logger

from .errors import classify
from .params import build_params, domain_filter
from .parse import parse_results, unresponsive

log = get_logger("webproviders.searxng")

#: Milliseconds, read when web.providers.searxng.timeout is not set (first one set wins).
TIMEOUT_ENV = ("SEARXNG_TIMEOUT_MS", "WEB_SEARCH_TIMEOUT_MS")
#: SearXNG's bot limiter refuses requests without Accept-Language; sent when no lang is given.
DEFAULT_ACCEPT_LANGUAGE = "en-US,en;q=0.9"


class SearxngProvider(VendorProvider):
    """A SearXNG instance the operator configured (trusted even on localhost).

    No key is needed; ``SEARXNG_API_KEY`` is sent as a Bearer token (or in the header named
    by ``web.providers.searxng.api_key_header``) for instances behind an authenticating proxy.
    """

    provider_name: ClassVar[str] = "searxng"
    default_timeout: ClassVar[float] = 20.0
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    def base_url(self) -> str:
        url = super().base_url()
        # Accept the search endpoint itself (".../search") as well as the instance root.
        return url.removesuffix("/search")

    def timeout(self) -> float:
        if self.settings.timeout:
            return self.settings.timeout
        for var in TIMEOUT_ENV:
            raw = (os.environ.get(var) or "").strip()
            if not raw:
                continue
            try:
                millis = float(raw)
            except ValueError:
                millis = 0.0
            if millis > 0:
                return millis / 1000
            log.warning("%s=%r is not a positive number of milliseconds; ignored.", var, raw)
        return self.default_timeout

    def auth_headers(self, key: str) -> dict[str, str]:
        header = self.settings.option("api_key_header")
        return {str(header): key} if header else {"Authorization": f"Bearer {key}"}

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        params = build_params(self.name, query, options, self.settings.option)
        headers = {
            "Accept": "application/json",
            "Accept-Language": options.get("lang")
            or self.settings.option("accept_language", DEFAULT_ACCEPT_LANGUAGE),
        }
        body = await self.call_api(
            "GET",
            "/search",
            headers=headers,
            params=params,
            classify=partial(classify, self.name, self.base_url(), bool(self.api_keys())),
        )
        silent = unresponsive(body)
        if silent:
            warn(f"{self.name}: some engines did not answer: {', '.join(silent)}.")
        return parse_results(self.name, body, limit, domain_filter(options))
