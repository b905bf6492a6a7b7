"""serper: Google results through Serper.dev, with bodies shaped like Serper's own."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search

URL = "https://google.serper.dev/search"
KEY = "3f9c0d1e2a7b4c5d6e8f9a0b1c2d3e4f5a6b7c8d"

SUCCESS = {
    "searchParameters": {
        "q": "apple inc",
        "gl": "us",
        "hl": "en",
        "type": "search",
        "num": 10,
        "engine": "google",
    },
    "answerBox": {
        "title": "Apple Inc. / CEO",
        "answer": "Tim Cook",
        "link": "https://en.wikipedia.org/wiki/Tim_Cook",
    },
    "knowledgeGraph": {
        "title": "Apple",
        "type": "Technology company",
        "website": "http://www.apple.com/",
        "imageUrl": "https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcQwGQRv5TjjkycpctY66mOg_e2-npacrmjAb6_jAWhzlzkFE3OTjxyzbA&s=0",
        "description": "Apple Inc. is an American multinational technology company headquartered in Cupertino, California.",
        "descriptionSource": "Wikipedia",
        "descriptionLink": "https://en.wikipedia.org/wiki/Apple_Inc.",
        "attributes": {"Headquarters": "Cupertino, CA", "CEO": "Tim Cook (Aug 24, 2011–)"},
    },
    "organic": [
        {
            "title": "Apple",
            "link": "https://www.apple.com/",
            "snippet": "Discover the innovative world of Apple and shop everything iPhone, iPad, Apple Watch, Mac, and Apple TV.",
            "sitelinks": [
                {"title": "Support", "link": "https://support.apple.com/"},
                {"title": "iPhone", "link": "https://www.apple.com/iphone/"},
            ],
            "position": 1,
        },
        {
            "title": "Apple Inc. - Wikipedia",
            "link": "https://en.wikipedia.org/wiki/Apple_Inc.",
            "snippet": "Apple Inc. is an American multinational corporation and technology company headquartered in Cupertino.",
            "date": "Sep 3, 2026",
            "position": 2,
        },
        {
            "title": "Apple Inc. (AAPL) Stock Price, News, Quote & History",
            "link": "https://finance.yahoo.com/quote/AAPL/",
            "snippet": "Find the latest Apple Inc. (AAPL) stock quote, history, news and other vital information.",
            "date": "2 days ago",
            "position": 3,
        },
    ],
    "peopleAlsoAsk": [
        {
            "question": "Who owns Apple?",
            "snippet": "The largest shareholders are institutions.",
            "title": "Apple ownership",
            "link": "https://example.com/owners",
        }
    ],
    "relatedSearches": [{"query": "apple inc stock"}, {"query": "apple inc headquarters"}],
    "credits": 1,
}


@pytest.fixture
def keyed(monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", KEY)


def _search(cfg, limit=5, **options):
    return dispatch_search("apple inc", limit, backend="serper", config=cfg(), **options)


def test_organic_results_are_hits_and_panels_go_to_meta(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        envelope = _search(cfg)
    assert envelope["success"] is True and envelope["provider"] == "serper"
    hits = envelope["data"]["web"]
    assert [h["url"] for h in hits] == [
        "https://www.apple.com/",
        "https://en.wikipedia.org/wiki/Apple_Inc.",
        "https://finance.yahoo.com/quote/AAPL/",
    ]
    assert hits[0]["description"].startswith("Discover the innovative world of Apple")
    assert hits[0]["sitelinks"][0]["link"] == "https://support.apple.com/"
    assert hits[1]["published_at"] == "2026-09-03"
    assert hits[2]["date"] == "2 days ago" and "published_at" not in hits[2]
    assert envelope["meta"]["answer_box"]["answer"] == "Tim Cook"
    assert envelope["meta"]["knowledge_graph"]["title"] == "Apple"
    assert not any(h["url"] == "http://www.apple.com/" for h in hits)
    request = route.calls.last.request
    assert request.headers["X-API-KEY"] == KEY
    assert "Authorization" not in request.headers
    assert json.loads(request.content) == {"q": "apple inc", "num": 10}


def test_options_map_to_serper_fields(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        envelope = _search(
            cfg,
            25,
            time_range="day",
            country="DE",
            lang="de",
            include_domains=["apple.com"],
            exclude_domains=["pinterest.com"],
            location="Berlin, Germany",
        )
    sent = json.loads(route.calls.last.request.content)
    assert sent == {
        "q": "apple inc site:apple.com -site:pinterest.com",
        "num": 30,
        "gl": "de",
        "hl": "de",
        "tbs": "qdr:d",
        "location": "Berlin, Germany",
    }
    assert "warnings" not in envelope["meta"]


def test_a_regional_language_tag_is_sent_as_googles_hl(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        _search(cfg, lang="en-GB", country="gb")
    assert json.loads(route.calls.last.request.content)["hl"] == "en"


def _google_hl_only(request: httpx.Request) -> httpx.Response:
    """Serper refuses an ``hl`` outside Google's interface languages with a 400."""
    hl = json.loads(request.content).get("hl")
    if hl not in (None, "en", "de", "ms"):
        return httpx.Response(400, json={"message": f"Invalid hl: {hl}", "statusCode": 400})
    return httpx.Response(200, json=SUCCESS)


