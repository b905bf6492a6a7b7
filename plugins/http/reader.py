"""The ``http`` provider's work: reading pages and crawling, over the safe-fetching layer.

Kept apart from the plugin's ``__init__`` so that listing providers does not load the
HTTP stack; the provider imports this module on first use.
"""

from __future__ import annotations

import asyncio
from typing import Any

from webproviders import Config, WebProviderError, WebTimeoutError, warn
from webproviders.kit import (
    CRAWL_OPTIONS,
    EXTRACT_OPTIONS,
    FetchLimits,
    HostLimiter,
    HostPaced,
    HostPaused,
    Pacer,
    PageOptions,
    cut_short_at,
    fetch,
    host_of,
    page_error,
    render,
    status_error,
    time_budget,
    to_provider_error,
    warn_unknown,
    within,
)

NAME = "http"
#: ``<meta http-equiv="refresh">`` hops followed from one URL at most.
MAX_REFRESHES = 3


async def extract_pages(config: Config, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
    """One item per URL, in input order; a URL that fails is an item with ``error``."""
    settings = config.provider(NAME)
    warn_unknown(NAME, kwargs, EXTRACT_OPTIONS)
    options = PageOptions.from_kwargs(kwargs)
    limits = FetchLimits.from_kwargs(kwargs, settings)
    limiter = HostLimiter(limits.concurrency, limits.per_host_concurrency, limits.delay)
    pacer = Pacer()  # each page after the first takes a slot of the request budget, as a vendor's reader does
    budget = time_budget(settings)
    loop = asyncio.get_running_loop()
    stop_at = None if budget is None else loop.time() + budget

    def url_time() -> float:
        """A page's time: its ``url_timeout``, within the call's."""
        return limits.url_timeout if stop_at is None else min(limits.url_timeout, stop_at - loop.time())

    async def read(url: str) -> dict[str, Any]:
        """The page at ``url``, or where its ``<meta http-equiv="refresh">`` sends a browser
        at once (as a redirect is followed: each hop screened, at most a few)."""
        target, seen = url, {url}
        while True:
            try:
                async with limiter.slot(host_of(target), stop_at):
                    await pacer.slot(url_time())
                    result = await fetch(target, config, timeout=url_time())
            except (HostPaused, HostPaced) as exc:  # its host's pause or pacing lasts past the deadline
                raise exc.refusal(target) from None  # a refresh's target: not the page read before it
            limiter.answered(host_of(result.final_url), result.status_code, result.headers)  # as a crawl's pages do
            error = status_error(result)
            if error is not None:
                raise error
            rendered = await render(result, options, config.web.extraction)
            target = rendered.refresh or ""
            if target and (target in seen or len(seen) > MAX_REFRESHES):
                why = "back to a page read before" if target in seen else f"after {MAX_REFRESHES} such hops"
                warn(f"{url} sends its reader on with <meta http-equiv=\"refresh\"> to {target}, not followed "
                     f"({why}); its item is the page that sends it there.")
            if not target or target in seen or len(seen) > MAX_REFRESHES:
                return {**rendered.item, "url": url}
            seen.add(target)

    async def one(url: str) -> dict[str, Any]:
        try:
            if stop_at is None:
                return await read(url)
            return await within(read(url), max(0.0, stop_at - loop.time()))
        except asyncio.TimeoutError:
            kept = cut_short_at()  # a proxy that had not opened its tunnel: the page was never reached
            return page_error(url, WebTimeoutError(
                f"{url} could not be read before the call's time limit{f': {kept}' if kept else '.'}", provider=NAME))
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


async def crawl_site(config: Config, url: str, **kwargs: Any) -> list[dict[str, Any]]:
    """Pages reached from ``url``, shallow first, in discovery order, ``depth`` in metadata."""
    from webproviders.kit import Crawler, CrawlOptions  # the crawler's modules, only for a crawl

    settings = config.provider(NAME)
    warn_unknown(NAME, kwargs, CRAWL_OPTIONS)
    options, notes = CrawlOptions.from_kwargs(kwargs, settings)
    for note in notes:
        warn(note)
    # each page after the first takes a slot of the request budget, as an extract's do
    return await Crawler(config, options, budget=time_budget(settings), pace=Pacer().slot).run(url)
