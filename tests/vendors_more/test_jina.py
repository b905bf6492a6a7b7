"""jina: search through s.jina.ai (key needed), extract through the reader (keyless works)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_extract, dispatch_search, list_providers

from .helpers import assert_failure, assert_no_secret, sent_json

KEY = "jina_test_0123456789abcdef"
SEARCH = "https://s.jina.ai/"
READER = "https://r.jina.ai/"

SEARCH_BODY = {
    "code": 200,
    "status": 20000,
    "data": [
        {
            "title": "Jina AI - Your Search Foundation",
            "url": "https://jina.ai/",
            "description": "Best-in-class embeddings, rerankers and readers.",
            "date": "Oct 1, 2026",
            "usage": {"tokens": 1032},
        },
        {
            "title": "Reader API",
            "url": "https://jina.ai/reader",
            "description": "Convert a URL to LLM-friendly input.",
            "usage": {"tokens": 877},
        },
    ],
    "meta": {"usage": {"tokens": 10000}},
}
WITH_CONTENT = {
    "code": 200,
    "status": 20000,
    "data": [
        {
            "title": "Reader API",
            "url": "https://jina.ai/reader",
            "description": "Convert a URL to LLM-friendly input.",
            "content": "# Reader\n\nFull page markdown.",
            "publishedTime": "2026-01-15T10:00:00Z",
            "usage": {"tokens": 877},
        }
    ],
    "meta": {"usage": {"tokens": 877}},
}
PAGE_BODY = {
    "code": 200,
    "status": 20000,
    "data": {
        "title": "Example Domain",
        "description": "",
        "url": "https://example.com/",
        "content": "This domain is for use in illustrative examples in documents.",
        "publishedTime": "2026-01-15T10:00:00Z",
        "metadata": {"lang": "en", "viewport": "width=device-width, initial-scale=1"},
        "usage": {"tokens": 42},
    },
    "meta": {"usage": {"tokens": 42}},
}


def jina_error(http: int, name: str, status: int, message: str) -> dict[str, Any]:
    return {
        "data": None,
        "code": http,
        "name": name,
        "status": status,
        "message": message,
        "readableMessage": f"{name}: {message}",
    }


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JINA_API_KEY", KEY)


def test_search_maps_hits_and_asks_for_the_serp_only(
    keyed: None, mock: respx.MockRouter, dispatch: Any
) -> None:
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)

    envelope = dispatch("search", "jina reader", 5, backend="jina")

    assert envelope["success"] is True, envelope
    hits = envelope["data"]["web"]
    assert [(h["title"], h["url"], h["position"]) for h in hits] == [
        ("Jina AI - Your Search Foundation", "https://jina.ai/", 1),
        ("Reader API", "https://jina.ai/reader", 2),
    ]
    assert hits[0]["description"] == "Best-in-class embeddings, rerankers and readers."
    assert hits[0]["published_at"] == "2026-10-01"
    assert "usage" not in hits[0] and "raw_content" not in hits[0]
    request = route.calls.last.request
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["Accept"] == "application/json"
    assert request.headers["X-Respond-With"] == "no-content"
    assert sent_json(route) == {"q": "jina reader", "num": 5}


@pytest.mark.parametrize("said", ["3 days ago", "vor 2 Stunden"])
def test_a_relative_date_is_not_a_publication_date(keyed: None, mock: respx.MockRouter, said: str) -> None:
    """Jina passes Google's date text on; "3 days ago" went out as ``published_at``, a date
    that is wrong from the next day on (in the local index, for good)."""
    body = {**SEARCH_BODY, "data": [{**SEARCH_BODY["data"][0], "date": said}, SEARCH_BODY["data"][1]]}
    mock.post(SEARCH).respond(200, json=body)

    envelope = dispatch_search("jina reader", backend="jina")

    hit = envelope["data"]["web"][0]
    assert "published_at" not in hit, hit
    assert hit["date"] == said


@pytest.mark.parametrize(("said", "published"), [("3 Sep 2026", "2026-09-03"), ("2026-09-03T08:00:00.000Z", "2026-09-03T08:00:00.000Z")])
def test_an_absolute_date_is_the_publication_date(
    keyed: None, mock: respx.MockRouter, said: str, published: str
) -> None:
    body = {**SEARCH_BODY, "data": [{**SEARCH_BODY["data"][0], "date": said}]}
    mock.post(SEARCH).respond(200, json=body)

    hit = dispatch_search("jina reader", backend="jina")["data"]["web"][0]

    assert hit["published_at"] == published
    assert "date" not in hit


@pytest.mark.parametrize(
    ("said", "published"),
    [("Thu, 15 Jan 2026 10:00:00 GMT", "2026-01-15T10:00:00+00:00"), ("2 hours ago", None)],
)
def test_a_page_s_published_time_is_a_date_or_left_out(
    mock: respx.MockRouter, said: str, published: str | None
) -> None:
    """A page's own meta tag may hold an HTTP date, made ISO; text that is no date stays out."""
    mock.post(READER).respond(200, json={**PAGE_BODY, "data": {**PAGE_BODY["data"], "publishedTime": said}})

    [page] = dispatch_extract(["https://example.com"], backend="jina")["data"]

    assert page["metadata"].get("published_at") == published


