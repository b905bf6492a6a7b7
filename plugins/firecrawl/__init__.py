"""The ``firecrawl`` provider: search, scrape and crawl through the official ``firecrawl-py`` SDK.

Works with the hosted API (``FIRECRAWL_API_KEY``) and with a self-hosted instance
(``FIRECRAWL_API_URL`` or ``web.providers.firecrawl.base_url``; then no key is needed).
A search is one ``POST /v2/search`` on the shared HTTP client, read from the JSON itself:
the SDK turns a result that carries ``markdown`` into a document and loses its ``url``,
``title`` and ``description``. Scrape and crawl go through ``AsyncFirecrawl``, which takes
no HTTP client argument: the provider puts a client of ours where the SDK keeps the one it
made (:func:`webproviders.kit.hand_client`), so its requests get the shared transport's proxy
settings, body cap, deadline and ``web.user_agent``. Its errors carry the response, which
``errors.py`` reads. Its own retries are off: on 502, and its resume of a scrape Firecrawl
answered with a 408 whose document "keeps processing" (a sleep of 5 s to 10 min, then the
same request), which held the call to its deadline and then blamed Firecrawl for not
answering; the dispatcher retries. A crawl is a job, polled every ``poll_interval`` seconds until it
ends or the call's deadline nears (see ``job.py``).
"""

from __future__ import annotations

from typing import Any

from webproviders import (
    NotConfiguredError,
    ParseError,
    PluginContext,
    WebProviderError,
    WebTimeoutError,
    report_usage,
)
from webproviders.kit import SDKProvider, import_packages

#: Seconds between two polls of a crawl job (``web.providers.firecrawl.poll_interval``).
DEFAULT_POLL_INTERVAL = 2.0
#: Pages scraped at once by one extract call (``web.providers.firecrawl.concurrency``).
DEFAULT_CONCURRENCY = 4
#: A scrape answered without its page (no ``data``).
NO_PAGE = "Firecrawl answered the scrape without the page ('data'); its answer is not in the shape it documents."
#: Share of a request's time given to Firecrawl's own ``timeout``, so that it can answer 408
#: before our side gives up on the request.
SERVER_SHARE = 0.9
#: The shortest ``timeout`` (ms) Firecrawl accepts for a scrape (it refuses less with a 400);
#: a call with less time left than that ends the request itself at its deadline.
MIN_TIMEOUT_MS = 1000


