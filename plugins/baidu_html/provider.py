"""The ``baidu_html`` provider: GETs ``/s?wd=...`` and reads the results page.

Redirects are followed by hand so a hop to the verification page is recognised from its
``Location`` and the CAPTCHA page itself is never requested. Network settings
(``web.proxy``, ``web.user_agent``) come from the shared client, as for the ``http``
provider; the timeout falls back to the ``http`` provider's ``url_timeout`` / ``timeout``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from webproviders import VendorProvider
from webproviders.errors import BadGatewayError, BlockedError, ProviderError
from webproviders.retry_after import retry_after_from_headers

from .markup import captcha_error, is_verification_url
from .request import search_params

if TYPE_CHECKING:
    import httpx

#: Redirect hops followed at most (Baidu uses one for http -> https or a locale switch).
MAX_REDIRECTS = 3
_HEADERS = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.6"}


def check_status(response: httpx.Response) -> None:
    """Raise for answers that are not a results page: access walls and outages."""
    status = response.status_code
    if status in (403, 429):
        raise BlockedError(
            f"Baidu refused the search (HTTP {status}); it limits automated searches per "
            "address, so wait or use another backend.",
            detail=f"http_{status}",
            retry_after=retry_after_from_headers(response.headers) if status == 429 else None,
            status_code=status,
        )
    if status >= 500:
        raise BadGatewayError(
            f"Baidu failed on its side (HTTP {status}); try again later.", status_code=status
        )
    if status >= 400:
        raise ProviderError(f"Baidu answered HTTP {status} to the search.", status_code=status)


class BaiduHTMLProvider(VendorProvider):
    provider_name = "baidu_html"
    default_base_url = "https://www.baidu.com"
    default_timeout = 15.0
    key_required = False
    search_options = frozenset({"time_range", "include_domains"})

    @property
    def display_name(self) -> str:
        return "Baidu HTML (keyless)"

    def timeout(self) -> float:
        """Own ``timeout``, else the ``http`` provider's per-page ``url_timeout`` or ``timeout``."""
        http = self.config.provider("http")
        shared = http.option("url_timeout") or http.timeout
        return float(self.settings.timeout or shared or self.default_timeout)

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self.display_name, "badge": "free", "tag": "keyless", "env_vars": []}

    async def _page_html(self, params: dict[str, str]) -> str:
        from webproviders.http import get_client  # the HTTP stack loads on first search

        client = get_client(self.config)
        url: str = f"{self.base_url()}/s"
        query: dict[str, str] | None = params
        for _ in range(MAX_REDIRECTS + 1):
            response = await client.get(url, params=query, headers=_HEADERS, timeout=self.timeout())
            if not response.is_redirect:
                if is_verification_url(str(response.url)):
                    raise captcha_error("instead of results")
                check_status(response)
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
