"""The ``parallel`` provider: web search and extract through the official ``parallel-web`` SDK.

``AsyncParallel`` gets a client of ours (:func:`webproviders.kit.sdk_client`: the provider's
shared transport, with its proxy settings, body cap and deadline, and a response hook that
keeps the last response, because the SDK accepts a 200 that carries an error object) and runs with its own retries off
(``max_retries=0``): the dispatcher retries for every provider alike. A search sends an
objective (the query, unless the call gives ``objective=``) with keyword queries; each hit's
description is its excerpts.
"""

from __future__ import annotations

from typing import Any

from webproviders import PluginContext
from webproviders.kit import SDKProvider, import_packages


class ParallelProvider(SDKProvider):
    """Parallel Search and Extract (``PARALLEL_API_KEY``)."""

    provider_name = "parallel"
    default_base_url = "https://api.parallel.ai"
    search_options = frozenset({"time_range", "include_domains", "exclude_domains", "country"})

    async def _call(self, method: str, request: dict[str, Any]) -> Any:
        """One SDK call with a key from the ring; returns the SDK's response model."""
        await import_packages(self)
        from parallel import AsyncParallel
        from webproviders.kit import ResponseLog, response_error, sdk_client

        from .errors import NAME, classify, failure

        async def send(key: str | None) -> Any:
            log = ResponseLog()
            async with sdk_client(
                self.config, provider=self.name, timeout=self.call_timeout(), log=log
            ) as http:
                client = AsyncParallel(
                    api_key=key,
                    base_url=self.base_url(),
                    max_retries=0,
                    timeout=self.call_timeout(),
                    http_client=http,
                )
                try:
                    result = await getattr(client, method)(**request)
                except Exception as exc:  # noqa: BLE001 - every SDK failure is mapped to ours
                    raise failure(exc, log.last) from None
            # The SDK accepts a 200 carrying an error object, and hands back the text of a
            # body that is not JSON: the response itself says which.
            error = response_error(log.last, NAME, classify) if log.last is not None else None
            if error is not None:
                raise error
            return result

        return await self.with_key(send)

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        from .mapping import forward_warnings, hits, search_request

        result = await self._call("search", search_request(query, limit, options, self.settings))
        forward_warnings(result)
        return hits(result)

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        from webproviders.kit import say_empty_pages

        from .mapping import extract_items, extract_request, forward_warnings, text_limit

        result = await self._call("extract", extract_request(urls, kwargs, self.settings))
        forward_warnings(result)
        items = extract_items(urls, result, text_limit(kwargs, self.settings))
        say_empty_pages("parallel", items)
        return items


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(ParallelProvider(ctx.config))
