"""How every vendor answer is received: through the proxy the settings name, read whole under
a cap on its size, within the call's deadline.

Each vendor request, whether sent by :func:`~webproviders.kit.request_json`, a scraper's
client or a vendor SDK, goes through a :class:`VendorTransport`. httpx's own transports do
the network work (connection pools, TLS, HTTP/2, proxies, ``CONNECT`` tunnels); this one adds
the promises of a vendor call:

- ``Accept-Encoding`` offers only ``gzip`` and ``deflate``, and an answer in any other coding,
  or in more than one, is refused unread (``parse_error``);
- the body is decoded by :class:`~webproviders.fetching.decompress.BodyDecoder`, step by step,
  with the compressed and the decoded bytes both capped (``too_large`` beyond; an announced
  ``Content-Length`` over the cap is refused before reading); steps that may expand a lot run
  in a thread, off the event loop;
- a proxy's 407 is decided by its status line: its body, quoted in the error, is read only
  within a short bound (:func:`_refusal`), so a proxy that drips it is no timeout;
- a JSON answer holding more values than the cap allows (:mod:`.jsonvalues`) is refused
  unparsed (``too_large``): parsing 30 MB of ``{}`` took 25 times that in memory;
- the whole request, connect to last byte, runs under ``asyncio.timeout`` and ends by the
  call's deadline and within the request's own timeout (its longest phase bounds the whole
  exchange): a vendor that drips its answer, or its headers, is cut off, whatever httpx's
  per-read timeout would allow. A cut answer is marked on the call's record
  (:func:`~webproviders.context.note_repeating`), so that it is not retried. The exchange
  runs in a task of its own, cancelled once however many cancellations reach the request, so
  that the connection of an exchange cut off is closed, not left open in its pool;
- a request whose time ran out while it waited for one of the client's connections, all in
  use by this process's other requests, was never sent: it is marked so on the call's record
  (:func:`~webproviders.context.note_queued`, ``no_connection``), as no failure of the vendor's.

Vendor I/O is always awaited, sync calls included (they run on their thread's own loop):
a blocking read cannot be cut short from outside, and httpx looks a request's read timeout
up once per phase (headers, body), not per read, so no timeout setting bounds a vendor that
drips its headers.

The answer handed up is an ordinary ``httpx.Response`` holding the decoded body, so clients,
SDKs, respx and the classifiers see nothing unusual.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import ssl
import time
from collections.abc import Coroutine
from typing import Any

import httpx

from ..asynctimeout import timeout
from ..config import proxy_problem
from ..context import (
    FEWER_CALLS,
    note_queued,
    note_reached,
    note_repeating,
    note_stalled,
    remaining_time,
)
from ..errors import (
    CERTIFICATE_DETAILS,
    NO_CONNECTION,
    PROXY_SETTINGS,
    PROXY_UNREACHABLE,
    NetworkError,
    NotConfiguredError,
    ParseError,
    TooLargeError,
    WebTimeoutError,
    certificate_error,
    forwarded_refusal,
    lookup_failure,
    proxy_address,
    proxy_refused,
    socks_handshake_error,
)
from ..fetching.decompress import BodyDecoder, BodyTooLarge, Undecodable, UnsupportedCoding
from ..fetching.turns import Turns
from ..pools import LazyPool
from ..tunnel import (
    broken_handshake,
    dropped_tunnel,
    no_tunnel,
    tunnel_news,
    tunnelled,
)
from .jsonvalues import BYTES_PER_VALUE, most_values, values_over
from .proxies import ProxyRoutes

#: The codings vendor requests accept: every vendor API offers gzip, and both decode with a bound.
ACCEPT_ENCODING = "gzip, deflate"
_OFFERED = frozenset({"gzip", "x-gzip", "deflate"})
#: Labels that name a compression (anything else in the header, ``identity`` or a stray
#: ``utf-8``, is no coding and is ignored, as browsers do).
_CODINGS = _OFFERED | {"br", "zstd", "compress", "x-compress"}
#: Compressed bytes one decoding step may take on the event loop (deflate expands at most
#: about 1,000 times, so such a step yields about a megabyte); larger steps run in a thread.
INLINE_DECODE = 1024
#: Decoded bytes whose JSON values are counted on the event loop (about a millisecond's work).
INLINE_COUNT = 1024 * 1024
#: ``detail`` of a timeout that cut off a vendor's answer while it was still arriving.
SLOW_ANSWER = "slow_answer"
#: A proxy's refusal of its credentials: decided by the status line, whatever its body does.
PROXY_AUTH = 407
#: Seconds, and decoded bytes, of a 407's body read for its error to quote.
REFUSAL_READ = 1.0
REFUSAL_BYTES = 16 * 1024
_LAST_WORD = re.compile(rb"\S*\Z")
#: Headers that describe the body as it travelled, not the decoded body handed up.
_TRAVEL_HEADERS = frozenset({b"content-encoding", b"content-length", b"transfer-encoding"})

_decoding = LazyPool(4, "webproviders-vendor-decode")


class _Progress:
    """How far one exchange got: whether one of the client's connections was given to it
    (httpx reports the first step taken on one, a connect or the request's headers, through
    the ``trace`` extension), whether it waits for a proxy to open its tunnel to the vendor
    (a ``CONNECT`` sent and not yet answered: marked on the call's record, so a timeout then
    names the proxy), and whether its answer has started to arrive."""

    __slots__ = (
        "answering", "connected", "contended", "dial", "dialing", "extensions", "given", "since", "tunnel", "via",
        "waited",
    )

    def __init__(self, request: httpx.Request) -> None:
        self.answering = False
        self.connected = False
        #: Whether all the connections its client may open were taken when it was sent, so
        #: that the time to its first step was a wait for one (else: the loop was busy).
        self.contended = False
        #: The sentence for a tunnel this request may have to ask a proxy for (None: none).
        self.via: str | None = None
        #: ``via`` while its ``CONNECT`` is unanswered.
        self.tunnel: str | None = None
        #: The sentence for a direct connection still being opened (its name looked up, then
        #: connected), should the time run out there; None: through a proxy, or open.
        self.dial: str | None = None
        self.dialing = False
        self.since = time.monotonic()
        #: Seconds the request waited for its connection (known once it has one).
        self.waited = 0.0
        self.extensions = request.extensions
        self.given = request.extensions.get("trace")  # a client's own
        request.extensions["trace"] = self.trace

    async def trace(self, name: str, info: dict[str, Any]) -> None:
        """The first event: the connection is the request's. Through a proxy's tunnel, the
        ``CONNECT`` asked and answered, or the request itself sent on a tunnel already open.
        Then the client's own trace (or none) takes over for the rest."""
        if not self.connected:
            self.connected = True
            if self.contended:
                self.waited = time.monotonic() - self.since
        if self.dial is not None:
            if name == _DIAL_STARTED:
                self.dialing = True
                note_stalled(self.dial)
            elif name != _DIAL_FAILED:  # connected, or given a connection already open
                if self.dialing:
                    note_stalled(None)
                self.dial, self.dialing = None, False
            # failed: cancelled there, when the time ran out (the note says why), or refused
            # (its own error says so)
        news = tunnel_news(name, info) if self.via is not None else None
        if news:
            self.tunnel = self.via
            note_stalled(self.tunnel)
        elif news is False:  # open: answered, or the request went on a tunnel already open
            if self.tunnel is not None:
                note_stalled(None)
            self.via = self.tunnel = None
        if self.via is None and not self.dialing:  # on a connection open to the vendor (or its proxy)
            note_reached()
            if self.given is None:
                self.extensions.pop("trace", None)
            else:
                self.extensions["trace"] = self.given
        if self.given is not None:
            called = self.given(name, info)
            if inspect.isawaitable(called):
                await called


