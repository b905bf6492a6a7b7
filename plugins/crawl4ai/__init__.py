"""The ``crawl4ai`` provider: extract and crawl with a local headless browser via ``crawl4ai``.

Needs ``pip install 'webproviders[crawl4ai]'`` and then ``crawl4ai-setup`` (installs the
Playwright browser). Each call starts one browser and closes it when done. URLs are checked
with the shared URL-safety rules (names resolved, private addresses refused unless allowed)
before the browser sees them, and a page the browser was redirected to is screened before
its content is returned; the browser resolves names again itself, so a host whose DNS
changes between the two lookups is not caught. Crawling is a
breadth-first walk over same-host links (``max_pages``, ``max_depth``), one ``arun_many``
per level; when the call deadline comes close it stops and returns the pages so far with a
warning. The package is imported only inside the methods that use it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from webproviders import (
    Config,
    InvalidInputError,
    NotConfiguredError,
    PluginContext,
    ProviderError,
    UnsafeURLError,
    WebProviderError,
    WebSearchProvider,
    remaining_time,
    warn,
)
from webproviders.kit import (
    AddressPolicy,
    check_destination_resolved,
    host_of,
    import_packages,
    page_error,
    warn_unknown,
    within,
)

from .pages import internal_links, to_page

DEFAULT_MAX_PAGES = 10
MAX_PAGES_CAP = 100
DEFAULT_MAX_DEPTH = 2
#: Seconds kept back from the call deadline so pages crawled so far can still be returned.
DEADLINE_MARGIN = 2.0
DEFAULT_PAGE_TIMEOUT = 30.0
#: What a crawl reads of its options (an extract reads none; both are told of the rest).
CRAWL_OPTIONS = frozenset({"max_pages", "limit", "max_depth"})
_MISSING_BROWSER = ("playwright install", "executable doesn't exist", "crawl4ai-setup")


def _key(url: Any) -> str:
    """Match a result to the URL asked for despite a trailing-slash difference."""
    return url.rstrip("/") if isinstance(url, str) else ""


def _whole_number(
    kwargs: dict[str, Any], names: tuple[str, ...], default: int, low: int, high: int
) -> int:
    value = next((kwargs[n] for n in names if kwargs.get(n) is not None), default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(
            f"{names[0]} must be a whole number from {low} to {high}; got {value!r}."
        )
    return value



def browser_proxy(proxy: str) -> dict[str, str]:
    """``web.proxy`` as the browser takes it: the server without ``user:pass@`` (Playwright
    refuses or drops credentials in it), and those as ``username`` / ``password``."""
    parts = urlsplit(proxy)
    server = {"server": f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"}
    if parts.username is None:
        return server
    return {**server, "username": unquote(parts.username), "password": unquote(parts.password or "")}

class Crawl4AIProvider(WebSearchProvider):
    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def name(self) -> str:
        return "crawl4ai"

    def is_available(self) -> bool:
        return self.packages_installed()

    def _page_timeout_ms(self) -> int:
        """``web.providers.crawl4ai.page_timeout`` (seconds per page), within the call deadline."""
        settings = self.config.provider(self.name)
        seconds = float(settings.number("page_timeout", DEFAULT_PAGE_TIMEOUT, whole=False))
        left = remaining_time()
        if left is not None:
            seconds = max(1.0, min(seconds, left - DEADLINE_MARGIN))
        return int(seconds * 1000)

    def _configs(self) -> tuple[Any, Any, Any]:
        """``(AsyncWebCrawler, browser config, run config)``, importing crawl4ai now."""
        from crawl4ai import AsyncWebCrawler, BrowserConfig, CacheMode, CrawlerRunConfig

        browser: dict[str, Any] = {"headless": True, "verbose": False}
        if self.config.web.user_agent:
            browser["user_agent"] = self.config.web.user_agent
        if self.config.web.proxy:
            browser["proxy_config"] = browser_proxy(self.config.web.proxy)
        run = CrawlerRunConfig(
            cache_mode=CacheMode.BYPASS, page_timeout=self._page_timeout_ms(), verbose=False
        )
        return AsyncWebCrawler, BrowserConfig(**browser), run

    async def _with_crawler(self, work: Any) -> Any:
        """Start a browser, run ``work(crawler, run_config)``, close the browser."""
        await import_packages(self)
        crawler_class, browser, run = self._configs()
        try:
            async with crawler_class(config=browser) as crawler:
                return await work(crawler, run)
        except Exception as exc:
            text = str(exc)
            if any(marker in text.lower() for marker in _MISSING_BROWSER):
                raise NotConfiguredError(
                    "crawl4ai has no browser installed; run crawl4ai-setup. "
                    f"({text.splitlines()[0]})",
                    provider=self.name,
                ) from None
            raise

    async def _check(self, url: str) -> None:
        await check_destination_resolved(url, AddressPolicy.from_config(self.config))

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, kwargs, frozenset())
        items: dict[str, dict[str, Any]] = {}
        allowed: list[str] = []
        for url in urls:
            try:
                await self._check(url)
                allowed.append(url)
            except WebProviderError as exc:
                items[url] = page_error(url, exc)

        async def work(crawler: Any, run: Any) -> None:
            results = list(await crawler.arun_many(urls=allowed, config=run))
            by_url = {_key(getattr(r, "url", None)): r for r in results}
            missing = ProviderError("crawl4ai returned no result for this URL.", provider=self.name)
            for url in allowed:
                result = by_url.get(_key(url))
                items[url] = await self._page(result, url) if result is not None else page_error(url, missing)

        if allowed:
            await self._with_crawler(work)
        return [items[url] for url in urls]

    async def crawl(self, url: str, **kwargs: Any) -> list[dict[str, Any]]:
        import asyncio  # here, not at import: listing providers stays light

        warn_unknown(self.name, kwargs, CRAWL_OPTIONS)
        max_pages = _whole_number(
            kwargs, ("max_pages", "limit"), DEFAULT_MAX_PAGES, 1, MAX_PAGES_CAP
        )
        max_depth = _whole_number(kwargs, ("max_depth",), DEFAULT_MAX_DEPTH, 0, 10)
        await self._check(url)
        host = host_of(url)

        async def work(crawler: Any, run: Any) -> list[dict[str, Any]]:
            pages: list[dict[str, Any]] = []
            seen = {_key(url)}
            level, depth = [url], 0
            while level and len(pages) < max_pages:
                batch = level[: max_pages - len(pages)]
                left = remaining_time()
                budget = None if left is None else left - DEADLINE_MARGIN
                if budget is not None and budget <= 0:
                    warn(f"crawl4ai stopped at the call deadline after {len(pages)} pages.", partial=True)
                    break
                try:
                    results = list(
                        await within(crawler.arun_many(urls=batch, config=run), budget)
                    )
                except asyncio.TimeoutError:
                    warn(f"crawl4ai stopped at the call deadline after {len(pages)} pages.", partial=True)
                    break
                by_url = {_key(getattr(r, "url", None)): r for r in results}
                following: list[str] = []
                for page_url in batch:
                    result = by_url.get(_key(page_url))
                    if result is None:
                        continue
                    page = await self._page(result, page_url, depth=depth)
                    pages.append(page)
                    if depth < max_depth and "error" not in page:
                        following += self._new_links(result, page_url, host, seen)
                level, depth = await self._screened(following), depth + 1
            return pages

        return await self._with_crawler(work)

    async def _page(self, result: Any, url: str, **metadata: Any) -> dict[str, Any]:
        """``result`` as a page, unless the browser followed a redirect to where the screen
        refuses: it has made that request, but what it read there is not handed on."""
        landed = getattr(result, "redirected_url", None)
        if isinstance(landed, str) and landed and landed != url:
            try:
                await self._check(landed)
            except UnsafeURLError as exc:
                return page_error(url, UnsafeURLError(
                    f"The browser was redirected from {url}, and its page is not returned: {exc.message}",
                    provider=self.name, detail=exc.detail,
                ))
            except WebProviderError:
                pass  # a name only the browser's way out resolves (web.proxy): not checkable here
        return to_page(result, url, **metadata)

    async def _screened(self, links: list[str]) -> list[str]:
        """The links the full screen lets through, as for the start URL: the host filter reads a
        link as Python does, the browser as a browser does (``http://127.0.0.1\\@site/`` is
        ``site`` to one and ``127.0.0.1`` to the other)."""
        passed: list[str] = []
        for link in links:
            try:
                await self._check(link)
            except WebProviderError:
                continue
            passed.append(link)
        return passed

    @staticmethod
    def _new_links(result: Any, base: str, host: str, seen: set[str]) -> list[str]:
        """Same-host http(s) links not crawled yet, fragments dropped."""
        found: list[str] = []
        for href in internal_links(result):
            link = urldefrag(urljoin(base, href))[0]
            parts = urlsplit(link)
            if parts.scheme not in ("http", "https") or (parts.hostname or "").lower() != host:
                continue
            if _key(link) in seen:
                continue
            seen.add(_key(link))
            found.append(link)
        return found


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(Crawl4AIProvider(ctx.config))
