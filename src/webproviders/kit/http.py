"""Calling a vendor: :func:`request_json` for JSON APIs, :func:`get_client` for a scraper's client.

Both use the long-lived clients of :mod:`webproviders.vendorhttp.clients` (the current dispatch
call's owner), so every request gets the same proxy settings, body cap and deadline
(:mod:`webproviders.vendorhttp.transport`).
Fetching URLs that arrive at run time goes through the safe-fetching layer instead. Tests
swap the network with ``respx``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from ..config import Config
from ..responses import Classifier, aread_response
from ..vendorhttp.clients import DEFAULT_TIMEOUT, ClientSpec, current


def get_client(config: Config | None = None, *, provider: str | None = None, **overrides: Any) -> httpx.AsyncClient:
    """The long-lived client for the running loop and these settings, for scrapers.

    ``provider`` (the provider's name) holds its answers to ``web.providers.<provider>.
    max_response_bytes`` and names that setting in a ``too_large``, as ``request_json`` does;
    without it the cap is the library's default.
    ``overrides`` are httpx client options (``follow_redirects=True``, ``event_hooks=...``);
    each distinct set gets a client of its own, so one plugin's needs never change another's
    client (pass the same objects each time, or a new client is made each time). Options that
    decide where requests go or how answers are read (``transport``, ``proxy``, ``verify``,
    ``http2``...) are the library's and raise ``TypeError``.
    """
    return current().client(ClientSpec.of(config, provider, overrides))


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

    ``timeout`` bounds the whole request (and each phase of it), within the call's deadline.
    ``params`` are merged into the URL's own query (a name given again replaces its value);
    parameters whose value is None are left out. A JSON answer over 256 KiB is parsed in
    steps, between which the call's deadline can end it. Errors are
    :func:`~webproviders.responses.read_response`'s, the transport's (``too_large``,
    ``timeout``, ``parse_error`` for an answer in a coding that was not asked for) and httpx's
    (mapped to ``network_error`` / ``timeout``). A 2xx with an error object must be caught by
    ``classify``.
    """
    client = current().client(ClientSpec.of(config, provider))
    query = {k: v for k, v in params.items() if v is not None} if params else None
    target: str | httpx.URL = url
    if query and "?" in url:  # keep the URL's own parameters (httpx >= 0.28 would drop them)
        target, query = httpx.URL(url).copy_merge_params(query), None
    response = await client.request(
        method,
        target,
        headers=headers,
        params=query,
        json=json,
        data=data,
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
    )
    body, error = await aread_response(response, provider, classify)
    if error is not None:
        raise error
    return body
