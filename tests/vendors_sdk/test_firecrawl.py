"""Firecrawl through ``AsyncFirecrawl`` against Firecrawl's real response and error shapes,
including crawl jobs that complete, fail, or outlive the call's deadline."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
import respx

import webproviders
from webproviders import (
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
    get_registry,
    list_providers,
)
from webproviders.kit import import_packages

from .bodies import (
    CRAWL_ID,
    FIRECRAWL_BAD_REQUEST,
    FIRECRAWL_CRAWL_STARTED,
    FIRECRAWL_EMPTY,
    FIRECRAWL_NO_CREDITS,
    FIRECRAWL_NOT_SUPPORTED,
    FIRECRAWL_RATE_LIMITED,
    FIRECRAWL_SCRAPE,
    FIRECRAWL_SCRAPE_404,
    FIRECRAWL_SEARCH,
    FIRECRAWL_SEARCH_SCRAPED,
    FIRECRAWL_SERVER_ERROR,
    FIRECRAWL_UNAUTHORIZED,
    firecrawl_document,
    firecrawl_error,
    firecrawl_status,
)
from .conftest import assert_no_secret, body_of, settings

KEY = "fc-8d1f0c2a9b7e4d3c-testkey"
API = "https://api.firecrawl.dev"
PAGES = [
    firecrawl_document("https://example.com/", "Home", "# Home"),
    firecrawl_document("https://example.com/about", "About", "# About"),
    firecrawl_document("https://example.com/blog", "Blog", "# Blog"),
]


@pytest.fixture
def config(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("FIRECRAWL_API_KEY", KEY)
    return make_config(**settings("firecrawl", poll_interval=0.01))


def test_search_returns_web_results(run: Any, config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/v2/search").respond(200, json=FIRECRAWL_SEARCH)
        envelope = run("search", config, "firecrawl", backend="firecrawl", limit=2)
    assert envelope["success"] is True and envelope["provider"] == "firecrawl"
    assert envelope["data"]["web"] == [
        {
            "title": "Firecrawl - The Web Data API for AI",
            "url": "https://www.firecrawl.dev/",
            "description": "The web crawling, scraping, and search API for AI.",
            "position": 1,
        },
        {
            "title": "firecrawl/firecrawl - GitHub",
            "url": "https://github.com/firecrawl/firecrawl",
            "description": "Turn entire websites into LLM-ready markdown.",
            "position": 2,
        },
    ]
    assert route.calls.last.request.headers["authorization"] == f"Bearer {KEY}"
    sent = body_of(route)
    assert (
        sent["query"] == "firecrawl" and sent["limit"] == 2 and sent["sources"] == [{"type": "web"}]
    )
    assert_no_secret(envelope, KEY)


def test_search_results_carrying_markdown_are_kept(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(200, json=FIRECRAWL_SEARCH_SCRAPED)
        envelope = dispatch_search("firecrawl", backend="firecrawl", config=config, limit=5)
    assert envelope["success"] is True
    assert [(h["url"], h["title"], h["description"]) for h in envelope["data"]["web"]] == [
        (
            "https://docs.firecrawl.dev/introduction",
            "Quickstart | Firecrawl",
            "Firecrawl crawls and converts any website into clean markdown.",
        ),
        (
            "https://github.com/firecrawl/firecrawl",
            "firecrawl/firecrawl - GitHub",
            "Turn entire websites into LLM-ready markdown.",
        ),
    ]


@pytest.mark.parametrize("answer", [{}, {"success": True}, {"success": True, "data": None}])
def test_a_search_answer_without_data_is_a_parse_error_a_chain_moves_on_from(
    config: Any, answer: dict[str, Any]
) -> None:
    """Every search answer of Firecrawl's holds ``data``: one without it (a gateway's ``{}``)
    read as "nothing found", an empty success a chain stopped at."""
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(200, json=answer)
        alone = dispatch_search("q", backend="firecrawl", config=config)
        chained = dispatch_search("q", backend=["firecrawl", "stub"], config=config)
    assert alone["success"] is False and alone["error_code"] == "parse_error"
    assert "without 'data'" in alone["error"]
    assert chained["success"] is True and chained["provider"] == "stub"


def test_search_falls_back_to_the_scraped_metadata(config: Any) -> None:
    bare = {
        "markdown": "# Pricing",
        "metadata": {
            "title": "Pricing - Firecrawl",
            "description": "Plans and credits.",
            "sourceURL": "https://www.firecrawl.dev/pricing",
            "statusCode": 200,
        },
    }
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(
            200, json={"success": True, "data": {"web": [bare]}}
        )
        envelope = dispatch_search("firecrawl pricing", backend="firecrawl", config=config)
    assert envelope["data"]["web"] == [
        {
            "title": "Pricing - Firecrawl",
            "url": "https://www.firecrawl.dev/pricing",
            "description": "Plans and credits.",
            "position": 1,
        }
    ]


def test_empty_result_is_an_empty_success(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(200, json=FIRECRAWL_EMPTY)
        envelope = dispatch_search("zzzz", backend="firecrawl", config=config)
    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("status", "kwargs", "code", "words"),
    [
        (401, {"json": FIRECRAWL_UNAUTHORIZED}, "auth_error", "Invalid token"),
        (402, {"json": FIRECRAWL_NO_CREDITS}, "quota_exceeded", "Insufficient credits"),
        (429, {"json": FIRECRAWL_RATE_LIMITED}, "rate_limited", "retry after 42s"),
        (500, {"json": FIRECRAWL_SERVER_ERROR}, "bad_gateway", "unexpected error"),
        (400, {"json": FIRECRAWL_BAD_REQUEST}, "invalid_input", "Bad Request"),
        (
            200,
            {"json": firecrawl_error("Search engine returned no usable response")},
            "provider_error",
            "no usable response",
        ),
        (
            200,
            {
                "text": "<html><h1>502 Bad Gateway</h1></html>",
                "headers": {"content-type": "text/html"},
            },
            "parse_error",
            "not valid JSON",
        ),
    ],
)
def test_errors_map_by_status_and_body(
    config: Any, status: int, kwargs: dict[str, Any], code: str, words: str
) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(status, **kwargs)
        envelope = dispatch_search("q", backend="firecrawl", config=config)
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    assert words in envelope["error"]
    if code == "rate_limited":
        assert envelope["retry_after"] == 42  # from the message: the server sends no Retry-After
    assert_no_secret(envelope, KEY)


def test_rate_limit_prefers_the_retry_after_header(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(
            429, json=FIRECRAWL_RATE_LIMITED, headers={"retry-after": "7"}
        )
        envelope = dispatch_search("q", backend="firecrawl", config=config)
    assert envelope["retry_after"] == 7


def test_key_echoed_by_the_vendor_is_scrubbed(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(
            401, json=firecrawl_error(f"Unauthorized: Invalid token {KEY}")
        )
        envelope = dispatch_search("q", backend="firecrawl", config=config)
    assert envelope["error_code"] == "auth_error"
    assert_no_secret(envelope, KEY)


def test_common_options_are_mapped_and_the_rest_warned(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/v2/search").respond(200, json=FIRECRAWL_SEARCH)
        envelope = dispatch_search(
            "gpu prices",
            backend="firecrawl",
            config=config,
            time_range="month",
            include_domains=["a.com", "b.org"],
            exclude_domains=["c.net"],
            country="DE",
            lang="de-AT",
            safe_search="off",
        )
    sent = body_of(route)
    assert sent["query"] == "gpu prices site:a.com OR site:b.org -site:c.net"
    assert sent["tbs"] == "qdr:m" and sent["country"] == "de" and sent["lang"] == "de"
    assert "firecrawl does not support safe_search; ignored." in envelope["meta"]["warnings"]


def test_self_hosted_url_needs_no_key(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIRECRAWL_API_URL", "http://127.0.0.1:3002")
    config = make_config(**settings("firecrawl"))
    row = next(r for r in list_providers(config) if r["name"] == "firecrawl")
    assert row["available"] is True and row["priority"] == 20
    with respx.mock() as router:
        route = router.post("http://127.0.0.1:3002/v2/search").respond(200, json=FIRECRAWL_SEARCH)
        envelope = dispatch_search("q", backend="firecrawl", config=config)
    assert envelope["success"] is True
    assert "authorization" not in route.calls.last.request.headers


def test_base_url_from_config_beats_the_environment(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIRECRAWL_API_URL", "http://127.0.0.1:3002")
    monkeypatch.setenv("FIRECRAWL_API_KEY", KEY)
    config = make_config(**settings("firecrawl", base_url="https://firecrawl.internal.example"))
    with respx.mock() as router:
        route = router.post("https://firecrawl.internal.example/v2/search").respond(
            200, json=FIRECRAWL_SEARCH
        )
        envelope = dispatch_search("q", backend="firecrawl", config=config)
    assert envelope["success"] is True
    assert route.calls.last.request.headers["authorization"] == f"Bearer {KEY}"


def test_extract_scrapes_markdown_per_url(config: Any) -> None:
    def scrape(request: httpx.Request) -> httpx.Response:
        target = json.loads(request.content)["url"]
        if target == "https://example.com":
            return httpx.Response(200, json=FIRECRAWL_SCRAPE)
        if target == "https://example.com/nope":
            return httpx.Response(200, json=FIRECRAWL_SCRAPE_404)
        return httpx.Response(403, json=FIRECRAWL_NOT_SUPPORTED)

    urls = ["https://example.com", "https://example.com/nope", "https://blocked.example"]
    with respx.mock() as router:
        route = router.post(f"{API}/v2/scrape").mock(side_effect=scrape)
        envelope = dispatch_extract(urls, backend="firecrawl", config=config)
    assert body_of(route)["formats"] == ["markdown"] and body_of(route)["onlyMainContent"] is True
    page, missing, blocked = envelope["data"]
    assert page["url"] == "https://example.com" and page["title"] == "Example Domain"
    assert page["content"].startswith("# Example Domain")
    assert (
        page["metadata"]["status_code"] == 200
        and page["metadata"]["final_url"] == "https://example.com"
    )
    assert missing["error_code"] == "not_found" and "404" in missing["error"]
    assert blocked["error_code"] == "unsupported" and "no longer supported" in blocked["error"]


def test_a_page_keeps_the_date_image_and_favicon_firecrawl_read_from_it(run: Any, config: Any) -> None:
    """Firecrawl's metadata carries the page's ``publishedTime``, ``ogImage`` and ``favicon``
    (read from its meta tags); a page lost all three, so its publication date never reached
    ``metadata.published_at`` as Exa's does."""
    article = firecrawl_document("https://news.example/story", "Story", "# Story")
    article["metadata"].update(
        {
            "publishedTime": "2026-09-01T10:00:00Z",
            "article:published_time": "2026-09-01T10:00:00Z",
            "ogImage": "https://news.example/og.png",
            "og:image": "https://news.example/og.png",
            "favicon": "https://news.example/favicon.ico",
        }
    )
    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").respond(200, json={"success": True, "data": article})
        router.post(f"{API}/v2/crawl").respond(200, json=FIRECRAWL_CRAWL_STARTED)
        router.get(f"{API}/v2/crawl/{CRAWL_ID}").respond(
            200, json=firecrawl_status("completed", [article])
        )
        extracted = run("extract", config, ["https://news.example/story"], backend="firecrawl")
        crawled = run("crawl", config, "https://news.example/", backend="firecrawl")
    for envelope in (extracted, crawled):
        assert envelope["success"], envelope.get("error")
        metadata = envelope["data"][0]["metadata"]
        assert metadata["published_at"] == "2026-09-01T10:00:00Z"
        assert metadata["image"] == "https://news.example/og.png"
        assert metadata["favicon"] == "https://news.example/favicon.ico"


