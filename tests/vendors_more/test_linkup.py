"""linkup: POST /v1/search (searchResults) and POST /v1/fetch, with Linkup's coded errors."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_extract, dispatch_search

from .helpers import assert_failure, assert_no_secret, sent_json

KEY = "lk-test-0123456789abcdef"
SEARCH = "https://api.linkup.so/v1/search"
FETCH = "https://api.linkup.so/v1/fetch"

SEARCH_BODY = {
    "results": [
        {
            "type": "text",
            "name": "Linkup – Search API for AI",
            "url": "https://www.linkup.so/",
            "content": "Linkup connects your AI application to the web.",
            "favicon": "https://www.linkup.so/favicon.ico",
        },
        {"type": "image", "name": "Linkup logo", "url": "https://www.linkup.so/logo.png"},
        {
            "type": "text",
            "name": "Linkup docs",
            "url": "https://docs.linkup.so/",
            "content": "Search endpoint reference.",
            "favicon": "https://docs.linkup.so/favicon.ico",
        },
    ]
}
FETCH_BODY = {
    "markdown": "# Example Domain\n\nThis domain is for use in illustrative examples.",
    "favicon": "https://example.com/favicon.ico",
    "rawContent": "Example Domain This domain is for use in illustrative examples.",
    "contentType": "text/html",
    "rawHtml": None,
    "images": [{"alt": "logo", "url": "https://example.com/logo.png"}],
}


def linkup_error(
    code: str, message: str, details: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or []}}


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINKUP_API_KEY", KEY)


def test_search_keeps_text_results_and_sends_search_results_output(
    mock: respx.MockRouter, dispatch: Any
) -> None:
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)

    envelope = dispatch("search", "linkup api", 4, backend="linkup")

    assert envelope["success"] is True, envelope
    assert [(h["title"], h["url"], h["description"]) for h in envelope["data"]["web"]] == [
        (
            "Linkup – Search API for AI",
            "https://www.linkup.so/",
            "Linkup connects your AI application to the web.",
        ),
        ("Linkup docs", "https://docs.linkup.so/", "Search endpoint reference."),
    ]
    assert "favicon" not in envelope["data"]["web"][0]
    assert route.calls.last.request.headers["Authorization"] == f"Bearer {KEY}"
    assert sent_json(route) == {
        "q": "linkup api",
        "depth": "standard",
        "outputType": "searchResults",
        "maxResults": 4,
    }


def test_options_map_to_domains_dates_and_depth(mock: respx.MockRouter, plugin_module: Any) -> None:
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)

    envelope = dispatch_search(
        "x",
        backend="linkup",
        depth="deep",
        include_domains=["linkup.so"],
        exclude_domains=["reddit.com"],
        time_range="week",
        country="fr",
    )

    body = sent_json(route)
    assert body["depth"] == "deep"
    assert body["includeDomains"] == ["linkup.so"] and body["excludeDomains"] == ["reddit.com"]
    assert body["fromDate"] == plugin_module("linkup").from_date("week")
    assert envelope["meta"]["warnings"] == ["linkup does not support country; ignored."]


def test_from_date_counts_back_from_today(plugin_module: Any) -> None:
    from_date = plugin_module("linkup").from_date
    assert from_date("day", date(2026, 3, 1)) == "2026-02-28"
    assert from_date("year", date(2026, 3, 1)) == "2025-03-01"


def test_depth_comes_from_config_and_is_validated(mock: respx.MockRouter, make_config: Any) -> None:
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)
    config = make_config(web={"providers": {"linkup": {"depth": "fast"}}})

    dispatch_search("x", backend="linkup", config=config)
    assert sent_json(route)["depth"] == "fast"

    envelope = dispatch_search("x", backend="linkup", config=config, depth="deepest")
    assert_failure(envelope, "invalid_input")
    assert route.call_count == 1


def test_flash_depth_is_sent(mock: respx.MockRouter) -> None:
    """Linkup's search has four depths, ``flash`` the fastest (its search endpoint docs): a
    call asking for it failed as invalid_input before anything was sent."""
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)

    envelope = dispatch_search("x", backend="linkup", depth="flash")

    assert envelope["success"] is True, envelope
    assert sent_json(route)["depth"] == "flash"


def test_no_result_error_is_an_empty_success(mock: respx.MockRouter) -> None:
    mock.post(SEARCH).respond(
        400, json=linkup_error("SEARCH_QUERY_NO_RESULT", "The query did not yield any result")
    )

    envelope = dispatch_search("qwxzv", backend="linkup")

    assert envelope["success"] is True, envelope
    assert envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (401, linkup_error("UNAUTHORIZED", f"Invalid API key: {KEY}"), "auth_error"),
        (403, linkup_error("IP_NOT_WHITELISTED", "Your IP is not whitelisted"), "auth_error"),
        (
            429,
            linkup_error("INSUFFICIENT_FUNDS_CREDITS", "You do not have enough credits"),
            "quota_exceeded",
        ),
        (
            429,
            linkup_error("EXCEED_BUDGET_LIMIT", "Budget limit reached for this key"),
            "quota_exceeded",
        ),
        (402, linkup_error("PAYMENT_REQUIRED", "Payment required"), "quota_exceeded"),
        (
            400,
            linkup_error(
                "VALIDATION_ERROR",
                "Validation failed",
                [{"field": "depth", "message": "must be one of fast, standard, deep"}],
            ),
            "invalid_input",
        ),
        (500, linkup_error("INTERNAL_SERVER_ERROR", "Something went wrong"), "bad_gateway"),
    ],
)
def test_errors_follow_linkup_codes_before_statuses(
    mock: respx.MockRouter, status: int, body: dict[str, Any], code: str
) -> None:
    mock.post(SEARCH).respond(status, json=body)

    envelope = dispatch_search("x", backend="linkup")

    assert_failure(envelope, code)
    assert_no_secret(envelope, KEY)


def test_an_address_off_the_key_s_allow_list_is_named_not_the_key(mock: respx.MockRouter) -> None:
    """403 ``IP_NOT_WHITELISTED``: the key is good, this machine's address is not on its list.
    Before, the sentence was "Linkup rejected the API key"."""
    mock.post(SEARCH).respond(403, json=linkup_error("IP_NOT_WHITELISTED", "Your IP is not whitelisted"))

    envelope = dispatch_search("x", backend="linkup")

    assert_failure(envelope, "auth_error")
    assert "this machine's address" in envelope["error"] and "allow list" in envelope["error"], envelope
    assert "rejected the API key" not in envelope["error"]


def test_validation_details_reach_the_message(mock: respx.MockRouter) -> None:
    body = linkup_error(
        "VALIDATION_ERROR",
        "Validation failed",
        [{"field": "depth", "message": "must be one of fast, standard, deep"}],
    )
    mock.post(SEARCH).respond(400, json=body)

    envelope = dispatch_search("x", backend="linkup")

    assert "depth: must be one of fast, standard, deep" in envelope["error"]


def test_too_many_requests_is_rate_limited_with_retry_after(mock: respx.MockRouter) -> None:
    mock.post(SEARCH).respond(
        429,
        json=linkup_error("TOO_MANY_REQUESTS", "Too many requests"),
        headers={"Retry-After": "3"},
    )

    envelope = dispatch_search("x", backend="linkup")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 3


def test_a_200_carrying_an_error_object_is_a_failure(mock: respx.MockRouter) -> None:
    mock.post(SEARCH).respond(200, json=linkup_error("UNKNOWN", "Search failed"))

    envelope = dispatch_search("x", backend="linkup")

    assert_failure(envelope, "provider_error")


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(502, html="<html><head><title>502 Bad Gateway</title></head></html>"),
        httpx.Response(200, html="<!doctype html><html><body>maintenance</body></html>"),
        httpx.Response(200, content=b'{"results": [{"type": "text", "name": "Lin'),
        httpx.Response(200, json={"answer": "a sourced answer", "sources": []}),
    ],
)
def test_garbage_bodies(mock: respx.MockRouter, response: httpx.Response) -> None:
    mock.post(SEARCH).mock(return_value=response)

    envelope = dispatch_search("x", backend="linkup")

    assert_failure(envelope, "bad_gateway" if response.status_code == 502 else "parse_error")


def test_missing_key_is_not_configured(
    mock: respx.MockRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LINKUP_API_KEY")

    envelope = dispatch_search("x", backend="linkup")

    assert_failure(envelope, "not_configured")
    assert "LINKUP_API_KEY" in envelope["error"]


def test_base_url_override(mock: respx.MockRouter, make_config: Any, dns: Any) -> None:
    dns.answer("example.com", "93.184.216.34")  # an endpoint on this machine: URLs are screened here
    config = make_config(web={"providers": {"linkup": {"base_url": "http://127.0.0.1:8201/v1"}}})
    search = mock.post("http://127.0.0.1:8201/v1/search").respond(200, json=SEARCH_BODY)
    fetch = mock.post("http://127.0.0.1:8201/v1/fetch").respond(200, json=FETCH_BODY)

    assert dispatch_search("x", backend="linkup", config=config)["success"] is True
    assert (
        dispatch_extract("https://example.com", backend="linkup", config=config)["success"] is True
    )
    assert search.called and fetch.called


def test_extract_reads_fetch_markdown(mock: respx.MockRouter, dispatch: Any) -> None:
    route = mock.post(FETCH).respond(200, json=FETCH_BODY)

    envelope = dispatch("extract", ["https://example.com"], backend="linkup", render_js=True)

    assert envelope["success"] is True, envelope
    [page] = envelope["data"]
    assert page["url"] == "https://example.com"
    assert page["title"] == "Example Domain"
    assert page["content"].startswith("# Example Domain")
    assert page["raw_content"] == "Example Domain This domain is for use in illustrative examples."
    assert page["metadata"] == {
        "contentType": "text/html",
        "favicon": "https://example.com/favicon.ico",
    }
    assert sent_json(route) == {"url": "https://example.com", "renderJs": True}
    assert "warnings" not in envelope["meta"]


def test_render_js_off_from_a_variable_is_off(
    mock: respx.MockRouter, make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``render_js: ${LINKUP_RENDER_JS}`` always gives text, and ``"false"`` read as true asked
    for JavaScript rendering, at five times the price."""
    monkeypatch.setenv("LINKUP_RENDER_JS", "false")
    route = mock.post(FETCH).respond(200, json=FETCH_BODY)
    config = make_config(web={"cache": False, "providers": {"linkup": {"render_js": "${LINKUP_RENDER_JS}"}}})
    assert dispatch_extract("https://example.com", backend="linkup", config=config)["success"] is True
    assert sent_json(route) == {"url": "https://example.com", "renderJs": False}


