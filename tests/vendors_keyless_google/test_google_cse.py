"""google-cse: the Custom Search JSON API, with bodies shaped like Google's own."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search, list_providers

URL = "https://www.googleapis.com/customsearch/v1"
KEY = "AIzaSyD-test-9f8e7d6c5b4a3f2e1d0c9b8a7f6"
CX = "0123456789abcdef0"

QUERY = {
    "title": "Google Custom Search - python",
    "totalResults": "2460000",
    "searchTerms": "python",
    "count": 2,
    "startIndex": 1,
    "inputEncoding": "utf8",
    "outputEncoding": "utf8",
    "safe": "off",
    "cx": CX,
}
SUCCESS = {
    "kind": "customsearch#search",
    "url": {
        "type": "application/json",
        "template": "https://www.googleapis.com/customsearch/v1?q={searchTerms}&num={count?}&start={startIndex?}&cx={cx?}&alt=json",
    },
    "queries": {"request": [QUERY], "nextPage": [{**QUERY, "startIndex": 3}]},
    "context": {"title": "My engine"},
    "searchInformation": {
        "searchTime": 0.21,
        "formattedSearchTime": "0.21",
        "totalResults": "2460000",
        "formattedTotalResults": "2,460,000",
    },
    "items": [
        {
            "kind": "customsearch#result",
            "title": "Welcome to Python.org",
            "htmlTitle": "Welcome to <b>Python</b>.org",
            "link": "https://www.python.org/",
            "displayLink": "www.python.org",
            "snippet": "The official home of the Python Programming Language.",
            "htmlSnippet": "The official home of the <b>Python</b> Programming Language.",
            "cacheId": "abc123",
            "formattedUrl": "https://www.python.org/",
            "htmlFormattedUrl": "https://www.<b>python</b>.org/",
            "pagemap": {
                "cse_image": [{"src": "https://www.python.org/static/opengraph-icon-200x200.png"}],
                "metatags": [
                    {
                        "og:title": "Welcome to Python.org",
                        "article:published_time": "2026-09-30T08:00:00Z",
                    }
                ],
            },
        },
        {
            "kind": "customsearch#result",
            "title": "Python (programming language) - Wikipedia",
            "htmlTitle": "<b>Python</b> (programming language) - Wikipedia",
            "link": "https://en.wikipedia.org/wiki/Python_(programming_language)",
            "displayLink": "en.wikipedia.org",
            "snippet": "Python is a high-level, general-purpose programming language.",
            "formattedUrl": "https://en.wikipedia.org/wiki/Python_(programming_language)",
        },
    ],
}


def _page(start: int, count: int, more: bool) -> dict:
    items = [
        {
            "kind": "customsearch#result",
            "title": f"Result {n}",
            "link": f"https://example.com/python/{n}",
            "displayLink": "example.com",
            "snippet": f"Snippet {n}.",
        }
        for n in range(start, start + count)
    ]
    queries = {"request": [{**QUERY, "count": count, "startIndex": start}]}
    if more:
        queries["nextPage"] = [{**QUERY, "count": count, "startIndex": start + count}]
    return {
        "kind": "customsearch#search",
        "queries": queries,
        "searchInformation": SUCCESS["searchInformation"],
        "items": items,
    }


def _google_error(
    status: int, message: str, reason: str, state: str, details: list | None = None
) -> httpx.Response:
    error = {
        "code": status,
        "message": message,
        "errors": [{"message": message, "domain": "global", "reason": reason}],
        "status": state,
    }
    if details:
        error["details"] = details
    return httpx.Response(status, json={"error": error})


@pytest.fixture
def keyed(monkeypatch):
    monkeypatch.setenv("GOOGLE_CSE_API_KEY", KEY)
    monkeypatch.setenv("GOOGLE_CSE_ID", CX)


def _search(cfg, limit=2, **options):
    return dispatch_search("python", limit, backend="google-cse", config=cfg(), **options)


def test_items_become_hits(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=SUCCESS)
        envelope = _search(cfg)
    assert envelope["success"] is True and envelope["provider"] == "google-cse"
    first, second = envelope["data"]["web"]
    assert (first["title"], first["url"]) == ("Welcome to Python.org", "https://www.python.org/")
    assert first["description"] == "The official home of the Python Programming Language."
    assert first["published_at"] == "2026-09-30T08:00:00Z"
    assert first["display_link"] == "www.python.org"
    assert "published_at" not in second
    assert route.call_count == 1
    assert dict(route.calls.last.request.url.params) == {
        "cx": CX,
        "q": "python",
        "start": "1",
        "num": "2",
        "key": KEY,
    }


def test_limit_above_ten_is_fetched_in_pages(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL)
        route.side_effect = [
            httpx.Response(200, json=_page(1, 10, True)),
            httpx.Response(200, json=_page(11, 5, True)),
        ]
        envelope = _search(cfg, 15)
    assert route.call_count == 2
    first, second = (call.request.url.params for call in route.calls)
    assert (first["start"], first["num"]) == ("1", "10")
    assert (second["start"], second["num"]) == ("11", "5")
    assert [h["url"] for h in envelope["data"]["web"]] == [
        f"https://example.com/python/{n}" for n in range(1, 16)
    ]


def test_a_later_page_refused_leaves_the_pages_read(keyed, cfg):
    """The first page was read and billed: Google's daily quota running out on the second
    shortens the answer, said in its warnings, instead of failing the call."""
    quota = {"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries'.", "status": "RESOURCE_EXHAUSTED"}}
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).side_effect = [httpx.Response(200, json=_page(1, 10, True)), httpx.Response(429, json=quota)]
        envelope = _search(cfg, 25)
    assert envelope["success"] is True, envelope
    assert len(envelope["data"]["web"]) == 10 and envelope["meta"]["cost"]["units"] == 1
    assert any("next page of results was not read" in w for w in envelope["meta"]["warnings"])


def test_an_answer_shortened_by_a_later_page_that_failed_is_not_cached(keyed, cfg):
    """The quota comes back; an hour of cache hits would keep the answer short."""
    quota = {"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries'.", "status": "RESOURCE_EXHAUSTED"}}
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL)
        route.side_effect = [httpx.Response(200, json=_page(1, 10, True)), httpx.Response(429, json=quota)] * 2
        config = cfg(web={"cache": {"ttl": {"search": 3600}}})
        answers = [dispatch_search("python", 25, backend="google-cse", config=config) for _ in range(2)]
    assert route.call_count == 4
    assert all(len(a["data"]["web"]) == 10 and "cached" not in a["meta"] for a in answers)


def test_each_page_is_charged_as_the_query_google_bills(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).side_effect = [
            httpx.Response(200, json=_page(1, 10, True)),
            httpx.Response(200, json=_page(11, 10, True)),
            httpx.Response(200, json=_page(21, 5, True)),
        ]
        envelope = _search(cfg, 25)
    assert len(envelope["data"]["web"]) == 25
    assert envelope["meta"]["cost"] == {
        "usd": 0.015,
        "units": 3,
        "unit": "request",
        "estimated": False,
    }


def test_paging_stops_when_google_has_no_next_page(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=_page(1, 7, False))
        envelope = _search(cfg, 20)
    assert route.call_count == 1
    assert len(envelope["data"]["web"]) == 7


def test_no_items_is_an_empty_success(keyed, cfg):
    body = {
        "kind": "customsearch#search",
        "queries": {"request": [{**QUERY, "totalResults": "0", "count": 0}]},
        "searchInformation": {
            "searchTime": 0.1,
            "formattedSearchTime": "0.10",
            "totalResults": "0",
            "formattedTotalResults": "0",
        },
    }
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=body)
        envelope = _search(cfg, 15)
    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize("body", [{}, {"status": "ok"}])
def test_an_answer_that_is_not_a_custom_search_is_a_parse_error(keyed, cfg, body):
    """``items`` is absent when nothing matched, so ``{}`` (another service at the base URL)
    read as "nothing found"; every answer of Google's is a ``customsearch#search``."""
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=body)
        envelope = _search(cfg, 5)
    assert envelope["success"] is False and envelope["error_code"] == "parse_error", envelope
    assert "customsearch#search" in envelope["error"]


