"""Connections that go to the address that was checked, and the pooled client that uses them.

The network backend takes the host's addresses from the lookup that the URL check made
(:func:`.urlsafety.resolution_scope`: one resolution per host per call), checks them again
under its own policy, and opens the socket to a vetted address; outside a scope it resolves
the host itself. The TLS handshake still names the host (SNI and certificate checks) and
the ``Host`` header is untouched, because httpcore does both above this layer. So a DNS
answer that changes between a check and the connection (rebinding) is never asked for, and
can never reach an internal address.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import importlib.util
import os
import ssl
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from ..config import Config, user_agent
from ..errors import UnsafeURLError
from ..loopend import LoopEnd
from .location import clean_location
from .urlsafety import AddressPolicy, resolve_checked

#: Generous per-operation limits; the fetch itself is bounded by its own total timeout.
CLIENT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
#: The proxy's pool (every request goes to the one proxy).
CLIENT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=64, keepalive_expiry=15.0)
#: One origin's pool: above any sane per-host concurrency, with a few idle connections kept.
ORIGIN_LIMITS = httpx.Limits(max_connections=32, max_keepalive_connections=8, keepalive_expiry=15.0)
#: Origins whose pools are kept; beyond it the least recently used idle one is closed.
MAX_ORIGINS = 256


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Vets every address of the host (as the URL check resolved it) and connects to exactly that address."""

    def __init__(self, policy: AddressPolicy, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.policy = policy
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await resolve_checked(host, port, self.policy)
        *others, last = addresses  # never empty: these pools are not used behind a proxy
        for address in others:
            try:
                return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout):
                continue  # try the next vetted address, as a resolver-based connect would
        return await self._inner.connect_tcp(last, port, timeout, local_address, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise UnsafeURLError("Unix sockets are never used for fetching URLs.")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport over a pool whose connections use :class:`PinnedBackend`.

    httpx builds its pool in ``__init__`` without a way to pass a network backend, so this
    builds the pool itself; request and response handling are httpx's own (they use
    ``self._pool``).
    """

    def __init__(
        self,
        policy: AddressPolicy,
        *,
        http2: bool = False,
        limits: httpx.Limits = ORIGIN_LIMITS,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """``ssl_context`` None: the pool's origin is plain ``http``, whose connections never use one."""
        self.policy = policy
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=http2,
            network_backend=PinnedBackend(policy),
        )


class OriginPools(httpx.AsyncBaseTransport):
    """A pinned pool per origin (scheme, host, port) instead of one pool for every site.

    httpcore picks a connection by scanning its whole pool on every request and response;
    with one pool, reading pages from fifty sites spent most of the client's CPU there. Per
    origin the scan covers a handful of connections, whatever the number of sites. At most
    :data:`MAX_ORIGINS` pools are kept: past that the least recently used one with no
    request in flight is closed.
    """

    def __init__(self, policy: AddressPolicy, *, http2: bool = False) -> None:
        self.policy = policy
        self._http2 = http2
        self._pools: OrderedDict[tuple[bytes, bytes, int | None], PinnedTransport] = OrderedDict()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        origin = (url.raw_scheme, url.raw_host, url.port)
        pool = self._pools.get(origin)
        if pool is None:
            tls = trusted_tls() if url.raw_scheme == b"https" else None
            pool = self._pools[origin] = PinnedTransport(self.policy, http2=self._http2, ssl_context=tls)
            await self._evict()
        else:
            self._pools.move_to_end(origin)
        return await pool.handle_async_request(request)

    async def _evict(self) -> None:
        for origin in list(self._pools)[: max(0, len(self._pools) - MAX_ORIGINS)]:
            pool = self._pools[origin]
            if all(connection.is_idle() for connection in pool._pool.connections):
                del self._pools[origin]
                await pool.aclose()

    async def aclose(self) -> None:
        pools, self._pools = list(self._pools.values()), OrderedDict()
        for pool in pools:
            await pool.aclose()


#: The TLS context of each trust setting (``SSL_CERT_FILE``, ``SSL_CERT_DIR``) met so far.
_tls_by_trust: dict[tuple[str | None, str | None], ssl.SSLContext] = {}
_tls_lock = threading.Lock()


