"""The helpers SDK-backed providers share: a per-call client on the provider's shared
transport (handed to the SDK, or put where the SDK keeps its own), finding the library's own
failure behind an SDK's exception, reading the response an SDK failed on, and the deadline
cut to an SDK request's timeout."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
import respx

from webproviders import context, dispatch_crawl, dispatch_extract, dispatch_search
from webproviders.errors import ProviderError, TooLargeError, WebProviderError
from webproviders.kit.http import get_client
from webproviders.kit.sdkhttp import (
    ResponseLog,
    hand_client,
    response_error,
    sdk_client,
    transport_error,
)


def test_sdk_client_uses_the_shared_transport_and_leaves_it_open(make_config: Any) -> None:
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


def test_hand_client_puts_ours_where_the_sdk_keeps_its_own(make_config: Any) -> None:
    """firecrawl-py makes its client in its constructor, with the key in its headers."""
    from firecrawl import AsyncFirecrawl

    config = make_config(web={"user_agent": "agent-tests/1.0"})

    async def go() -> tuple[httpx.AsyncClient, httpx.AsyncClient, Any]:
        firecrawl = AsyncFirecrawl(api_key="fc-key-0001", api_url="https://api.firecrawl.example")
        theirs = firecrawl._v2_client.async_http_client._client
        ours = await hand_client(
            firecrawl, "_v2_client.async_http_client._client", config, provider="firecrawl", timeout=5
        )
        return theirs, ours, firecrawl._v2_client.async_http_client._client

    theirs, ours, installed = asyncio.run(go())
    assert installed is ours and theirs.is_closed and ours is not theirs
    assert ours.headers["authorization"] == "Bearer fc-key-0001"
    assert ours.headers["user-agent"] == "agent-tests/1.0"
    assert str(ours.base_url) == "https://api.firecrawl.example"


def test_hand_client_refuses_an_sdk_that_keeps_its_client_elsewhere(make_config: Any) -> None:
    from exa_py import AsyncExa

    async def go() -> None:
        await hand_client(AsyncExa(api_key="exa-key-0001"), "_http", make_config(), provider="exa")

    with pytest.raises(ProviderError, match=r"no longer keeps its HTTP client at AsyncExa\._http"):
        asyncio.run(go())


def test_transport_error_finds_our_error_behind_an_sdk_s_exception() -> None:
    ours = TooLargeError("too big")
    try:
        try:
            raise ours
        except TooLargeError as exc:
            raise RuntimeError("the SDK's connection error") from exc
    except RuntimeError as wrapped:
        assert transport_error(wrapped) is ours
    assert transport_error(ValueError("plain")) is None


@pytest.mark.parametrize(
    ("provider", "key", "call"),
    [
        ("tavily", "max_pages", lambda config: dispatch_crawl("https://example.com/", backend="tavily", config=config)),
        ("firecrawl", "max_pages", lambda config: dispatch_crawl("https://example.com/", backend="firecrawl", config=config)),
        ("firecrawl", "concurrency", lambda config: dispatch_extract(["https://example.com/"], backend="firecrawl", config=config)),
        ("exa", "max_characters", lambda config: dispatch_extract(["https://example.com/"], backend="exa", config=config)),
        ("parallel", "max_chars_per_result", lambda config: dispatch_extract(["https://example.com/"], backend="parallel", config=config)),
        ("xai", "max_tool_calls", lambda config: dispatch_search("heat pumps", backend="xai", config=config)),
    ],
)
def test_a_vendor_setting_that_is_no_number_is_named_by_its_key(make_config: Any, provider: str, key: str, call: Any) -> None:
    """``max_pages: many`` failed every call as ``<vendor> failed: ValueError: invalid literal for
    int()``, a provider_error held against the vendor and naming no setting; no request is sent."""
    config = make_config(web={"cache": False, "providers": {provider: {"api_key": "k-0123456789", key: "many"}}})
    with respx.mock():  # any request would fail the test: none is sent
        envelope = call(config)
    assert (envelope["error_code"], envelope["error"]) == (
        "not_configured", f"web.providers.{provider}.{key} must be a whole number above 0, not 'many'."
    )