def test_options_map_to_cse_parameters(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=SUCCESS)
        envelope = _search(
            cfg,
            time_range="week",
            country="DE",
            lang="de",
            safe_search="strict",
            include_domains=["python.org"],
        )
    params = route.calls.last.request.url.params
    assert params["dateRestrict"] == "w1"
    assert params["gl"] == "de"
    assert params["lr"] == "lang_de"
    assert params["safe"] == "active"
    assert (params["siteSearch"], params["siteSearchFilter"], params["q"]) == (
        "python.org",
        "i",
        "python",
    )
    assert "warnings" not in envelope["meta"]


@pytest.mark.parametrize(
    ("lang", "lr"),
    [
        ("pt-BR", "lang_pt"),
        ("zh-Hans-CN", "lang_zh-CN"),
        ("zh-TW", "lang_zh-TW"),
        ("he", "lang_iw"),
    ],
)
def test_lang_is_one_of_googles_lr_values(keyed, cfg, lang, lr):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=SUCCESS)
        assert _search(cfg, lang=lang)["success"] is True
    assert route.calls.last.request.url.params["lr"] == lr


def test_domain_filters_beyond_one_site_go_into_the_query(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=SUCCESS)
        _search(cfg, exclude_domains=["w3schools.com"])
        single = route.calls.last.request.url.params
        _search(
            cfg,
            include_domains=["python.org", "docs.python.org"],
            exclude_domains=["w3schools.com"],
        )
        several = route.calls.last.request.url.params
    assert (single["siteSearch"], single["siteSearchFilter"]) == ("w3schools.com", "e")
    assert "siteSearch" not in several
    assert several["q"] == "python site:python.org OR site:docs.python.org -site:w3schools.com"