class FirecrawlProvider(SDKProvider):
    """Firecrawl search, scrape and crawl, hosted or self-hosted."""

    provider_name = "firecrawl"
    default_base_url = "https://api.firecrawl.dev"
    search_options = frozenset({"time_range", "include_domains", "exclude_domains", "country", "lang"})

    @property
    def key_required(self) -> bool:  # type: ignore[override]
        """Only the hosted API needs a key; a self-hosted instance usually does not."""
        return self.base_url() == self.default_base_url

    async def _sdk(self, key: str | None) -> tuple[Any, Any]:
        """An ``AsyncFirecrawl`` sending through our client (which needs no closing: it only
        borrows the shared transport), and the ``ResponseLog`` of that client (whether
        Firecrawl has answered at all, see ``errors.failure``)."""
        await import_packages(self)
        from firecrawl import AsyncFirecrawl
        from webproviders.kit import ResponseLog, hand_client

        # An empty key (not None) keeps the SDK from reading FIRECRAWL_API_KEY behind our back.
        try:
            firecrawl = AsyncFirecrawl(
                api_key=key or "", api_url=self.base_url(), timeout=self.call_timeout(), max_retries=1
            )
        except Exception as exc:  # noqa: BLE001 - only its own HTTP client can fail here
            # The SDK makes an httpx client as it starts (replaced unused below), which reads the
            # proxy environment: a variable no request can use fails it here, not the vendor.
            raise NotConfiguredError(
                "The Firecrawl SDK reads the proxy environment as it starts, and it cannot be used "
                f"({type(exc).__name__}: {exc}). Correct or unset HTTPS_PROXY / HTTP_PROXY / ALL_PROXY.",
                provider=self.name,
            ) from None
        log = ResponseLog()
        await hand_client(
            firecrawl,
            "_v2_client.async_http_client._client",
            self.config,
            provider=self.name,
            timeout=self.call_timeout(),
            log=log,
        )
        return firecrawl, log

    def _timeout_ms(self) -> int:
        return max(MIN_TIMEOUT_MS, int(self.call_timeout() * SERVER_SHARE * 1000))

    async def _guarded(self, call: Any, log: Any) -> Any:
        """Await an SDK call, mapping its failure to ours."""
        from .errors import failure

        try:
            return await call
        except Exception as exc:  # noqa: BLE001 - every SDK failure is mapped to ours
            raise failure(exc, answered=log.last is not None, last=log.last) from None

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        from .errors import classify
        from .mapping import hits, search_body

        body = search_body(query, limit, options, self._timeout_ms())
        answer = await self.call_api(
            "POST", "/v2/search", json=body, classify=classify, timeout=self.call_timeout()
        )
        # Firecrawl bills a search by the results it returns and says how much it billed.
        report_usage(answer.get("creditsUsed") if isinstance(answer, dict) else None, unit="credit")
        return hits(answer)

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        import asyncio  # here, not at import: listing providers stays light
        import time

        from webproviders.kit import Pacer, page_error, say_empty_pages, time_budget, within

        from .errors import ACCOUNT_CODES, failure, refuses_only_the_url
        from .mapping import page, scrape_request

        request = scrape_request(kwargs, self.settings, self._timeout_ms())
        at_once = self.settings.number("concurrency", DEFAULT_CONCURRENCY)
        gate = asyncio.Semaphore(at_once)

        async def send(key: str | None) -> list[dict[str, Any]]:
            firecrawl, log = await self._sdk(key)
            # Measured once the SDK is loaded; each page stops a little before the deadline, so
            # that the pages scraped by then are returned rather than lost with the call.
            budget = time_budget(self.settings)
            end = None if budget is None else time.monotonic() + budget
            pacer = Pacer()  # each scrape is a request Firecrawl counts against its rate limit

            async def one(url: str) -> dict[str, Any]:
                async with gate:
                    try:
                        await pacer.slot(None if end is None else end - time.monotonic())
                    except WebProviderError as exc:  # no slot of the request budget in time: not asked
                        return page_error(url, exc)
                    left = None if end is None else end - time.monotonic()
                    try:
                        scraped = await within(
                            firecrawl.scrape(url, auto_resume=False, **request), left
                        )
                        # A page costs more than one credit with the stealth proxy, or per PDF page.
                        metadata = getattr(scraped, "metadata", None)
                        report_usage(getattr(metadata, "credits_used", None), unit="credit")
                        if metadata is None and getattr(scraped, "markdown", None) is None:
                            # Every scraped page carries its metadata: an answer with neither it
                            # nor text (``{"success": true}``) holds no page, not an empty one.
                            return page_error(url, ParseError(NO_PAGE, provider=self.name))
                        return page(scraped, requested=url)
                    except asyncio.TimeoutError:
                        if end is None or time.monotonic() < end:
                            raise  # not the deadline's: the SDK's own, mapped as any failure
                        return page_error(url, self._late(left, at_once))
                    except Exception as exc:  # noqa: BLE001 - one URL's failure is that URL's item
                        error = failure(exc, answered=log.last is not None)
                        if error.code in ACCOUNT_CODES and not refuses_only_the_url(exc):
                            raise error from None
                        return page_error(url, error)

            tasks = [asyncio.ensure_future(one(url)) for url in urls]
            try:
                items = list(await asyncio.gather(*tasks))
                say_empty_pages("firecrawl", items)
                return items
            except BaseException:
                for task in tasks:
                    task.cancel()
                raise

        return await self.with_key(send)

    def _late(self, left: float | None, at_once: int) -> WebTimeoutError:
        """A page of an extract the call's deadline came for (its scrape unfinished, or its
        turn not come: ``at_once`` scrapes run together)."""
        if left is not None and left <= 0:
            return WebTimeoutError(
                f"Firecrawl was not asked for this page: its turn (Firecrawl scrapes {at_once} at "
                "once, web.providers.firecrawl.concurrency) came at the call's deadline.",
                provider=self.name,
            )
        from webproviders.kit import unread_by_deadline

        return unread_by_deadline(
            "Firecrawl had not scraped this page by the call's deadline.", self.name, "Firecrawl"
        )

    async def crawl(self, url: str, **kwargs: Any) -> list[dict[str, Any]]:
        from webproviders import remaining_time
        from webproviders.kit import say_empty_pages

        from . import job
        from .mapping import crawl_request, page

        request = crawl_request(kwargs, self.settings)
        interval = float(self.settings.number("poll_interval", DEFAULT_POLL_INTERVAL, whole=False))

        async def send(key: str | None) -> list[dict[str, Any]]:
            firecrawl, log = await self._sdk(key)
            # Measured once the SDK is loaded: its first import eats into the call's time.
            limits = [t for t in (remaining_time(), self.settings.timeout) if t is not None]
            budget = min(limits) if limits else self.timeout()
            run = job.run(
                firecrawl,
                url,
                request,
                budget=budget,
                poll_interval=interval,
                request_timeout=self.timeout(),
            )
            found = [page(document) for document in await self._guarded(run, log)]
            say_empty_pages("firecrawl", found)
            return found

        return await self.with_key(send)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(FirecrawlProvider(ctx.config))