def test_search_content_that_is_a_captcha_wall_is_not_the_hit_s_raw_content(
    keyed: None, mock: respx.MockRouter
) -> None:
    """Jina reads each result page as its reader does, with the same ``warning``: a wall's
    text ("Just a moment...") came back as the hit's ``raw_content``."""
    wall = {
        "title": "Just a moment...",
        "url": "https://example.com/walled",
        "description": "An article behind a bot check.",
        "content": "## Performing security verification\n\nThis website uses a security service.",
        "warning": "This page maybe requiring CAPTCHA, please make sure you are authorized to "
        "access this page.",
        "usage": {"tokens": 40},
    }
    mock.post(SEARCH).respond(200, json={**WITH_CONTENT, "data": [*WITH_CONTENT["data"], wall]})

    envelope = dispatch_search("reader", backend="jina", include_content=True)

    assert envelope["success"] is True, envelope
    read, walled = envelope["data"]["web"]
    assert read["raw_content"] == "# Reader\n\nFull page markdown."
    assert walled["url"] == "https://example.com/walled" and not walled.get("raw_content")
    assert "security verification" not in json.dumps(envelope)
    assert envelope["meta"]["warnings"] == [
        "jina's reader met a CAPTCHA wall or an error status on 1 of the result pages; they come "
        "without raw_content."
    ]


def test_search_with_include_content_keeps_page_markdown(
    keyed: None, mock: respx.MockRouter
) -> None:
    route = mock.post(SEARCH).respond(200, json=WITH_CONTENT)

    envelope = dispatch_search("reader", backend="jina", include_content=True)

    assert "X-Respond-With" not in route.calls.last.request.headers
    hit = envelope["data"]["web"][0]
    assert hit["raw_content"] == "# Reader\n\nFull page markdown."
    assert hit["published_at"] == "2026-01-15T10:00:00Z"


def test_search_options_map_to_site_gl_hl_and_query_exclusions(
    keyed: None, mock: respx.MockRouter
) -> None:
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)

    envelope = dispatch_search(
        "embeddings",
        3,
        backend="jina",
        include_domains=["jina.ai", "github.com"],
        exclude_domains=["reddit.com"],
        country="DE",
        lang="de",
        time_range="week",
        safe_search="strict",
    )

    assert sent_json(route) == {
        "q": "embeddings -site:reddit.com",
        "num": 3,
        "site": ["jina.ai", "github.com"],
        "gl": "de",
        "hl": "de",
    }
    assert envelope["meta"]["warnings"] == [
        "jina does not support safe_search, time_range; ignored."
    ]


def test_unsupported_option_fails_when_configured_to(
    keyed: None, mock: respx.MockRouter, make_config: Any
) -> None:
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)
    config = make_config(web={"on_unsupported": "error"})

    envelope = dispatch_search("x", backend="jina", config=config, time_range="day")

    assert_failure(envelope, "unsupported")
    assert not route.called