def test_only_main_content_off_from_a_variable_is_off(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``only_main_content: ${MAIN_ONLY}`` always gives text, and ``"false"`` read as true kept
    the navigation and footers out of pages the operator wanted whole."""
    monkeypatch.setenv("FIRECRAWL_API_KEY", KEY)
    monkeypatch.setenv("MAIN_ONLY", "false")
    config = make_config(**settings("firecrawl", only_main_content="${MAIN_ONLY}"))
    with respx.mock() as router:
        route = router.post(f"{API}/v2/scrape").respond(200, json=FIRECRAWL_SCRAPE)
        envelope = dispatch_extract(["https://example.com"], backend="firecrawl", config=config)
    assert envelope["success"], envelope.get("error")
    assert body_of(route)["onlyMainContent"] is False


def test_a_bad_number_in_the_section_is_named_by_its_key(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``concurrency: many`` failed every extract as ``firecrawl failed: ValueError: invalid
    literal for int()``, a provider_error held against Firecrawl naming no setting."""
    monkeypatch.setenv("FIRECRAWL_API_KEY", KEY)
    config = make_config(**settings("firecrawl", concurrency="many"))
    with respx.mock(assert_all_called=False) as router:
        route = router.post(f"{API}/v2/scrape").respond(200, json=FIRECRAWL_SCRAPE)
        envelope = dispatch_extract(["https://example.com"], backend="firecrawl", config=config)
    assert (envelope["error_code"], envelope["error"]) == (
        "not_configured", "web.providers.firecrawl.concurrency must be a whole number above 0, not 'many'."
    )
    assert not route.called


@pytest.mark.parametrize("how", ["sync", "async"])
def test_each_scrape_takes_a_slot_of_the_request_budget(
    make_config: Any, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Firecrawl scrapes a URL per request and rate-limits scrapes: with two a minute, the third
    URL is not sent but says why, and the pages scraped are kept. Before, the whole extract
    took one slot of the budget and sent three scrapes."""
    monkeypatch.setenv("FIRECRAWL_API_KEY", KEY)
    config = make_config(**settings("firecrawl", rate_limit="2/min"))
    urls = ["https://example.com", "https://example.com/a", "https://example.com/b"]
    with respx.mock() as router:
        route = router.post(f"{API}/v2/scrape").respond(200, json=FIRECRAWL_SCRAPE)
        if how == "sync":
            envelope = dispatch_extract(urls, backend="firecrawl", config=config, timeout=5)
        else:
            envelope = asyncio.run(webproviders.adispatch_extract(urls, backend="firecrawl", config=config, timeout=5))
    assert envelope["success"] is True, envelope
    assert route.call_count == 2
    refused = [page for page in envelope["data"] if "error" in page]
    assert [page["error_code"] for page in refused] == ["rate_limited"] and envelope["meta"]["failed"] == 1
    assert "(2/min)" in refused[0]["error"] and refused[0]["retry_after"] > 50


def test_extract_stops_on_an_account_error(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").respond(402, json=FIRECRAWL_NO_CREDITS)
        envelope = dispatch_extract(
            ["https://example.com", "https://example.org"], backend="firecrawl", config=config
        )
    assert envelope["success"] is False and envelope["error_code"] == "quota_exceeded"


def test_a_url_firecrawl_refuses_is_that_url_s_item_not_the_call_s_failure(config: Any) -> None:
    """Firecrawl's schema refuses a host without a top-level domain with a 400 naming ``url``;
    that cost every other URL of the extract its page (the whole call was invalid_input)."""
    refused = firecrawl_error(
        "Bad Request",
        code="BAD_REQUEST",
        details=[
            {
                "code": "custom",
                "path": ["url"],
                "message": "URL must have a valid top-level domain or be a valid path",
            }
        ],
    )

    def scrape(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content)["url"] == "https://example.com":
            return httpx.Response(200, json=FIRECRAWL_SCRAPE)
        return httpx.Response(400, json=refused)

    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").mock(side_effect=scrape)
        envelope = dispatch_extract(
            ["https://example.com", "http://intranet/wiki"], backend="firecrawl", config=config
        )
    assert envelope["success"] is True, envelope
    page, bad = envelope["data"]
    assert page["title"] == "Example Domain" and "error" not in page
    assert bad["url"] == "http://intranet/wiki" and bad["error_code"] == "invalid_input"
    assert "top-level domain" in bad["error"]


@pytest.mark.parametrize("body", [{"success": True}, {"success": True, "data": {}}])
def test_a_scrape_answered_without_its_page_is_a_parse_error_item(config: Any, body: dict[str, Any]) -> None:
    """The SDK builds an empty document from an answer without ``data``: the URL read as a
    page with no text ("the page may be empty"), not as an answer out of shape."""
    def scrape(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content)["url"] == "https://example.com":
            return httpx.Response(200, json=FIRECRAWL_SCRAPE)
        return httpx.Response(200, json=body)

    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").mock(side_effect=scrape)
        envelope = dispatch_extract(
            ["https://example.com", "https://example.org"], backend="firecrawl", config=config
        )
    page, empty = envelope["data"]
    assert page["title"] == "Example Domain" and "error" not in page
    assert empty["url"] == "https://example.org" and empty["error_code"] == "parse_error"
    assert "without the page" in empty["error"]


@pytest.mark.parametrize("body", [{"data": FIRECRAWL_SCRAPE["data"]}, {"status": "ok"}])
def test_a_200_without_firecrawl_s_success_flag_is_a_parse_error(config: Any, body: dict[str, Any]) -> None:
    """The SDK raises its generic error on a 200 that lacks ``"success": true``; that was
    ``provider_error`` ("Unexpected error during scrape: Status code 200"), which names no
    fault and reads as Firecrawl failing the page. The answer is out of shape."""
    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").respond(200, json=body)
        envelope = dispatch_extract(["https://example.com"], backend="firecrawl", config=config)
    assert envelope["success"] is False, envelope
    assert envelope["error_code"] == "parse_error", envelope
    assert "without its 'success' flag" in envelope["error"]


def test_a_refused_option_still_fails_the_whole_extract(config: Any) -> None:
    """A 400 about the request's options (not its URL) would fail every URL alike."""
    with respx.mock() as router:
        route = router.post(f"{API}/v2/scrape").respond(400, json=FIRECRAWL_BAD_REQUEST)
        envelope = dispatch_extract(
            ["https://example.com", "https://example.org"], backend="firecrawl", config=config
        )
    assert envelope["success"] is False and envelope["error_code"] == "invalid_input", envelope
    assert route.call_count >= 1


def test_a_scrape_still_processing_is_a_timeout_at_once_not_a_wait_to_the_deadline(
    config: Any,
) -> None:
    """Firecrawl's 408 for a document that keeps processing: its SDK would sleep the
    Retry-After (at least 5 s) and ask again, holding the call to its deadline."""
    still = firecrawl_error(
        "Scrape timed out; the document is still processing.",
        code="SCRAPE_TIMEOUT",
        details={"state": "processing_continues", "retryAfterSeconds": 30},
    )
    started = time.monotonic()
    with respx.mock() as router:
        route = router.post(f"{API}/v2/scrape").respond(408, json=still, headers={"Retry-After": "30"})
        envelope = dispatch_extract(["https://example.com"], backend="firecrawl", config=config, timeout=8)
    assert time.monotonic() - started < 4, envelope
    assert route.call_count == 1
    assert envelope["error_code"] == "timeout" and "408" in envelope["error"], envelope


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"wait_for": -5}, "wait_for must be non-negative"),
        ({"proxy": "nonsense"}, "proxy: Input should be 'basic'"),
    ],
)
def test_an_extract_option_the_sdk_refuses_is_the_caller_s_mistake(
    config: Any, options: dict[str, Any], said: str
) -> None:
    """The SDK refuses it before sending (a ValueError): it was a provider_error quoting
    Python ('firecrawl failed: ValueError: ...'), or a parse_error blaming Firecrawl's answer."""
    with respx.mock(assert_all_called=False) as router:
        route = router.post(f"{API}/v2/scrape").respond(200, json=FIRECRAWL_SCRAPE)
        refused = dispatch_extract(["https://example.com"], backend="firecrawl", config=config, **options)
    assert route.call_count == 0
    assert refused["error_code"] == "invalid_input" and said in refused["error"], refused


