"""Fetching one URL that came from untrusted input: checked, pinned, bounded.

Every hop (at most :data:`MAX_REDIRECTS` redirects) is checked before it is requested, each
host is resolved once (within the enclosing dispatch call, or this fetch), the connection
goes to the address that was checked (:mod:`webproviders.fetching.pinning`), the body is
decoded up to ``web.max_response_bytes`` decoded bytes (then ``too_large``; see
:mod:`webproviders.fetching.decompress`), decompression runs in worker threads so that a
compressed body never holds up the event loop, and the whole fetch, redirects and body
included, finishes within one timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import NamedTuple

import httpx

from ..asynctimeout import within
from ..config import Config
from ..context import note_repeating
from ..errors import (
    CERTIFICATE_DETAILS,
    HEADERS,
    HEADERS_TOO_LONG,
    NO_TLS,
    PROXY_UNREACHABLE,
    BadGatewayError,
    BlockedError,
    InvalidInputError,
    NetworkError,
    NotFoundError,
    ProviderError,
    RateLimitedError,
    TooLargeError,
    UnsafeURLError,
    UnsupportedError,
    WebProviderError,
    WebTimeoutError,
    certificate_error,
    forwarded_refusal,
    plain_http_error,
    proxy_address,
    proxy_auth_error,
    proxy_error,
    proxy_refused,
    socks_handshake_error,
)
from ..pools import LazyPool
from ..retry_after import retry_after_from_headers, retry_after_header
from ..tunnel import (
    TunnelWatch,
    broken_handshake,
    dropped_tunnel,
    no_tunnel,
    tunnelled,
)
from ..urls import shorten
from .decompress import (
    CUT_SHORT,
    BodyDecoder,
    BodyTooLarge,
    Undecodable,
    UnsupportedCoding,
    accept_encoding,
)
from .location import REDIRECT_STATUSES, redirect_location
from .pinning import safe_client
from .sniff import Kind, effective_content_type, sniff
from .turns import Turns
from .urlsafety import (
    AddressPolicy,
    check_destination,
    check_destination_resolved,
    resolution_scope,
)

MAX_REDIRECTS = 5
#: What a page fetch asks for: documents first, anything else last.
ACCEPT_PAGE = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,application/pdf;q=0.8,*/*;q=0.5"
DEFAULT_TIMEOUT = 20.0
#: How many leading bytes the content-type sniffer looks at.
SNIFF_BYTES = 2048

#: Decompression, off the event loop (each step is bounded by the body cap).
_decoders = LazyPool(4, "webproviders-decode")


@dataclass
class FetchResult:
    """The final response of a fetch (after redirects)."""

    url: str
    final_url: str
    status_code: int
    headers: httpx.Headers
    #: The body; read only for 2xx answers (empty otherwise).
    content: bytes = b""
    redirects: list[str] = field(default_factory=list)
    #: The body was longer than the cap and only its beginning was kept (``truncate=True``).
    truncated: bool = False

    @property
    def content_type(self) -> str:
        """The ``Content-Type`` a browser goes by ('' when absent or no MIME type)."""
        return effective_content_type(self.headers.get_list("content-type", split_commas=True))

    def sniff(self) -> tuple[Kind, str]:
        """``(kind, mime)`` from the header checked against the first bytes."""
        return sniff(self.content_type, self.content[:SNIFF_BYTES])


def _too_large(url: str, limit: int, size: int | None = None) -> TooLargeError:
    told = f" ({size:,} bytes announced)" if size else ""
    return TooLargeError(
        f"The response from {shorten(url)} is larger than the {limit:,}-byte limit{told}; "
        "raise web.max_response_bytes to read it."
    )


#: ``detail`` of a body that is not the compressed data its ``Content-Encoding`` names.
NOT_ITS_CODING = "not_its_coding"


@contextmanager
def _decoding(url: str, limit: int, coding: str) -> Iterator[None]:
    """The decoder's failures as our errors, naming ``url``."""
    try:
        yield
    except BodyTooLarge:
        raise _too_large(url, limit) from None
    except Undecodable as exc:
        if str(exc) == CUT_SHORT:
            raise NetworkError(f"The response from {shorten(url)} could not be decoded: {exc}.") from None
        note_repeating(NOT_ITS_CODING)  # the site sends the same bytes each time: not retried
        raise NetworkError(
            f"The response from {shorten(url)} could not be decoded: its body is not the '{coding}' data its "
            f"Content-Encoding header says it is ({exc}). The site sends it so; a browser cannot read it either.",
            detail=NOT_ITS_CODING,
        ) from None
    except UnsupportedCoding as exc:
        raise UnsupportedError(f"The response from {shorten(url)} cannot be read: {exc}.") from None


