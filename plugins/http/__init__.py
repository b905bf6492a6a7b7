"""The ``http`` provider: read pages and crawl sites with no API key.

Pages are fetched by the shared safe-fetching layer (:mod:`webproviders.fetch`: URL safety,
pinned connections, size and time limits) and turned into markdown by trafilatura, one page
at a time (:mod:`webproviders.extraction`). It is always available and, with priority 90,
the extract and crawl backend when nothing else is configured. See docs/providers/http.md.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from webproviders import PluginContext, WebSearchProvider, warn
from webproviders.config import Config
from webproviders.crawler import Crawler, CrawlOptions
from webproviders.envelope import page_error
from webproviders.errors import WebProviderError, WebTimeoutError
from webproviders.exceptions import to_provider_error
from webproviders.fetch import fetch, status_error
from webproviders.options import FetchLimits, time_budget
from webproviders.pages import PageOptions, render
from webproviders.politeness import HostLimiter

NAME = "http"


class HTTPProvider(WebSearchProvider):
    """Extract and crawl over plain HTTP; no search."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def name(self) -> str:
        return NAME

    @property
    def display_name(self) -> str:
        return "HTTP fetch (keyless)"

    def is_available(self) -> bool:
        return True

    def supports_search(self) -> bool:
        return False

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self.display_name, "badge": "free", "tag": "keyless", "env_vars": []}

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        """One item per URL, in input order; a URL that fails is an item with ``error``."""
        settings = self.config.provider(NAME)
        options = PageOptions.from_kwargs(kwargs)
        limits = FetchLimits.from_kwargs(kwargs, settings)
        limiter = HostLimiter(limits.concurrency, limits.per_host_concurrency, limits.delay)
        budget = time_budget(settings)
        loop = asyncio.get_running_loop()
        stop_at = None if budget is None else loop.time() + budget

        async def read(url: str) -> dict[str, Any]:
            async with limiter.slot((urlsplit(url).hostname or "").lower()):
                left = limits.url_timeout if stop_at is None else min(limits.url_timeout, stop_at - loop.time())
                result = await fetch(url, self.config, timeout=left)
            error = status_error(result)
            if error is not None:
                raise error
            return (await render(result, options)).item

        async def one(url: str) -> dict[str, Any]:
            try:
                if stop_at is None:
                    return await read(url)
                return await asyncio.wait_for(read(url), max(0.0, stop_at - loop.time()))
            except asyncio.TimeoutError:
                return page_error(url, WebTimeoutError(
                    f"{url} could not be read before the call's time limit.", provider=NAME))
            except WebProviderError as exc:
                exc.provider = exc.provider or NAME
                item = page_error(url, exc)
                if exc.status_code:
                    item["metadata"]["status_code"] = exc.status_code
                return item
            except Exception as exc:  # noqa: BLE001 - one bad page must not fail the batch
                return page_error(url, to_provider_error(exc, NAME))

        jobs = {url: asyncio.ensure_future(one(url)) for url in dict.fromkeys(urls)}
        await asyncio.gather(*jobs.values())
        return [dict(jobs[url].result()) for url in urls]

    async def crawl(self, url: str, **kwargs: Any) -> list[dict[str, Any]]:
        """Pages reached from ``url``, shallow first, in discovery order, ``depth`` in metadata."""
        settings = self.config.provider(NAME)
        options, notes = CrawlOptions.from_kwargs(kwargs, settings)
        for note in notes:
            warn(note)
        return await Crawler(self.config, options, budget=time_budget(settings)).run(url)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(HTTPProvider(ctx.config))
