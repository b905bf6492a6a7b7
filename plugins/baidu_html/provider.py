"""The ``baidu_html`` provider: GETs ``/s?wd=...`` and reads the results page.

A redirect to another origin is followed as a screened local fetch (see :mod:`webproviders.kit.htmlsearch`),
and each hop is looked at first, so a hop to the verification page is recognised from its
``Location`` and the CAPTCHA page itself is never requested. Network settings and the
timeout are the ``http`` provider's.
"""

from __future__ import annotations

from typing import Any

from webproviders.kit import (
    HTMLSearchProvider,
    check_page_status,
    import_off_loop,
    page_text,
    warn_unknown,
)

from .markup import captcha_error, is_verification_url
from .request import search_params

_HEADERS = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.6"}


def _refuse_verification(target: str) -> None:
    if is_verification_url(target):
        raise captcha_error("(it redirected the search to its verification page)")


class BaiduHTMLProvider(HTMLSearchProvider):
    provider_name = "baidu_html"
    default_base_url = "https://www.baidu.com"
    search_options = frozenset({"time_range", "include_domains"})

    async def _page_html(self, params: dict[str, str]) -> str:
        response = await self.results_page(
            "GET", f"{self.base_url()}/s", params=params, headers=_HEADERS, on_redirect=_refuse_verification
        )
        if is_verification_url(str(response.url)):
            raise captcha_error("instead of results")
        check_page_status(response, "Baidu")
        return page_text(response)

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        await import_off_loop(f"{__package__}.parse")  # lxml: on first search, off the event loop
        from .parse import parse_page

        warn_unknown(self.name, options, frozenset(), search=True)

        hits = parse_page(await self._page_html(search_params(query, limit, options)))
        return hits[:limit]
