"""Tavily through ``AsyncTavilyClient`` against Tavily's real response and error shapes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import respx

from webproviders import (
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
    list_providers,
)
from webproviders.kit.http import get_client

from .bodies import (
    TAVILY_BAD_TOPIC,
    TAVILY_CRAWL,
    TAVILY_EMPTY,
    TAVILY_EXTRACT,
    TAVILY_FORBIDDEN,
    TAVILY_NEWS,
    TAVILY_PAYGO_LIMIT,
    TAVILY_PLAN_LIMIT,
    TAVILY_SEARCH,
    TAVILY_TOO_MANY,
    TAVILY_UNAUTHORIZED,
    tavily_error,
)
from .conftest import assert_no_secret, body_of, settings

KEY = "tvly-dev-Zx81TestKey0042abcd"
API = "https://api.tavily.com"


@pytest.fixture
def config(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    return make_config(**settings("tavily"))


def test_search_returns_hits_with_score(run: Any, config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=TAVILY_SEARCH)
        envelope = run("search", config, "who won the tour", backend="tavily", limit=2)
    assert envelope["success"] is True and envelope["provider"] == "tavily"
    assert envelope["data"]["web"] == [
        {
            "title": "Tour de France 2026",
            "url": "https://www.letour.fr/en/",
            "description": "Short query-relevant snippet about the winner.",
            "position": 1,
            "score": 0.91,
        },
        {
            "title": "2026 Tour de France - Wikipedia",
            "url": "https://en.wikipedia.org/wiki/2026_Tour_de_France",
            "description": "The 2026 Tour de France was the 113th edition.",
            "position": 2,
            "score": 0.84,
        },
    ]
    request = route.calls.last.request
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert body_of(route) == {"query": "who won the tour", "max_results": 2, "include_usage": True}
    assert_no_secret(envelope, KEY)


def test_news_hits_carry_published_at(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=TAVILY_NEWS)
        envelope = dispatch_search(
            "transformer shortage", backend="tavily", config=config, topic="news"
        )
    assert body_of(route)["topic"] == "news"
    assert envelope["data"]["web"][0]["published_at"] == "Sun, 30 Aug 2026 09:12:00 GMT"


def test_answer_goes_to_meta_not_to_the_hits(config: Any) -> None:
    answered = {**TAVILY_SEARCH, "answer": "Tadej Pogacar won the 2026 Tour de France."}
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=answered)
        envelope = dispatch_search("who won", backend="tavily", config=config, include_answer=True)
    assert body_of(route)["include_answer"] is True
    assert envelope["meta"]["answer"] == "Tadej Pogacar won the 2026 Tour de France."
    assert len(envelope["data"]["web"]) == 2


def test_empty_result_is_an_empty_success(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/search").respond(200, json=TAVILY_EMPTY)
        envelope = dispatch_search("zzzz", backend="tavily", config=config)
    assert envelope["success"] is True
    assert envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("status", "kwargs", "code", "words"),
    [
        (401, {"json": TAVILY_UNAUTHORIZED}, "auth_error", "missing or invalid API key"),
        (403, {"json": TAVILY_FORBIDDEN}, "auth_error", "not included in your plan"),
        (432, {"json": TAVILY_PLAN_LIMIT}, "quota_exceeded", "credit limit"),
        (433, {"json": TAVILY_PAYGO_LIMIT}, "quota_exceeded", "pay-as-you-go"),
        (
            429,
            {"json": TAVILY_TOO_MANY, "headers": {"retry-after": "12"}},
            "rate_limited",
            "excessive requests",
        ),
        (400, {"json": TAVILY_BAD_TOPIC}, "invalid_input", "Invalid topic"),
        (400, {"json": tavily_error("Invalid API key.")}, "auth_error", "Invalid API key"),
        (500, {"text": "Internal Server Error"}, "bad_gateway", "HTTP 500"),
        (
            502,
            {
                "text": "<html><body>502 Bad Gateway</body></html>",
                "headers": {"content-type": "text/html"},
            },
            "bad_gateway",
            "HTTP 502",
        ),
        (
            200,
            {"json": tavily_error("Query is too long. Max query length is 400 characters.")},
            "provider_error",
            "Query is too long",
        ),
        (
            200,
            {"text": "<html>captive portal</html>", "headers": {"content-type": "text/html"}},
            "parse_error",
            "not valid JSON",
        ),
        (
            200,
            {
                "content": b'{"query": "x", "results": [{"url": "https://a.example"',
                "headers": {"content-type": "application/json"},
            },
            "parse_error",
            "not valid JSON",
        ),
        (
            200,
            {"content": b"[" * 100_000 + b"]" * 100_000, "headers": {"content-type": "application/json"}},
            "parse_error",
            "application/json where JSON was expected (it is nested too deeply to read)",
        ),
    ],
)
def test_errors_map_by_status_and_body(
    config: Any, status: int, kwargs: dict[str, Any], code: str, words: str
) -> None:
    with respx.mock() as router:
        router.post(f"{API}/search").respond(status, **kwargs)
        envelope = dispatch_search("q", backend="tavily", config=config)
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    assert words in envelope["error"]
    if code == "rate_limited":
        assert envelope["retry_after"] == 12
    assert_no_secret(envelope, KEY)


def test_key_echoed_by_the_vendor_is_scrubbed(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/search").respond(401, json=tavily_error(f"Invalid API key: {KEY}"))
        envelope = dispatch_search("q", backend="tavily", config=config)
    assert envelope["error_code"] == "auth_error"
    assert_no_secret(envelope, KEY)


def test_common_options_are_mapped_and_the_rest_warned(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    config = make_config(**settings("tavily", search_depth="advanced"))
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=TAVILY_SEARCH)
        envelope = dispatch_search(
            "q",
            limit=40,
            backend="tavily",
            config=config,
            time_range="week",
            include_domains=["letour.fr"],
            exclude_domains=["reddit.com"],
            country="de",
            lang="de",
            safe_search="strict",
            chunks_per_source=2,
            colour="blue",
        )
    assert body_of(route) == {
        "query": "q",
        "max_results": 20,
        "search_depth": "advanced",
        "chunks_per_source": 2,
        "time_range": "week",
        "include_domains": ["letour.fr"],
        "exclude_domains": ["reddit.com"],
        "country": "germany",
        "include_usage": True,
    }
    warnings = envelope["meta"]["warnings"]
    assert "tavily does not support lang, safe_search; ignored." in warnings
    assert any("colour" in w for w in warnings)


def test_country_is_dropped_with_a_warning_outside_the_general_topic(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=TAVILY_NEWS)
        envelope = dispatch_search("q", backend="tavily", config=config, topic="news", country="us")
    assert "country" not in body_of(route)
    assert any("general topic" in w for w in envelope["meta"]["warnings"])


def test_unsupported_option_fails_when_configured_to(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    config = make_config(web={**settings("tavily")["web"], "on_unsupported": "error"})
    with respx.mock(assert_all_called=False) as router:
        route = router.post(f"{API}/search").respond(200, json=TAVILY_SEARCH)
        envelope = dispatch_search("q", backend="tavily", config=config, safe_search="strict")
    assert envelope["error_code"] == "unsupported"
    assert not route.called


def test_base_url_override(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    config = make_config(**settings("tavily", base_url="https://tavily-gw.example.net/api/"))
    with respx.mock() as router:
        route = router.post("https://tavily-gw.example.net/api/search").respond(
            200, json=TAVILY_SEARCH
        )
        envelope = dispatch_search("q", backend="tavily", config=config)
    assert route.called and envelope["success"] is True


def test_the_shared_client_never_gets_the_key(config: Any) -> None:
    """The SDK writes its key into the client it is given: that must never be the pooled one."""

    async def search_then_look() -> httpx.Headers:
        await adispatch_search("q", backend="tavily", config=config)
        return get_client(config).headers

    with respx.mock() as router:
        router.post(f"{API}/search").respond(200, json=TAVILY_SEARCH)
        headers = asyncio.run(search_then_look())
    assert "authorization" not in headers


def test_a_refused_key_rests_and_the_next_is_used(make_config: Any) -> None:
    second = "tvly-dev-SecondKey9999zz"
    config = make_config(**settings("tavily", api_key=[KEY, second]))
    with respx.mock() as router:
        route = router.post(f"{API}/search").mock(
            side_effect=[
                httpx.Response(401, json=TAVILY_UNAUTHORIZED),
                httpx.Response(200, json=TAVILY_SEARCH),
            ]
        )
        envelope = dispatch_search("q", backend="tavily", config=config)
    assert envelope["success"] is True
    assert [call.request.headers["authorization"] for call in route.calls] == [
        f"Bearer {KEY}",
        f"Bearer {second}",
    ]


def test_extract_keeps_one_item_per_url_in_order(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    config = make_config(**settings("tavily", extract_depth="advanced"))
    urls = ["https://example.com/missing", "https://example.com/a", "https://example.com/never"]
    with respx.mock() as router:
        route = router.post(f"{API}/extract").respond(200, json=TAVILY_EXTRACT)
        envelope = dispatch_extract(urls, backend="tavily", config=config)
    sent = body_of(route)
    assert (
        sent["urls"] == urls
        and sent["format"] == "markdown"
        and sent["extract_depth"] == "advanced"
    )
    missing, page, never = envelope["data"]
    assert page["url"] == "https://example.com/a"
    assert page["content"] == "# Title A\n\nBody of page A."
    assert page["metadata"] == {"favicon": "https://example.com/favicon.ico"}
    assert "error" not in page
    assert missing["error_code"] == "provider_error" and "Failed to fetch url" in missing["error"]
    assert never["url"] == "https://example.com/never" and never["error"]


def test_a_slow_page_leaves_tavily_time_to_answer_with_the_others(config: Any) -> None:
    """Tavily waits its ``timeout`` (1-60 s, Extract reference) for a page, then answers with
    the pages read and the slow one in ``failed_results``. Told the whole time the request had,
    it answered as the request ended: the call was a timeout and the pages read were lost."""

    async def tavily(request: httpx.Request) -> httpx.Response:
        asked = json.loads(request.content)
        await asyncio.sleep(asked["timeout"])  # the slow page, waited for as long as told
        return httpx.Response(200, json=TAVILY_EXTRACT)

    urls = ["https://example.com/a", "https://example.com/missing"]
    with respx.mock() as router:
        router.post(f"{API}/extract").mock(side_effect=tavily)
        envelope = dispatch_extract(urls, backend="tavily", config=config, timeout=5)
    assert envelope["success"] is True, envelope
    page, missing = envelope["data"]
    assert page["content"] == "# Title A\n\nBody of page A." and missing["error_code"] == "provider_error"


def test_a_url_asked_for_twice_is_sent_and_charged_once(config: Any) -> None:
    """Tavily charges per URL sent: a repeat in the caller's list is answered from the first."""
    urls = ["https://example.com/a", "https://example.com/missing", "https://example.com/a"]
    with respx.mock() as router:
        route = router.post(f"{API}/extract").respond(200, json=TAVILY_EXTRACT)
        envelope = dispatch_extract(urls, backend="tavily", config=config)
    assert body_of(route)["urls"] == urls[:2]
    assert [p["url"] for p in envelope["data"]] == urls
    assert envelope["data"][2] == envelope["data"][0] and envelope["data"][0]["content"].startswith("# Title A")
    assert envelope["meta"]["failed"] == 1 and len(route.calls) == 1