@pytest.mark.parametrize(("depth", "usd", "units"), [("standard", 0.005, 1), ("deep", 0.05, 10)])
def test_a_deep_search_costs_what_linkup_bills(mock: respx.MockRouter, depth: str, usd: float, units: int) -> None:
    """Linkup bills a deep search $0.05, ten standard ones; it was charged $0.005, in
    ``meta.cost``, the ledger and every spending budget."""
    mock.post(SEARCH).respond(200, json=SEARCH_BODY)

    envelope = dispatch_search("linkup", backend="linkup", depth=depth)

    assert envelope["meta"]["cost"] == {"usd": pytest.approx(usd), "units": units, "unit": "request", "estimated": False}


def test_a_page_fetched_with_javascript_costs_what_linkup_bills(mock: respx.MockRouter) -> None:
    """$0.005 a page with JavaScript against $0.001 without; only pages read are billed."""
    mock.post(FETCH).mock(
        side_effect=lambda request: httpx.Response(200, json=FETCH_BODY)
        if "good" in json.loads(request.content)["url"]
        else httpx.Response(400, json=linkup_error("FETCH_ERROR", "Could not fetch the page"))
    )
    urls = ["https://example.com/good", "https://example.com/bad"]

    rendered = dispatch_extract(urls, backend="linkup", render_js=True)
    plain = dispatch_extract(urls, backend="linkup", render_js=False)

    assert rendered["meta"]["cost"] == {"usd": pytest.approx(0.005), "units": 5, "unit": "url", "estimated": False}
    assert plain["meta"]["cost"] == {"usd": pytest.approx(0.001), "units": 1, "unit": "url", "estimated": False}


