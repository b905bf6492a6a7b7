"""you: POST /v1/search (web, news on request) and POST /v1/contents, ``X-API-Key`` auth."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_extract, dispatch_search

from .helpers import assert_failure, assert_no_secret, sent_json

KEY = "ydc-sk-test-0123456789abcdef"
SEARCH = "https://ydc-index.io/v1/search"
CONTENTS = "https://ydc-index.io/v1/contents"

BODY = {
    "results": {
        "web": [
            {
                "url": "https://you.com",
                "title": "You.com | AI for workplace productivity",
                "description": "Search on YDC",
                "snippets": [
                    "I'm an AI assistant that helps you get more done.",
                    "Second snippet.",
                ],
                "thumbnail_url": "https://www.example.com/thumb.jpg",
                "original_thumbnail_url": "https://www.example.com/orig.jpg",
                "page_age": "2026-06-25T11:41:00",
                "authors": ["John Doe"],
                "favicon_url": "https://you.com/favicon.ico",
            },
            {
                "url": "https://docs.you.com",
                "title": "You.com API docs",
                "description": "",
                "snippets": ["Reference for the Search API."],
                "page_age": "2026-05-01T00:00:00",
                "favicon_url": "https://docs.you.com/favicon.ico",
                "contents": {"markdown": "# Docs", "highlights": ["Search API"]},
            },
        ],
        "news": [
            {
                "title": "You.com launches a new API",
                "description": "The company announced ...",
                "page_age": "2026-09-20T08:00:00",
                "thumbnail_url": "https://news.example.com/t.jpg",
                "original_thumbnail_url": "https://news.example.com/o.jpg",
                "url": "https://news.example.com/youcom",
            }
        ],
    },
    "metadata": {
        "request_uuid": "942ccbdd-7705-4d9c-9d37-4ef386658e90",
        "query": "you.com api",
        "latency": 0.123,
    },
}
PAGES = [
    {
        "url": "https://you.com/about",
        "title": "About You.com",
        "markdown": "# About\n\nYou.com builds search for AI.",
        "metadata": {
            "site_name": "You.com",
            "favicon_url": "https://ydc-index.io/favicon?domain=you.com&size=128",
        },
    },
    {
        "url": "https://example.com/",
        "title": "Example Domain",
        "markdown": "# Example Domain\n\nIllustrative examples.",
        "metadata": {"site_name": "Example"},
    },
]


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YDC_API_KEY", KEY)


def test_search_returns_web_hits_only_by_default(mock: respx.MockRouter, dispatch: Any) -> None:
    route = mock.post(SEARCH).respond(200, json=BODY)

    envelope = dispatch("search", "you.com api", 5, backend="you")

    assert envelope["success"] is True, envelope
    first, second = envelope["data"]["web"]
    assert (first["title"], first["url"], first["description"]) == (
        "You.com | AI for workplace productivity",
        "https://you.com",
        "Search on YDC",
    )
    assert first["published_at"] == "2026-06-25T11:41:00"
    assert first["snippets"] == [
        "I'm an AI assistant that helps you get more done.",
        "Second snippet.",
    ]
    assert first["source"] == "web"
    assert first["author"] == "John Doe" and "author" not in second
    assert second["description"] == "Reference for the Search API."
    assert "thumbnail_url" not in first and "favicon_url" not in first
    request = route.calls.last.request
    assert request.headers["X-API-Key"] == KEY and "Authorization" not in request.headers
    assert sent_json(route) == {"query": "you.com api", "count": 5}


def test_news_hits_take_turns_with_the_web_hits_when_asked(mock: respx.MockRouter) -> None:
    mock.post(SEARCH).respond(200, json=BODY)

    envelope = dispatch_search("you.com api", 10, backend="you", include_news=True)

    hits = envelope["data"]["web"]
    assert [h["source"] for h in hits] == ["web", "news", "web"]
    assert hits[1]["url"] == "https://news.example.com/youcom"
    assert hits[1]["published_at"] == "2026-09-20T08:00:00"


def test_news_hits_are_kept_when_the_web_hits_alone_fill_the_limit(mock: respx.MockRouter) -> None:
    """You.com answers up to ``count`` hits in each section (its docs' response sample has
    both); with the news appended after the web hits, the call's limit cut every one of them."""
    web = [{**BODY["results"]["web"][0], "url": f"https://you.com/{n}"} for n in range(4)]
    news = [{**BODY["results"]["news"][0], "url": f"https://news.example.com/{n}"} for n in range(4)]
    mock.post(SEARCH).respond(200, json={**BODY, "results": {"web": web, "news": news}})

    envelope = dispatch_search("election results", 4, backend="you", include_news=True)

    hits = envelope["data"]["web"]
    assert [h["url"] for h in hits] == [
        "https://you.com/0",
        "https://news.example.com/0",
        "https://you.com/1",
        "https://news.example.com/1",
    ]


