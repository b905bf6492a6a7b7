"""The ``ddg_html`` provider: POSTs the search form and reads the results page.

It uses the shared client (``webproviders.http.get_client``), so ``web.proxy`` and
``web.user_agent`` apply exactly as they do to the ``http`` provider, and its timeout falls
back to the ``http`` provider's ``url_timeout`` / ``timeout``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import VendorProvider
from webproviders.errors import BadGatewayError, BlockedError, ProviderError
from webproviders.retry_after import retry_after_from_headers

from .form import first_page_form

if TYPE_CHECKING:
    import httpx

#: Result pages fetched at most for one call: each one is another chance of a challenge.
MAX_PAGES = 3


def check_status(response: httpx.Response) -> None:
    """Raise for answers that are not a results page: the 202 challenge, walls, outages."""
    status = response.status_code
    if status == 202:
        raise BlockedError(
            "DuckDuckGo answered HTTP 202 with its anti-bot challenge instead of results; "
            "wait a few minutes or use another backend.",
            detail="captcha_required",
            status_code=status,
        )
    if status in (403, 429):
        retry_after = retry_after_from_headers(response.headers) if status == 429 else None
        raise BlockedError(
            f"DuckDuckGo refused the search (HTTP {status}); it limits automated searches per "
            "address, so wait or use another backend.",
            detail=f"http_{status}",
            retry_after=retry_after,
            status_code=status,
        )
    if status >= 500:
        raise BadGatewayError(
            f"DuckDuckGo failed on its side (HTTP {status}); try again later.", status_code=status
        )
    if status >= 400:
        raise ProviderError(
            f"DuckDuckGo answered HTTP {status} to the search form.", status_code=status
        )


class DuckDuckGoHTMLProvider(VendorProvider):
    provider_name = "ddg_html"
    default_base_url = "https://html.duckduckgo.com"
    default_timeout = 15.0
    key_required = False
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    @property
    def display_name(self) -> str:
        return "DuckDuckGo HTML (keyless)"

    def timeout(self) -> float:
        """Own ``timeout``, else the ``http`` provider's per-page ``url_timeout`` or ``timeout``."""
        http = self.config.provider("http")
        shared = http.option("url_timeout") or http.timeout
        return float(self.settings.timeout or shared or self.default_timeout)

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self.display_name, "badge": "free", "tag": "keyless", "env_vars": []}

    async def _page_html(self, form: dict[str, str]) -> str:
        from webproviders.http import get_client  # the HTTP stack loads on first search

        base = self.base_url()
        response = await get_client(self.config).post(
            f"{base}/html/",
            data=form,
            headers={"Referer": f"{base}/"},
            timeout=self.timeout(),
            follow_redirects=True,
        )
        check_status(response)
        return response.text

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        from .parse import parse_page  # lxml loads on first search, not when listing providers

        form = first_page_form(query, options)
        sticky = {key: form[key] for key in ("df", "kp") if key in form}
        hits: list[dict[str, Any]] = []
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            page = parse_page(await self._page_html(form))
            fresh = [hit for hit in page.hits if hit["url"] not in seen]
            seen.update(hit["url"] for hit in fresh)
            hits += fresh
            if len(hits) >= limit or not fresh or page.next_form is None:
                break
            form = {**sticky, **page.next_form}
        return hits[:limit]