def test_extract_names_the_options_linkup_does_not_read(mock: respx.MockRouter) -> None:
    mock.post(FETCH).respond(200, json=FETCH_BODY)
    envelope = dispatch_extract("https://example.com", backend="linkup", render_js=False, formt="text", cache=False)
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == ["linkup ignored the option(s) formt: it does not know them."]


def test_fetch_failures_are_per_url_items(mock: respx.MockRouter) -> None:
    answers = {
        "https://example.com": httpx.Response(200, json=FETCH_BODY),
        "https://example.com/big.bin": httpx.Response(
            400, json=linkup_error("FETCH_RESPONSE_TOO_LARGE", "The response is too large")
        ),
        "https://example.com/report.pdf": httpx.Response(
            400, json=linkup_error("FETCH_URL_IS_FILE", "The URL points to a file")
        ),
        "https://unreachable.example.org": httpx.Response(
            400, json=linkup_error("FETCH_TARGET_UNREACHABLE", "Could not reach the target")
        ),
    }
    mock.post(FETCH).mock(side_effect=lambda request: answers[json.loads(request.content)["url"]])

    envelope = dispatch_extract(list(answers), backend="linkup")

    assert envelope["success"] is True, envelope
    assert [page.get("error_code") for page in envelope["data"]] == [
        None,
        "too_large",
        "unsupported",
        "provider_error",
    ]


def test_out_of_credit_during_fetch_fails_the_call(mock: respx.MockRouter) -> None:
    mock.post(FETCH).respond(
        429, json=linkup_error("INSUFFICIENT_FUNDS_CREDITS", "You do not have enough credits")
    )

    envelope = dispatch_extract(["https://example.com", "https://example.org"], backend="linkup")

    assert_failure(envelope, "quota_exceeded")


def test_fetch_down_for_one_of_two_urls_is_an_item(mock: respx.MockRouter) -> None:
    answers = {
        "https://example.com": httpx.Response(200, json=FETCH_BODY),
        "https://example.org": httpx.Response(
            503, json=linkup_error("SERVICE_UNAVAILABLE", "Try again later")
        ),
    }
    mock.post(FETCH).mock(side_effect=lambda request: answers[json.loads(request.content)["url"]])

    envelope = dispatch_extract(list(answers), backend="linkup")

    assert envelope["success"] is True
    assert [p.get("error_code") for p in envelope["data"]] == [None, "bad_gateway"]


def test_fetch_down_for_every_url_fails_the_call(mock: respx.MockRouter) -> None:
    mock.post(FETCH).respond(503, json=linkup_error("SERVICE_UNAVAILABLE", "Try again later"))

    assert_failure(
        dispatch_extract(["https://example.com", "https://example.org"], backend="linkup"),
        "bad_gateway",
    )
