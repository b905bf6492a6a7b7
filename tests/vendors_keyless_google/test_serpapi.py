"""serpapi: SerpAPI's Google engine over httpx, with bodies shaped like SerpAPI's own."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search

URL = "https://serpapi.com/search.json"
KEY = "f1e2d3c4b5a6978812345678901234567890abcdef0123456789abcdef012345"

METADATA = {
    "id": "66f1d2e3a4b5c6d7e8f90123",
    "status": "Success",
    "json_endpoint": "https://serpapi.com/searches/9b2c4d1e0f3a5b6c/66f1d2e3a4b5c6d7e8f90123.json",
    "created_at": "2026-10-01 10:00:00 UTC",
    "processed_at": "2026-10-01 10:00:00 UTC",
    "google_url": "https://www.google.com/search?q=coffee&oq=coffee&hl=en&gl=us&sourceid=chrome&ie=UTF-8",
    "raw_html_file": "https://serpapi.com/searches/9b2c4d1e0f3a5b6c/66f1d2e3a4b5c6d7e8f90123.html",
    "total_time_taken": 1.42,
}
SUCCESS = {
    "search_metadata": METADATA,
    "search_parameters": {
        "engine": "google",
        "q": "coffee",
        "google_domain": "google.com",
        "hl": "en",
        "gl": "us",
        "device": "desktop",
    },
    "search_information": {
        "organic_results_state": "Results for exact spelling",
        "query_displayed": "coffee",
        "total_results": 2840000000,
        "time_taken_displayed": 0.41,
    },
    "organic_results": [
        {
            "position": 1,
            "title": "Coffee - Wikipedia",
            "link": "https://en.wikipedia.org/wiki/Coffee",
            "redirect_link": "https://www.google.com/url?sa=t&source=web&rct=j&url=https://en.wikipedia.org/wiki/Coffee",
            "displayed_link": "https://en.wikipedia.org › wiki › Coffee",
            "favicon": "https://serpapi.com/searches/66f1d2e3a4b5c6d7e8f90123/images/favicon.png",
            "snippet": "Coffee is a beverage brewed from roasted coffee beans. Darkly colored, bitter, and slightly acidic.",
            "snippet_highlighted_words": ["Coffee"],
            "source": "Wikipedia",
        },
        {
            "position": 2,
            "title": "The Coffee Bean & Tea Leaf",
            "link": "https://www.coffeebean.com/",
            "displayed_link": "https://www.coffeebean.com",
            "snippet": "Born and brewed in Southern California since 1963.",
            "date": "Aug 12, 2026",
            "source": "coffeebean.com",
        },
    ],
    "related_searches": [
        {"query": "coffee near me", "link": "https://www.google.com/search?q=coffee+near+me"}
    ],
    "pagination": {"current": 1, "next": "https://www.google.com/search?q=coffee&start=10"},
    "serpapi_pagination": {
        "current": 1,
        "next_link": "https://serpapi.com/search.json?engine=google&q=coffee&start=10",
        "next": "https://serpapi.com/search.json?engine=google&q=coffee&start=10",
    },
}
#: A search for a named thing: SerpAPI adds Google's knowledge graph and answer box, and the
#: first organic result carries sitelinks.
WITH_PANELS = {
    **SUCCESS,
    "answer_box": {
        "type": "organic_result",
        "title": "Coffee - Wikipedia",
        "link": "https://en.wikipedia.org/wiki/Coffee",
        "snippet": "Coffee is a beverage brewed from roasted coffee beans.",
    },
    "knowledge_graph": {
        "title": "Coffee",
        "type": "Drink",
        "kgmid": "/m/02vqfm",
        "knowledge_graph_search_link": "https://www.google.com/search?kgmid=/m/02vqfm&hl=en-US&q=Coffee",
        "serpapi_knowledge_graph_search_link": "https://serpapi.com/search.json?engine=google&kgmid=%2Fm%2F02vqfm&q=Coffee",
        "description": "Coffee is a beverage brewed from roasted coffee beans.",
        "source": {"name": "Wikipedia", "link": "https://en.wikipedia.org/wiki/Coffee"},
    },
    "organic_results": [
        {
            **SUCCESS["organic_results"][0],
            "sitelinks": {
                "inline": [
                    {
                        "title": "History of coffee",
                        "link": "https://en.wikipedia.org/wiki/History_of_coffee",
                    },
                    {"title": "Coffee bean", "link": "https://en.wikipedia.org/wiki/Coffee_bean"},
                ]
            },
        },
        SUCCESS["organic_results"][1],
    ],
}
NO_RESULTS = {
    "search_metadata": METADATA,
    "search_parameters": {
        "engine": "google",
        "q": "qzxv flurbnog",
        "google_domain": "google.com",
        "device": "desktop",
    },
    "search_information": {
        "organic_results_state": "Fully empty",
        "query_displayed": "qzxv flurbnog",
    },
    "error": "Google hasn't returned any results for this query.",
}


@pytest.fixture
def keyed(monkeypatch):
    monkeypatch.setenv("SERPAPI_API_KEY", KEY)


def _search(cfg, limit=5, **options):
    return dispatch_search("coffee", limit, backend="serpapi", config=cfg(), **options)


def test_organic_results_become_hits(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=SUCCESS)
        envelope = _search(cfg)
    assert envelope["success"] is True and envelope["provider"] == "serpapi"
    first, second = envelope["data"]["web"]
    assert first["url"] == "https://en.wikipedia.org/wiki/Coffee"
    assert first["title"] == "Coffee - Wikipedia"
    assert first["description"].startswith("Coffee is a beverage")
    assert first["source"] == "Wikipedia"
    assert second["published_at"] == "2026-08-12"
    params = route.calls.last.request.url.params
    assert dict(params) == {"engine": "google", "q": "coffee", "api_key": KEY}


def test_knowledge_graph_and_answer_box_go_to_meta_and_sitelinks_stay_on_the_hit(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=WITH_PANELS)
        envelope = _search(cfg)
    assert envelope["success"] is True
    first, second = envelope["data"]["web"]
    assert (
        first["sitelinks"]["inline"][0]["link"] == "https://en.wikipedia.org/wiki/History_of_coffee"
    )
    assert "sitelinks" not in second
    assert envelope["meta"]["knowledge_graph"]["kgmid"] == "/m/02vqfm"
    assert envelope["meta"]["answer_box"]["type"] == "organic_result"


def test_a_page_without_panels_adds_no_meta(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=SUCCESS)
        envelope = _search(cfg)
    assert "knowledge_graph" not in envelope["meta"] and "answer_box" not in envelope["meta"]


def _page(first: int, count: int, more: bool) -> dict:
    """One Google page as SerpAPI returns it: ``count`` organic results from ``first`` on."""
    organic = [
        {
            "position": n,
            "title": f"Coffee {n}",
            "link": f"https://example.com/coffee/{n}",
            "snippet": f"Snippet {n}.",
        }
        for n in range(first, first + count)
    ]
    pagination = {"current": first // 10 + 1}
    if more:
        pagination["next"] = (
            f"https://serpapi.com/search.json?engine=google&q=coffee&start={first + count - 1}"
        )
    return {**SUCCESS, "organic_results": organic, "serpapi_pagination": pagination}


def test_a_limit_above_one_google_page_is_fetched_in_pages_each_charged(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL)
        route.side_effect = [
            httpx.Response(200, json=_page(1, 10, True)),
            httpx.Response(200, json=_page(11, 10, True)),
            httpx.Response(200, json=_page(21, 10, True)),
        ]
        envelope = _search(cfg, 25)
    assert [call.request.url.params.get("start") for call in route.calls] == [None, "10", "20"]
    assert [h["url"] for h in envelope["data"]["web"]] == [
        f"https://example.com/coffee/{n}" for n in range(1, 26)
    ]
    assert envelope["meta"]["cost"]["units"] == 3


def test_pages_start_where_serpapi_s_next_link_says(keyed, cfg):
    """``start`` is Google's offset, which counts results that are not organic (a video, a
    block of stories): asking from the number of organic results read (8 of page one's 10)
    served two results of page one again, and 22 unique hits came back for 25, unsaid."""
    features = {4, 9, 15, 22, 28}  # ranks Google shows as blocks, not organic results

    def google(request):
        start = int(request.url.params.get("start") or 0)
        ranks = [r for r in range(start + 1, start + 11) if r not in features]
        organic = [
            {"position": n + 1, "title": f"R{r}", "link": f"https://example.com/r{r}", "snippet": "s"}
            for n, r in enumerate(ranks)
        ]
        following = f"https://serpapi.com/search.json?engine=google&q=coffee&start={start + 10}"
        return httpx.Response(
            200, json={**SUCCESS, "organic_results": organic, "serpapi_pagination": {"next": following}}
        )

    with respx.mock() as mock:
        route = mock.get(URL).mock(side_effect=google)
        envelope = _search(cfg, 25)
    assert [call.request.url.params.get("start") for call in route.calls] == [None, "10", "20"]
    assert len(envelope["data"]["web"]) == 25, envelope


def test_a_later_page_that_fails_leaves_the_pages_read(keyed, cfg):
    """Page one was read and billed: a 500 on page two shortens the answer, said in its
    warnings, instead of failing the call."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL)
        route.side_effect = [
            httpx.Response(200, json=_page(1, 10, True)),
            httpx.Response(500, json={"error": "Internal server error."}),
        ]
        envelope = _search(cfg, 25)
    assert envelope["success"] is True, envelope
    assert len(envelope["data"]["web"]) == 10 and envelope["meta"]["cost"]["units"] == 1
    assert any("next page of results was not read" in w and "10 results" in w for w in envelope["meta"]["warnings"])


def test_a_later_page_that_hangs_leaves_the_pages_read_by_the_deadline(keyed, cfg):
    async def hang(request):
        await asyncio.sleep(30)

    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL)
        route.side_effect = [httpx.Response(200, json=_page(1, 10, True)), hang]
        envelope = dispatch_search("coffee", 25, backend="serpapi", config=cfg(), timeout=3)
    assert envelope["success"] is True, envelope
    assert len(envelope["data"]["web"]) == 10
    assert any("deadline" in w for w in envelope["meta"]["warnings"]), envelope["meta"]["warnings"]