async def _read_body(response: httpx.Response, url: str, limit: int, truncate: bool) -> BodyDecoder:
    """The decoded body, at most ``limit`` bytes: ``too_large`` beyond, or cut with ``truncate``."""
    announced = response.headers.get("content-length", "")
    if announced.isdigit() and int(announced) > limit and not truncate:
        raise _too_large(url, limit, int(announced))
    coding = response.headers.get("content-encoding", "")
    with _decoding(url, limit, coding):
        body, turns = BodyDecoder(coding, limit, truncate=truncate), Turns()
        async for raw in response.aiter_raw():
            if body.encoded:
                await _decoders.run(body.feed, raw)
            else:
                body.feed(raw)
                if turns.due():
                    await asyncio.sleep(0)
            if body.full:
                return body
        if body.encoded:
            await _decoders.run(body.finish)
    return body


async def gunzip(content: bytes, url: str, limit: int) -> tuple[bytes, bool]:
    """A gzip file's content (a ``.xml.gz`` sitemap) up to the same cap as a body, decoded off
    the event loop, and whether it was cut there (a gzip bomb stops at it); a corrupt file, or
    one that ends before its stream does, is ``network_error``."""
    body = BodyDecoder("gzip", limit, truncate=True)
    with _decoding(url, limit, "gzip"):
        await _decoders.run(body.feed, content)
        if not body.full:
            await _decoders.run(body.finish)
    return body.body, body.full


#: Where page fetches take their proxy from (the environment's are not used for them).
PAGE_PROXY_SETTING = "web.proxy"


def _network_error(exc: Exception, url: str, proxy: str | None, tunnel: TunnelWatch | None) -> WebProviderError:
    if proxy and tunnel is not None and tunnel.waiting:  # the page was never reached
        if isinstance(exc, httpx.TimeoutException):
            return WebTimeoutError(
                f"{shorten(url)} did not answer in time ({type(exc).__name__}): "
                f"{no_tunnel(proxy_address(proxy), tunnel.host, PAGE_PROXY_SETTING)}"
            )
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
            text = dropped_tunnel(proxy_address(proxy), shorten(url), exc, PAGE_PROXY_SETTING)
            return NetworkError(text, detail=PROXY_UNREACHABLE)
    if isinstance(exc, httpx.TimeoutException):
        return WebTimeoutError(f"{shorten(url)} did not answer in time ({type(exc).__name__}).")
    if isinstance(exc, httpx.RemoteProtocolError) and str(exc) == HEADERS_TOO_LONG:
        return TooLargeError(  # the site sends them so every time: not retried, as a body too large is not
            f"{shorten(url)} answered with response headers larger than the 100 KiB that can be read "
            "(a pile of cookies, most often); the site would send them so again.",
            detail=HEADERS,
        )
    if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return UnsafeURLError(f"Refused to fetch {shorten(url)}: {exc}.", detail=str(exc))
    if isinstance(exc, httpx.ConnectError):
        target = httpx.URL(url)
        host, failing = target.host, f"Could not fetch {shorten(url)}"
        refused = (  # every fetch through a proxy goes to the proxy first
            proxy_refused(proxy, shorten(url), exc, settings=PAGE_PROXY_SETTING, host=host)
            if proxy
            else certificate_error(exc, failing, host) or plain_http_error(exc, failing, target.netloc.decode("ascii"))
        )
        if refused is not None:
            if refused.detail in CERTIFICATE_DETAILS or refused.detail == NO_TLS:
                note_repeating(refused.detail)  # the same handshake would be refused again
            return refused
    if isinstance(exc, httpx.ProxyError):
        return proxy_error(exc, shorten(url), settings=PAGE_PROXY_SETTING)
    return NetworkError(f"Could not fetch {shorten(url)}: {type(exc).__name__}: {exc}".rstrip(": .") + ".")