def _jina_pages(total: int) -> Any:
    """Jina's search holding ``total`` hits: ``num`` a page (at most 20), ``page`` from 1
    (its reader's searcher), and a page past the last one its "No search results" 422."""

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        num, number = body["num"], body.get("page", 1)
        first = (number - 1) * num
        hits = [
            {**SEARCH_BODY["data"][1], "url": f"https://site{n}.example/", "title": f"Result {n}"}
            for n in range(first, min(total, first + num))
        ]
        if not hits:
            no_results = f"No search results available for query {body['q']}"
            return httpx.Response(422, json=jina_error(422, "AssertionFailureError", 42206, no_results))
        return httpx.Response(200, json={**SEARCH_BODY, "data": hits})

    return answer


def test_more_than_twenty_results_reads_the_next_pages(keyed: None, mock: respx.MockRouter) -> None:
    """Jina serves 20 hits a request: a limit of 30 got 20 and a warning, although its
    search takes ``page``."""
    route = mock.post(SEARCH).mock(side_effect=_jina_pages(100))

    envelope = dispatch_search("x", 30, backend="jina")

    assert envelope["success"] is True, envelope
    assert [h["url"] for h in envelope["data"]["web"]] == [f"https://site{n}.example/" for n in range(30)]
    assert [(sent_json(route, i)["num"], sent_json(route, i).get("page")) for i in range(2)] == [(20, None), (20, 2)]
    assert "warnings" not in envelope["meta"]


def test_paging_stops_at_the_last_page(keyed: None, mock: respx.MockRouter) -> None:
    route = mock.post(SEARCH).mock(side_effect=_jina_pages(40))

    envelope = dispatch_search("x", 50, backend="jina")

    # The third page is Jina's "No search results": the end, not a failure.
    assert len(envelope["data"]["web"]) == 40 and route.call_count == 3
    assert "warnings" not in envelope["meta"]


def test_no_search_results_is_an_empty_success(keyed: None, mock: respx.MockRouter) -> None:
    body = jina_error(
        422, "AssertionFailureError", 42206, "No search results available for query qwxzv"
    )
    mock.post(SEARCH).respond(422, json=body)

    envelope = dispatch_search("qwxzv", backend="jina")

    assert envelope["success"] is True, envelope
    assert envelope["data"]["web"] == []


def test_search_without_a_key_names_the_variable_and_sends_nothing(mock: respx.MockRouter) -> None:
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)

    envelope = dispatch_search("x", backend="jina")

    assert_failure(envelope, "not_configured")
    assert "JINA_API_KEY" in envelope["error"]
    assert not route.called


def test_available_without_a_key_but_ranked_last_until_one_is_set(
    monkeypatch: pytest.MonkeyPatch, make_config: Any
) -> None:
    rows = {r["name"]: r for r in list_providers(make_config())}
    row = rows["jina"]
    assert row["available"] is True and row["priority"] == 95
    assert row["priority"] > rows["http"]["priority"]  # http extracts unless jina is named
    assert row["capabilities"] == ["search", "extract"]

    monkeypatch.setenv("JINA_API_KEY", KEY)
    row = next(r for r in list_providers(make_config()) if r["name"] == "jina")
    assert row["priority"] == 20


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            401,
            jina_error(401, "AuthenticationRequiredError", 40103, f"Invalid API key {KEY}"),
            "auth_error",
        ),
        (
            402,
            jina_error(
                402,
                "InsufficientBalanceError",
                40203,
                "Account balance not enough to run this query, please recharge.",
            ),
            "quota_exceeded",
        ),
        (
            400,
            jina_error(400, "ParamValidationError", 40001, "num must be between 0 and 20"),
            "invalid_input",
        ),
        (
            503,
            jina_error(503, "ServiceNodeResourceDrainError", 50303, "Service busy"),
            "bad_gateway",
        ),
    ],
)
def test_search_errors_follow_the_jina_error_class(
    keyed: None, mock: respx.MockRouter, status: int, body: dict[str, Any], code: str
) -> None:
    mock.post(SEARCH).respond(status, json=body)

    envelope = dispatch_search("x", backend="jina")

    assert_failure(envelope, code)
    assert_no_secret(envelope, KEY)