class VendorTransport(httpx.AsyncBaseTransport):
    """A capped, deadline-bound exchange over httpx's transports (one per proxy route) of one
    event loop. ``provider`` names the setting a ``too_large`` message points to."""

    def __init__(
        self,
        *,
        routes: ProxyRoutes,
        tls: ssl.SSLContext,
        max_bytes: int,
        provider: str | None = None,
        http2: bool = False,
        limits: httpx.Limits | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.provider = provider
        #: The connections one pool may open (None: no limit), and the requests each pool
        #: (one per proxy route) is serving now.
        self._most = (limits or httpx.Limits()).max_connections
        self._serving: dict[str | None, int] = {}
        self._routes = routes
        self._options: dict[str, Any] = {"verify": tls, "http2": http2}
        if limits is not None:
            self._options["limits"] = limits
        self._via: dict[str | None, httpx.AsyncHTTPTransport] = {}

    def _transport_for(self, proxy: str | None) -> httpx.AsyncHTTPTransport:
        transport = self._via.get(proxy)
        if transport is None:
            # web.proxy was checked as the config loaded; one from the environment is checked
            # here, so that a variable no request could use (http://, SOCKS without socksio)
            # says so rather than failing every call as the vendor's fault
            problem = proxy_problem(proxy) if proxy is not None else None
            if problem is not None:
                raise NotConfiguredError(
                    f"The proxy for this request cannot be used: {problem} (set {PROXY_SETTINGS}).",
                    provider=self.provider,
                )
            transport = httpx.AsyncHTTPTransport(proxy=proxy, **self._options)
            self._via[proxy] = transport
        return transport

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        budget = _budget(request)
        progress = _Progress(request)
        if budget is None:
            return await _cancelled_once(self._exchange(request, progress))
        if budget <= 0:
            raise WebTimeoutError(f"No time was left to send the request to {request.url.host}.")
        try:
            async with timeout(budget):
                return await _cancelled_once(self._exchange(request, progress))
        except asyncio.TimeoutError:
            if not progress.connected and progress.contended:
                raise self._no_connection(request.url, progress) from None
            self._asked_late(request.url, progress)
            stalled = progress.tunnel or (progress.dial if progress.dialing else None)
            if stalled is not None:
                raise WebTimeoutError(f"{request.url.host} did not answer within {budget:.1f} s: {stalled}") from None
            raise _out_of_time(request.url, budget, progress) from None
        except asyncio.CancelledError:
            if progress.answering:  # the dispatcher's own deadline cut the answer
                note_repeating(SLOW_ANSWER)
            if not progress.connected and progress.contended:
                self._no_connection(request.url, progress)
            else:
                self._asked_late(request.url, progress)
            raise

    async def _exchange(self, request: httpx.Request, progress: _Progress) -> httpx.Response:
        url = request.url
        proxy = self._routes.proxy_for(url.scheme, url.host, url.port) if self._routes.proxies else None
        transport = self._transport_for(proxy)
        if proxy is not None and tunnelled(proxy, url.scheme):  # through a tunnel: CONNECT, or SOCKS
            progress.via = no_tunnel(proxy_address(proxy), url.host, PROXY_SETTINGS)
        elif proxy is None:
            progress.dial = not_dialled(url.host)
        serving = self._serving.get(proxy, 0)
        progress.contended = self._most is not None and serving >= self._most
        self._serving[proxy] = serving + 1
        try:
            return await self._exchange_on(transport, proxy, request, progress)
        finally:
            self._serving[proxy] -= 1

    async def _exchange_on(
        self, transport: httpx.AsyncHTTPTransport, proxy: str | None, request: httpx.Request, progress: _Progress
    ) -> httpx.Response:
        """The exchange itself, on the pool of ``proxy``'s route."""
        url = request.url
        try:
            response = await transport.handle_async_request(request)
        except httpx.PoolTimeout:
            raise self._no_connection(url, progress) from None
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            if progress.tunnel is None or proxy is None:
                raise
            raise NetworkError(  # the vendor was never reached: the proxy dropped its CONNECT
                dropped_tunnel(proxy_address(proxy), url.host, exc, PROXY_SETTINGS),
                provider=self.provider,
                detail=PROXY_UNREACHABLE,
            ) from None
        except httpx.ConnectError as exc:
            if proxy is not None:
                raise _marked(proxy_refused(proxy, url.host, exc, self.provider)) from None
            refused = certificate_error(exc, f"{url.host} could not be reached", url.host, self.provider)
            if refused is not None:
                raise _marked(refused) from None
            unresolved = lookup_failure(exc)
            if unresolved is None:
                raise
            # A proxy is set, but NO_PROXY sent this host past it: asking for a proxy would mislead.
            advice = (
                f"NO_PROXY names it, so it went direct instead of through the proxy; where only the proxy "
                f"reaches the internet, take {url.host} out of NO_PROXY"
                if self._routes.proxies.get(url.scheme)
                else f"Where only a proxy reaches the internet, set it: {PROXY_SETTINGS}"
            )
            raise NetworkError(
                f"{url.host} could not be reached: its name does not resolve on this machine ({unresolved}). "
                f"{advice}.",
                provider=self.provider,
            ) from None
        except Exception as exc:
            if proxy is None or not broken_handshake(exc):
                raise
            # the vendor was never reached: the SOCKS proxy broke off
            raise socks_handshake_error(proxy, url.host, f"{type(exc).__name__}: {exc}", self.provider) from None
        if proxy is not None and not tunnelled(proxy, url.scheme):  # forwarded: the proxy may answer itself
            reason = response.extensions.get("reason_phrase", b"").decode("ascii", "replace")
            refused = forwarded_refusal(response.status_code, reason, response.headers, proxy, url.host, self.provider)
            if refused is not None:
                await response.aclose()
                raise refused
        progress.answering = True
        if response.status_code == PROXY_AUTH:
            return await _refusal(response)
        # Marked while the answer arrives: an SDK's request runs on another thread's loop,
        # and the call's deadline ends the call before its cancellation reaches the request
        # there, whose own mark would come too late to tell the dispatcher.
        earlier = note_repeating(SLOW_ANSWER)
        try:
            body, turns = self._decoder(response, request.url), Turns()
            async for raw in response.aiter_raw():
                if body.encoded and len(raw) > INLINE_DECODE:
                    await _decoding.run(self._feed, body, raw, request.url)
                else:
                    self._feed(body, raw, request.url)
                    if turns.due():
                        await asyncio.sleep(0)
            self._feed(body, None, request.url)
        except httpx.TimeoutException as exc:
            raise _stopped(request.url, exc) from None
        except asyncio.CancelledError:
            raise
        except BaseException:
            note_repeating(earlier)  # failed otherwise: its own error says what would repeat
            raise
        finally:
            await response.aclose()
        note_repeating(earlier)
        decoded = body.body
        # counting a big body takes milliseconds: off the event loop, as big decoding steps are
        small = len(decoded) <= INLINE_COUNT
        values = values_over(decoded, self.max_bytes) if small else await _decoding.run(values_over, decoded, self.max_bytes)
        if values is not None:
            raise self._too_many_values(request.url, values)
        return _decoded(response, decoded)

    def _decoder(self, response: httpx.Response, url: httpx.URL) -> BodyDecoder:
        """A capped decoder for ``response``; refuses a coding that was not offered, and an
        announced length over the cap."""
        coding = response.headers.get("content-encoding", "")
        if coding:
            _check_coding(coding, url)
        announced = response.headers.get("content-length", "")
        if announced.isdigit() and int(announced) > self.max_bytes:
            raise self._too_large(url, int(announced))
        return BodyDecoder(coding, self.max_bytes)

    def _feed(self, body: BodyDecoder, raw: bytes | None, url: httpx.URL) -> None:
        """Decode the next raw chunk (None: the end of the body), in our errors."""
        try:
            if raw is None:
                body.finish()
            else:
                body.feed(raw)
        except BodyTooLarge:
            raise self._too_large(url) from None
        except Undecodable as exc:
            raise NetworkError(f"The answer from {url.host} could not be decoded: {exc}.") from None

    def _busy(self, url: httpx.URL) -> str:
        """Why a request waited for a connection: its client's were all in use."""
        busy = f"all {self._most} connections" if self._most else "every connection"
        return f"{busy} this process opens to {self.provider or url.host} at a time were in use by its other requests"

    def _asked_late(self, url: httpx.URL, progress: _Progress) -> None:
        """Time ran out after the request waited for a connection and was sent: the wait is
        marked on the call's record, so that a vendor given too little of its time is not
        blamed (dispatch weighs it as it weighs a wait for a thread)."""
        if progress.waited > 0:
            note_queued(self._busy(url), progress.waited, sent=True, detail=NO_CONNECTION)

    def _no_connection(self, url: httpx.URL, progress: _Progress) -> WebTimeoutError:
        """Time ran out while the request waited for one of the connections this client may
        open, all held by other requests of this process: it was never sent, which is no
        failure of the vendor's (marked on the call's record, so dispatch says so)."""
        reason = self._busy(url)
        waited = time.monotonic() - progress.since
        note_queued(reason, waited, sent=False, detail=NO_CONNECTION)
        return WebTimeoutError(
            f"The request to {url.host} was not sent within {waited:.1f} s: {reason}. {FEWER_CALLS}",
            detail=NO_CONNECTION,
        )

    def _too_large(self, url: httpx.URL, announced: int | None = None) -> TooLargeError:
        told = f" ({announced:,} bytes announced)" if announced else ""
        setting = f"web.providers.{self.provider}.max_response_bytes" if self.provider else "the body cap"
        return TooLargeError(
            f"The answer from {url.host} is larger than the {self.max_bytes:,}-byte cap{told}; "
            f"it was not read (raise {setting} to read it)."
        )

    def _too_many_values(self, url: httpx.URL, values: int) -> TooLargeError:
        setting = f"web.providers.{self.provider}.max_response_bytes" if self.provider else "the body cap"
        return TooLargeError(
            f"The answer from {url.host} holds up to {values:,} JSON values, more than the {most_values(self.max_bytes):,} "
            f"its {self.max_bytes:,}-byte cap allows (one per {BYTES_PER_VALUE} bytes): parsing it would take many "
            f"times the cap in memory, so it was not parsed (raise {setting} to read it)."
        )

    async def aclose(self) -> None:
        transports, self._via = list(self._via.values()), {}
        for transport in transports:
            await transport.aclose()


async def _refusal(response: httpx.Response) -> httpx.Response:
    """A proxy's 407, decided by its status line. Of its body, quoted in the error, only what
    arrives within :data:`REFUSAL_READ` seconds (half the call's time left, when less) and
    :data:`REFUSAL_BYTES` bytes is read: a proxy that dripped its page turned a refusal of its
    credentials into a timeout. A body cut short loses its last word, which may be part of a
    secret the proxy quoted back."""
    left = remaining_time()
    bound = REFUSAL_READ if left is None else min(REFUSAL_READ, left / 2)
    try:
        body = BodyDecoder(response.headers.get("content-encoding", ""), REFUSAL_BYTES, truncate=True)
    except UnsupportedCoding:
        body = None
    whole = False
    try:
        async with timeout(bound):
            async for raw in response.aiter_raw():
                if body is not None:
                    body.feed(raw)
                if body is None or body.full:
                    break
            else:
                whole = True
    except (asyncio.TimeoutError, httpx.HTTPError, Undecodable):
        pass
    finally:
        await response.aclose()
    if body is None:
        return _decoded(response, b"")
    text = body.body
    if not whole or body.full:
        text = _LAST_WORD.sub(b"", text)
    return _decoded(response, text)


def _marked(error: NetworkError) -> NetworkError:
    """``error``, marked on the call's record when a refused certificate caused it: the same
    handshake would be refused again, so it is not retried (a chain still moves on)."""
    if error.detail in CERTIFICATE_DETAILS:
        note_repeating(error.detail)
    return error


def _decoded(response: httpx.Response, body: bytes) -> httpx.Response:
    """The answer handed up: the vendor's status and headers, the decoded body (the headers
    that described the body as it travelled are dropped; httpx sets its length)."""
    headers = [(name, value) for name, value in response.headers.raw if name.lower() not in _TRAVEL_HEADERS]
    kept = {key: response.extensions[key] for key in ("http_version", "reason_phrase") if key in response.extensions}
    return httpx.Response(response.status_code, headers=headers, content=body, extensions=kept)


#: The trace event of a direct connection starting: its name lookup, then the connect.
_DIAL_STARTED, _DIAL_FAILED = "connection.connect_tcp.started", "connection.connect_tcp.failed"


def not_dialled(host: str) -> str:
    """Why a request whose time ran out while its connection was being opened never reached
    ``host``: where the lookup hangs (no DNS server answers, a firewall drops the packets), every
    vendor times out alike, which read as each one being slow."""
    return (
        f"the connection to {host} was not open yet (looking up its name or connecting took the time: a DNS "
        f"server that does not answer, or a firewall that drops packets?). Where only a proxy reaches the "
        f"internet, set it: {PROXY_SETTINGS}."
    )


def _out_of_time(url: httpx.URL, budget: float, progress: _Progress) -> WebTimeoutError:
    if not progress.answering:
        return WebTimeoutError(f"{url.host} did not answer within {budget:.1f} s.")
    note_repeating(SLOW_ANSWER)
    return WebTimeoutError(
        f"{url.host} was still sending its answer when its {budget:.1f} s ran out; it was cut off.",
        detail=SLOW_ANSWER,
    )


def _stopped(url: httpx.URL, exc: httpx.TimeoutException) -> WebTimeoutError:
    """A read of a body that had started timed out: the vendor stalled mid-answer."""
    note_repeating(SLOW_ANSWER)
    return WebTimeoutError(f"{url.host} stopped sending its answer ({type(exc).__name__}).", detail=SLOW_ANSWER)


def _check_coding(header: str, url: httpx.URL) -> None:
    """Refuse a coding that was not offered, and stacked codings (no vendor needs them)."""
    applied = [label for label in (c.strip().lower() for c in header.split(",")) if label in _CODINGS]
    if any(label not in _OFFERED for label in applied) or len(applied) > 1:
        raise ParseError(
            f"{url.host} answered with Content-Encoding '{header}', which was not asked for "
            f"(Accept-Encoding: {ACCEPT_ENCODING}); the answer was not read."
        )


#: Seconds a cut-off exchange is waited for while it closes its connection.
UNWIND_GRACE = 0.25
#: Cut-off exchanges still closing their connection (a task is kept only while referenced).
_unwinding: set[asyncio.Task[Any]] = set()


async def _cancelled_once(exchange: Coroutine[Any, Any, httpx.Response]) -> httpx.Response:
    """``await exchange`` in a task of its own, which the caller's cancellation cancels once.

    httpcore closes the connection of an exchange cut off in a clean-up that a second
    cancellation interrupts, and the connection then stays in its pool as active, neither
    reused nor closed. At the call's deadline two come together, the request's own time
    limit and the dispatcher's bound (an MCP client's cancel scope repeats its own), and
    each timed-out request left an open socket behind; once the pool's 100 connections were
    all such, every request of that provider waited for a connection in vain.
    """
    task = asyncio.ensure_future(exchange)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.cancel()
        _unwinding.add(task)
        task.add_done_callback(_unwound)
        await asyncio.wait((task,), timeout=UNWIND_GRACE)  # cancelled again, it unwinds on its own
        raise


def _unwound(task: asyncio.Task[Any]) -> None:
    _unwinding.discard(task)
    if not task.cancelled():
        task.exception()  # taken: the caller has gone, and asyncio's log need not say it


def _budget(request: httpx.Request) -> float | None:
    """Seconds the whole request may take: the call's time left, and the request's own
    timeout (its longest phase) as a bound on the whole exchange; None when neither is set."""
    left = remaining_time()
    timeouts = request.extensions.get("timeout") or {}
    own = max((value for value in timeouts.values() if value is not None), default=None)
    if own is None:
        return left
    return own if left is None else min(own, left)


__all__ = ["ACCEPT_ENCODING", "SLOW_ANSWER", "VendorTransport"]