#: How httpx words a redirect's ``Location`` it cannot parse (it reads it while sending).
_UNREADABLE_LOCATION = "Invalid URL in location header"


class _Request(NamedTuple):
    """What every hop of one fetch asks for."""

    limit: int
    accept: str
    truncate: bool
    headers: Mapping[str, str]
    on_redirect: Callable[[str], None] | None
    #: Awaited with each redirect target that passed the address check, before it is requested.
    check_hop: Callable[[str], Awaitable[None]] | None
    #: ``web.proxy``, which every hop goes through when set.
    proxy: str | None
    #: With ``proxy``: whether an ``https://`` hop still waits for the proxy's tunnel.
    tunnel: TunnelWatch | None


async def _follow(client: httpx.AsyncClient, url: str, policy: AddressPolicy, asked: _Request) -> FetchResult:
    target = await check_destination_resolved(url, policy)
    redirects: list[str] = []
    cookies = httpx.Cookies()  # this fetch's own: a site that sets one on a redirect gets it on the next hop
    while True:
        request_url = str(target.url)
        try:
            headers = {**asked.headers, "Accept": asked.accept, "Accept-Encoding": accept_encoding()}
            request = client.build_request("GET", target.url, headers=headers, cookies=cookies)
            if asked.tunnel is not None and asked.proxy and tunnelled(asked.proxy, target.url.scheme):
                asked.tunnel.host, asked.tunnel.waiting = target.url.host, False
                request.extensions["trace"] = asked.tunnel
            response = await client.send(request, stream=True)
        except UnsafeURLError as exc:
            # The connection-time check: the name now resolves somewhere it must not go.
            raise UnsafeURLError(
                f"Refused to fetch {shorten(request_url)}: {exc.detail or exc.message} "
                "(checked again when connecting).",
                detail=exc.detail,
            ) from None
        except WebProviderError:
            raise
        except httpx.InvalidURL:
            # httpx reads every redirect's target, and a hostless one (data:, javascript:) fails there.
            raise UnsafeURLError(
                f"Refused to follow a redirect from {shorten(request_url)}: its target is not an http or https address.",
                detail="bad redirect",
            ) from None
        except httpx.HTTPError as exc:
            if isinstance(exc, httpx.RemoteProtocolError) and str(exc).startswith(_UNREADABLE_LOCATION):
                raise UnsafeURLError(
                    f"Refused to follow a redirect from {shorten(request_url)}: the target cannot be parsed "
                    f"({str(exc).removeprefix(_UNREADABLE_LOCATION).strip(' :.')}).",
                    detail="bad redirect",
                ) from None
            raise _network_error(exc, request_url, asked.proxy, asked.tunnel) from None
        except Exception as exc:
            if not (asked.proxy and broken_handshake(exc)):
                raise
            why = f"{type(exc).__name__}: {exc}"
            raise socks_handshake_error(asked.proxy, shorten(request_url), why, settings=PAGE_PROXY_SETTING) from None
        try:
            cookies.extract_cookies(response)
            if response.status_code == 407 and asked.proxy:  # only a proxy asks this
                raise proxy_auth_error(shorten(request_url), None, settings=PAGE_PROXY_SETTING)
            if asked.proxy and not tunnelled(asked.proxy, target.url.scheme):  # forwarded: the proxy may answer itself
                reason = response.extensions.get("reason_phrase", b"").decode("ascii", "replace")
                refused = forwarded_refusal(
                    response.status_code, reason, response.headers, asked.proxy, shorten(request_url),
                    settings=PAGE_PROXY_SETTING,
                )
                if refused is not None:
                    raise refused
            if response.status_code in REDIRECT_STATUSES and (location := redirect_location(response.headers)):
                if len(redirects) >= MAX_REDIRECTS:
                    raise ProviderError(
                        f"{shorten(url)} redirected more than {MAX_REDIRECTS} times; giving up."
                    )
                try:
                    next_url = target.url.join(location)
                except (httpx.InvalidURL, ValueError) as exc:
                    raise UnsafeURLError(
                        f"Refused to follow a redirect from {shorten(request_url)}: the target cannot be parsed ({exc}).",
                        detail="bad redirect",
                    ) from None
                redirects.append(request_url)
                if asked.on_redirect is not None:
                    asked.on_redirect(str(next_url))
                try:
                    target = await check_destination_resolved(next_url, policy)
                except (UnsafeURLError, NetworkError) as exc:  # refused, or its name not resolved here
                    exc.message = f"{exc.message} (reached by a redirect from {shorten(request_url)})"
                    exc.args = (exc.message,)
                    raise
                if asked.check_hop is not None:
                    await asked.check_hop(str(target.url))
                continue
            result = FetchResult(url, request_url, response.status_code, response.headers, redirects=redirects)
            if 200 <= response.status_code < 300:
                try:
                    body = await _read_body(response, request_url, asked.limit, asked.truncate)
                except httpx.HTTPError as exc:
                    raise _network_error(exc, request_url, asked.proxy, asked.tunnel) from None
                result.content, result.truncated = body.body, body.full
            return result
        finally:
            await response.aclose()