@pytest.mark.parametrize("capability", ["extract", "crawl"])
def test_format_text_is_asked_of_tavily(config: Any, capability: str) -> None:
    """Tavily returns plain text with ``format: text`` (Extract and Crawl references): the
    call's format="text" was named as unknown, and markdown came back."""
    route_path, body = {"extract": ("/extract", TAVILY_EXTRACT), "crawl": ("/crawl", TAVILY_CRAWL)}[capability]
    call = {"extract": dispatch_extract, "crawl": dispatch_crawl}[capability]
    with respx.mock() as router:
        route = router.post(f"{API}{route_path}").respond(200, json=body)
        envelope = call("https://example.com/a", backend="tavily", config=config, format="text")
    assert envelope["success"] is True, envelope
    assert body_of(route)["format"] == "text"
    assert "warnings" not in envelope["meta"]


def test_a_format_tavily_has_not_is_refused_before_sending(config: Any) -> None:
    with respx.mock(assert_all_called=False) as router:
        route = router.post(f"{API}/extract").respond(200, json=TAVILY_EXTRACT)
        envelope = dispatch_extract("https://example.com/a", backend="tavily", config=config, format="html")
    assert envelope["error_code"] == "invalid_input" and not route.called
    assert envelope["error"] == "format must be 'markdown' or 'text', not 'html'."


