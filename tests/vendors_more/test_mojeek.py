"""mojeek: GET /search?fmt=json with the key in ``api_key``, in-band ``response.status``."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_search

from .helpers import assert_failure, assert_no_secret

KEY = "mojeek-test-0123456789abcdef"
URL = "https://api.mojeek.com/search"

BODY = {
    "response": {
        "status": "OK",
        "head": {
            "query": "mojeek",
            "nword": 1,
            "words": [{"full": "mojeek", "stem": "mojeek", "plus": 1, "hits": 112207}],
            "timer": 0.61,
            "start": 1,
            "return": 2,
            "exact": True,
            "results": 112094,
            "rankm": 169,
            "dups": 0,
            "more": 47315,
        },
        "results": [
            {
                "url": "https://www.mojeek.com/",
                "title": "Mojeek",
                "desc": "A web search engine that provides unbiased, fast and relevant results.",
                "size": "14kb",
                "date": "Tue, 01 Oct 2024 09:12:44 GMT",
                "pdate": 1727740800,
            },
            {
                "url": "https://en.wikipedia.org/wiki/Mojeek",
                "title": "Mojeek - Wikipedia",
                "desc": "Mojeek is a search engine based in the United Kingdom.",
                "size": "40kb",
                "date": "Mon, 30 Sep 2024 18:40:02 GMT",
            },
        ],
    }
}


def status(text: str) -> dict[str, Any]:
    return {"response": {"status": text}}


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOJEEK_API_KEY", KEY)


def test_search_maps_results_and_sends_the_key_as_a_parameter(
    mock: respx.MockRouter, dispatch: Any
) -> None:
    route = mock.get(URL).respond(200, json=BODY)

    envelope = dispatch("search", "mojeek", 5, backend="mojeek")

    assert envelope["success"] is True, envelope
    first, second = envelope["data"]["web"]
    assert (first["title"], first["url"]) == ("Mojeek", "https://www.mojeek.com/")
    assert first["description"].startswith("A web search engine")
    assert first["published_at"] == "2024-10-01T00:00:00+00:00"
    assert "published_at" not in second and "size" not in first
    request = route.calls.last.request
    assert dict(request.url.params) == {"q": "mojeek", "t": "5", "fmt": "json", "api_key": KEY}
    assert "Authorization" not in request.headers


def test_options_map_to_site_since_and_boosts(mock: respx.MockRouter, plugin_module: Any) -> None:
    route = mock.get(URL).respond(200, json=BODY)

    envelope = dispatch_search(
        "x",
        backend="mojeek",
        include_domains=["mojeek.com"],
        time_range="week",
        country="gb",
        lang="en",
        exclude_domains=["reddit.com"],
        safe_search="strict",
    )

    params = route.calls.last.request.url.params
    assert params["site"] == "mojeek.com"
    assert params["since"] == plugin_module("mojeek").since("week")
    assert (params["rb"], params["rbb"], params["lb"], params["lbb"]) == ("GB", "10", "EN", "10")
    assert envelope["meta"]["warnings"] == [
        "mojeek does not support exclude_domains, safe_search; ignored."
    ]


def test_a_regional_language_tag_boosts_its_language(mock: respx.MockRouter) -> None:
    """Mojeek's lb takes a two-letter language code."""
    route = mock.get(URL).respond(200, json=BODY)
    assert dispatch_search("x", backend="mojeek", lang="pt-BR")["success"] is True
    assert route.calls.last.request.url.params["lb"] == "PT"


def test_since_is_a_date_even_for_a_week(plugin_module: Any) -> None:
    assert plugin_module("mojeek").since("week", date(2026, 3, 4)) == "20260225"


def test_only_one_site_is_searched_with_a_warning(mock: respx.MockRouter) -> None:
    route = mock.get(URL).respond(200, json=BODY)

    envelope = dispatch_search("x", backend="mojeek", include_domains=["a.com", "b.com"])

    assert route.calls.last.request.url.params["site"] == "a.com"
    assert envelope["meta"]["warnings"] == [
        "mojeek restricts a search to one site; only a.com was used."
    ]


