"""Vendor requests sent straight over httpcore's connection pools.

A vendor call is one request to an endpoint the user configured. ``httpx.Client`` wraps
every request in machinery such a call never uses (cookie jar, auth and redirect flows,
base-URL merging, event hooks, URL parsing twice), which costs about a quarter of a
millisecond per request. The wire sends the same request through the same httpcore pools
httpx itself uses, with httpx's defaults (timeouts, pool limits, TLS context, proxies from
``web.proxy`` or the environment), and hands back an ``httpx.Response`` and httpx's
errors, the vocabulary the classifiers and the error mapping speak.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json as jsonlib
import urllib.request
import weakref
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import httpcore
import httpx

from ..config import Config, user_agent
from ..fetching.pinning import http2_available

#: Waits when the call gives none: 10 s to connect, 30 s for the rest.
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
#: Connections per pool (one pool per event loop and route).
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)

#: URLs whose parse is kept, and hosts whose route a loop remembers (then it starts again).
_MAX_ROUTES = 512

#: The transport failures httpcore raises; each has a namesake in httpx.
_HTTPCORE_ERRORS = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.ProxyError,
    httpcore.UnsupportedProtocol,
)


class _Target:
    """The parts of a URL a request line needs, parsed once per URL string."""

    __slots__ = ("authorization", "host", "netloc", "params", "path", "port", "scheme", "text_scheme")

    def __init__(self, url: httpx.URL) -> None:
        self.scheme = url.raw_scheme
        self.text_scheme = url.scheme
        self.host = url.raw_host
        self.port = url.port
        self.netloc = url.netloc
        self.path = url.raw_path.split(b"?", 1)[0]
        self.params: list[tuple[str, str]] = list(url.params.multi_items())
        #: Basic auth from ``user:password@`` in the URL, sent as httpx sends it.
        self.authorization: bytes | None = None
        if url.userinfo:
            pair = f"{url.username}:{url.password}".encode()
            self.authorization = b"Basic " + base64.b64encode(pair)


@functools.lru_cache(maxsize=_MAX_ROUTES)
def _target(url: str) -> _Target:
    parsed = httpx.URL(url)
    if parsed.scheme not in ("http", "https"):
        raise httpx.UnsupportedProtocol(f"Request URL has an unsupported protocol '{parsed.scheme}://'.")
    if not parsed.host:
        raise httpx.InvalidURL("Request URL is missing a host.")  # the URL may hold credentials
    return _Target(parsed)


def _param_text(value: Any) -> str:
    """A query value as httpx writes it (``True`` is ``true``)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return "" if value is None else str(value)


def _query(existing: list[tuple[str, str]], params: Mapping[str, Any] | None) -> bytes:
    """The URL's own parameters with ``params`` merged in (a key given again replaces its values)."""
    if not params:
        return urlencode(existing).encode() if existing else b""
    items = [
        (key, _param_text(item))
        for key, value in params.items()
        for item in (value if isinstance(value, (list, tuple)) else (value,))
    ]
    if existing:
        given = set(params)
        kept = [pair for pair in existing if pair[0] not in given]
        items = kept + items
    return urlencode(items).encode()