def test_rate_limit_carries_retry_after(keyed: None, mock: respx.MockRouter) -> None:
    body = jina_error(429, "RateLimitTriggeredError", 42903, "Per UID rate limit exceeded")
    mock.post(SEARCH).respond(429, json=body, headers={"Retry-After": "12"})

    envelope = dispatch_search("x", backend="jina")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 12
    assert envelope["retryable"] is True


def test_a_200_carrying_an_error_is_a_failure(keyed: None, mock: respx.MockRouter) -> None:
    body = jina_error(402, "InsufficientBalanceError", 40203, "Account balance not enough")
    mock.post(SEARCH).respond(200, json=body)

    envelope = dispatch_search("x", backend="jina")

    assert_failure(envelope, "quota_exceeded")


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, html="<html><body>Just a moment...</body></html>"),
        httpx.Response(200, content=b'{"code": 200, "status": 20000, "data": [{"title": "Jina'),
        httpx.Response(200, json={"code": 200, "status": 20000, "data": {"unexpected": True}}),
    ],
)
def test_bodies_that_are_not_the_documented_json_are_parse_errors(
    keyed: None, mock: respx.MockRouter, response: httpx.Response
) -> None:
    mock.post(SEARCH).mock(return_value=response)

    envelope = dispatch_search("x", backend="jina")

    assert_failure(envelope, "parse_error")


def test_a_reader_answer_without_its_page_says_so_in_json_s_words(mock: respx.MockRouter) -> None:
    mock.post(READER).respond(200, json={"code": 200, "status": 20000})

    envelope = dispatch_extract(["https://example.com/a"], backend="jina")

    assert_failure(envelope, "parse_error")
    assert "without the expected 'data' object" in envelope["error"], envelope["error"]


def test_base_url_and_reader_url_overrides(
    keyed: None, mock: respx.MockRouter, make_config: Any, dns: Any
) -> None:
    dns.answer("example.com", "93.184.216.34")  # a reader on this machine: URLs are screened here
    config = make_config(
        web={
            "providers": {
                "jina": {
                    "base_url": "http://127.0.0.1:8101/s/",
                    "reader_url": "http://127.0.0.1:8102/r",
                }
            }
        }
    )
    search = mock.post("http://127.0.0.1:8101/s/").respond(200, json=SEARCH_BODY)
    reader = mock.post("http://127.0.0.1:8102/r/").respond(200, json=PAGE_BODY)

    assert dispatch_search("x", backend="jina", config=config)["success"] is True
    assert dispatch_extract("https://example.com", backend="jina", config=config)["success"] is True
    assert search.called and reader.called


def test_a_base_url_alone_takes_the_reader_s_requests_too(
    keyed: None, mock: respx.MockRouter, make_config: Any, dns: Any
) -> None:
    """A gateway set as ``base_url`` (on some machines the only way out) gets both kinds of
    request, told apart by their bodies; nothing goes to r.jina.ai behind its back."""
    dns.answer("example.com", "93.184.216.34")  # an endpoint on this machine: URLs are screened here

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=PAGE_BODY if "url" in json.loads(request.content) else SEARCH_BODY)

    gateway = mock.post("http://127.0.0.1:8101/").mock(side_effect=answer)
    reader = mock.post(READER).respond(200, json=PAGE_BODY)
    config = make_config(web={"providers": {"jina": {"base_url": "http://127.0.0.1:8101"}}})

    assert dispatch_search("x", backend="jina", config=config)["success"] is True
    envelope = dispatch_extract("https://example.com", backend="jina", config=config)

    assert envelope["success"] is True, envelope
    assert envelope["data"][0]["content"].startswith("This domain")
    assert gateway.call_count == 2 and not reader.called
    assert json.loads(gateway.calls.last.request.content) == {"url": "https://example.com"}


def test_extract_works_without_a_key(mock: respx.MockRouter, dispatch: Any) -> None:
    route = mock.post(READER).respond(200, json=PAGE_BODY)

    envelope = dispatch("extract", ["https://example.com"], backend="jina")

    assert envelope["success"] is True, envelope
    [page] = envelope["data"]
    assert page["url"] == "https://example.com"
    assert page["title"] == "Example Domain"
    assert page["content"] == "This domain is for use in illustrative examples in documents."
    assert page["metadata"]["lang"] == "en"
    assert page["metadata"]["published_at"] == "2026-01-15T10:00:00Z"
    assert page["metadata"]["final_url"] == "https://example.com/"
    request = route.calls.last.request
    assert "Authorization" not in request.headers
    assert request.headers["X-Return-Format"] == "markdown"
    assert json.loads(request.content) == {"url": "https://example.com"}