def test_a_wait_for_firecrawl_would_refuse_names_what_to_change(config: Any) -> None:
    """Firecrawl refuses a ``waitFor`` above half the ``timeout`` it is sent, which the
    library derives from the call's deadline: the 400 said "waitFor must not exceed half of
    timeout", a timeout the caller never set."""
    with respx.mock(assert_all_called=False) as router:
        route = router.post(f"{API}/v2/scrape").respond(200, json=FIRECRAWL_SCRAPE)
        refused = dispatch_extract(
            ["https://example.com"], backend="firecrawl", config=config, timeout=30, wait_for=20000
        )
        served = dispatch_extract(
            ["https://example.com"], backend="firecrawl", config=config, timeout=30, wait_for=5000
        )
    assert refused["error_code"] == "invalid_input", refused
    assert refused["error"].startswith("firecrawl's option wait_for (20000 ms) may be at most ")
    assert refused["error"].endswith("Give a shorter wait_for, or the call a longer timeout.")
    assert served["success"] is True and route.call_count == 1
    assert body_of(route)["waitFor"] == 5000


def test_a_short_call_sends_a_timeout_firecrawl_accepts(config: Any) -> None:
    """Firecrawl refuses a scrape ``timeout`` under 1000 ms (its 400 names ``timeout``); the
    one sent is derived from the call's time, so an extract with about a second left failed
    whole as the caller's invalid_input, over an option the caller never set."""
    pytest.importorskip("firecrawl")  # loaded before the short call: its import is not timed here

    def scrape(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content)["timeout"] < 1000:
            too_small = {
                "code": "too_small",
                "minimum": 1000,
                "path": ["timeout"],
                "message": "Too small: expected number to be >=1000",
            }
            return httpx.Response(400, json=firecrawl_error("Bad Request", code="BAD_REQUEST", details=[too_small]))
        return httpx.Response(200, json=FIRECRAWL_SCRAPE)

    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").mock(side_effect=scrape)
        envelope = dispatch_extract(["https://example.com"], backend="firecrawl", config=config, timeout=1.1)
    assert envelope["success"], envelope.get("error")
    assert envelope["data"][0]["content"].startswith("# Example Domain")