@pytest.mark.parametrize("news", [["junk", 7, None], "not a list"])
def test_a_news_section_out_of_shape_costs_only_itself(mock: respx.MockRouter, news: Any) -> None:
    """The news section is the call's extra: out of shape, it was the whole answer's
    parse_error, and the web hits beside it were lost."""
    mock.post(SEARCH).respond(200, json={**BODY, "results": {"web": BODY["results"]["web"], "news": news}})

    envelope = dispatch_search("you.com api", 10, backend="you", include_news=True)

    assert envelope["success"] is True
    assert [h["url"] for h in envelope["data"]["web"]] == ["https://you.com", "https://docs.you.com"]
    warning = next(w for w in envelope["meta"]["warnings"] if "results.news" in w)
    assert "news section was left out" in warning and KEY not in warning


def test_a_news_section_out_of_shape_beside_no_web_hits_is_parse_error(mock: respx.MockRouter) -> None:
    mock.post(SEARCH).respond(200, json={**BODY, "results": {"web": [], "news": ["junk"]}})

    envelope = dispatch_search("you.com api", 10, backend="you", include_news=True)

    assert_failure(envelope, "parse_error")
    assert "results.news" in envelope["error"]


def test_all_common_options_are_mapped(mock: respx.MockRouter) -> None:
    route = mock.post(SEARCH).respond(200, json=BODY)

    envelope = dispatch_search(
        "x",
        7,
        backend="you",
        time_range="week",
        country="de",
        lang="de",
        safe_search="strict",
        exclude_domains=["pinterest.com"],
    )

    assert sent_json(route) == {
        "query": "x",
        "count": 7,
        "freshness": "week",
        "country": "DE",
        "language": "DE",
        "safesearch": "strict",
        "exclude_domains": ["pinterest.com"],
    }
    assert "warnings" not in envelope["meta"]


def _you_locale_enums(request: httpx.Request) -> httpx.Response:
    """You.com's ``country`` and ``language`` are enums (its SDK's ``Country`` and ``Language``
    models); any other value gets FastAPI's 422, as its API sends it."""
    body = json.loads(request.content)
    languages = "AR EU BN BG CA ZH-HANS ZH-HANT HR CS DA NL EN EN-GB ET FI FR GL DE EL GU HE HI HU IS IT JA KN KO LV LT MS ML MR NB PL PT-BR PT-PT PA RO RU SR SK SL ES SV TA TE TH TR UK VI"
    countries = "AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA ES SE CH TW TR GB US"
    for field, allowed in (("language", languages.split()), ("country", countries.split())):
        if field in body and body[field] not in allowed:
            detail = [{"type": "enum", "loc": ["body", field], "msg": "Input should be one of the listed values", "input": body[field]}]
            return httpx.Response(422, json={"detail": detail})
    return httpx.Response(200, json=BODY)


@pytest.mark.parametrize(
    ("lang", "sent"),
    [("en-US", "EN"), ("en-GB", "EN-GB"), ("pt-BR", "PT-BR"), ("pt", "PT-PT"), ("zh", "ZH-HANS"), ("zh-TW", "ZH-HANT"), ("zh-Hant-HK", "ZH-HANT"), ("ja", "JA"), ("nn", "NB")],
)
def test_a_language_tag_is_sent_as_you_s_own_code(mock: respx.MockRouter, lang: str, sent: str) -> None:
    """An ``en-US`` was sent as ``EN-US``, which You.com refuses: the call failed as the
    caller's invalid_input, and a chain stopped there."""
    route = mock.post(SEARCH).mock(side_effect=_you_locale_enums)

    envelope = dispatch_search("x", backend="you", lang=lang, country="us")

    assert envelope["success"] is True, envelope
    assert (sent_json(route)["language"], sent_json(route)["country"]) == (sent, "US")
    assert "warnings" not in envelope["meta"]