def test_each_reader_request_takes_a_slot_of_the_request_budget(
    mock: respx.MockRouter, dispatch: Any, make_config: Any
) -> None:
    """The reader is asked once per URL, and each request counts against a rate limit as the
    vendor counts it: with two a minute, the third URL is not asked for but says why, and
    the pages read are kept. Before, the whole extract took one slot and sent three requests."""
    config = make_config(web={"cache": False, "usage": False, "providers": {"jina": {"rate_limit": "2/min"}}})
    route = mock.post(READER).respond(200, json=PAGE_BODY)
    urls = ["https://example.com/a", "https://example.com/b", "https://example.com/c"]

    envelope = dispatch("extract", urls, backend="jina", config=config, timeout=5)

    assert envelope["success"] is True, envelope
    assert route.call_count == 2
    read = [page for page in envelope["data"] if "error" not in page]
    [refused] = [page for page in envelope["data"] if "error" in page]
    assert len(read) == 2 and envelope["meta"]["failed"] == 1
    assert refused["error_code"] == "rate_limited" and refused["retry_after"] > 50
    assert "(2/min)" in refused["error"]


def test_max_chars_holds_a_vendor_s_whole_page_to_it(mock: respx.MockRouter) -> None:
    """Before, max_chars was read only by the local readers: a vendor's page came back whole
    (an agent bounding its context with max_chars=200 got 6,000 characters)."""
    long_text = "\n\n".join(f"Paragraph {i} of the example page, with words enough to fill a line." for i in range(90))
    body = {**PAGE_BODY, "data": {**PAGE_BODY["data"], "content": long_text}}
    mock.post(READER).respond(200, json=body)
    [page] = dispatch_extract("https://example.com", backend="jina", max_chars=200, cache=False)["data"]
    assert len(page["content"]) <= 200 and long_text.startswith(page["content"])
    assert page["metadata"]["truncated"] is True and page["metadata"]["content_chars"] == len(long_text)
    [whole] = dispatch_extract("https://example.com", backend="jina", cache=False)["data"]
    assert whole["content"] == long_text and "truncated" not in whole["metadata"]


def test_options_the_reader_does_not_read_are_named(mock: respx.MockRouter) -> None:
    """The reader returns its markdown whatever is asked: plain text or a page's raw text asked
    of it came back as markdown without a word."""
    mock.post(READER).respond(200, json=PAGE_BODY)
    envelope = dispatch_extract(
        "https://example.com", backend="jina", format="text", include_raw=True, max_chars=500, cache=False
    )
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == ["jina ignored the option(s) format, include_raw: it does not know them."]


@pytest.mark.parametrize("value", [0, -5, "200", 2.5, True])
def test_a_max_chars_that_is_no_count_is_invalid_input_and_asks_no_vendor(mock: respx.MockRouter, value: Any) -> None:
    route = mock.post(READER).respond(200, json=PAGE_BODY)
    envelope = dispatch_extract("https://example.com", backend="jina", max_chars=value, cache=False)
    assert envelope["error_code"] == "invalid_input" and "max_chars must be a whole number above 0" in envelope["error"]
    assert not route.called


def test_extract_sends_the_key_when_there_is_one(keyed: None, mock: respx.MockRouter) -> None:
    route = mock.post(READER).respond(200, json=PAGE_BODY)

    dispatch_extract("https://example.com", backend="jina")

    assert route.calls.last.request.headers["Authorization"] == f"Bearer {KEY}"