#: Where this task's last fetch stood when its time or the caller's own deadline cut it short,
#: if that was short of the page (a proxy that had not opened its tunnel); set in the fetching
#: task only.
_cut_short: ContextVar[str | None] = ContextVar("webproviders_fetch_cut_short", default=None)


def cut_short_at() -> str | None:
    """Why this task's last fetch, cut short by its own time or the caller's deadline, never
    reached its page (the proxy had not opened its tunnel), so that the caller's timeout can say
    so; None when nothing kept it short of the page. Both are asked: the two run out together
    when a fetch is given what is left of the call, and either may fire first."""
    return _cut_short.get()


async def fetch(
    url: str,
    config: Config | None = None,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    max_bytes: int | None = None,
    accept: str = ACCEPT_PAGE,
    truncate: bool = False,
    headers: Mapping[str, str] | None = None,
    on_redirect: Callable[[str], None] | None = None,
    check_hop: Callable[[str], Awaitable[None]] | None = None,
) -> FetchResult:
    """GET ``url`` safely and return the final response (any status; body only for 2xx).

    Raises ``unsafe_url`` (any hop), ``too_large`` (more than ``max_bytes`` decoded bytes;
    with ``truncate`` the first ``max_bytes`` are kept instead), ``timeout`` (``timeout``
    seconds for the whole fetch), ``unsupported`` (an encoding that cannot be decoded) or
    ``network_error``; HTTP error statuses are returned, see :func:`status_error`.
    ``headers`` go with every hop; ``on_redirect(target)`` sees each redirect target before
    it is checked, and may raise to stop there; ``check_hop(target)`` is awaited after the
    check, before the target is requested, and may raise too (a crawl's robots.txt).
    """
    _cut_short.set(None)  # what an earlier fetch of this task met is not this one's
    policy = AddressPolicy.from_config(config)
    check_destination(url, policy)  # fail fast, before any pool or DNS work
    if accept == ACCEPT_PAGE:  # a page to extract: a worker starts while it downloads
        from .extractpool import extraction_pool

        extraction_pool.start_early()
    limit = max_bytes or (config.web.max_response_bytes if config is not None else 5_000_000)
    client = safe_client(config)
    with resolution_scope():  # the check and the connection share one lookup per host
        proxy = config.web.proxy if config is not None else None
        tunnel = TunnelWatch() if proxy else None
        asked = _Request(limit, accept, truncate, headers or {}, on_redirect, check_hop, proxy, tunnel)
        work = _follow(client, url, policy, asked)
        if timeout is None:
            return await work
        if timeout <= 0:
            work.close()
            raise WebTimeoutError(f"No time was left to fetch {shorten(url)}.")
        try:
            return await within(work, timeout)
        except asyncio.TimeoutError:
            held = _held_by_proxy(proxy, tunnel)
            _cut_short.set(held)
            kept = f": {held}" if held else "."
            raise WebTimeoutError(f"{shorten(url)} did not finish loading within {timeout:.1f} s{kept}") from None
        except asyncio.CancelledError:  # a deadline of the caller's came first
            _cut_short.set(_held_by_proxy(proxy, tunnel))
            raise