@pytest.mark.parametrize(
    ("option", "value", "warning"),
    [
        ("country", "ie", "you does not offer results for the country 'IE'; country ignored."),
        ("lang", "ga", "you does not search in the language 'ga'; lang ignored."),
    ],
)
def test_a_country_or_language_you_does_not_list_is_warned_not_sent(
    mock: respx.MockRouter, option: str, value: str, warning: str
) -> None:
    route = mock.post(SEARCH).mock(side_effect=_you_locale_enums)

    envelope = dispatch_search("x", backend="you", **{option: value})

    assert envelope["success"] is True, envelope
    assert "country" not in sent_json(route) and "language" not in sent_json(route)
    assert envelope["meta"]["warnings"] == [warning]


def test_include_and_exclude_cannot_be_combined(mock: respx.MockRouter) -> None:
    route = mock.post(SEARCH).respond(200, json=BODY)

    envelope = dispatch_search(
        "x", backend="you", include_domains=["you.com"], exclude_domains=["docs.you.com"]
    )

    body = sent_json(route)
    assert body["include_domains"] == ["you.com"] and "exclude_domains" not in body
    assert any("exclude_domains was ignored" in w for w in envelope["meta"]["warnings"])


def test_empty_results(mock: respx.MockRouter) -> None:
    mock.post(SEARCH).respond(200, json={"results": {"web": []}, "metadata": BODY["metadata"]})

    envelope = dispatch_search("qwxzv", backend="you", include_news=True)

    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (401, {"message": f"Invalid API key: {KEY}"}, "auth_error"),
        (403, {"message": "Your plan does not include this endpoint"}, "auth_error"),
        (
            402,
            {"message": "Out of credits", "upgrade_url": "https://you.com/platform/upgrade"},
            "quota_exceeded",
        ),
        (
            422,
            {
                "detail": [
                    {
                        "loc": ["body", "count"],
                        "msg": "Input should be less than or equal to 100",
                        "type": "less_than_equal",
                    }
                ]
            },
            "invalid_input",
        ),
        (500, {"message": "Internal Server Error"}, "bad_gateway"),
    ],
)
def test_errors(mock: respx.MockRouter, status: int, body: dict[str, Any], code: str) -> None:
    mock.post(SEARCH).respond(status, json=body)

    envelope = dispatch_search("x", backend="you")

    assert_failure(envelope, code)
    assert_no_secret(envelope, KEY)


def test_validation_detail_reaches_the_message(mock: respx.MockRouter) -> None:
    body = {
        "detail": [{"loc": ["body", "count"], "msg": "Input should be less than or equal to 100"}]
    }
    mock.post(SEARCH).respond(422, json=body)

    assert "less than or equal to 100" in dispatch_search("x", backend="you")["error"]


def test_rate_limit(mock: respx.MockRouter) -> None:
    mock.post(SEARCH).respond(
        429, json={"message": "Too Many Requests"}, headers={"Retry-After": "1"}
    )

    envelope = dispatch_search("x", backend="you")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 1


def test_a_200_with_an_error_is_a_failure(mock: respx.MockRouter) -> None:
    mock.post(SEARCH).respond(200, json={"error": "search backend timeout"})

    envelope = dispatch_search("x", backend="you")

    assert_failure(envelope, "provider_error")
    assert "search backend timeout" in envelope["error"]


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, html="<html><body>Gateway page</body></html>"),
        httpx.Response(200, content=b'{"results": {"web": [{"url": "https://you.com", "ti'),
        httpx.Response(200, json={"hits": [{"url": "https://you.com"}], "latency": 1}),
    ],
)
def test_unexpected_bodies_are_parse_errors(
    mock: respx.MockRouter, response: httpx.Response
) -> None:
    mock.post(SEARCH).mock(return_value=response)

    assert_failure(dispatch_search("x", backend="you"), "parse_error")


@pytest.mark.parametrize("body", [{"results": {}}, {"results": {"status": "ok"}}])
def test_an_answer_that_is_not_a_you_search_is_a_parse_error(
    mock: respx.MockRouter, body: dict[str, Any]
) -> None:
    """Every search You.com answers carries its ``metadata``; ``{"results": {}}`` (another
    service at the base URL) read as "nothing found"."""
    mock.post(SEARCH).respond(200, json=body)

    envelope = dispatch_search("x", backend="you")

    assert_failure(envelope, "parse_error")
    assert "metadata" in envelope["error"]