def trusted_tls() -> ssl.SSLContext:
    """The certificates every client trusts, vendor calls and page fetches alike: certifi's
    bundle, or ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set (an internal CA, a proxy that
    inspects TLS). Read here rather than by a transport, since page fetches take
    ``trust_env=False`` so that no environment proxy or ``.netrc`` reaches them.

    One context per trust setting for the process: loading the bundle takes about 40 ms, and
    each config (a tenant's, an MCP client's) paid it again on its first call. Every client
    asks the same ALPN protocols of it (HTTP/2 is on for all or none), so sharing it is safe."""
    trust = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    context = _tls_by_trust.get(trust)
    if context is None:
        with _tls_lock:
            context = _tls_by_trust.get(trust)
            if context is None:
                context = _tls_by_trust[trust] = httpx.create_ssl_context()
    return context


def _forget_tls_lock() -> None:
    """In a forked child: the lock a parent's thread held while loading the CA bundle as it
    forked would be held there for good, and every first request of the child wait on it."""
    global _tls_lock
    _tls_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_tls_lock)


def http2_available() -> bool:
    """Whether the optional ``h2`` package is installed (HTTP/2 is used only then)."""
    return importlib.util.find_spec("h2") is not None


class _LoopClients(dict[tuple[Any, ...], httpx.AsyncClient]):
    """One event loop's safe-fetching clients, closed and let go of as the loop shuts down."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()

        async def ended() -> None:
            if _clients.get(loop) is self:
                del _clients[loop]
            await asyncio.gather(*(client.aclose() for client in self.values()), return_exceptions=True)

        self.end = LoopEnd(ended)


_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClients] = weakref.WeakKeyDictionary()


async def aclose_loop_clients() -> None:
    """Close the running loop's safe-fetching clients (the loop is about to be closed)."""
    clients = _clients.get(asyncio.get_running_loop())
    if clients is not None:
        await clients.end.run()


def no_cookies() -> http.cookiejar.CookieJar:
    """A cookie jar that stores nothing: a shared client's jar would send the cookies one
    caller's page set (a session a sign-in link opened) with every later fetch of that site.
    A jar, not ``httpx.Cookies``: httpx keeps a jar it is given, and copies the cookies of
    the other (without its policy)."""
    return http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))


def safe_client(config: Config | None) -> httpx.AsyncClient:
    """The pooled safe-fetching client for the running loop and this config's network settings.

    Redirects are not followed here: the fetcher checks every hop. Environment proxies and
    ``.netrc`` are ignored (``trust_env=False``) so no credential follows a URL from a page;
    the certificates trusted are the vendor calls' (:func:`trusted_tls`). The client keeps no
    cookie (:func:`no_cookies`): it serves every caller, and a session one page set would go
    with another caller's fetch of that site.
    With ``web.proxy`` the proxy resolves names itself; URLs are still checked before sending.
    """
    loop = asyncio.get_running_loop()
    policy = AddressPolicy.from_config(config)
    proxy = config.web.proxy if config is not None else None
    key = (policy, user_agent(config), proxy)
    per_loop = _clients.get(loop)
    if per_loop is None:
        for old in [old for old in list(_clients) if old.is_closed()]:
            _clients.pop(old).end.forget()  # closed without shutting down: nothing to run on
        per_loop = _clients[loop] = _LoopClients(loop)
    client = per_loop.get(key)
    if client is None or client.is_closed:
        http2 = http2_available()
        transport: httpx.AsyncBaseTransport
        if proxy:
            transport = httpx.AsyncHTTPTransport(
                proxy=proxy, verify=trusted_tls(), http2=http2, limits=CLIENT_LIMITS, trust_env=False
            )
        else:
            transport = OriginPools(policy, http2=http2)
        client = httpx.AsyncClient(
            transport=transport,
            timeout=CLIENT_TIMEOUT,
            headers={"User-Agent": user_agent(config)},
            follow_redirects=False,
            trust_env=False,
            cookies=no_cookies(),
            event_hooks={"response": [clean_location]},  # before httpx reads a redirect's target
        )
        per_loop[key] = client
    return client