def test_paging_stops_when_serpapi_has_no_next_page(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=_page(1, 7, False))
        envelope = _search(cfg, 30)
    assert route.call_count == 1 and len(envelope["data"]["web"]) == 7


def test_options_map_to_google_parameters(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=SUCCESS)
        envelope = _search(
            cfg,
            20,
            time_range="year",
            country="GB",
            lang="en",
            safe_search="strict",
            include_domains=["bbc.co.uk", "theguardian.com"],
            exclude_domains=["pinterest.com"],
            location="London, England, United Kingdom",
        )
    params = route.calls[0].request.url.params
    assert params["q"] == "coffee site:bbc.co.uk OR site:theguardian.com -site:pinterest.com"
    assert (params["gl"], params["hl"], params["tbs"], params["safe"]) == (
        "gb",
        "en",
        "qdr:y",
        "active",
    )
    assert "num" not in params and "start" not in params
    assert params["location"] == "London, England, United Kingdom"
    assert "warnings" not in envelope["meta"]


#: Some of the codes in Google's ``hl`` list (SerpAPI's google-languages.json).
GOOGLE_HL = {
    "en", "iw", "jw", "tl", "no", "nn", "pt", "pt-br", "pt-pt", "es-419", "zh-cn", "zh-tw", "ms", "my", "kl"
}


