"""The ``baidu_html`` provider: GETs ``/s?wd=...`` and reads the results page.

Redirects are followed by hand so a hop to the verification page is recognised from its
``Location`` and the CAPTCHA page itself is never requested. Network settings and the
timeout are the ``http`` provider's (see :mod:`webproviders.kit.htmlsearch`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

from webproviders import ProviderError
from webproviders.kit import HTMLSearchProvider, check_page_status

from .markup import captcha_error, is_verification_url
from .request import search_params

#: Redirect hops followed at most (Baidu uses one for http -> https or a locale switch).
MAX_REDIRECTS = 3
_HEADERS = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.6"}


class BaiduHTMLProvider(HTMLSearchProvider):
    provider_name = "baidu_html"
    default_base_url = "https://www.baidu.com"
    search_options = frozenset({"time_range", "include_domains"})

    async def _page_html(self, params: dict[str, str]) -> str:
        client = self.client()
        url: str = f"{self.base_url()}/s"
        query: dict[str, str] | None = params
        for _ in range(MAX_REDIRECTS + 1):
            response = await client.get(url, params=query, headers=_HEADERS, timeout=self.timeout())
            if not response.is_redirect:
                if is_verification_url(str(response.url)):
                    raise captcha_error("instead of results")
                check_page_status(response, "Baidu")
                return response.text
            target = urljoin(str(response.url), response.headers.get("location", ""))
            if is_verification_url(target):
                raise captcha_error("(it redirected the search to its verification page)")
            url, query = target, None
        raise ProviderError(f"Baidu redirected the search more than {MAX_REDIRECTS} times.")

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        from .parse import parse_page  # lxml loads on first search, not when listing providers

        hits = parse_page(await self._page_html(search_params(query, limit, options)))
        return hits[:limit]
