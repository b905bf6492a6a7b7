"""The shared HTTP stack: one pooled ``httpx.AsyncClient`` per event loop, and JSON calls.

Vendor providers call configured endpoints (trusted, even on localhost) through
:func:`request_json`; fetching URLs that arrive at run time goes through the safe-fetching
layer instead. Tests swap the transport with ``respx``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json as jsonlib
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from .._version import __version__
from ..config import Config
from ..errors import ParseError, WebProviderError
from ..exceptions import error_for_status
from .sdk import quote

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)

#: Looks at a vendor response (status, headers, parsed body) before the generic mapping and
#: returns an error for vendor-specific failures (a 200 with an error object, a 400 that
#: means "bad key"), or None.
Classifier = Callable[[httpx.Response, Any], "WebProviderError | None"]

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], httpx.AsyncClient]] = (
    weakref.WeakKeyDictionary()
)


def user_agent(config: Config | None) -> str:
    configured = config.web.user_agent if config is not None else None
    return configured or f"webproviders/{__version__}"


def _http2_available() -> bool:
    return importlib.util.find_spec("h2") is not None


def get_client(config: Config | None = None, **overrides: Any) -> httpx.AsyncClient:
    """The pooled client for the running loop and these network settings.

    ``overrides`` (e.g. ``transport=``, ``follow_redirects=``) make a separate pooled client
    keyed by them, so the safe-fetching layer can pin addresses without touching vendor calls.
    """
    loop = asyncio.get_running_loop()
    proxy = config.web.proxy if config is not None else None
    key = (user_agent(config), proxy, tuple(sorted((k, id(v)) for k, v in overrides.items())))
    per_loop = _clients.setdefault(loop, {})
    client = per_loop.get(key)
    if client is None or client.is_closed:
        options: dict[str, Any] = {
            "timeout": DEFAULT_TIMEOUT,
            "limits": DEFAULT_LIMITS,
            "headers": {"User-Agent": user_agent(config)},
            "http2": _http2_available(),
            "proxy": proxy,
        }
        options.update(overrides)
        client = httpx.AsyncClient(**options)
        per_loop[key] = client
    return client


def _decode(response: httpx.Response, provider: str) -> Any:
    if not response.content:
        return None
    try:
        return jsonlib.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        kind = response.headers.get("content-type", "unknown content type").split(";")[0]
        raise ParseError(
            f"{provider} answered HTTP {response.status_code} with {kind} where JSON was expected "
            "(the body is not valid JSON).",
            provider=provider,
            status_code=response.status_code,
        ) from None


async def request_json(
    method: str,
    url: str,
    *,
    provider: str,
    config: Config | None = None,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    json: Any = None,
    data: Mapping[str, Any] | None = None,
    timeout: float | None = None,
    classify: Classifier | None = None,
) -> Any:
    """Send one request to a vendor API and return the parsed JSON body.

    Errors are :func:`read_response`'s. A 2xx with an error object must be caught by
    ``classify``.
    """
    client = get_client(config)
    response = await client.request(
        method,
        url,
        headers=dict(headers or {}),
        params={k: v for k, v in (params or {}).items() if v is not None} or None,
        json=json,
        data=data,
        timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
    )
    body, error = read_response(response, provider, classify)
    if error is not None:
        raise error
    return body


def read_response(
    response: httpx.Response, provider: str, classify: Classifier | None = None
) -> tuple[Any, WebProviderError | None]:
    """The parsed JSON body, and the error the response means (None for a good answer).

    The order: the vendor classifier's verdict first, then the status (401/403 auth, 402
    quota, 429 rate limit with ``retry_after``, 5xx bad gateway), then ``parse_error`` for a
    body that is not JSON. An error answered with a text body that is not JSON quotes it.
    A body never read (an SDK's streamed response) counts as empty.
    """
    body: Any = None
    parse_failure: ParseError | None = None
    try:
        response.content  # noqa: B018 - raises ResponseNotRead for a body never read
        body = _decode(response, provider)
    except httpx.ResponseNotRead:
        pass
    except ParseError as exc:
        parse_failure = exc
    error = classify(response, body) if classify is not None else None
    if error is not None:
        error.provider = error.provider or provider
        error.status_code = error.status_code or response.status_code
    elif response.status_code >= 400:
        error = error_for_status(response.status_code, provider, response.headers)
    else:
        return body, parse_failure
    if parse_failure is not None:
        _quote_text_body(error, response)
    return body, error


def _quote_text_body(error: WebProviderError, response: httpx.Response) -> None:
    """End an error's message with what a text body said, so no vendor's plain-text answer
    ("Too many requests", a proxy's "upstream connect error") is lost; an HTML page is not
    quoted (its markup says nothing a person can act on)."""
    kind = response.headers.get("content-type", "").lower()
    text = quote(response.text)
    if not text or "html" in kind or text.startswith("<") or text in error.message:
        return
    error.message = f'{error.message} The response said: "{text}".'
    error.args = (error.message,)
