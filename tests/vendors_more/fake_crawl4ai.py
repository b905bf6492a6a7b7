"""A stand-in ``crawl4ai`` module: the real one needs a browser, so tests inject this one.

It mirrors the parts of crawl4ai's API the provider uses: ``AsyncWebCrawler`` (an async
context manager with ``arun`` / ``arun_many``), ``BrowserConfig``, ``CrawlerRunConfig``,
``CacheMode``, and results shaped like ``CrawlResult`` whose ``markdown`` is a ``str``
subclass carrying ``raw_markdown`` / ``fit_markdown``.
"""

from __future__ import annotations

import asyncio
import enum
import importlib.machinery
import types
from dataclasses import dataclass, field
from typing import Any


class Markdown(str):
    """Like crawl4ai's StringCompatibleMarkdown: the raw markdown, plus the generator's fields."""

    raw_markdown: str
    fit_markdown: str | None

    def __new__(cls, raw: str, fit: str | None = None) -> Markdown:
        value = super().__new__(cls, raw)
        value.raw_markdown = raw
        value.fit_markdown = fit
        return value


@dataclass
class Result:
    url: str
    success: bool = True
    markdown: Markdown | None = None
    metadata: dict[str, Any] | None = None
    error_message: str | None = None
    status_code: int | None = 200
    redirected_url: str | None = None
    links: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"internal": [], "external": []}
    )
    html: str = ""


def page(
    url: str, title: str, text: str, links: tuple[str, ...] | list[str] = (), **extra: Any
) -> Result:
    """A successful result whose internal links are ``links``."""
    return Result(
        url=url,
        markdown=Markdown(f"# {title}\n\n{text}"),
        metadata={"title": title, "description": f"About {title}", **extra.pop("metadata", {})},
        links={
            "internal": [{"href": href, "text": href, "title": ""} for href in links],
            "external": [],
        },
        redirected_url=url,
        **extra,
    )


class CacheMode(enum.Enum):
    ENABLED = "enabled"
    BYPASS = "bypass"


class BrowserConfig:
    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs


class CrawlerRunConfig:
    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs


class Site:
    """What the fake browser sees: results by URL, plus a record of what it was asked."""

    def __init__(
        self,
        results: dict[str, Result],
        *,
        slow_after: int | None = None,
        launch_error: str | None = None,
    ):
        self.results = results
        self.slow_after = slow_after
        self.launch_error = launch_error
        self.batches: list[list[str]] = []
        self.run_configs: list[CrawlerRunConfig | None] = []
        self.crawlers: list[Any] = []

    def module(self) -> types.ModuleType:
        site = self

        class AsyncWebCrawler:
            def __init__(self, config: BrowserConfig | None = None, **kwargs: Any) -> None:
                self.config = config
                self.open = False
                site.crawlers.append(self)

            async def __aenter__(self) -> AsyncWebCrawler:
                if site.launch_error:
                    raise RuntimeError(site.launch_error)
                self.open = True
                return self

            async def __aexit__(self, *exc: object) -> None:
                self.open = False

            async def arun(self, url: str, config: CrawlerRunConfig | None = None) -> Result:
                return site.results.get(url) or Result(
                    url=url,
                    success=False,
                    error_message="net::ERR_NAME_NOT_RESOLVED",
                    status_code=None,
                )

            async def arun_many(
                self, urls: list[str], config: CrawlerRunConfig | None = None
            ) -> list[Result]:
                assert self.open, "arun_many called outside the crawler's context"
                site.batches.append(list(urls))
                site.run_configs.append(config)
                if site.slow_after is not None and len(site.batches) > site.slow_after:
                    await asyncio.sleep(30)
                results = [await self.arun(url, config) for url in urls]
                return list(reversed(results))  # completion order, not request order

        module = types.ModuleType("crawl4ai")
        module.__spec__ = importlib.machinery.ModuleSpec("crawl4ai", None)
        module.AsyncWebCrawler = AsyncWebCrawler  # type: ignore[attr-defined]
        module.BrowserConfig = BrowserConfig  # type: ignore[attr-defined]
        module.CrawlerRunConfig = CrawlerRunConfig  # type: ignore[attr-defined]
        module.CacheMode = CacheMode  # type: ignore[attr-defined]
        return module