def test_pages_scraped_before_the_deadline_are_kept(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four scrapes run at once; when the call's deadline came while some hung or waited
    their turn, the call was a timeout and the pages already scraped were lost."""
    monkeypatch.setenv("FIRECRAWL_API_KEY", KEY)
    config = make_config(**settings("firecrawl", concurrency=2))
    quick = {"https://example.com/a", "https://example.com/b"}

    async def scrape(request: httpx.Request) -> httpx.Response:
        target = json.loads(request.content)["url"]
        if target not in quick:
            await asyncio.sleep(30)
        return httpx.Response(200, json={"success": True, "data": firecrawl_document(target, "T", "# Page")})

    urls = ["https://example.com/a", "https://example.com/b", *(f"https://example.com/slow{n}" for n in range(4))]
    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").mock(side_effect=scrape)
        envelope = dispatch_extract(urls, backend="firecrawl", config=config, timeout=5)
    assert envelope["success"] is True, envelope
    items = envelope["data"]
    assert [item.get("error_code") for item in items] == [None, None, *["timeout"] * 4]
    assert items[2]["error"] == "Firecrawl had not scraped this page by the call's deadline."
    assert items[5]["error"].startswith("Firecrawl was not asked for this page: its turn (Firecrawl scrapes 2 at once")


def test_a_scrape_answer_of_the_wrong_shape_is_a_parse_error(config: Any) -> None:
    """``data`` as text made the SDK raise a ValueError that read as 'firecrawl failed:
    ValueError: dictionary update sequence element ...'."""
    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").respond(200, json={"success": True, "data": "x"})
        envelope = dispatch_extract(["https://example.com"], backend="firecrawl", config=config)
    assert envelope["error_code"] == "parse_error" and "documented shape" in envelope["error"], envelope


def _crawl_routes(router: respx.MockRouter, statuses: list[dict[str, Any]]) -> tuple[Any, Any, Any]:
    start = router.post(f"{API}/v2/crawl").respond(200, json=FIRECRAWL_CRAWL_STARTED)
    poll = router.get(f"{API}/v2/crawl/{CRAWL_ID}").mock(
        side_effect=[httpx.Response(200, json=body) for body in statuses]
    )
    cancel = router.delete(f"{API}/v2/crawl/{CRAWL_ID}").respond(
        200, json={"success": True, "status": "cancelled"}
    )
    return start, poll, cancel


def test_a_crawl_of_the_start_page_alone_asks_firecrawl_for_one_page(config: Any) -> None:
    """Firecrawl counts the pages of a site's sitemap as discovery depth 0, like the start
    page: ``max_depth=0`` alone crawled and billed up to 25 of them."""
    with respx.mock(assert_all_called=False) as router:
        start, _, _ = _crawl_routes(router, [firecrawl_status("completed", PAGES[:1])])
        envelope = dispatch_crawl("https://example.com", backend="firecrawl", config=config, max_depth=0)
    assert envelope["success"] is True, envelope
    sent = body_of(start)
    assert (sent["maxDiscoveryDepth"], sent["limit"]) == (0, 1)


def test_crawl_job_completes_after_several_polls(run: Any, config: Any) -> None:
    statuses = [
        firecrawl_status("scraping", []),
        firecrawl_status("scraping", PAGES[:1]),
        firecrawl_status("scraping", PAGES[:2]),
        firecrawl_status("completed", PAGES),
    ]
    with respx.mock(assert_all_called=False) as router:
        start, poll, cancel = _crawl_routes(router, statuses)
        envelope = run(
            "crawl",
            config,
            "https://example.com",
            backend="firecrawl",
            max_pages=3,
            max_depth=2,
            instructions="only the company pages",
            include_paths=["^/about"],
            exclude_paths=["^/blog/.*"],
        )
    assert envelope["success"] is True
    assert [p["url"] for p in envelope["data"]] == [
        "https://example.com/",
        "https://example.com/about",
        "https://example.com/blog",
    ]
    assert envelope["data"][1]["content"] == "# About"
    assert poll.call_count == 4 and not cancel.called
    sent = body_of(start)
    assert (
        sent["url"] == "https://example.com"
        and sent["limit"] == 3
        and sent["maxDiscoveryDepth"] == 2
    )
    assert sent["prompt"] == "only the company pages"
    assert sent["includePaths"] == ["^/about"] and sent["excludePaths"] == ["^/blog/.*"]
    assert sent["scrapeOptions"]["formats"] == ["markdown"]
    assert "warnings" not in envelope["meta"]


def test_a_status_that_pages_without_end_is_read_up_to_the_limit(config: Any) -> None:
    """A status whose ``next`` never ends: the SDK followed it until the deadline, holding
    every page it read (514 pages and 580 MB in 15 s against a loopback vendor), and the call
    failed with ``timeout``. Now no more documents, nor status pages, than the crawl's limit."""
    served = 0

    def endless(request: httpx.Request) -> httpx.Response:
        nonlocal served
        served += 1
        body = firecrawl_status("completed", PAGES[:2], total=1000)
        body["next"] = f"{API}/v2/crawl/{CRAWL_ID}?skip={served}"
        return httpx.Response(200, json=body)

    with respx.mock(assert_all_called=False) as router:
        _, poll, _ = _crawl_routes(router, [])
        poll.mock(side_effect=endless)
        envelope = dispatch_crawl(
            "https://example.com", backend="firecrawl", config=config, max_pages=5, timeout=10
        )
    assert envelope["success"] is True, envelope
    assert len(envelope["data"]) == 5
    assert served == 3  # 2 + 2 + 1 documents


def test_failed_crawl_job_without_pages_is_a_failure(config: Any) -> None:
    with respx.mock(assert_all_called=False) as router:
        _crawl_routes(router, [firecrawl_status("scraping", []), firecrawl_status("failed", [])])
        envelope = dispatch_crawl("https://example.com", backend="firecrawl", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "provider_error"
    assert CRAWL_ID in envelope["error"] and "failed" in envelope["error"]


def test_failed_crawl_job_keeps_its_pages_with_a_warning(config: Any) -> None:
    with respx.mock(assert_all_called=False) as router:
        _crawl_routes(router, [firecrawl_status("failed", PAGES[:2])])
        envelope = dispatch_crawl("https://example.com", backend="firecrawl", config=config)
    assert envelope["success"] is True and len(envelope["data"]) == 2
    assert any("failed after 2 page(s)" in w for w in envelope["meta"]["warnings"])


def test_crawl_job_that_outlives_the_deadline_is_cancelled(config: Any) -> None:
    scraping = [firecrawl_status("scraping", PAGES[:2], total=50)] * 1000
    with respx.mock(assert_all_called=False) as router:
        _, poll, cancel = _crawl_routes(router, scraping)
        # 4 s: the time kept back for the cancel is a quarter of it, which a busy machine needs.
        envelope = dispatch_crawl(
            "https://example.com", backend="firecrawl", config=config, timeout=4.0
        )
    assert envelope["success"] is True
    assert [p["title"] for p in envelope["data"]] == ["Home", "About"]
    assert cancel.called and poll.call_count > 1
    warning = next(w for w in envelope["meta"]["warnings"] if CRAWL_ID in w)
    assert "did not finish" in warning and "was cancelled" in warning and "2 of 50" in warning


def test_crawl_job_whose_poll_hangs_is_cancelled_before_the_deadline(config: Any) -> None:
    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        return httpx.Response(200, json=firecrawl_status("scraping", PAGES[:2]))

    with respx.mock(assert_all_called=False) as router:
        _, poll, cancel = _crawl_routes(router, [])
        poll.mock(side_effect=hang)
        started = time.monotonic()
        envelope = dispatch_crawl(
            "https://example.com", backend="firecrawl", config=config, timeout=2.0
        )
        elapsed = time.monotonic() - started
    assert envelope["success"] is False and envelope["error_code"] == "timeout"
    # The job was stopped within the call, not left to spend credits until the next one.
    assert cancel.called
    assert elapsed < 2.0 + 0.5, elapsed


def test_crawl_job_is_cancelled_when_the_call_is(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIRECRAWL_API_KEY", KEY)
    provider = get_registry(
        make_config(**settings("firecrawl", poll_interval=0.01))
    ).get("firecrawl").provider

    async def abandon() -> None:
        await import_packages(provider)  # the SDK is loaded: the call is cancelled mid-poll
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(provider.crawl("https://example.com"), 0.2)
        await asyncio.sleep(0.2)  # the background cancel request goes out

    with respx.mock(assert_all_called=False) as router:
        _, _, cancel = _crawl_routes(router, [firecrawl_status("scraping", [])] * 500)
        asyncio.run(abandon())
    assert cancel.called


@pytest.mark.parametrize(
    "options", [{"limit": 0}, {"max_pages": -3}, {"limit": True}, {"max_depth": -1}, {"max_depth": "2"}]
)
def test_crawl_counts_no_backend_takes_are_the_callers_mistake(config: Any, options: dict[str, Any]) -> None:
    # The SDK refuses ``limit=0`` itself (a ValueError): before the check it was a
    # provider_error, and a few such calls cooled Firecrawl down for every caller.
    with respx.mock(assert_all_called=False) as router:
        start, _, _ = _crawl_routes(router, [firecrawl_status("completed", PAGES)])
        for _ in range(6):
            refused = dispatch_crawl("https://example.com", backend="firecrawl", config=config, **options)
            assert refused["error_code"] == "invalid_input" and refused["meta"]["attempts"] == []
            assert next(iter(options)) in refused["error"]
        envelope = dispatch_crawl("https://example.com", backend="firecrawl", config=config)
    assert envelope["success"] is True and start.call_count == 1


@pytest.mark.parametrize(
    ("options", "sentence"),
    [
        ({"include_paths": "^/docs"}, "firecrawl's option include_paths must be a list, not str."),
        ({"instructions": 5}, "firecrawl's option instructions must be text, not int."),
        ({"allow_subdomains": "maybe"}, "firecrawl's option allow_subdomains must be true or false, not str."),
    ],
)
def test_a_crawl_option_of_the_wrong_kind_is_the_caller_s_mistake(
    config: Any, options: dict[str, Any], sentence: str
) -> None:
    """The SDK's request model refuses it before sending (a pydantic ValidationError): it was
    a parse_error blaming Firecrawl's answer, and five such calls cooled Firecrawl down."""
    with respx.mock(assert_all_called=False) as router:
        start, _, _ = _crawl_routes(router, [firecrawl_status("completed", PAGES)])
        for _ in range(6):
            refused = dispatch_crawl("https://example.com", backend="firecrawl", config=config, **options)
            assert refused["error_code"] == "invalid_input" and refused["error"] == sentence, refused
        envelope = dispatch_crawl("https://example.com", backend="firecrawl", config=config)
    assert envelope["success"] is True and start.call_count == 1


def test_a_proxy_variable_no_request_can_use_is_a_setup_error(
    config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK makes an httpx client as it starts, which reads the proxy environment and
    raised ``ValueError: Unknown scheme for proxy URL``: a provider_error naming nothing to
    change, counted against Firecrawl's health."""
    monkeypatch.setenv("HTTPS_PROXY", "socks4://127.0.0.1:1080")
    for _ in range(6):
        for envelope in (
            dispatch_extract(["https://example.com"], backend="firecrawl", config=config),
            dispatch_crawl("https://example.com", backend="firecrawl", config=config),
        ):
            assert envelope["error_code"] == "not_configured", envelope
            assert envelope["error"].startswith(
                "The Firecrawl SDK reads the proxy environment as it starts, and it cannot be used"
            ), envelope
            assert envelope["error"].endswith("Correct or unset HTTPS_PROXY / HTTP_PROXY / ALL_PROXY.")
    monkeypatch.delenv("HTTPS_PROXY")
    webproviders.close()  # the next clients read the environment again
    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").respond(200, json=FIRECRAWL_SCRAPE)
        envelope = dispatch_extract(["https://example.com"], backend="firecrawl", config=config)
    assert envelope["success"] is True, envelope  # not cooling down


def test_a_proxy_variable_the_sdk_refuses_shows_no_password(config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A space before the URL: the SDK's refusal quotes it percent-encoded,
    ``URL('%20http://office:…@…')``, and its password stood in the envelope unmasked."""
    monkeypatch.setenv("HTTPS_PROXY", " http://office:Pw0rdSecret@proxy.internal:3128")
    envelope = dispatch_extract(["https://example.com"], backend="firecrawl", config=config)
    assert envelope["error_code"] == "not_configured", envelope
    assert "Pw0rdSecret" not in json.dumps(envelope), envelope


def test_crawl_start_errors_are_mapped(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v2/crawl").respond(429, json=FIRECRAWL_RATE_LIMITED)
        envelope = dispatch_crawl("https://example.com", backend="firecrawl", config=config)
    assert envelope["error_code"] == "rate_limited" and envelope["retry_after"] == 42


@pytest.mark.parametrize(
    ("answer", "code", "words"),
    [
        ({}, "parse_error", "without its 'success' flag"),
        ({"status": "ok"}, "parse_error", "without its 'success' flag"),
        ({"success": False, "error": "Crawl limit reached."}, "provider_error", "Crawl limit reached."),
    ],
)
def test_a_crawl_start_answered_without_its_success_flag_is_a_parse_error(
    config: Any, answer: dict[str, Any], code: str, words: str
) -> None:
    """The SDK raises its ``FirecrawlError("Unknown error occurred")`` without the response
    for ``{}``: that read as Firecrawl reporting an error, where a scrape's ``{}`` is
    ``parse_error``; the answer it read says which."""
    with respx.mock() as router:
        router.post(f"{API}/v2/crawl").respond(200, json=answer)
        envelope = dispatch_crawl("https://example.com", backend="firecrawl", config=config)
    assert envelope["error_code"] == code, envelope
    assert words in envelope["error"]


def test_unavailable_without_a_key_or_url(make_config: Any) -> None:
    config = make_config(**settings("firecrawl"))
    row = next(r for r in list_providers(config) if r["name"] == "firecrawl")
    assert row["available"] is False
    assert "FIRECRAWL_API_KEY" in row["reason"] and "FIRECRAWL_API_URL" in row["reason"]


def test_missing_sdk_is_reported_by_its_extra(config: Any, hide_module: Any) -> None:
    hide_module("firecrawl")
    row = next(r for r in list_providers(config) if r["name"] == "firecrawl")
    assert row["available"] is False and "webproviders[firecrawl]" in row["reason"]
    envelope = dispatch_crawl("https://example.com", backend="firecrawl", config=config)
    assert (
        envelope["error_code"] == "not_configured"
        and "webproviders[firecrawl]" in envelope["error"]
    )


def test_search_is_charged_the_credits_firecrawl_states(config: Any) -> None:
    """Firecrawl bills a search by the results it returns (2 credits per 10) and says so in
    ``creditsUsed``; a flat 2 credits a request under-counted every limit above 10."""
    web = [
        {"url": f"https://site{n}.example/", "title": f"Site {n}", "description": "A result."}
        for n in range(30)
    ]
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(
            200, json={"success": True, "data": {"web": web}, "creditsUsed": 6}
        )
        envelope = dispatch_search("firecrawl", backend="firecrawl", config=config, limit=30)
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 30
    cost = envelope["meta"]["cost"]
    assert (cost["units"], cost["unit"]) == (6, "credit")
    assert cost["usd"] == pytest.approx(6 * 0.00533)


def test_a_refused_request_names_the_fields_firecrawl_lists(config: Any) -> None:
    """Firecrawl's 400 says "Invalid request body" and lists the fields in ``details``;
    before, the envelope said only "Invalid request body"."""
    body = {
        "success": False,
        "error": "Invalid request body",
        "details": [
            {"code": "invalid_string", "path": ["tbs"], "message": "Invalid tbs value"},
            {"code": "too_big", "maximum": 100, "path": ["limit"], "message": "Too big"},
        ],
    }
    with respx.mock() as router:
        router.post(f"{API}/v2/search").respond(400, json=body)
        envelope = dispatch_search("firecrawl", backend="firecrawl", config=config, tbs="x")
    assert envelope["error_code"] == "invalid_input"
    assert envelope["error"].endswith(
        "Invalid request body (tbs: Invalid tbs value; limit: Too big)."
    ), envelope["error"]


def test_scrapes_and_crawls_are_charged_the_credits_firecrawl_states(config: Any) -> None:
    """A page read with the stealth proxy costs 5 credits, a PDF one per page, and a crawl
    job says what it cost in all; before, each URL or page was charged one credit."""
    pdf = firecrawl_document("https://example.com/report.pdf", "Report", "# Report")
    pdf["metadata"]["creditsUsed"] = 12
    with respx.mock() as router:
        router.post(f"{API}/v2/scrape").respond(200, json={"success": True, "data": pdf})
        extracted = dispatch_extract("https://example.com/report.pdf", backend="firecrawl", config=config)
    with respx.mock() as router:
        router.post(f"{API}/v2/crawl").respond(200, json=FIRECRAWL_CRAWL_STARTED)
        router.get(f"{API}/v2/crawl/{CRAWL_ID}").respond(
            200, json={**firecrawl_status("completed", PAGES), "creditsUsed": 15}
        )
        crawled = dispatch_crawl("https://example.com", backend="firecrawl", config=config)
    for envelope, credits in ((extracted, 12), (crawled, 15)):
        assert envelope["success"] is True, envelope
        cost = envelope["meta"]["cost"]
        assert (cost["units"], cost["unit"]) == (credits, "credit")
        assert cost["usd"] == pytest.approx(credits * 0.00533)