def test_a_page_jina_cannot_load_is_an_item_not_a_failed_call(mock: respx.MockRouter) -> None:
    answers = {
        "https://example.com": httpx.Response(200, json=PAGE_BODY),
        "https://broken.example.org/": httpx.Response(
            422,
            json=jina_error(
                422, "AssertionFailureError", 42206, "Failed to goto https://broken.example.org/"
            ),
        ),
        "https://blocked.example.net/": httpx.Response(
            451,
            json=jina_error(451, "SecurityCompromiseError", 45102, "Domain blocked until later"),
        ),
    }
    mock.post(READER).mock(side_effect=lambda request: answers[json.loads(request.content)["url"]])

    envelope = dispatch_extract(list(answers), backend="jina")

    assert envelope["success"] is True, envelope
    ok, broken, blocked = envelope["data"]
    assert "error" not in ok and ok["content"]
    assert (
        broken["url"] == "https://broken.example.org/" and broken["error_code"] == "provider_error"
    )
    assert "Failed to goto" in broken["error"]
    assert blocked["error_code"] == "blocked"


def test_a_file_too_large_for_the_reader_is_a_too_large_item(mock: respx.MockRouter) -> None:
    """The reader's 413 ``TargetFileTooLargeError`` was "Jina rejected the request", the
    caller's invalid_input: a chain never asked the next provider for that page."""
    big = jina_error(413, "TargetFileTooLargeError", 41302, "Target file is too large: 120MB > 100MB")
    answers = {
        "https://example.com": httpx.Response(200, json=PAGE_BODY),
        "https://example.com/big.pdf": httpx.Response(413, json=big),
    }
    mock.post(READER).mock(side_effect=lambda request: answers[json.loads(request.content)["url"]])

    envelope = dispatch_extract(list(answers), backend="jina")
    alone = dispatch_extract(["https://example.com/big.pdf"], backend="jina")

    assert envelope["success"] is True, envelope
    assert envelope["data"][1]["error_code"] == "too_large"
    assert "120MB > 100MB" in envelope["data"][1]["error"]
    assert_failure(alone, "too_large")


@pytest.mark.parametrize(
    ("http", "name", "status", "said"),
    [
        # a URL Jina failed on repeatedly: read as a refused key, the whole extract failed as auth_error
        (403, "OperationNotAllowedError", 40301, "Consecutive error detected on URL https://example.com/flaky for too many times, please try again later"),
        # a file Jina could not read: read as the caller's bad request (invalid_input)
        (400, "DataStreamBrokenError", 40003, "Failed to access https://example.com/flaky: stream closed"),
    ],
)
def test_a_page_jina_refuses_or_cannot_read_is_that_url_s_error(
    mock: respx.MockRouter, http: int, name: str, status: int, said: str
) -> None:
    answers = {
        "https://example.com": httpx.Response(200, json=PAGE_BODY),
        "https://example.com/flaky": httpx.Response(http, json=jina_error(http, name, status, said)),
    }
    mock.post(READER).mock(side_effect=lambda request: answers[json.loads(request.content)["url"]])

    envelope = dispatch_extract(list(answers), backend="jina")

    assert envelope["success"] is True, envelope
    ok, flaky = envelope["data"]
    assert "error" not in ok and ok["content"]
    assert flaky["error_code"] == "provider_error"
    assert said in flaky["error"]


def test_a_keyless_reader_refusal_fails_the_whole_call(mock: respx.MockRouter) -> None:
    body = jina_error(
        401,
        "AuthenticationRequiredError",
        40103,
        "Bad network reputation, please provide an API key",
    )
    mock.post(READER).respond(401, json=body)

    envelope = dispatch_extract(["https://example.com", "https://example.org"], backend="jina")

    assert_failure(envelope, "auth_error")
    assert "JINA_API_KEY" in envelope["error"]


def test_reader_rate_limit_fails_the_call_with_retry_after(mock: respx.MockRouter) -> None:
    body = jina_error(429, "RateLimitTriggeredError", 42903, "Per IP rate limit exceeded")
    mock.post(READER).respond(429, json={**body, "retryAfter": 30})

    envelope = dispatch_extract("https://example.com", backend="jina")

    assert_failure(envelope, "rate_limited")
    assert envelope["retry_after"] == 30


def test_reader_down_for_every_url_fails_the_call(mock: respx.MockRouter) -> None:
    mock.post(READER).respond(502, html="<html><head><title>502 Bad Gateway</title></head></html>")

    envelope = dispatch_extract(["https://example.com", "https://example.org"], backend="jina")

    assert_failure(envelope, "bad_gateway")


