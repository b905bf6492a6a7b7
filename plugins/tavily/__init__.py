"""The ``tavily`` provider: search, extract and crawl through the official ``tavily-python`` SDK.

The SDK's ``AsyncTavilyClient`` gets a client of ours (:func:`webproviders.kit.sdk_client`) on
the provider's shared transport (proxy settings, body cap, deadline); it is a fresh client per
call because the SDK writes its key into the client's headers. The SDK folds statuses 403, 432 and 433 into one
exception and hides the response of a 429, so the provider reads the last response itself
(see ``errors.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from webproviders import ParseError, PluginContext, report_usage
from webproviders.kit import SDKProvider, import_packages

if TYPE_CHECKING:
    import httpx

#: Tavily's bounds for the server-side ``timeout`` of extract and crawl, in seconds.
EXTRACT_TIMEOUT = (1.0, 60.0)
CRAWL_TIMEOUT = (10.0, 150.0)
#: Share of a request's time given to Tavily's own ``timeout``: Tavily answers when it runs
#: out, with the pages it has read, and that answer must reach us before the request ends.
SERVER_SHARE = 0.8


def _server_timeout(value: float, bounds: tuple[float, float]) -> float:
    """Tavily's ``timeout`` for a request that has ``value`` seconds, within its bounds."""
    return round(max(bounds[0], min(bounds[1], value * SERVER_SHARE)), 1)


def _whole_time(timeout: httpx.Timeout) -> Callable[[httpx.Request], Awaitable[None]]:
    """An httpx request hook that gives a request ``timeout`` whatever the SDK set on it."""

    async def hook(request: httpx.Request) -> None:
        request.extensions["timeout"] = timeout.as_dict()

    return hook


class TavilyProvider(SDKProvider):
    """Tavily Search, Extract and Crawl (``TAVILY_API_KEY``)."""

    provider_name = "tavily"
    default_base_url = "https://api.tavily.com"
    search_options = frozenset({"time_range", "include_domains", "exclude_domains", "country"})

    async def _call(self, method: str, request: dict[str, Any]) -> Any:
        """One SDK call with a key from the ring; returns Tavily's JSON body."""
        await import_packages(self)
        from tavily import AsyncTavilyClient
        from webproviders.kit import ResponseLog, response_error, sdk_client

        from .errors import NAME, classify, failure
        from .mapping import states_results

        async def send(key: str | None) -> Any:
            log = ResponseLog()
            async with sdk_client(
                self.config,
                provider=self.name,
                base_url=self.base_url(),
                timeout=self.call_timeout(),
                log=log,
            ) as client:
                # The SDK times its request out at the ``timeout`` it tells Tavily, the moment
                # Tavily answers with the pages it has read: the request keeps the client's time.
                client.event_hooks["request"].append(_whole_time(client.timeout))
                tavily = AsyncTavilyClient(api_key=key, api_base_url=self.base_url(), client=client)
                try:
                    # Tavily states the credits a request used only when asked: an advanced
                    # search costs two, an extract one per five URLs.
                    body = await getattr(tavily, method)(**request, include_usage=True)
                except Exception as exc:  # noqa: BLE001 - every SDK failure is mapped to ours
                    raise failure(exc, log.last) from None
            error = response_error(log.last, NAME, classify) if log.last is not None else None
            if error is not None:
                raise error
            usage = body.get("usage") if isinstance(body, dict) else None
            if isinstance(usage, dict):
                report_usage(usage.get("credits"), unit="credit")
            if log.last is not None and not states_results(body, log.last):
                raise ParseError(
                    f"Tavily answered its {method} without a 'results' list; its answer is not in the shape it documents.",
                    provider=self.name,
                )
            return body

        return await self.with_key(send)

    async def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
        from .mapping import hits, search_request

        request = search_request(query, limit, options, self.settings)
        request["timeout"] = self.call_timeout()
        return hits(await self._call("search", request))

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        from webproviders.kit import say_empty_pages

        from .mapping import extract_items, extract_request

        request = extract_request(urls, kwargs, self.settings)
        request["timeout"] = _server_timeout(self.call_timeout(), EXTRACT_TIMEOUT)
        items = extract_items(urls, await self._call("extract", request))
        say_empty_pages("tavily", items)
        return items

    async def crawl(self, url: str, **kwargs: Any) -> list[dict[str, Any]]:
        from webproviders.kit import say_empty_pages

        from .mapping import crawl_request, pages

        request = crawl_request(url, kwargs, self.settings)
        request["timeout"] = _server_timeout(self.call_timeout(), CRAWL_TIMEOUT)
        found = pages(await self._call("crawl", request))
        say_empty_pages("tavily", found)
        return found


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(TavilyProvider(ctx.config))
