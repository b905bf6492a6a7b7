"""The helpers SDK-backed providers share: a per-call client on the shared pool, reading the
response an SDK failed on, and the deadline cut to an SDK request's timeout."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import respx

from webproviders import context
from webproviders.errors import ProviderError, WebProviderError
from webproviders.kit.http import get_client
from webproviders.kit.sdkhttp import ResponseLog, response_error, sdk_client


def test_sdk_client_uses_the_shared_pool_and_leaves_it_open(make_config: Any) -> None:
    config = make_config(web={"user_agent": "agent-tests/1.0"})

    async def go() -> tuple[httpx.Response | None, httpx.Headers, bool]:
        log = ResponseLog()
        async with sdk_client(config, base_url="https://api.vendor.example/v1", log=log) as client:
            client.headers["Authorization"] = "Bearer sdk-written-key-123"
            await client.post("/search", json={"q": 1})
        shared = get_client(config)
        return log.last, shared.headers, shared.is_closed

    with respx.mock() as router:
        route = router.post("https://api.vendor.example/v1/search").respond(200, json={"ok": True})
        last, shared_headers, closed = asyncio.run(go())
    request = route.calls.last.request
    assert request.headers["user-agent"] == "agent-tests/1.0"
    assert request.headers["authorization"] == "Bearer sdk-written-key-123"
    assert "authorization" not in shared_headers and closed is False
    assert last is not None and last.status_code == 200


def _response(status: int, **kwargs: Any) -> httpx.Response:
    return httpx.Response(
        status, request=httpx.Request("POST", "https://api.vendor.example/x"), **kwargs
    )


def test_response_error_reads_like_request_json() -> None:
    def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
        return (
            ProviderError("vendor says no")
            if isinstance(body, dict) and body.get("error")
            else None
        )

    assert response_error(_response(200, json={"results": []}), "v", classify) is None
    assert (
        response_error(_response(200, json={"error": "x"}), "v", classify).code == "provider_error"
    )
    limited = response_error(_response(429, json={}, headers={"retry-after": "3"}), "v", classify)
    assert limited is not None and limited.code == "rate_limited" and limited.retry_after == 3
    html = response_error(
        _response(200, text="<html>", headers={"content-type": "text/html"}), "v", classify
    )
    assert html is not None and html.code == "parse_error"
    unread = httpx.Response(
        500, request=httpx.Request("GET", "https://x"), stream=httpx.ByteStream(b"{}")
    )
    assert response_error(unread, "v").code == "bad_gateway"


def test_call_timeout_is_cut_to_the_call_deadline(plugin_module: Any, make_config: Any) -> None:
    provider = plugin_module("tavily").TavilyProvider(
        make_config(web={"providers": {"tavily": {"timeout": 20}}})
    )
    assert provider.call_timeout() == 20

    async def inside_a_call() -> float:
        context.set_deadline(time.monotonic() + 3)
        return provider.call_timeout()

    assert 2 < asyncio.run(inside_a_call()) <= 3
