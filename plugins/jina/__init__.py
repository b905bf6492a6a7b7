"""The ``jina`` provider: Jina Search (``s.jina.ai``) and the Jina Reader (``r.jina.ai``).

The reader works without a key (at a low, per-IP rate), so the provider is always
available; search needs ``JINA_API_KEY`` and says so when it is missing. Search asks for
the SERP only (``X-Respond-With: no-content``) unless ``include_content=True`` (then each
hit carries the page markdown as ``raw_content``); it serves 20 hits a request, so a larger
``limit`` reads the next pages (``page``). The reader is called with
``POST {"url": ...}`` so the target URL never has to be escaped into a path.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from webproviders import NotConfiguredError, PluginContext, report_usage
from webproviders.kit import (
    SWITCH,
    VendorProvider,
    check_kinds,
    endpoint_problem,
    fetch_each,
    later_page,
    site_query,
    warn_unknown,
)

from .locales import jina_country, jina_language
from .parse import NoResults, classify, classify_search, parse_hits, parse_page

#: Jina's search returns at most 20 hits per request (a page).
MAX_NUM = 20
#: Pages one search reads at most: enough for the largest limit a call may ask.
MAX_PAGES = 3
DEFAULT_READER_URL = "https://r.jina.ai"
#: Reader requests in flight at once for one extract call.
READER_CONCURRENCY = 5


class JinaProvider(VendorProvider):
    provider_name = "jina"
    default_base_url = "https://s.jina.ai"
    search_options = frozenset({"include_domains", "exclude_domains", "country", "lang"})

    def reader_url(self) -> str:
        """``reader_url`` when set; else a ``base_url`` the operator set (a gateway, or the one
        way out of a machine, takes both kinds of request: they differ by body); else Jina's."""
        configured = self.settings.option("reader_url")
        if configured:
            return str(configured).rstrip("/")
        base = self.base_url()
        return base if base != self.default_base_url else DEFAULT_READER_URL

    def base_url_problem(self) -> str | None:
        """The search endpoint's problem, else the reader's: either one makes jina unavailable."""
        return super().base_url_problem() or endpoint_problem(self.reader_url(), "web.providers.jina.reader_url")

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset({"include_content"}), search=True)
        check_kinds(self.name, options, {"include_content": SWITCH})
        if not self.api_keys():
            raise NotConfiguredError(
                "Jina search needs JINA_API_KEY (or web.providers.jina.api_key); "
                "only the Jina reader (extract) works without a key.",
                provider=self.name,
            )
        with_content = bool(options.get("include_content", False))
        num = min(limit, MAX_NUM)
        body: dict[str, Any] = {
            "q": site_query(query, exclude=options.get("exclude_domains") or []),
            "num": num,
        }
        if options.get("include_domains"):
            body["site"] = list(options["include_domains"])
        # Jina checks gl against its country list and hl against Google's interface languages
        gl = jina_country(str(options["country"])) if options.get("country") else None
        if gl:
            body["gl"] = gl
        hl = jina_language(str(options["lang"])) if options.get("lang") else None
        if hl:
            body["hl"] = hl
        headers = {"Accept": "application/json"}
        if not with_content:
            headers["X-Respond-With"] = "no-content"

        async def page(number: int) -> list[dict[str, Any]]:
            """Page ``number`` of ``num`` hits (1 is the first); none past the last one."""
            try:
                data = await self.call_api(
                    "POST",
                    "/",
                    json={**body, "page": number} if number > 1 else body,
                    headers=headers,
                    classify=classify_search,
                )
            except NoResults:
                return []
            report_usage(1, unit="request")  # each page is a search Jina bills
            return parse_hits(data, with_content)

        hits = await page(1)
        # Jina serves 20 hits a request: a larger limit reads the next pages, each one billed.
        for number in range(2, MAX_PAGES + 1):
            if len(hits) >= limit or len(hits) < num * (number - 1):  # a short page was the last
                break
            more = await later_page(self.name, len(hits), partial(page, number))
            if not more:
                break
            hits += more
        return hits

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        # The reader takes a URL and nothing else: its markdown is what comes back.
        warn_unknown(self.name, kwargs, frozenset())

        async def read(url: str) -> dict[str, Any]:
            data = await self.call_api(
                "POST",
                self.reader_url() + "/",
                json={"url": url},
                headers={"Accept": "application/json", "X-Return-Format": "markdown"},
                classify=classify,
            )
            return parse_page(data, url)

        return await fetch_each(urls, read, provider=self.name, concurrency=READER_CONCURRENCY, settings=self.settings)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(JinaProvider(ctx.config))