def test_max_chars_cuts_its_pages_and_is_not_called_unknown(config: Any) -> None:
    """The dispatcher applies max_chars to every provider's pages: the SDK vendor neither
    ignores it nor says it does not know it; a typo beside it is still named."""
    with respx.mock() as router:
        route = router.post(f"{API}/extract").respond(200, json=TAVILY_EXTRACT)
        envelope = dispatch_extract(["https://example.com/a"], backend="tavily", config=config, max_chars=10,
                                    max_charz=5)
    assert "max_chars" not in body_of(route)
    [page] = envelope["data"]
    assert page["content"] == "# Title A" and page["metadata"]["truncated"] is True
    assert envelope["meta"]["warnings"] == ["tavily ignored the option(s) max_charz: it does not know them."]


def test_pages_keep_the_favicon_tavily_gives_when_asked(run: Any, config: Any) -> None:
    """Tavily puts ``favicon`` on extract and crawl results only for ``include_favicon: true``
    (its reference); unasked, the favicon the pages' metadata is read for never came."""

    def answer(body: httpx.Request) -> httpx.Response:
        request = json.loads(body.content)
        results = [
            {"url": url, "raw_content": f"# {url}", "favicon": "https://example.com/favicon.ico"}
            for url in (request.get("urls") or [request["url"]])
        ]
        if not request.get("include_favicon"):
            for result in results:
                del result["favicon"]
        return httpx.Response(200, json={"results": results, "usage": {"credits": 1}, "request_id": "r1"})

    with respx.mock() as router:
        router.post(f"{API}/extract").mock(side_effect=answer)
        router.post(f"{API}/crawl").mock(side_effect=answer)
        extracted = run("extract", config, ["https://example.com/a"], backend="tavily")
        crawled = run("crawl", config, "https://example.com/", backend="tavily")
    for envelope in (extracted, crawled):
        assert envelope["success"], envelope.get("error")
        assert envelope["data"][0]["metadata"] == {"favicon": "https://example.com/favicon.ico"}