def test_a_language_google_does_not_list_is_left_out_with_a_warning(keyed, cfg):
    """Before, Assamese went as ``hl=as``; Serper's 400 failed the search as ``invalid_input``
    and a fallback chain stopped there."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(side_effect=_google_hl_only)
        envelope = _search(cfg, lang="as-IN", country="in")
    assert envelope["success"] is True, envelope
    assert "hl" not in json.loads(route.calls.last.request.content)
    assert envelope["meta"]["warnings"] == ["serper does not search in the language 'as-IN'; lang ignored."]


def test_a_country_google_does_not_list_is_left_out_with_a_warning(keyed, cfg):
    """Before, South Sudan went as ``gl=ss``; Serper's 400 for a ``gl`` it does not know failed
    the search as ``invalid_input``."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(
            side_effect=lambda request: httpx.Response(400, json={"message": "Invalid gl", "statusCode": 400})
            if json.loads(request.content).get("gl") == "ss"
            else httpx.Response(200, json=SUCCESS)
        )
        envelope = _search(cfg, country="ss")
    assert envelope["success"] is True, envelope
    assert "gl" not in json.loads(route.calls.last.request.content)
    assert envelope["meta"]["warnings"] == ["serper does not offer results for the country 'ss'; country ignored."]


def test_malay_is_sent_as_google_s_ms(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(side_effect=_google_hl_only)
        envelope = _search(cfg, lang="ms-MY")
    assert envelope["success"] is True, envelope
    assert json.loads(route.calls.last.request.content)["hl"] == "ms"


def test_safe_search_is_a_warning(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json=SUCCESS)
        envelope = _search(cfg, safe_search="strict")
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == ["serper does not support safe_search; ignored."]


@pytest.mark.parametrize("body", [{}, {"status": "ok"}])
def test_an_answer_that_is_not_a_serper_search_is_a_parse_error(keyed, cfg, body):
    """``{}`` (another service at the base URL) read as "nothing found"; every answer of
    Serper's echoes its ``searchParameters``."""
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json=body)
        envelope = _search(cfg)
    assert envelope["success"] is False and envelope["error_code"] == "parse_error", envelope
    assert "searchParameters" in envelope["error"]