def _google_hl_only(request: httpx.Request) -> httpx.Response:
    """SerpAPI refuses an ``hl`` outside Google's list, as the caller's mistake."""
    hl = request.url.params.get("hl")
    if hl is not None and hl not in GOOGLE_HL:
        error = f"Unsupported `{hl}` interface language - hl parameter."
        return httpx.Response(400, json={"error": error})
    return httpx.Response(200, json=SUCCESS)


@pytest.mark.parametrize(
    ("lang", "hl"),
    [
        ("en-US", "en"),
        ("he", "iw"),
        ("nb", "no"),
        ("zh", "zh-cn"),
        ("zh-Hant", "zh-tw"),
        ("zh-HK", "zh-tw"),
        ("pt-BR", "pt-br"),
        ("es-419", "es-419"),
        ("jv", "jw"),
    ],
)
def test_a_language_tag_is_sent_as_googles_interface_language(keyed, cfg, lang, hl):
    """Before, the tag went as given: SerpAPI refused en-US, he or zh-Hant (HTTP 400)."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).mock(side_effect=_google_hl_only)
        envelope = _search(cfg, lang=lang)
    assert envelope["success"] is True, envelope
    assert route.calls[0].request.url.params["hl"] == hl


@pytest.mark.parametrize(("lang", "hl"), [("ms-MY", "ms"), ("my", "my"), ("kl", "kl")])
def test_languages_of_serpapi_s_list_are_sent(keyed, cfg, lang, hl):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).mock(side_effect=_google_hl_only)
        envelope = _search(cfg, lang=lang)
    assert envelope["success"] is True, envelope
    assert route.calls[0].request.url.params["hl"] == hl


def test_a_language_serpapi_does_not_list_is_left_out_with_a_warning(keyed, cfg):
    """Before, Assamese went as ``hl=as``; SerpAPI's 400 ("Unsupported `as` interface
    language") failed the search as ``invalid_input`` and a fallback chain stopped there."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).mock(side_effect=_google_hl_only)
        envelope = _search(cfg, lang="as")
    assert envelope["success"] is True, envelope
    assert "hl" not in route.calls[0].request.url.params
    assert envelope["meta"]["warnings"] == ["serpapi does not search in the language 'as'; lang ignored."]


