"""perplexity: POST /search (ranked results, no answer), filters mapped, OpenAI-style errors."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_search

from .helpers import assert_failure, assert_no_secret, sent_json

KEY = "pplx-test0123456789abcdef"
URL = "https://api.perplexity.ai/search"

BODY = {
    "id": "e38104d5-6bd7-4d82-bc4e-0a21179d1f77",
    "results": [
        {
            "title": "2026 Tour de France results",
            "url": "https://www.example.com/tdf-2026",
            "snippet": "Longer extracted page text relevant to the query.",
            "date": "2026-07-27",
            "last_updated": "2026-07-28",
        },
        {
            "title": "Stage 21 recap",
            "url": "https://www.example.org/stage-21",
            "snippet": "Recap.",
            "date": None,
            "last_updated": None,
        },
    ],
    "server_time": None,
}
# The edge answers a bad key with an HTML page, not the JSON error object.
HTML_401 = (
    "<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n"
    "<center><h1>401 Authorization Required</h1></center>\r\n"
    "<hr><center>openresty</center>\r\n</body>\r\n</html>\r\n"
)


def error(message: str, kind: str, code: int | str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": code}}


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERPLEXITY_API_KEY", KEY)


def test_search_maps_results(mock: respx.MockRouter, dispatch: Any) -> None:
    route = mock.post(URL).respond(200, json=BODY)

    envelope = dispatch("search", "tour de france 2026", 5, backend="perplexity")

    assert envelope["success"] is True, envelope
    first, second = envelope["data"]["web"]
    assert (first["title"], first["url"], first["description"]) == (
        "2026 Tour de France results",
        "https://www.example.com/tdf-2026",
        "Longer extracted page text relevant to the query.",
    )
    assert first["published_at"] == "2026-07-27" and first["last_updated"] == "2026-07-28"
    assert "published_at" not in second
    assert route.calls.last.request.headers["Authorization"] == f"Bearer {KEY}"
    assert sent_json(route) == {"query": "tour de france 2026", "max_results": 5}


def test_filters_map_to_perplexity_fields(mock: respx.MockRouter) -> None:
    route = mock.post(URL).respond(200, json=BODY)

    envelope = dispatch_search(
        "x",
        backend="perplexity",
        include_domains=["example.com"],
        time_range="month",
        country="gb",
        lang="EN",
        safe_search="strict",
    )

    assert sent_json(route) == {
        "query": "x",
        "max_results": 5,
        "search_domain_filter": ["example.com"],
        "search_recency_filter": "month",
        "country": "GB",
        "search_language_filter": ["en"],
    }
    assert envelope["meta"]["warnings"] == ["perplexity does not support safe_search; ignored."]


@pytest.mark.parametrize(("lang", "sent"), [("pt-BR", "pt"), ("zh-Hans-CN", "zh"), ("en_GB", "en")])
def test_a_regional_language_tag_is_sent_as_its_two_letter_code(
    mock: respx.MockRouter, lang: str, sent: str
) -> None:
    """Perplexity's search_language_filter takes ISO 639-1 codes only."""
    route = mock.post(URL).respond(200, json=BODY)
    assert dispatch_search("x", backend="perplexity", lang=lang)["success"] is True
    assert sent_json(route)["search_language_filter"] == [sent]


def _two_letter_languages(request: httpx.Request) -> httpx.Response:
    """Perplexity's schema: each ``search_language_filter`` item is exactly two letters."""
    if any(len(code) != 2 for code in json.loads(request.content).get("search_language_filter", [])):
        return httpx.Response(
            400,
            json={"error": {"message": "search_language_filter items must be 2 characters", "type": "invalid_request", "code": 400}},
        )
    return httpx.Response(200, json=BODY)


@pytest.mark.parametrize("lang", ["fil", "haw-US"])
def test_a_language_without_a_two_letter_code_is_warned_not_sent(mock: respx.MockRouter, lang: str) -> None:
    """Sent as it was, Perplexity refused the whole search as the caller's invalid_input."""
    route = mock.post(URL).mock(side_effect=_two_letter_languages)

    envelope = dispatch_search("x", backend="perplexity", lang=lang)

    assert envelope["success"] is True, envelope
    assert "search_language_filter" not in sent_json(route)
    assert envelope["meta"]["warnings"] == [
        f"perplexity filters by two-letter ISO 639-1 language codes only; lang '{lang}' was ignored."
    ]


def test_exclusions_use_the_minus_prefix(mock: respx.MockRouter) -> None:
    route = mock.post(URL).respond(200, json=BODY)

    dispatch_search("x", backend="perplexity", exclude_domains=["reddit.com", "pinterest.com"])

    assert sent_json(route)["search_domain_filter"] == ["-reddit.com", "-pinterest.com"]