def test_engine_id_from_config(cfg, monkeypatch):
    monkeypatch.setenv("GOOGLE_CSE_API_KEY", KEY)
    config = cfg(web={"providers": {"google-cse": {"cx": "configured-cx-42"}}})
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=SUCCESS)
        envelope = dispatch_search("python", 2, backend="google-cse", config=config)
    assert envelope["success"] is True
    assert route.calls.last.request.url.params["cx"] == "configured-cx-42"


def test_missing_engine_id_is_explained(cfg, monkeypatch):
    monkeypatch.setenv("GOOGLE_CSE_API_KEY", KEY)
    row = next(p for p in list_providers(cfg()) if p["name"] == "google-cse")
    assert row["available"] is False
    assert "GOOGLE_CSE_ID" in row["reason"]
    envelope = _search(cfg)
    assert envelope["error_code"] == "not_configured"
    assert "GOOGLE_CSE_ID" in envelope["error"]


def test_missing_key_is_not_configured(cfg, monkeypatch):
    monkeypatch.setenv("GOOGLE_CSE_ID", CX)
    assert _search(cfg)["error_code"] == "not_configured"


BAD_KEY_DETAILS = [
    {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID",
        "domain": "googleapis.com",
        "metadata": {"service": "customsearch.googleapis.com"},
    }
]
DAILY_DETAILS = [
    {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "RATE_LIMIT_EXCEEDED",
        "domain": "googleapis.com",
        "metadata": {
            "quota_limit": "DefaultPerDayPerProject",
            "quota_metric": "customsearch.googleapis.com/requests",
            "service": "customsearch.googleapis.com",
        },
    }
]


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (
            _google_error(
                400,
                "API key not valid. Please pass a valid API key.",
                "badRequest",
                "INVALID_ARGUMENT",
                BAD_KEY_DETAILS,
            ),
            "auth_error",
        ),
        (_google_error(400, "Bad Request", "keyInvalid", "INVALID_ARGUMENT"), "auth_error"),
        (
            _google_error(
                403,
                "This project does not have the access to Custom Search JSON API.",
                "forbidden",
                "PERMISSION_DENIED",
            ),
            "auth_error",
        ),
        (
            _google_error(403, "Daily Limit Exceeded", "dailyLimitExceeded", "PERMISSION_DENIED"),
            "quota_exceeded",
        ),
        (
            _google_error(
                429,
                "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service "
                "'customsearch.googleapis.com' for consumer 'project_number:123456789012'.",
                "rateLimitExceeded",
                "RESOURCE_EXHAUSTED",
                DAILY_DETAILS,
            ),
            "quota_exceeded",
        ),
        (
            _google_error(
                400, "Request contains an invalid argument.", "badRequest", "INVALID_ARGUMENT"
            ),
            "invalid_input",
        ),
        (_google_error(500, "Backend Error", "backendError", "INTERNAL"), "bad_gateway"),
        (httpx.Response(503, text="<html><body>Service Unavailable</body></html>"), "bad_gateway"),
        (
            httpx.Response(
                200,
                json={
                    "error": {
                        "code": 403,
                        "message": "The caller does not have permission",
                        "status": "PERMISSION_DENIED",
                    }
                },
            ),
            "auth_error",
        ),
        (
            httpx.Response(
                200,
                text="<!DOCTYPE html><html lang=en><title>Error 404 (Not Found)!!1</title></html>",
            ),
            "parse_error",
        ),
        (
            httpx.Response(200, text='{"kind": "customsearch#search", "items": [{"title": "Welc'),
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


#: What Google's front end sends for a URL longer than it reads.
TOO_LONG = (
    "<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 414 (Request-URI Too Large)!!1</title>"
    "<p><b>414.</b> <ins>That\u2019s an error.</ins><p>The requested URL <code>/customsearch/v1</code>... is "
    "too large to process. <ins>That\u2019s all we know.</ins>"
)


def test_a_url_too_long_for_google_is_the_caller_s_input(keyed, cfg, assert_no_secret):
    """Many domain filters go into ``q`` as ``site:`` operators, and a GET's URL can grow past
    what Google reads: its 414 was ``provider_error``, "answered HTTP 414." and nothing to do."""
    domains = [f"docs{i}.example.com" for i in range(400)]
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(414, text=TOO_LONG, headers={"Content-Type": "text/html; charset=UTF-8"})
        envelope = _search(cfg, include_domains=domains)
    assert envelope["success"] is False and envelope["error_code"] == "invalid_input", envelope
    assert "HTTP 414" in envelope["error"] and "shorten the query, or pass fewer domains" in envelope["error"]
    assert_no_secret(envelope, KEY)


def test_access_refusal_mentions_the_shutdown(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(
            return_value=_google_error(
                403,
                "This project does not have the access to Custom Search JSON API.",
                "forbidden",
                "PERMISSION_DENIED",
            )
        )
        envelope = _search(cfg)
    assert "1 January 2027" in envelope["error"]


def test_per_minute_429_is_rate_limited_with_retry_after(keyed, cfg):
    response = _google_error(
        429,
        "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'customsearch.googleapis.com'.",
        "rateLimitExceeded",
        "RESOURCE_EXHAUSTED",
    )
    response.headers["Retry-After"] = "20"
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(return_value=response)
        envelope = _search(cfg)
    assert envelope["error_code"] == "rate_limited"
    assert envelope["retry_after"] == 20


def test_key_in_the_url_never_reaches_the_envelope(keyed, cfg, assert_no_secret):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(
            f"All connection attempts failed for {request.url}", request=request
        )

    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(side_effect=refuse)
        envelope = _search(cfg)
    assert envelope["error_code"] == "network_error"
    assert_no_secret(envelope, KEY)


def test_base_url_override(keyed, cfg):
    config = cfg(web={"providers": {"google-cse": {"base_url": "https://cse-proxy.example.org"}}})
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get("https://cse-proxy.example.org/customsearch/v1").respond(200, json=SUCCESS)
        envelope = dispatch_search("python", 2, backend="google-cse", config=config)
    assert envelope["success"] is True and route.called


def test_async_dispatch(keyed, cfg):
    async def run() -> dict:
        return await adispatch_search("python", 2, backend="google-cse", config=cfg())

    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, json=SUCCESS)
        envelope = asyncio.run(run())
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 2