def test_a_result_s_authors_are_one_author_line(mock: respx.MockRouter) -> None:
    web = [{**BODY["results"]["web"][0], "authors": ["John Doe", "Jane Roe"]}]
    mock.post(SEARCH).respond(200, json={**BODY, "results": {"web": web}})

    (hit,) = dispatch_search("x", backend="you")["data"]["web"]

    assert hit["author"] == "John Doe, Jane Roe"


def test_base_url_override(mock: respx.MockRouter, make_config: Any, dns: Any) -> None:
    dns.answer("you.com", "93.184.216.34")  # an endpoint on this machine: URLs are screened here
    config = make_config(web={"providers": {"you": {"base_url": "http://127.0.0.1:8501"}}})
    search = mock.post("http://127.0.0.1:8501/v1/search").respond(200, json=BODY)
    contents = mock.post("http://127.0.0.1:8501/v1/contents").respond(200, json=PAGES[:1])

    assert dispatch_search("x", backend="you", config=config)["success"] is True
    assert (
        dispatch_extract("https://you.com/about", backend="you", config=config)["success"] is True
    )
    assert search.called and contents.called


def test_extract_reads_contents_markdown(mock: respx.MockRouter, dispatch: Any) -> None:
    route = mock.post(CONTENTS).respond(200, json=PAGES)

    envelope = dispatch("extract", ["https://you.com/about", "https://example.com"], backend="you")

    assert envelope["success"] is True, envelope
    about, example = envelope["data"]
    assert about["title"] == "About You.com" and about["content"].startswith("# About")
    assert about["metadata"]["site_name"] == "You.com"
    assert example["url"] == "https://example.com" and example["title"] == "Example Domain"
    sent = sent_json(route)
    assert isinstance(sent.pop("crawl_timeout"), int)
    assert sent == {
        "urls": ["https://you.com/about", "https://example.com"],
        "formats": ["markdown", "metadata"],
    }
    assert "warnings" not in envelope["meta"]


def test_extract_names_the_options_you_does_not_read(mock: respx.MockRouter) -> None:
    mock.post(CONTENTS).respond(200, json=PAGES)
    envelope = dispatch_extract("https://example.com", backend="you", include_raw=True, max_chars=100, cache=False)
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == ["you ignored the option(s) include_raw: it does not know them."]


def test_a_url_missing_from_the_answer_is_a_per_url_error(mock: respx.MockRouter) -> None:
    mock.post(CONTENTS).respond(
        200, json=[PAGES[0], {"url": "https://empty.example.org/", "title": "", "markdown": ""}]
    )

    envelope = dispatch_extract(
        ["https://you.com/about", "https://empty.example.org/", "https://gone.example.net/"],
        backend="you",
    )

    assert envelope["success"] is True
    assert [p.get("error_code") for p in envelope["data"]] == [
        None,
        "provider_error",
        "provider_error",
    ]


def test_contents_are_requested_ten_urls_at_a_time(mock: respx.MockRouter) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        urls = json.loads(request.content)["urls"]
        return httpx.Response(
            200, json=[{"url": u, "title": u, "markdown": f"# {u}"} for u in urls]
        )

    route = mock.post(CONTENTS).mock(side_effect=answer)
    urls = [f"https://example.com/{i}" for i in range(13)]

    envelope = dispatch_extract(urls, backend="you")

    assert sorted(len(sent_json(route, i)["urls"]) for i in range(route.call_count)) == [3, 10]
    assert [p["url"] for p in envelope["data"]] == urls


def test_each_contents_request_takes_a_slot_of_the_request_budget(
    mock: respx.MockRouter, dispatch: Any, make_config: Any
) -> None:
    """Ten URLs a request: 13 URLs are two requests, each counted against a rate limit as
    You.com counts it. With one a minute the second batch is not sent, its URLs say why, and
    the pages read are kept. Before, the whole extract took one slot and sent two requests."""
    def answer(request: httpx.Request) -> httpx.Response:
        urls = json.loads(request.content)["urls"]
        return httpx.Response(200, json=[{"url": u, "title": u, "markdown": f"# {u}"} for u in urls])

    route = mock.post(CONTENTS).mock(side_effect=answer)
    config = make_config(web={"cache": False, "usage": False, "providers": {"you": {"rate_limit": "1/min"}}})
    urls = [f"https://example.com/{i}" for i in range(13)]

    envelope = dispatch("extract", urls, backend="you", config=config, timeout=5)

    assert envelope["success"] is True, envelope
    assert route.call_count == 1
    refused = [page for page in envelope["data"] if "error" in page]
    assert [page["error_code"] for page in refused] == ["rate_limited"] * 3 and envelope["meta"]["failed"] == 3
    assert "(1/min)" in refused[0]["error"]