def _google_gl_only(request: httpx.Request) -> httpx.Response:
    """SerpAPI refuses a ``gl`` outside its google-countries list (South Sudan, Kosovo)."""
    gl = request.url.params.get("gl")
    if gl in ("ss", "cw", "sx", "xk"):
        return httpx.Response(400, json={"error": f"Unsupported `{gl}` country - gl parameter."})
    return httpx.Response(200, json=SUCCESS)


@pytest.mark.parametrize("country", ["SS", "xk"])
def test_a_country_serpapi_does_not_list_is_left_out_with_a_warning(keyed, cfg, country):
    """Before, ``gl=ss`` went as given; SerpAPI's 400 failed the search as ``invalid_input``."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).mock(side_effect=_google_gl_only)
        envelope = _search(cfg, country=country, lang="en")
    assert envelope["success"] is True, envelope
    assert "gl" not in route.calls[0].request.url.params
    assert route.calls[0].request.url.params["hl"] == "en"
    assert envelope["meta"]["warnings"] == [
        f"serpapi does not offer results for the country '{country}'; country ignored."
    ]


@pytest.mark.parametrize(("level", "expected"), [("off", "off"), ("moderate", None)])
def test_safe_search_levels(keyed, cfg, level, expected):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=SUCCESS)
        _search(cfg, safe_search=level)
    assert route.calls.last.request.url.params.get("safe") == expected


@pytest.mark.parametrize(
    "body", [{}, {"status": "ok"}, {"error": "Google hasn't returned any results for this query."}]
)
def test_an_answer_that_is_not_a_serpapi_search_is_a_parse_error(keyed, cfg, body):
    """``{}`` (another service at the base URL) read as "nothing found"; every SerpAPI answer,
    an empty one too, carries its ``search_metadata``."""
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=body)
        envelope = _search(cfg)
    assert envelope["success"] is False and envelope["error_code"] == "parse_error", envelope
    assert "search_metadata" in envelope["error"]


def test_no_results_error_is_an_empty_success(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=NO_RESULTS)
        envelope = _search(cfg)
    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (
            httpx.Response(
                401,
                json={
                    "error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"
                },
            ),
            "auth_error",
        ),
        (httpx.Response(403, json={"error": "This account has been deleted."}), "auth_error"),
        (
            httpx.Response(429, json={"error": "Your account has run out of searches."}),
            "quota_exceeded",
        ),
        (httpx.Response(400, json={"error": "Missing query `q` parameter."}), "invalid_input"),
        (httpx.Response(500, json={"error": "Internal server error."}), "bad_gateway"),
        (
            httpx.Response(
                503, text="<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"
            ),
            "bad_gateway",
        ),
        # A 200 carrying an error (not the "no results" one) is a failure.
        (
            httpx.Response(
                200,
                json={
                    "search_metadata": {**METADATA, "status": "Error"},
                    "error": "Unsupported `xx` location - location parameter.",
                },
            ),
            "provider_error",
        ),
        (
            httpx.Response(200, json={"search_metadata": {**METADATA, "status": "Processing"}}),
            "bad_gateway",
        ),
        (
            httpx.Response(
                200,
                text="<!DOCTYPE html><html><head><title>SerpApi</title></head><body></body></html>",
            ),
            "parse_error",
        ),
        (
            httpx.Response(200, text='{"search_metadata": {"id": "66f1", "status": "Succ'),
            "parse_error",
        ),
    ],
)
def test_errors_are_mapped(keyed, cfg, assert_no_secret, response, code):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(return_value=response)
        envelope = _search(cfg)
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    assert_no_secret(envelope, KEY)


def test_a_200_about_the_api_key_is_an_auth_error(keyed, cfg, assert_no_secret):
    """The docs promise a message about the key is ``auth_error`` whatever the status: a 200
    carrying SerpAPI's invalid-key sentence tells the user to fix the key."""
    body = {
        "search_metadata": {**METADATA, "status": "Error"},
        "error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key",
    }
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=body)
        envelope = _search(cfg)
    assert envelope["success"] is False
    assert envelope["error_code"] == "auth_error"
    assert "SERPAPI_API_KEY" in envelope["error"]
    assert_no_secret(envelope, KEY)