def _target_answered(status: str) -> dict[str, Any]:
    """The reader's answer (HTTP 200) for a page that itself answered ``status``: the error
    page's text as content and the status in ``data.warning``."""
    data = {**PAGE_BODY["data"], "title": "Error", "content": "# Error\n\nSorry.", "warning": status}
    return {**PAGE_BODY, "data": data}


def test_a_page_that_answered_an_error_status_is_that_url_s_error(mock: respx.MockRouter) -> None:
    """Before, the error page's text came back as the page's content, a success."""
    answers = {
        "https://example.com": PAGE_BODY,
        "https://example.com/gone": _target_answered("Target URL returned error 404: Not Found"),
        "https://example.com/private": _target_answered(
            "Target URL returned error 403: Forbidden\nThis page maybe requiring CAPTCHA, "
            "please make sure you are authorized to access this page."
        ),
        "https://example.com/broken": _target_answered(
            "Target URL returned error 500: Internal Server Error"
        ),
    }
    mock.post(READER).mock(
        side_effect=lambda request: httpx.Response(200, json=answers[json.loads(request.content)["url"]])
    )

    envelope = dispatch_extract(list(answers), backend="jina", cache=False)

    assert envelope["success"] is True, envelope
    ok, gone, private, broken = envelope["data"]
    assert "error" not in ok and ok["content"]
    assert (gone["error_code"], private["error_code"], broken["error_code"]) == (
        "not_found",
        "blocked",
        "provider_error",
    )
    assert private["detail"] == "captcha_required"
    assert "HTTP 404 to Jina's reader" in gone["error"] and not gone["content"]


def test_a_page_that_is_a_captcha_wall_is_blocked_not_its_content(mock: respx.MockRouter) -> None:
    """The site answered 200 with a bot check: Jina says so only in ``data.warning``, and the
    wall's text ("Performing security verification") came back as the page's content."""
    data = {
        **PAGE_BODY["data"],
        "title": "Just a moment...",
        "content": "## Performing security verification\n\nThis website uses a security service to "
        "protect against malicious bots. This page is displayed while the website verifies you "
        "are not a bot.",
        "warning": "This page maybe requiring CAPTCHA, please make sure you are authorized to "
        "access this page.",
    }
    answers = {"https://example.com": PAGE_BODY, "https://example.org": {**PAGE_BODY, "data": data}}
    mock.post(READER).mock(
        side_effect=lambda request: httpx.Response(200, json=answers[json.loads(request.content)["url"]])
    )

    envelope = dispatch_extract(list(answers), backend="jina", cache=False)

    assert envelope["success"] is True, envelope
    ok, wall = envelope["data"]
    assert "error" not in ok and ok["content"]
    assert (wall["error_code"], wall["detail"]) == ("blocked", "captcha_required"), wall
    assert "security verification" not in json.dumps(wall)


@pytest.mark.parametrize(
    ("name", "status", "said"),
    [
        ("DownstreamServiceFailureError", 42205, "Search(web) failed"),
        ("AssertionFailureError", 42206, "No provider can do web search atm."),
    ],
)
def test_a_search_outage_answered_with_a_422_is_not_an_empty_answer(
    keyed: None, mock: respx.MockRouter, name: str, status: int, said: str
) -> None:
    """Jina's search answers an outage of its search backends with HTTP 422, as it answers "No
    search results": every such 422 was read as an empty success, and no chain moved on."""
    mock.post(SEARCH).respond(422, json=jina_error(422, name, status, said))

    envelope = dispatch_search("x", backend="jina")

    assert_failure(envelope, "bad_gateway")
    assert envelope["retryable"] is True
    assert said in envelope["error"]


def test_a_vendor_error_names_its_class_once(keyed: None, mock: respx.MockRouter) -> None:
    body = jina_error(524, "DownstreamServiceFailureError", 52400, "Search(web) failed")
    mock.post(SEARCH).respond(524, json=body)

    envelope = dispatch_search("x", backend="jina")

    assert_failure(envelope, "bad_gateway")
    assert envelope["error"].count("DownstreamServiceFailureError") == 1, envelope["error"]


