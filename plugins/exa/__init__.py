"""The ``exa`` provider: search and page contents through the official ``exa-py`` SDK.

``AsyncExa`` takes no HTTP client argument; it makes one on first use and keeps it in
``AsyncExa._client``. The provider puts a client of ours there first
(:func:`webproviders.kit.hand_client`), so Exa's requests get the shared transport's proxy
settings, body cap and deadline, and ``web.user_agent``. A response hook on that client keeps
the last response, because the SDK reports every failure as a ``ValueError`` without the
headers (see ``errors.py``). Hits take their description from Exa's highlights (configurable with
``web.providers.exa.contents``).
"""

from __future__ import annotations

from typing import Any

from webproviders import PluginContext, report_usage
from webproviders.kit import SDKProvider, import_packages


class ExaProvider(SDKProvider):
    """Exa search and contents (``EXA_API_KEY``)."""

    provider_name = "exa"
    default_base_url = "https://api.exa.ai"
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "safe_search"}
    )

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """One SDK call with a key from the ring; returns the SDK's ``SearchResponse``."""
        await import_packages(self)
        from exa_py import AsyncExa

        from webproviders.kit import ResponseLog, hand_client

        from .errors import failure

        async def send(key: str | None) -> Any:
            log = ResponseLog()
            exa = AsyncExa(api_key=key, api_base=self.base_url(), timeout=self.call_timeout())
            await hand_client(
                exa, "_client", self.config, provider=self.name, timeout=self.call_timeout(), log=log
            )
            try:
                return await getattr(exa, method)(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every SDK failure is mapped to ours
                raise failure(exc, log.last) from None
            finally:
                await exa.aclose()

        response = await self.with_key(send)
        report_usage(usd=getattr(getattr(response, "cost_dollars", None), "total", None))
        return response

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        from .mapping import hits, search_request

        response = await self._call(
            "search", query, **search_request(limit, options, self.settings)
        )
        return hits(response.results)

    async def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        from webproviders.kit import say_empty_pages, time_budget

        from .mapping import extract_items, extract_request, text_limit

        request = extract_request(kwargs, self.settings, time_budget(self.settings))
        response = await self._call("get_contents", list(urls), **request)
        items = extract_items(urls, response, text_limit(kwargs, self.settings))
        say_empty_pages("exa", items)
        return items


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(ExaProvider(ctx.config))