def test_crawl_maps_depth_limit_instructions_and_paths(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/crawl").respond(200, json=TAVILY_CRAWL)
        envelope = dispatch_crawl(
            "https://docs.tavily.com",
            backend="tavily",
            config=config,
            max_depth=2,
            max_pages=10,
            instructions="Only the SDK reference",
            include_paths=["/sdk/.*"],
            exclude_paths=["/blog/.*"],
        )
    sent = body_of(route)
    assert {
        k: sent[k]
        for k in (
            "url",
            "max_depth",
            "limit",
            "instructions",
            "select_paths",
            "exclude_paths",
            "format",
        )
    } == {
        "url": "https://docs.tavily.com",
        "max_depth": 2,
        "limit": 10,
        "instructions": "Only the SDK reference",
        "select_paths": ["/sdk/.*"],
        "exclude_paths": ["/blog/.*"],
        "format": "markdown",
    }
    assert 10 <= sent["timeout"] <= 150
    assert [p["url"] for p in envelope["data"]] == [
        "https://docs.tavily.com/welcome",
        "https://docs.tavily.com/sdk",
    ]
    assert envelope["data"][1]["content"] == "# SDK\n\nPython and JS."


@pytest.mark.parametrize(("section", "sent"), [({}, 25), ({"max_pages": 10}, 10)])
def test_a_crawl_without_max_pages_asks_for_the_pages_its_budget_reserves(
    make_config: Any, monkeypatch: pytest.MonkeyPatch, section: dict[str, Any], sent: int
) -> None:
    """No ``limit`` was sent, so Tavily crawled its own 50 pages while a budget reserved 25 (or
    the provider's ``max_pages``, which the crawl itself never read)."""
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    config = make_config(**settings("tavily", **section))
    with respx.mock() as router:
        route = router.post(f"{API}/crawl").respond(200, json=TAVILY_CRAWL)
        envelope = dispatch_crawl("https://docs.tavily.com", backend="tavily", config=config)
    assert envelope["success"] is True, envelope
    assert body_of(route)["limit"] == sent


@pytest.mark.parametrize(
    ("capability", "options", "sentence"),
    [
        ("crawl", {"include_paths": "^/docs"}, "tavily's option include_paths must be a list, not str."),
        ("crawl", {"max_breadth": "20"}, "tavily's option max_breadth must be a whole number, not str."),
        ("crawl", {"allow_external": "no"}, "tavily's option allow_external must be true or false, not str."),
        ("extract", {"chunks_per_source": "3"}, "tavily's option chunks_per_source must be a whole number, not str."),
        ("search", {"exact_match": "yes"}, "tavily's option exact_match must be true or false, not str."),
        # bytes in the request's JSON failed the SDK, read as a malformed answer and counted
        ("search", {"include_answer": b"basic"}, "tavily's option include_answer must be true or false, or text, not bytes."),
        (
            "crawl",
            {"include_paths": [b"/docs"]},
            "tavily's option include_paths must be a list of text, numbers, true or false, and lists and "
            "mappings of them, not a list holding bytes.",
        ),
    ],
)
def test_an_option_of_the_wrong_kind_is_refused_before_sending(
    config: Any, capability: str, options: dict[str, Any], sentence: str
) -> None:
    """They were sent as given, so Tavily refused (or read) what the caller got wrong, and
    a crawl's ``include_paths="^/docs"`` was not refused before sending as documented."""
    call = {
        "crawl": lambda: dispatch_crawl("https://docs.tavily.com", backend="tavily", config=config, **options),
        "extract": lambda: dispatch_extract(["https://example.com"], backend="tavily", config=config, **options),
        "search": lambda: dispatch_search("q", backend="tavily", config=config, **options),
    }[capability]
    with respx.mock(assert_all_called=False) as router:
        route = router.post(f"{API}/{capability}").respond(400, json={"detail": {"error": "Bad request"}})
        for _ in range(6):
            refused = call()
            assert refused["error_code"] == "invalid_input" and refused["error"] == sentence, refused
    assert route.call_count == 0


def test_a_crawl_of_the_start_page_alone_asks_tavily_for_one_page(config: Any) -> None:
    """``max_depth=0`` (taken by every crawler here) went to Tavily as 0, which it refuses:
    its depth starts at 1, the start page and its links."""
    with respx.mock() as router:
        route = router.post(f"{API}/crawl").respond(200, json=TAVILY_CRAWL)
        envelope = dispatch_crawl("https://docs.tavily.com", backend="tavily", config=config, max_depth=0)
    assert envelope["success"] is True, envelope
    assert (body_of(route)["max_depth"], body_of(route)["limit"]) == (1, 1)


def test_crawl_errors_are_read_from_the_response(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/crawl").respond(432, json=TAVILY_PLAN_LIMIT)
        envelope = dispatch_crawl("https://docs.tavily.com", backend="tavily", config=config)
    assert envelope["error_code"] == "quota_exceeded"


def test_unavailable_without_a_key(make_config: Any) -> None:
    config = make_config(**settings("tavily"))
    row = next(r for r in list_providers(config) if r["name"] == "tavily")
    assert row["available"] is False and "TAVILY_API_KEY" in row["reason"]
    envelope = dispatch_search("q", backend="tavily", config=config)
    assert envelope["error_code"] == "not_configured" and "TAVILY_API_KEY" in envelope["error"]


def test_missing_sdk_is_reported_by_its_extra(config: Any, hide_module: Any) -> None:
    hide_module("tavily")
    row = next(r for r in list_providers(config) if r["name"] == "tavily")
    assert row["available"] is False and "webproviders[tavily]" in row["reason"]
    envelope = dispatch_search("q", backend="tavily", config=config)
    assert (
        envelope["error_code"] == "not_configured" and "webproviders[tavily]" in envelope["error"]
    )


def _alone_and_chained(config: Any, capability: str, answer: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The call answered by Tavily with ``answer``, alone and in a chain ``[tavily, stub]``."""
    dispatch = {"search": dispatch_search, "extract": dispatch_extract, "crawl": dispatch_crawl}
    given = {"search": "q", "extract": ["https://example.com/a"], "crawl": "https://example.com/"}
    with respx.mock() as router:
        router.post(f"{API}/{capability}").respond(200, json=answer)
        alone = dispatch[capability](given[capability], backend="tavily", config=config)
        chained = dispatch[capability](given[capability], backend=["tavily", "stub"], config=config)
    return alone, chained


@pytest.mark.parametrize(
    ("capability", "answer"),
    [
        ("search", {"query": "q", "results": "none", "response_time": 0.1}),
        ("extract", {"results": {"url": "https://example.com/a"}, "failed_results": []}),
        ("extract", {"results": [], "failed_results": "https://example.com/a"}),
        ("crawl", {"base_url": "example.com", "results": 3}),
    ],
)
def test_an_answer_out_of_shape_is_a_parse_error_a_chain_moves_on_from(
    config: Any, capability: str, answer: dict[str, Any]
) -> None:
    """A list that is not one is Tavily's answer out of shape: never an empty success, and a
    chain asks its next provider."""
    alone, chained = _alone_and_chained(config, capability, answer)
    assert alone["error_code"] == "parse_error"
    assert "Tavily sent '" in alone["error"] and "that is not a list" in alone["error"]
    assert chained["success"] is True and chained["provider"] == "stub"
    assert chained["meta"]["attempts"][0]["error_code"] == "parse_error"


@pytest.mark.parametrize(
    ("capability", "answer"),
    [
        ("search", {}),
        ("search", {"query": "q", "results": None, "response_time": 0.1}),
        ("search", {"query": "q", "data": {"results": []}}),
        ("extract", {"failed_results": [], "response_time": 0.1}),
        ("crawl", {"base_url": "example.com", "response_time": 0.1}),
    ],
)
def test_an_answer_without_its_results_list_is_a_parse_error(
    config: Any, capability: str, answer: dict[str, Any]
) -> None:
    """Tavily's SDK puts ``[]`` where a search's or an extract's ``results`` is missing: a
    ``{}`` from Tavily (or from whatever stood in for it) read as "nothing found"."""
    alone, chained = _alone_and_chained(config, capability, answer)
    assert alone["error_code"] == "parse_error"
    assert alone["error"] == (
        f"Tavily answered its {capability} without a 'results' list; its answer is not in the shape it documents."
    )
    assert chained["success"] is True and chained["provider"] == "stub"


def test_a_crawl_is_held_to_max_pages_when_the_vendor_returns_more(run: Any, config: Any) -> None:
    """As a search is held to its limit: the caller (a model's context) asked for one page."""
    with respx.mock() as router:
        router.post(f"{API}/crawl").respond(200, json=TAVILY_CRAWL)  # two pages
        envelope = run("crawl", config, "https://docs.tavily.com/", backend="tavily", max_pages=1)
    assert [page["url"] for page in envelope["data"]] == ["https://docs.tavily.com/welcome"]
    assert envelope["meta"]["warnings"] == [
        "tavily returned 2 pages for a crawl of at most 1; the first 1 are kept."
    ]


def test_a_limit_above_tavilys_twenty_asks_for_twenty_and_says_so(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=TAVILY_SEARCH)
        envelope = dispatch_search("rust async", 30, backend="tavily", config=config)
    assert envelope["success"] is True, envelope
    assert body_of(route)["max_results"] == 20
    assert (
        "tavily returns at most 20 results per request; 30 were asked for."
        in envelope["meta"]["warnings"]
    )


@pytest.mark.parametrize(
    ("capability", "path", "args", "units"),
    [
        ("search", "/search", ("q",), 2),
        ("extract", "/extract", (["https://example.com/a"],), 1),
        ("crawl", "/crawl", ("https://docs.tavily.com",), 3),
    ],
)
def test_each_request_is_charged_the_credits_tavily_states(
    make_config: Any,
    monkeypatch: pytest.MonkeyPatch,
    capability: str,
    path: str,
    args: tuple[Any, ...],
    units: int,
) -> None:
    """Tavily states a request's credits only when asked (``include_usage``); an advanced search
    costs two, yet it was charged as one basic search."""
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    config = make_config(**settings("tavily", search_depth="advanced"))
    body = {"search": TAVILY_SEARCH, "extract": TAVILY_EXTRACT, "crawl": TAVILY_CRAWL}[capability]
    dispatch = {"search": dispatch_search, "extract": dispatch_extract, "crawl": dispatch_crawl}[capability]
    with respx.mock() as router:
        route = router.post(f"{API}{path}").respond(200, json={**body, "usage": {"credits": units}})
        envelope = dispatch(*args, backend="tavily", config=config)
    assert envelope["success"] is True, envelope
    assert body_of(route)["include_usage"] is True
    cost = envelope["meta"]["cost"]
    assert (cost["units"], cost["unit"]) == (units, "credit")
    assert cost["usd"] == pytest.approx(units * 0.008)