def test_contents_auth_error_fails_the_call(mock: respx.MockRouter) -> None:
    mock.post(CONTENTS).respond(401, json={"message": "Unauthorized"})

    assert_failure(dispatch_extract("https://you.com/about", backend="you"), "auth_error")


def test_contents_server_error_on_every_url_fails_the_call(mock: respx.MockRouter) -> None:
    mock.post(CONTENTS).respond(500, json={"message": "Internal Server Error"})

    envelope = dispatch_extract(["https://you.com/about", "https://example.com"], backend="you")

    assert_failure(envelope, "bad_gateway")


def test_a_failed_batch_marks_only_its_own_urls(mock: respx.MockRouter) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        urls = json.loads(request.content)["urls"]
        if len(urls) == 10:
            return httpx.Response(503, json={"message": "Service Unavailable"})
        return httpx.Response(
            200, json=[{"url": u, "title": u, "markdown": f"# {u}"} for u in urls]
        )

    mock.post(CONTENTS).mock(side_effect=answer)
    urls = [f"https://example.com/{i}" for i in range(12)]

    envelope = dispatch_extract(urls, backend="you")

    assert envelope["success"] is True
    codes = [p.get("error_code") for p in envelope["data"]]
    assert codes == ["bad_gateway"] * 10 + [None, None]


def test_you_api_key_is_read_as_well_as_ydc_api_key(
    mock: respx.MockRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("YDC_API_KEY")
    monkeypatch.setenv("YOU_API_KEY", "you-key-from-the-other-name")
    route = mock.post(SEARCH).respond(200, json=BODY)

    envelope = dispatch_search("you.com api", 5, backend="you")

    assert envelope["success"] is True, envelope
    assert route.calls.last.request.headers["X-API-Key"] == "you-key-from-the-other-name"


def test_without_either_key_the_sentence_names_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YDC_API_KEY")
    monkeypatch.delenv("YOU_API_KEY", raising=False)

    envelope = dispatch_search("you.com api", 5, backend="you")

    assert envelope["error_code"] == "not_configured"
    assert "YDC_API_KEY" in envelope["error"] and "YOU_API_KEY" in envelope["error"]


def test_pages_of_a_request_answered_before_the_deadline_are_kept(mock: respx.MockRouter) -> None:
    """Contents reads ten URLs a request, the requests at once: one still unanswered at the
    call's deadline made the call a timeout, and the other request's pages were lost."""

    async def contents(request: httpx.Request) -> httpx.Response:
        asked = json.loads(request.content)["urls"]
        if any("slow" in url for url in asked):
            await asyncio.sleep(30)
        return httpx.Response(200, json=[{"url": url, "title": "T", "markdown": "# Page"} for url in asked])

    mock.post(CONTENTS).mock(side_effect=contents)
    urls = [f"https://example.com/{n}" for n in range(10)] + ["https://example.com/slow"]
    envelope = dispatch_extract(urls, backend="you", timeout=4)
    assert envelope["success"] is True, envelope
    assert [item.get("error_code") for item in envelope["data"]] == [None] * 10 + ["timeout"]


@pytest.mark.parametrize(("timeout", "most"), [(4, 3), (8, 7), (300, 60)])
def test_contents_waits_for_each_page_within_the_call(mock: respx.MockRouter, timeout: int, most: int) -> None:
    """You.com waits 10 s for each page unless told (``crawl_timeout``, 1-60 s, its Contents
    docs): on a shorter call one slow page kept the request, and its batch's other pages,
    past the deadline."""
    route = mock.post(CONTENTS).respond(200, json=PAGES[:1])

    envelope = dispatch_extract("https://you.com/about", backend="you", timeout=timeout)

    assert envelope["success"] is True, envelope
    sent = sent_json(route)["crawl_timeout"]
    assert isinstance(sent, int) and 1 <= sent <= most