def _held_by_proxy(proxy: str | None, tunnel: TunnelWatch | None) -> str | None:
    """The sentence naming the proxy when it, not the page, kept a fetch: its tunnel not opened."""
    if proxy and tunnel is not None and tunnel.waiting:
        return no_tunnel(proxy_address(proxy), tunnel.host, PAGE_PROXY_SETTING)
    return None



def status_error(result: FetchResult) -> WebProviderError | None:
    """The error a page fetch ended in, from its final status; None for a 2xx answer."""
    status = result.status_code
    if 200 <= status < 300:
        return None
    url = shorten(result.final_url)
    challenge = result.headers.get("cf-mitigated", "").lower() == "challenge"
    if challenge and status in (403, 429, 503):
        return BlockedError(
            f"{url} answered with a bot challenge (HTTP {status}); a browser-based backend may read it.",
            detail="captcha_required",
            status_code=status,
        )
    if status in (401, 403, 407, 451):
        return BlockedError(
            f"{url} refused access (HTTP {status}).", detail=f"http_{status}", status_code=status
        )
    if status == 999:  # no HTTP status: LinkedIn's answer to a client it takes for a robot
        return BlockedError(
            f"{url} refused access (HTTP 999, the status LinkedIn and a few other sites answer "
            "automated requests with).",
            detail="http_999",
            status_code=status,
        )
    if status in (404, 410):
        return NotFoundError(f"{url} was not found (HTTP {status}).", status_code=status)
    if status == 408:  # the server's wait for a request ran out (an idle connection it closed): no fault of the URL
        return WebTimeoutError(
            f"{url} stopped waiting for the request (HTTP 408 Request Timeout); asking again may read it.",
            status_code=status,
        )
    if status == 429:
        retry_after = retry_after_from_headers(result.headers)
        when = f" Retry after {retry_after:.0f} s." if retry_after else ""
        return RateLimitedError(
            f"{url} is rate limiting requests (HTTP 429).{when}", retry_after=retry_after, status_code=status
        )
    if status >= 500:
        # A 503's Retry-After says when the site is back: not retried before, and the caller told.
        # Its rate-limit reset headers (sent on every answer) say when a quota renews, not that.
        retry_after = retry_after_header(result.headers) if status == 503 else None
        when = f" Retry after {retry_after:.0f} s." if retry_after else ""
        return BadGatewayError(
            f"{url} failed on its side (HTTP {status}).{when}", retry_after=retry_after, status_code=status
        )
    if status >= 400:
        return InvalidInputError(f"{url} rejected the request (HTTP {status}).", status_code=status)
    if status == 304:  # no request of a fetch is conditional: the site's server (or a cache before it) is at fault
        return BadGatewayError(
            f"{url} answered HTTP 304 Not Modified, though the request asked for no such answer (it sent no "
            "If-Modified-Since or If-None-Match): its server, or a cache before it, is at fault. Asking again "
            "later, or through another backend, may read it.",
            status_code=status,
        )
    if status in REDIRECT_STATUSES:  # a redirect with a Location is followed: this one named none
        return BadGatewayError(
            f"{url} answered HTTP {status}, a redirect that names no place to go (no Location header): the "
            "site is at fault. Open it in a browser to see where it leads, and pass that address.",
            status_code=status,
        )
    return ProviderError(f"{url} answered HTTP {status} without a page to read.", status_code=status)


__all__ = ["ACCEPT_PAGE", "MAX_REDIRECTS", "FetchResult", "fetch", "gunzip", "status_error"]
