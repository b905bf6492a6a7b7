"""The ``ddg_html`` provider: POSTs the search form and reads the results page.

Network settings and the timeout are the ``http`` provider's, and a redirect to another origin
is followed as a screened local fetch (see :mod:`webproviders.kit.htmlsearch`); only the 202 challenge is
DuckDuckGo's own status. A larger ``limit`` reads the next pages through ``kit.later_page``:
each takes its own slot of the request budget (1/s by default), and one that fails, is
challenged or would miss the deadline ends the paging with the pages read.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from webproviders import BlockedError
from webproviders.kit import (
    HTMLSearchProvider,
    check_page_status,
    import_off_loop,
    later_page,
    page_text,
    warn_unknown,
)

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
    check_page_status(response, "DuckDuckGo", "the search form")


def referer(base: str) -> str:
    """The search form's address as a browser names it in ``Referer``: without the base URL's
    ``user:password@`` (a gateway's), which went to DuckDuckGo, and to any site a redirect of
    its named, in clear text."""
    parts = urlsplit(base)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2])) + "/"


class DuckDuckGoHTMLProvider(HTMLSearchProvider):
    provider_name = "ddg_html"
    default_base_url = "https://html.duckduckgo.com"
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    async def _page(self, form: dict[str, str]) -> Any:
        """One results page, read (its hits and the form that asks for the next one)."""
        from .parse import parse_page

        base = self.base_url()
        response = await self.results_page("POST", f"{base}/html/", data=form, headers={"Referer": referer(base)})
        check_status(response)
        return parse_page(page_text(response))

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        await import_off_loop(f"{__package__}.parse")  # lxml: on first search, off the event loop
        warn_unknown(self.name, options, frozenset(), search=True)

        form = first_page_form(query, options)
        sticky = {key: form[key] for key in ("df", "kp") if key in form}
        hits: list[dict[str, Any]] = []
        seen: set[str] = set()
        page = await self._page(form)
        for number in range(1, MAX_PAGES + 1):
            fresh = [hit for hit in page.hits if hit["url"] not in seen]
            seen.update(hit["url"] for hit in fresh)
            hits += fresh
            if len(hits) >= limit or not fresh or page.next_form is None or number == MAX_PAGES:
                break
            page = await later_page(self.name, len(hits), partial(self._page, {**sticky, **page.next_form}))
            if page is None:
                break
        return hits[:limit]