@pytest.mark.parametrize(("lang", "hl"), [("en-US", "en"), ("he", "iw"), ("zh", "zh-cn"), ("pt-BR", "pt-br")])
def test_lang_is_sent_as_one_of_googles_interface_languages(
    keyed: None, mock: respx.MockRouter, lang: str, hl: str
) -> None:
    """Jina's search takes only the codes of Google's ``hl`` list: ``en-us`` or ``he`` was
    refused as a ParamValidationError, the caller's invalid_input."""
    route = mock.post(SEARCH).respond(200, json=SEARCH_BODY)

    envelope = dispatch_search("x", backend="jina", lang=lang)

    assert envelope["success"] is True, envelope
    assert sent_json(route)["hl"] == hl


#: Codes Jina's search refuses as ``hl`` (not in Google's interface-language list; Jina
#: compares exactly, so Montenegrin is ``sr-ME`` only).
_NOT_HL = {"my", "lb", "yue", "sr-me"}
#: ISO countries missing from Jina's ``gl`` list.
_NOT_GL = {"ss", "cw", "sx", "bq"}


def _jina_hl_check(request: httpx.Request) -> httpx.Response:
    """Jina's search as it answers an ``hl`` or a ``gl`` outside its lists."""
    sent = json.loads(request.content)
    if sent.get("hl") in _NOT_HL or sent.get("gl") in _NOT_GL:
        return httpx.Response(
            400,
            json={
                "data": None,
                "code": 400,
                "name": "ParamValidationError",
                "status": 40001,
                "message": "Invalid value for hl",
                "readableMessage": "ParamValidationError(hl): Invalid value for hl",
            },
        )
    return httpx.Response(200, json=SEARCH_BODY)


@pytest.mark.parametrize("lang", ["my", "lb", "yue"])
def test_a_language_jina_does_not_list_is_warned_not_sent(
    keyed: None, mock: respx.MockRouter, lang: str
) -> None:
    """Jina refused the code with a 400, and the search failed as the caller's invalid_input
    (a chain stopped there) though every other option could be served."""
    route = mock.post(SEARCH).mock(side_effect=_jina_hl_check)

    envelope = dispatch_search("x", backend="jina", lang=lang)

    assert envelope["success"] is True, envelope
    assert "hl" not in sent_json(route)
    assert envelope["meta"]["warnings"] == [f"jina does not search in the language '{lang}'; lang ignored."]


@pytest.mark.parametrize("country", ["ss", "CW"])
def test_a_country_jina_does_not_list_is_warned_not_sent(
    keyed: None, mock: respx.MockRouter, country: str
) -> None:
    route = mock.post(SEARCH).mock(side_effect=_jina_hl_check)

    envelope = dispatch_search("x", backend="jina", country=country)

    assert envelope["success"] is True, envelope
    assert "gl" not in sent_json(route)
    assert envelope["meta"]["warnings"] == [f"jina does not offer results for the country '{country}'; country ignored."]


def test_montenegrin_is_sent_as_jina_spells_it(keyed: None, mock: respx.MockRouter) -> None:
    route = mock.post(SEARCH).mock(side_effect=_jina_hl_check)

    envelope = dispatch_search("x", backend="jina", lang="sr-ME")

    assert envelope["success"] is True, envelope
    assert sent_json(route)["hl"] == "sr-ME"


def test_pages_read_before_the_deadline_are_kept(mock: respx.MockRouter) -> None:
    """Five pages are read at once; when the call's deadline came while some were still
    being read, the call was a timeout and the pages already read were lost."""

    async def reader(request: httpx.Request) -> httpx.Response:
        url = json.loads(request.content)["url"]
        if "slow" in url:
            await asyncio.sleep(30)
        return httpx.Response(200, json={"code": 200, "status": 20000, "data": {"title": "T", "url": url, "content": "# Page"}})

    mock.post(READER).mock(side_effect=reader)
    urls = ["https://example.com/a", "https://example.com/b", "https://example.com/slow1", "https://example.com/slow2"]
    envelope = dispatch_extract(urls, backend="jina", timeout=4)
    assert envelope["success"] is True, envelope
    assert [item.get("error_code") for item in envelope["data"]] == [None, None, "timeout", "timeout"]
    assert envelope["data"][2]["error"] == "jina had not read this page by the call's deadline."