def test_429_throughput_is_rate_limited_with_retry_after(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(
            429,
            json={
                "error": "Your searches for the past hour have exceeded 20% of your plan's monthly searches."
            },
            headers={"Retry-After": "60"},
        )
        envelope = _search(cfg)
    assert envelope["error_code"] == "rate_limited"
    assert envelope["retry_after"] == 60


def test_key_in_the_url_never_reaches_the_envelope(keyed, cfg, assert_no_secret):
    # httpx names the URL (with api_key=...) in connection errors.
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(
            f"All connection attempts failed for {request.url}", request=request
        )

    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(side_effect=refuse)
        envelope = _search(cfg)
    assert envelope["error_code"] == "network_error"
    assert_no_secret(envelope, KEY)


def test_missing_key_is_not_configured(cfg):
    assert _search(cfg)["error_code"] == "not_configured"


def test_base_url_and_config_key(cfg):
    config = cfg(
        web={
            "providers": {
                "serpapi": {"api_key": "cfg-serpapi-key-123", "base_url": "http://127.0.0.1:8765"}
            }
        }
    )
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get("http://127.0.0.1:8765/search.json").respond(200, json=SUCCESS)
        envelope = dispatch_search("coffee", 3, backend="serpapi", config=config)
    assert envelope["success"] is True
    assert route.calls.last.request.url.params["api_key"] == "cfg-serpapi-key-123"


def test_async_dispatch(keyed, cfg):
    async def run() -> dict:
        return await adispatch_search("coffee", 5, backend="serpapi", config=cfg())

    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=SUCCESS)
        envelope = asyncio.run(run())
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 2
