"""kagi: GET /api/v0/search with ``Authorization: Bot``, t=0 results only, in-band error list."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_search

from .helpers import assert_failure, assert_no_secret

KEY = "kagi-test-0123456789abcdef"
URL = "https://kagi.com/api/v0/search"
META = {
    "id": "69c3f5c4168f66b860e951c585550f1c",
    "node": "us-central1",
    "ms": 213,
    "api_balance": 123.456,
}

BODY = {
    "meta": META,
    "data": [
        {
            "t": 0,
            "rank": 1,
            "url": "https://www.nps.gov/grca/index.htm",
            "title": "Grand Canyon National Park (U.S. National Park Service)",
            "snippet": "<b>Grand Canyon</b> National Park, in Northern Arizona, "
            "encompasses 278 miles &amp; more …",
            "thumbnail": {"url": "/proxy/images?c=abc", "height": 121, "width": 416},
        },
        {
            "t": 0,
            "rank": 2,
            "url": "https://grandcanyon.com/",
            "title": "GrandCanyon.com",
            "snippet": "Learn about <b>Grand Canyon</b> South Rim",
            "published": "2023-01-18T03:05:23+00:00",
        },
        {"t": 1, "list": ["grand canyon weather", "grand canyon lodging"]},
        {
            "t": 0,
            "rank": 3,
            "url": "https://example.org/no-snippet",
            "title": "No snippet",
            "snippet": None,
            "published": None,
        },
    ],
}


def kagi_error(code: int, msg: str) -> dict[str, Any]:
    return {
        "meta": {"id": "1c4f", "node": "us-east4", "ms": 2},
        "data": None,
        "error": [{"code": code, "msg": msg, "ref": None}],
    }


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAGI_API_KEY", KEY)


def test_search_keeps_results_skips_related_searches_and_reports_balance(
    mock: respx.MockRouter, dispatch: Any
) -> None:
    route = mock.get(URL).respond(200, json=BODY)

    envelope = dispatch("search", "grand canyon", 5, backend="kagi")

    assert envelope["success"] is True, envelope
    hits = envelope["data"]["web"]
    assert [h["url"] for h in hits] == [
        "https://www.nps.gov/grca/index.htm",
        "https://grandcanyon.com/",
        "https://example.org/no-snippet",
    ]
    assert (
        hits[0]["description"]
        == "Grand Canyon National Park, in Northern Arizona, encompasses 278 miles & more …"
    )
    assert hits[1]["published_at"] == "2023-01-18T03:05:23+00:00"
    assert hits[2]["description"] == ""
    assert "thumbnail" not in hits[0] and "rank" not in hits[0]
    assert envelope["meta"]["api_balance"] == 123.456
    request = route.calls.last.request
    assert request.headers["Authorization"] == f"Bot {KEY}"
    assert dict(request.url.params) == {"q": "grand canyon", "limit": "5"}


def test_domain_filters_become_query_operators(mock: respx.MockRouter) -> None:
    route = mock.get(URL).respond(200, json=BODY)

    envelope = dispatch_search(
        "canyon",
        backend="kagi",
        include_domains=["nps.gov", "usgs.gov"],
        exclude_domains=["pinterest.com"],
        time_range="day",
        country="us",
    )

    assert (
        route.calls.last.request.url.params["q"]
        == "canyon (site:nps.gov OR site:usgs.gov) -site:pinterest.com"
    )
    assert envelope["meta"]["warnings"] == ["kagi does not support country, time_range; ignored."]


def test_single_site_has_no_parentheses(mock: respx.MockRouter) -> None:
    route = mock.get(URL).respond(200, json=BODY)

    dispatch_search("canyon", backend="kagi", include_domains=["nps.gov"])

    assert route.calls.last.request.url.params["q"] == "canyon site:nps.gov"


@pytest.mark.parametrize("data", [[], [{"t": 1, "list": ["only related"]}]])
def test_empty_results(mock: respx.MockRouter, data: list[Any]) -> None:
    mock.get(URL).respond(200, json={"meta": META, "data": data})

    envelope = dispatch_search("qwxzv", backend="kagi")

    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (401, kagi_error(2, f"Unauthorized: token {KEY} is not valid"), "auth_error"),
        (200, kagi_error(2, "Unauthorized"), "auth_error"),
        (402, kagi_error(101, "Insufficient credit to perform this request."), "quota_exceeded"),
        (400, kagi_error(100, "No billing information on this account"), "quota_exceeded"),
        (400, kagi_error(1, "Missing q parameter"), "invalid_input"),
        (500, kagi_error(0, "Internal error"), "bad_gateway"),
        (200, kagi_error(0, "Internal error"), "bad_gateway"),
    ],
)
def test_error_list_decides_the_failure(
    mock: respx.MockRouter, status: int, body: dict[str, Any], code: str
) -> None:
    mock.get(URL).respond(status, json=body)

    envelope = dispatch_search("x", backend="kagi")

    assert_failure(envelope, code)
    assert_no_secret(envelope, KEY)


def test_unknown_error_code_falls_back_to_the_status(mock: respx.MockRouter) -> None:
    mock.get(URL).respond(429, json=kagi_error(999, "Slow down"), headers={"Retry-After": "5"})

    envelope = dispatch_search("x", backend="kagi")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 5


def test_429_with_the_internal_error_code_is_a_rate_limit(mock: respx.MockRouter) -> None:
    mock.get(URL).respond(
        429, json=kagi_error(0, "Too many requests"), headers={"Retry-After": "7"}
    )

    envelope = dispatch_search("x", backend="kagi")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 7


def test_plain_429_without_a_body(mock: respx.MockRouter) -> None:
    mock.get(URL).respond(429, text="", headers={"Retry-After": "9"})

    envelope = dispatch_search("x", backend="kagi")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 9


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(
            200, html="<!DOCTYPE html><html><head><title>Kagi Search</title></head></html>"
        ),
        httpx.Response(200, content=b'{"meta": {"id": "1"}, "data": [{"t": 0, "url": "https://'),
        httpx.Response(200, json={"meta": META}),
    ],
)
def test_unexpected_bodies_are_parse_errors(
    mock: respx.MockRouter, response: httpx.Response
) -> None:
    mock.get(URL).mock(return_value=response)

    assert_failure(dispatch_search("x", backend="kagi"), "parse_error")


def test_base_url_override(mock: respx.MockRouter, make_config: Any) -> None:
    config = make_config(web={"providers": {"kagi": {"base_url": "http://127.0.0.1:8401/api/v0"}}})
    route = mock.get("http://127.0.0.1:8401/api/v0/search").respond(200, json=BODY)

    assert dispatch_search("x", backend="kagi", config=config)["success"] is True
    assert route.called


def test_missing_key(mock: respx.MockRouter, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAGI_API_KEY")

    envelope = dispatch_search("x", backend="kagi")

    assert_failure(envelope, "not_configured")
    assert "KAGI_API_KEY" in envelope["error"]