def test_empty_result(keyed, cfg):
    body = {"searchParameters": SUCCESS["searchParameters"], "organic": [], "credits": 1}
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json=body)
        envelope = _search(cfg)
    assert envelope["success"] is True and envelope["data"]["web"] == []
    assert "answer_box" not in envelope["meta"]


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (httpx.Response(403, json={"message": "Unauthorized.", "statusCode": 403}), "auth_error"),
        (httpx.Response(401, json={"message": "Unauthorized.", "statusCode": 401}), "auth_error"),
        (
            httpx.Response(400, json={"message": "Not enough credits", "statusCode": 400}),
            "quota_exceeded",
        ),
        (
            httpx.Response(400, json={"message": "Invalid gl parameter", "statusCode": 400}),
            "invalid_input",
        ),
        (
            httpx.Response(500, json={"message": "Internal server error", "statusCode": 500}),
            "bad_gateway",
        ),
        (
            httpx.Response(
                502,
                text="<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
            ),
            "bad_gateway",
        ),
        (
            httpx.Response(200, json={"message": "Not enough credits", "statusCode": 400}),
            "quota_exceeded",
        ),
        (
            httpx.Response(200, text="<!doctype html><html><body>Maintenance</body></html>"),
            "parse_error",
        ),
        (
            httpx.Response(
                200, text='{"searchParameters": {"q": "apple inc"}, "organic": [{"title": "App'
            ),
            "parse_error",
        ),
        (httpx.Response(200, json=[{"title": "not an object"}]), "parse_error"),
    ],
)
def test_errors_are_mapped(keyed, cfg, assert_no_secret, response, code):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).mock(return_value=response)
        envelope = _search(cfg)
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    assert_no_secret(envelope, KEY)


def test_429_is_rate_limited(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL)
        route.side_effect = [
            httpx.Response(429, json={"message": "Too many requests", "statusCode": 429}),
            httpx.Response(
                429,
                json={"message": "Too many requests", "statusCode": 429},
                headers={"Retry-After": "3"},
            ),
        ]
        bare = _search(cfg)
        told = _search(cfg)
    assert bare["error_code"] == "rate_limited" and "retry_after" not in bare
    assert told["error_code"] == "rate_limited" and told["retry_after"] == 3


def test_bad_key_message_names_the_variable(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(403, json={"message": "Unauthorized.", "statusCode": 403})
        envelope = _search(cfg)
    assert "SERPER_API_KEY" in envelope["error"] and KEY not in envelope["error"]


def test_missing_key_is_not_configured(cfg):
    envelope = _search(cfg)
    assert envelope["error_code"] == "not_configured"


def test_base_url_and_config_key(cfg):
    config = cfg(
        web={
            "providers": {
                "serper": {
                    "api_key": "cfg-serper-key-123",
                    "base_url": "https://serper-proxy.example.net/",
                }
            }
        }
    )
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post("https://serper-proxy.example.net/search").respond(200, json=SUCCESS)
        envelope = dispatch_search("apple inc", 3, backend="serper", config=config)
    assert envelope["success"] is True
    assert route.calls.last.request.headers["X-API-KEY"] == "cfg-serper-key-123"


def test_async_dispatch(keyed, cfg):
    async def run() -> dict:
        return await adispatch_search("apple inc", 2, backend="serper", config=cfg())

    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json=SUCCESS)
        envelope = asyncio.run(run())
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 2
    assert envelope["meta"]["knowledge_graph"]["type"] == "Technology company"


def test_a_search_is_charged_the_credits_serper_states(keyed, cfg):
    """Serper answers with the credits a search used (more for a page of more than 10
    results); before, every search was charged one credit."""
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json={**SUCCESS, "credits": 2})
        envelope = _search(cfg, 30)
    cost = envelope["meta"]["cost"]
    assert (cost["units"], cost["unit"]) == (2, "credit")
    assert cost["usd"] == pytest.approx(0.002)


def test_a_panel_keyed_by_the_api_key_shows_it_masked(keyed, cfg):
    # Serper's panels are handed on as they come: a mapping keyed by what the vendor echoed
    # (the key it was sent) must not show the key as a name, as a value would not.
    graph = {**SUCCESS["knowledgeGraph"], "attributes": {f"Key {KEY}": "unknown", "CEO": "Tim Cook"}}
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json={**SUCCESS, "knowledgeGraph": graph})
        envelope = _search(cfg)
    assert envelope["success"] is True
    assert KEY not in json.dumps(envelope)
    assert envelope["meta"]["knowledge_graph"]["attributes"] == {"Key ***": "unknown", "CEO": "Tim Cook"}
