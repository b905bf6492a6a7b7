"""The ``http`` provider: read pages and crawl sites with no API key.

Pages are fetched by the shared safe-fetching layer (:mod:`webproviders.fetching.fetch`: URL safety,
pinned connections, size and time limits) and turned into markdown by trafilatura, one page
at a time (:mod:`webproviders.fetching.extraction`). It is always available and, with priority 90,
the extract and crawl backend when nothing else is configured. See docs/providers/http.md.
"""

from __future__ import annotations

from typing import Any

from webproviders import Config, PluginContext, WebSearchProvider
from webproviders.kit import import_off_loop

NAME = "http"
#: The fetching and crawling code, with the HTTP stack under it: imported off the event loop.
READER = f"{__name__}.reader"


class HTTPProvider(WebSearchProvider):
    """Extract and crawl over plain HTTP; no search."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def name(self) -> str:
        return NAME

    def is_available(self) -> bool:
        return True

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        """One item per URL, in input order; a URL that fails is an item with ``error``."""
        await import_off_loop(READER)
        from .reader import extract_pages

        return await extract_pages(self.config, urls, **kwargs)

    async def crawl(self, url: str, **kwargs: Any) -> list[dict[str, Any]]:
        """Pages reached from ``url``, shallow first, in discovery order, ``depth`` in metadata."""
        await import_off_loop(READER)
        from .reader import crawl_site

        return await crawl_site(self.config, url, **kwargs)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(HTTPProvider(ctx.config))
