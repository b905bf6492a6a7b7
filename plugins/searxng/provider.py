"""The SearXNG provider: ``GET <instance>/search?format=json``.

An instance answers a page of results at a time (10 to 20 or so, merged from its engines),
so a larger ``limit`` reads the next pages (``pageno``) until it is met, a page brings
nothing new, or :data:`MAX_PAGES` were read; a later page that fails or would miss the
deadline ends the paging with the pages read (``kit.later_page``).
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any, ClassVar

from webproviders import BadGatewayError, warn
from webproviders.kit import VendorProvider, get_logger, later_page, warn_unknown

from .errors import classify
from .params import build_params, domain_filter
from .parse import parse_results, unresponsive

log = get_logger("webproviders.searxng")

#: Milliseconds, read when web.providers.searxng.timeout is not set (first one set wins).
TIMEOUT_ENV = ("SEARXNG_TIMEOUT_MS", "WEB_SEARCH_TIMEOUT_MS")
#: SearXNG's bot limiter refuses requests without Accept-Language; sent when no lang is given.
DEFAULT_ACCEPT_LANGUAGE = "en-US,en;q=0.9"
#: Pages one search reads at most: each asks every engine of the instance again.
MAX_PAGES = 5


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
        warn_unknown(self.name, options, frozenset({"categories", "engines"}), search=True)
        params = build_params(self.name, query, options, self.settings.option)
        headers = {
            "Accept": "application/json",
            "Accept-Language": options.get("lang")
            or self.settings.option("accept_language", DEFAULT_ACCEPT_LANGUAGE),
        }
        check = partial(classify, self.name, self.base_url(), bool(self.api_keys()))
        silent: dict[str, None] = {}  # engines that did not answer, in order, across pages
        wanted = domain_filter(options)
        seen: set[str] = set()  # every URL the pages read so far held
        hits: list[dict[str, Any]] = []

        async def page(number: int) -> bool:
            """Read page ``number`` into ``hits``; whether it held any URL not read before."""
            body = await self.call_api("GET", "/search", headers=headers, params={**params, "pageno": number}, classify=check)
            silent.update(dict.fromkeys(unresponsive(body)))
            before = len(seen)
            hits.extend(parse_results(self.name, body, limit - len(hits), wanted, seen))
            return len(seen) > before

        fresh, number = await page(1), 1
        if not seen and silent:
            # SearXNG lists the engines that failed, never those that answered: an empty
            # page beside failed engines cannot say that nothing matched.
            raise BadGatewayError(
                f"{self.name} at {self.base_url()} found no results, and its engines did not answer: "
                f"{', '.join(silent)}. Wait for them (SearXNG suspends an engine after a CAPTCHA "
                "or a rate limit) or enable other engines in the instance's settings.yml.",
                provider=self.name,
            )
        while fresh and len(hits) < limit and number < MAX_PAGES:  # a page of repeats ends it
            number += 1
            fresh = bool(await later_page(self.name, len(hits), partial(page, number)))
        if silent:
            warn(f"{self.name}: some engines did not answer: {', '.join(silent)}.")
        return hits