def test_include_and_exclude_together_keep_the_allow_list_and_warn(mock: respx.MockRouter) -> None:
    route = mock.post(URL).respond(200, json=BODY)

    envelope = dispatch_search(
        "x", backend="perplexity", include_domains=["a.com"], exclude_domains=["b.com"]
    )

    assert sent_json(route)["search_domain_filter"] == ["a.com"]
    assert any("exclude_domains was ignored" in w for w in envelope["meta"]["warnings"])


def test_more_than_twenty_domains_is_refused_before_sending(mock: respx.MockRouter) -> None:
    route = mock.post(URL).respond(200, json=BODY)

    envelope = dispatch_search(
        "x", backend="perplexity", include_domains=[f"d{i}.com" for i in range(21)]
    )

    assert_failure(envelope, "invalid_input")
    assert not route.called


def test_limit_is_capped_at_twenty(mock: respx.MockRouter) -> None:
    route = mock.post(URL).respond(200, json=BODY)

    envelope = dispatch_search("x", 40, backend="perplexity")

    assert sent_json(route)["max_results"] == 20
    assert any("at most 20" in w for w in envelope["meta"]["warnings"])


def test_multi_query_groups_are_flattened(plugin_module: Any) -> None:
    parse = plugin_module("perplexity", "parse")
    grouped = {
        "id": "x",
        "results": [[BODY["results"][0]], [BODY["results"][1]]],
        "server_time": None,
    }

    assert [hit["url"] for hit in parse.parse_hits(grouped)] == [
        "https://www.example.com/tdf-2026",
        "https://www.example.org/stage-21",
    ]


def test_empty_results(mock: respx.MockRouter) -> None:
    mock.post(URL).respond(200, json={"id": "x", "results": [], "server_time": None})

    envelope = dispatch_search("qwxzv", backend="perplexity")

    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (httpx.Response(401, html=HTML_401), "auth_error"),
        (
            httpx.Response(
                401, json=error(f"Invalid API key provided: {KEY}", "invalid_api_key", 401)
            ),
            "auth_error",
        ),
        (
            httpx.Response(402, json=error("Payment required", "payment_required", 402)),
            "quota_exceeded",
        ),
        (
            httpx.Response(
                403,
                json=error(
                    "You exceeded your current quota", "insufficient_quota", "insufficient_quota"
                ),
            ),
            "quota_exceeded",
        ),
        (
            httpx.Response(
                400, json=error("max_results must be <= 20", "invalid_request_error", 400)
            ),
            "invalid_input",
        ),
        (
            httpx.Response(500, json=error("Internal error", "internal_server_error", 500)),
            "bad_gateway",
        ),
        (httpx.Response(503, html="<html><body>Service Unavailable</body></html>"), "bad_gateway"),
    ],
)
def test_errors(mock: respx.MockRouter, response: httpx.Response, code: str) -> None:
    mock.post(URL).mock(return_value=response)

    envelope = dispatch_search("x", backend="perplexity")

    assert_failure(envelope, code)
    assert_no_secret(envelope, KEY)


def test_rate_limit_reads_retry_after(mock: respx.MockRouter) -> None:
    body = error("Rate limit exceeded", "rate_limit_exceeded", 429)
    mock.post(URL).respond(429, json=body, headers={"retry-after": "2"})

    envelope = dispatch_search("x", backend="perplexity")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 2


def test_a_200_with_an_error_object_is_a_failure(mock: respx.MockRouter) -> None:
    mock.post(URL).respond(200, json=error("Search backend unavailable", "server_error", 500))

    envelope = dispatch_search("x", backend="perplexity")

    assert_failure(envelope, "provider_error")
    assert "Search backend unavailable" in envelope["error"]


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, html="<html><body>Just a moment...</body></html>"),
        httpx.Response(200, content=b'{"id": "x", "results": [{"title": "2026'),
        httpx.Response(200, json={"id": "x", "choices": []}),
    ],
)
def test_unexpected_bodies_are_parse_errors(
    mock: respx.MockRouter, response: httpx.Response
) -> None:
    mock.post(URL).mock(return_value=response)

    assert_failure(dispatch_search("x", backend="perplexity"), "parse_error")


def test_base_url_override(mock: respx.MockRouter, make_config: Any) -> None:
    config = make_config(web={"providers": {"perplexity": {"base_url": "http://127.0.0.1:8301"}}})
    route = mock.post("http://127.0.0.1:8301/search").respond(200, json=BODY)

    assert dispatch_search("x", backend="perplexity", config=config)["success"] is True
    assert route.called


def test_missing_key(mock: respx.MockRouter, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERPLEXITY_API_KEY")

    envelope = dispatch_search("x", backend="perplexity")

    assert_failure(envelope, "not_configured")
    assert "PERPLEXITY_API_KEY" in envelope["error"]