def test_empty_results(mock: respx.MockRouter) -> None:
    body = {"response": {"status": "OK", "head": {"query": "qwxzv", "return": 0, "results": 0}}}
    mock.get(URL).respond(200, json=body)

    envelope = dispatch_search("qwxzv", backend="mojeek")

    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize("body", [status("OK"), {"response": {}}])
def test_an_ok_status_without_head_or_results_is_a_parse_error(
    mock: respx.MockRouter, body: dict[str, Any]
) -> None:
    """Every search Mojeek answers carries its ``head``; a bare OK status (another service
    at the base URL) read as "nothing found"."""
    mock.get(URL).respond(200, json=body)

    envelope = dispatch_search("x", backend="mojeek")

    assert_failure(envelope, "parse_error")
    assert "response.head" in envelope["error"]


@pytest.mark.parametrize(
    ("http", "text", "code"),
    [
        (200, "ERROR: Daily Limit Reached", "quota_exceeded"),
        (200, "ERROR: Invalid API key", "auth_error"),
        (403, "ERROR: Access denied", "auth_error"),
        (200, "ERROR: Search temporarily unavailable", "provider_error"),
        (503, "ERROR: Search temporarily unavailable", "bad_gateway"),
    ],
)
def test_in_band_status_is_a_failure(
    mock: respx.MockRouter, http: int, text: str, code: str
) -> None:
    mock.get(URL).respond(http, json=status(text))

    envelope = dispatch_search("x", backend="mojeek")

    assert_failure(envelope, code)
    assert text.split(": ", 1)[1] in envelope["error"]


def test_a_429_with_a_rate_limit_status_is_rate_limited(mock: respx.MockRouter) -> None:
    mock.get(URL).respond(
        429, json=status("ERROR: Rate limit exceeded for this key"), headers={"Retry-After": "6"}
    )

    envelope = dispatch_search("x", backend="mojeek")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 6


def test_a_429_with_the_daily_limit_status_is_quota_exceeded(mock: respx.MockRouter) -> None:
    mock.get(URL).respond(429, json=status("ERROR: Daily Limit Reached"))

    assert_failure(dispatch_search("x", backend="mojeek"), "quota_exceeded")


def test_rate_limit_status(mock: respx.MockRouter) -> None:
    mock.get(URL).respond(429, text="Too Many Requests", headers={"Retry-After": "4"})

    envelope = dispatch_search("x", backend="mojeek")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 4


def test_a_connection_error_naming_the_url_does_not_leak_the_key(mock: respx.MockRouter) -> None:
    mock.get(URL).mock(
        side_effect=httpx.ConnectError(f"connection refused for {URL}?q=x&api_key={KEY}")
    )

    envelope = dispatch_search("x", backend="mojeek")

    assert_failure(envelope, "network_error")
    assert_no_secret(envelope, KEY)


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(
            200,
            text='<?xml version="1.0"?><response><status>OK</status></response>',
            headers={"content-type": "text/xml"},
        ),
        httpx.Response(200, content=b'{"response": {"status": "OK", "results": [{"url": "https://'),
        httpx.Response(200, json={"results": []}),
    ],
)
def test_unexpected_bodies_are_parse_errors(
    mock: respx.MockRouter, response: httpx.Response
) -> None:
    mock.get(URL).mock(return_value=response)

    assert_failure(dispatch_search("x", backend="mojeek"), "parse_error")


def test_base_url_override(mock: respx.MockRouter, make_config: Any) -> None:
    config = make_config(web={"providers": {"mojeek": {"base_url": "http://127.0.0.1:8601"}}})
    route = mock.get("http://127.0.0.1:8601/search").respond(200, json=BODY)

    assert dispatch_search("x", backend="mojeek", config=config)["success"] is True
    assert route.called


def test_missing_key(mock: respx.MockRouter, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOJEEK_API_KEY")

    envelope = dispatch_search("x", backend="mojeek")

    assert_failure(envelope, "not_configured")
    assert "MOJEEK_API_KEY" in envelope["error"]