def _body(json: Any, data: Mapping[str, Any] | None) -> tuple[bytes | None, bytes | None]:
    """The request body and its content type, encoded as httpx encodes ``json=`` and ``data=``."""
    if json is not None:
        text = jsonlib.dumps(json, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode(), b"application/json"
    if data:
        return _query([], data), b"application/x-www-form-urlencoded"
    return None, None


def _headers(
    target: _Target, agent: str, given: Mapping[str, str] | None, body: bytes | None, kind: bytes | None
) -> list[tuple[bytes, bytes]]:
    """httpx's default request headers (and Basic auth from the URL), then the call's own, which
    win (matched without case)."""
    headers = {
        b"host": (b"Host", target.netloc),
        b"accept": (b"Accept", b"*/*"),
        b"accept-encoding": (b"Accept-Encoding", b"gzip, deflate"),
        b"connection": (b"Connection", b"keep-alive"),
        b"user-agent": (b"User-Agent", agent.encode("ascii")),
    }
    if target.authorization is not None:
        headers[b"authorization"] = (b"Authorization", target.authorization)
    if body is not None:
        headers[b"content-length"] = (b"Content-Length", str(len(body)).encode())
        headers[b"content-type"] = (b"Content-Type", kind or b"application/octet-stream")
    for name, value in (given or {}).items():
        raw_name = name.encode("ascii")
        raw_value = value if isinstance(value, bytes) else str(value).encode("ascii")
        headers[raw_name.lower()] = (raw_name, raw_value)
    return list(headers.values())


def _timeouts(timeout: float | None) -> dict[str, float]:
    if timeout is None:
        return DEFAULT_TIMEOUT.as_dict()  # type: ignore[return-value]
    return {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}


def _environment_proxy(scheme: str, host: str) -> str | None:
    """The proxy ``HTTP(S)_PROXY`` / ``ALL_PROXY`` name for this host, unless ``NO_PROXY`` spares it."""
    proxies = urllib.request.getproxies_environment()
    chosen = proxies.get(scheme) or proxies.get("all")
    if not chosen or urllib.request.proxy_bypass_environment(host, proxies):
        return None
    return chosen if "://" in chosen else f"http://{chosen}"


@functools.cache
def _ssl_context() -> Any:
    """httpx's default TLS context (certifi, or ``SSL_CERT_FILE``), built once: every pool shares it."""
    return httpx.create_ssl_context()


def _pool(proxy: str | None, blocking: bool) -> Any:
    """A connection pool with httpx's defaults, direct or through ``proxy`` (http, https, socks5)."""
    common: dict[str, Any] = {
        "ssl_context": _ssl_context(),
        "max_connections": DEFAULT_LIMITS.max_connections,
        "max_keepalive_connections": DEFAULT_LIMITS.max_keepalive_connections,
        "keepalive_expiry": DEFAULT_LIMITS.keepalive_expiry,
        "http2": http2_available(),
    }
    if proxy is None:
        return (httpcore.ConnectionPool if blocking else httpcore.AsyncConnectionPool)(**common)
    via = httpx.Proxy(proxy)
    where = via.url
    proxy_url = httpcore.URL(scheme=where.raw_scheme, host=where.raw_host, port=where.port, target=where.raw_path)
    if where.scheme in ("http", "https"):
        kind = httpcore.HTTPProxy if blocking else httpcore.AsyncHTTPProxy
        return kind(proxy_url=proxy_url, proxy_auth=via.raw_auth, proxy_headers=via.headers.raw, **common)
    kind = httpcore.SOCKSProxy if blocking else httpcore.AsyncSOCKSProxy  # httpx.Proxy allows only socks5 else
    return kind(proxy_url=proxy_url, proxy_auth=via.raw_auth, **common)


class _LoopWire:
    """One event loop's pools (blocking and awaited, per proxy) and where each host is sent."""

    def __init__(self) -> None:
        self.pools: dict[tuple[bool, str | None], Any] = {}
        self.routes: dict[tuple[str | None, str, bytes], str | None] = {}

    def pool_for(self, target: _Target, configured_proxy: str | None, blocking: bool) -> Any:
        route = (configured_proxy, target.text_scheme, target.host)
        if route not in self.routes:
            if len(self.routes) >= _MAX_ROUTES:
                self.routes.clear()
            host = target.host.decode("ascii")
            self.routes[route] = configured_proxy or _environment_proxy(target.text_scheme, host)
        key = (blocking, self.routes[route])
        pool = self.pools.get(key)
        if pool is None:
            pool = self.pools[key] = _pool(key[1], blocking)
        return pool


_wires: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopWire] = weakref.WeakKeyDictionary()


async def send(
    method: str,
    url: str,
    *,
    config: Config | None,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    json: Any = None,
    data: Mapping[str, Any] | None = None,
    timeout: float | None = None,
    blocking: bool = False,
) -> httpx.Response:
    """Send one request and read its whole answer; ``blocking`` waits on the socket itself.

    Raises httpx's errors (``httpx.ConnectError``, ``httpx.ReadTimeout``...) as
    ``httpx.Client`` would. The response has no ``request`` attached.
    """
    target = _target(url)
    query = _query(target.params, params)
    body, kind = _body(json, data)
    path = target.path + b"?" + query if query else target.path
    request = httpcore.Request(
        method.upper().encode("ascii"),
        httpcore.URL(scheme=target.scheme, host=target.host, port=target.port, target=path),
        headers=_headers(target, user_agent(config), headers, body, kind),
        content=body,
        extensions={"timeout": _timeouts(timeout)},
    )
    loop = asyncio.get_running_loop()
    wire = _wires.get(loop)
    if wire is None:
        wire = _wires[loop] = _LoopWire()
    pool = wire.pool_for(target, config.web.proxy if config is not None else None, blocking)
    try:
        if blocking:
            answer = pool.handle_request(request)
            try:
                content = answer.read()
            finally:
                answer.close()
        else:
            answer = await pool.handle_async_request(request)
            try:
                content = await answer.aread()
            finally:
                await answer.aclose()
    except _HTTPCORE_ERRORS as exc:
        raise _httpx_error(exc) from exc
    return httpx.Response(answer.status, headers=answer.headers, content=content)


def _httpx_error(exc: Exception) -> httpx.TransportError:
    """httpx's namesake of an httpcore failure (``ReadTimeout`` for ``ReadTimeout``...)."""
    kind = getattr(httpx, type(exc).__name__, None)
    if not (isinstance(kind, type) and issubclass(kind, httpx.TransportError)):
        kind = httpx.TransportError
    return kind(str(exc))
