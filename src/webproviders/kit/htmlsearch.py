"""A base for keyless providers that read a search engine's own HTML results page.

Such a provider is a browser-like client of the site, so it shares the ``http`` provider's
network settings (the pooled client applies ``web.proxy`` and ``web.user_agent``) and its
timeout, and it reads an error status as the site's wall: 403 and 429 mean the site limits
automated searches from this address (``blocked``), not that a key is wrong.

The request to the engine's configured address is trusted; a redirect it answers with is
not (it could point anywhere, 169.254.169.254 included), so a hop to another origin, and
every hop after it, is followed as a local fetch: screened, resolved once, pinned and capped
(:func:`.fetching.fetch.fetch`). A hop back to the engine's own origin (scheme, host and port)
reaches nothing the first request did not, so it goes the first request's way: the vendor
client, with its proxy route (``web.proxy``, else the environment's), which a machine that
reaches the engine only through a proxy needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import BadGatewayError, BlockedError, InvalidInputError, ProviderError, TooLargeError
from ..offloop import import_off_loop
from ..retry_after import retry_after_from_headers, retry_after_header
from ..urls import shorten
from .vendor import HTTP_STACK, VendorProvider

if TYPE_CHECKING:
    import httpx

    from ..fetching.fetch import FetchResult

#: What a results page is fetched and read with; imported off the event loop on first use
#: (the fetcher alone took 1.2 s on a busy machine, which held a 1.5 s search 4.5 s).
_PAGE_STACK = (HTTP_STACK, "webproviders.fetching.fetch", "webproviders.fetching.charset")

#: Response headers that describe the body as sent, not as the fetcher hands it over (decoded).
_TRANSFER_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
#: The largest results page read unless ``max_response_bytes`` says otherwise. An engine's
#: page is tens or hundreds of kilobytes; parsed, a page takes some twenty times its size in
#: memory and a second of the caller's event loop per 10 MB (a 30 MB one, under the vendor
#: answers' 32 MiB cap, took 670 MB and held a 1.5 s search 3 s).
RESULTS_PAGE_BYTES = 2_000_000


class HTMLSearchProvider(VendorProvider):
    """No key, the shared client, and the ``http`` provider's timeout as fallback."""

    default_timeout = 15.0
    needs_key = False

    def timeout(self) -> float:
        """Own ``timeout``, else the ``http`` provider's per-page ``url_timeout`` or ``timeout``."""
        http = self.config.provider("http")
        shared = http.option("url_timeout") or http.timeout
        return float(self.settings.timeout or shared or self.default_timeout)

    def client(self) -> httpx.AsyncClient:
        """This provider's pooled client (``web.proxy``, ``web.user_agent``), which stops
        reading a results page at its cap; the HTTP stack loads on first search, not at listing."""
        import dataclasses

        from ..vendorhttp.clients import ClientSpec, current

        spec = ClientSpec.of(self.config, self.name)
        return current().client(dataclasses.replace(spec, max_bytes=self._page_cap()))

    def _page_cap(self) -> int:
        return self.settings.max_response_bytes or RESULTS_PAGE_BYTES

    async def results_page(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        on_redirect: Callable[[str], None] | None = None,
        **request: Any,
    ) -> httpx.Response:
        """The engine's answer to ``method url``, redirects followed: within the engine's origin
        by its own client, elsewhere as a screened local fetch.

        ``on_redirect(target)`` sees each hop before it is checked or requested and may raise
        (a hop to a CAPTCHA page, say). Hops are requested with GET, as browsers do after a form.
        """
        await import_off_loop(*_PAGE_STACK)
        from ..fetching.fetch import MAX_REDIRECTS, fetch, redirect_location

        client = self.client()
        response = await client.request(
            method, url, headers=headers, timeout=self.timeout(), follow_redirects=False, **request
        )
        for hops in range(MAX_REDIRECTS + 1):
            location = redirect_location(response.headers)  # its bytes as browsers send them, not re-encoded
            if not (response.is_redirect and location):
                return response  # read by this provider's client, which stops at the cap
            if hops == MAX_REDIRECTS:
                break
            target = response.url.join(location)
            if on_redirect is not None:
                on_redirect(str(target))
            if _origin(target) != _origin(response.url):
                hop = await fetch(str(target), self.config, timeout=self.timeout(), headers=headers, on_redirect=on_redirect)
                return self._within_cap(_as_response(hop))
            response = await client.get(target, headers=headers, timeout=self.timeout(), follow_redirects=False)
        raise ProviderError(f"{shorten(url)} redirected more than {MAX_REDIRECTS} times; giving up.")

    def _within_cap(self, response: httpx.Response) -> httpx.Response:
        """``response`` read by a local fetch (held to the ``http`` provider's cap, not this
        one's), unless its page is larger than a results page is read at (then ``too_large``,
        unparsed)."""
        cap = self._page_cap()
        size = len(response.content)
        if size > cap:
            raise TooLargeError(
                f"The results page was {size:,} bytes, more than the {cap:,} one is read at; it was "
                f"not parsed (web.providers.{self.name}.max_response_bytes sets the cap).",
                provider=self.name,
            )
        return response


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, host and port: what decides where a request goes (httpx leaves a default port out)."""
    return url.scheme, url.host, url.port


def _as_response(result: FetchResult) -> httpx.Response:
    """A fetch's final answer as an ``httpx.Response``, its body already decoded."""
    import httpx

    headers = [(k, v) for k, v in result.headers.multi_items() if k.lower() not in _TRANSFER_HEADERS]
    request = httpx.Request("GET", result.final_url)
    return httpx.Response(result.status_code, headers=headers, content=result.content, request=request)


def page_text(response: httpx.Response) -> str:
    """A results page's text as a browser reads it: its byte-order mark, header charset,
    ``<meta charset>``, else detection (httpx would read a page that declares its charset
    only in a ``<meta>`` tag as UTF-8, and garble a windows-1252 or GBK page)."""
    from ..fetching.charset import decode

    return decode(response.content, response.headers.get("content-type"), "html", str(response.url))[0]


def check_page_status(response: httpx.Response, site: str, what: str = "the search") -> None:
    """Raise for answers that are not a results page: access walls and outages.

    ``site`` names the engine in the message; ``what`` is the request it answered.
    """
    status = response.status_code
    if status in (403, 429):
        raise BlockedError(
            f"{site} refused the search (HTTP {status}); it limits automated searches per "
            "address, so wait or use another backend.",
            detail=f"http_{status}",
            retry_after=retry_after_from_headers(response.headers) if status == 429 else None,
            status_code=status,
        )
    if status >= 500:
        # A 503's Retry-After says when the outage ends: no request before then, from any caller.
        wait = retry_after_header(response.headers) if status == 503 else None
        when = f"retry after {wait:.0f} s" if wait else "try again later"
        raise BadGatewayError(
            f"{site} failed on its side (HTTP {status}); {when}.", retry_after=wait, status_code=status
        )
    if status == 414:
        # The query (and the domain filters in it) made the URL longer than the engine reads.
        raise InvalidInputError(
            f"{site} refused {what} as too long (HTTP 414): shorten the query, or pass fewer domains.",
            status_code=status,
        )
    if status >= 400:
        raise ProviderError(f"{site} answered HTTP {status} to {what}.", status_code=status)
