"""Parallel through ``AsyncParallel`` against Parallel's real response and error shapes."""

from __future__ import annotations

import json
import logging
import traceback
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_extract, dispatch_search, list_providers

from .bodies import (
    PARALLEL_BAD_REQUEST,
    PARALLEL_EMPTY,
    PARALLEL_EXTRACT,
    PARALLEL_NO_CREDITS,
    PARALLEL_RATE_LIMITED,
    PARALLEL_SEARCH,
    PARALLEL_SERVER_ERROR,
    PARALLEL_UNAUTHORIZED,
    parallel_error,
)
from .conftest import assert_no_secret, body_of, settings

KEY = "par-5b0e3c1d9f-test-key-4411"
API = "https://api.parallel.ai"


@pytest.fixture
def config(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("PARALLEL_API_KEY", KEY)
    return make_config(**settings("parallel"))


def test_search_sends_objective_and_queries_and_uses_excerpts(run: Any, config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/v1/search").respond(200, json=PARALLEL_SEARCH)
        envelope = run(
            "search",
            config,
            "transformer shortage",
            backend="parallel",
            limit=2,
            objective="Find recent reporting on transformer lead times.",
            queries=["grid transformer backlog"],
        )
    assert envelope["success"] is True and envelope["provider"] == "parallel"
    assert envelope["data"]["web"] == [
        {
            "title": "Utilities face two-year wait",
            "url": "https://www.reuters.com/business/energy/transformers",
            "description": "Lead times for large power transformers have stretched to two years. … "
            "Utilities are rationing spares.",
            "position": 1,
            "published_at": "2026-08-30",
        },
        {
            "title": "Large Power Transformer Resilience",
            "url": "https://www.energy.gov/lpt",
            "description": "The department studies transformer supply.",
            "position": 2,
        },
    ]
    assert route.calls.last.request.headers["x-api-key"] == KEY
    assert body_of(route) == {
        "objective": "Find recent reporting on transformer lead times.",
        "search_queries": ["transformer shortage", "grid transformer backlog"],
        "advanced_settings": {"max_results": 2},
    }
    assert_no_secret(envelope, KEY)


def test_objective_defaults_to_the_query(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/v1/search").respond(200, json=PARALLEL_EMPTY)
        envelope = dispatch_search("zzzz", backend="parallel", config=config)
    assert body_of(route)["objective"] == "zzzz" and body_of(route)["search_queries"] == ["zzzz"]
    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("status", "kwargs", "code", "words"),
    [
        (401, {"json": PARALLEL_UNAUTHORIZED}, "auth_error", "Invalid API key"),
        (402, {"json": PARALLEL_NO_CREDITS}, "quota_exceeded", "Insufficient credit"),
        (
            429,
            {"json": PARALLEL_RATE_LIMITED, "headers": {"retry-after": "5"}},
            "rate_limited",
            "Rate limit",
        ),
        (500, {"json": PARALLEL_SERVER_ERROR}, "bad_gateway", "HTTP 500"),
        (422, {"json": PARALLEL_BAD_REQUEST}, "invalid_input", "at least one query"),
        (
            200,
            {"json": parallel_error("Search backend unavailable.")},
            "provider_error",
            "backend unavailable",
        ),
        (
            200,
            {"text": "<html>gateway error</html>", "headers": {"content-type": "text/html"}},
            "parse_error",
            "not valid JSON",
        ),
        (
            200,
            {
                "content": b'{"search_id": "s", "results": [{"url"',
                "headers": {"content-type": "application/json"},
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
        route = router.post(f"{API}/v1/search").respond(status, **kwargs)
        envelope = dispatch_search("q", backend="parallel", config=config)
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    assert words in envelope["error"]
    assert route.call_count == 1  # the SDK's own retries are off
    if code == "rate_limited":
        assert envelope["retry_after"] == 5
    assert_no_secret(envelope, KEY)


def test_key_echoed_by_the_vendor_is_scrubbed(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v1/search").respond(401, json=parallel_error(f"Invalid API key {KEY}."))
        envelope = dispatch_search("q", backend="parallel", config=config)
    assert envelope["error_code"] == "auth_error"
    assert_no_secret(envelope, KEY)


def test_common_options_are_mapped_and_the_rest_warned(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/v1/search").respond(200, json=PARALLEL_SEARCH)
        envelope = dispatch_search(
            "q",
            backend="parallel",
            config=config,
            time_range="month",
            include_domains=["reuters.com", ".gov"],
            country="us",
            lang="en",
            search_mode="fast",
        )
    sent = body_of(route)
    assert sent["mode"] == "fast"
    assert sent["advanced_settings"] == {
        "max_results": 5,
        "location": "US",
        "source_policy": {
            "include_domains": ["reuters.com", ".gov"],
            "after_date": (date.today() - timedelta(days=30)).isoformat(),
        },
    }
    assert envelope["meta"]["warnings"] == ["parallel does not support lang; ignored."]


def test_include_and_exclude_together_are_warned(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v1/search").respond(200, json=PARALLEL_SEARCH)
        envelope = dispatch_search(
            "q",
            backend="parallel",
            config=config,
            include_domains=["a.com"],
            exclude_domains=["b.com"],
        )
    assert any("ignores exclude_domains" in w for w in envelope["meta"]["warnings"])


@pytest.mark.parametrize("where", ["config", "env"])
def test_base_url_override(make_config: Any, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    monkeypatch.setenv("PARALLEL_API_KEY", KEY)
    if where == "env":
        monkeypatch.setenv("PARALLEL_BASE_URL", "https://parallel-gw.example.net")
        config = make_config(**settings("parallel"))
    else:
        config = make_config(**settings("parallel", base_url="https://parallel-gw.example.net"))
    with respx.mock() as router:
        route = router.post("https://parallel-gw.example.net/v1/search").respond(
            200, json=PARALLEL_SEARCH
        )
        envelope = dispatch_search("q", backend="parallel", config=config)
    assert route.called and envelope["success"] is True


def test_extract_returns_full_content_and_per_url_errors(config: Any) -> None:
    urls = ["https://example.com/a", "https://example.com/404", "https://example.com/absent"]
    with respx.mock() as router:
        route = router.post(f"{API}/v1/extract").respond(200, json=PARALLEL_EXTRACT)
        envelope = dispatch_extract(
            urls, backend="parallel", config=config, objective="the main claims"
        )
    assert body_of(route) == {
        "urls": urls,
        "objective": "the main claims",
        "advanced_settings": {"full_content": True},
    }
    page, missing, absent = envelope["data"]
    assert page == {
        "url": "https://example.com/a",
        "title": "A",
        "content": "# A\n\nThe whole page A.",
        "raw_content": None,
        "metadata": {"published_at": "2026-02-01"},
    }
    assert missing["error_code"] == "not_found" and "404" in missing["error"]
    assert absent["error"]
    assert "parallel: objective was empty; excerpts are generic." in envelope["meta"]["warnings"]


def test_extract_failure_of_the_whole_call(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/v1/extract").mock(
            return_value=httpx.Response(403, json=parallel_error("Forbidden."))
        )
        envelope = dispatch_extract(["https://example.com/a"], backend="parallel", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "auth_error"


def test_unavailable_without_a_key(make_config: Any) -> None:
    config = make_config(**settings("parallel"))
    row = next(r for r in list_providers(config) if r["name"] == "parallel")
    assert row["available"] is False and "PARALLEL_API_KEY" in row["reason"]


def test_missing_sdk_is_reported_by_its_extra(config: Any, hide_module: Any) -> None:
    hide_module("parallel")
    row = next(r for r in list_providers(config) if r["name"] == "parallel")
    assert row["available"] is False and "webproviders[parallel]" in row["reason"]
    envelope = dispatch_search("q", backend="parallel", config=config)
    assert (
        envelope["error_code"] == "not_configured" and "webproviders[parallel]" in envelope["error"]
    )


@pytest.mark.parametrize(
    ("capability", "answer"),
    [
        ("search", {"search_id": "s", "results": "none"}),
        ("extract", {"extract_id": "e", "results": {"url": "https://example.com/a"}}),
        ("extract", {"extract_id": "e", "results": [], "errors": "timeout"}),
    ],
)
def test_an_answer_out_of_shape_is_a_parse_error_a_chain_moves_on_from(
    config: Any, capability: str, answer: dict[str, Any]
) -> None:
    """The SDK builds its models without checking them: a list that is not one is Parallel's
    answer out of shape, which a chain fails over for, never a bug of ours that stops it."""
    with respx.mock() as router:
        router.post(f"{API}/v1/{capability}").respond(200, json=answer)
        if capability == "search":
            alone = dispatch_search("q", backend="parallel", config=config)
            chained = dispatch_search("q", backend=["parallel", "stub"], config=config)
        else:
            urls = ["https://example.com/a"]
            alone = dispatch_extract(urls, backend="parallel", config=config)
            chained = dispatch_extract(urls, backend=["parallel", "stub"], config=config)
    assert alone["error_code"] == "parse_error"
    assert "Parallel sent '" in alone["error"] and "that is not a list" in alone["error"]
    assert chained["success"] is True and chained["provider"] == "stub"
    assert chained["meta"]["attempts"][0]["error_code"] == "parse_error"


def test_an_answer_json_cannot_read_is_a_parse_error_a_chain_moves_on_from(config: Any) -> None:
    """A number longer than Python reads (its 4,300-digit limit) made the SDK's JSON reader
    raise a bare ``ValueError``, which was ``provider_error`` ("parallel failed: ValueError"),
    not retried or failed over for, where every other vendor says ``parse_error``."""
    body = json.dumps(PARALLEL_SEARCH)[:-1] + ', "total": ' + "9" * 5000 + "}"
    with respx.mock() as router:
        router.post(f"{API}/v1/search").respond(
            200, content=body.encode(), headers={"Content-Type": "application/json"}
        )
        alone = dispatch_search("q", backend="parallel", config=config)
        chained = dispatch_search("q", backend=["parallel", "stub"], config=config)
    assert alone["error_code"] == "parse_error" and alone["retryable"] is True
    assert "not valid JSON" in alone["error"]
    assert chained["success"] is True and chained["provider"] == "stub"


@pytest.mark.parametrize("capability", ["search", "extract"])
@pytest.mark.parametrize(
    ("answer", "code", "words"),
    [
        ({"error": {"message": "Internal processing failure", "ref_id": "r1"}}, "provider_error",
         "Parallel answered with an error: Internal processing failure"),
        ({"search_id": "s", "warnings": []}, "parse_error", "Parallel's answer has no 'results' list."),
    ],
)
def test_an_answer_without_results_is_not_an_empty_success(
    config: Any, capability: str, answer: dict[str, Any], code: str, words: str
) -> None:
    """Every answer of Parallel's holds ``results``: one without it (an error sent with a 200)
    must not tell the model that nothing matched."""
    with respx.mock() as router:
        router.post(f"{API}/v1/{capability}").respond(200, json=answer)
        if capability == "search":
            envelope = dispatch_search("q", backend="parallel", config=config, cache=False)
        else:
            envelope = dispatch_extract(["https://example.com/a"], backend="parallel", config=config, cache=False)
    assert envelope["success"] is False and envelope["error_code"] == code
    assert envelope["error"].startswith(words)


def test_a_limit_above_parallels_forty_asks_for_forty_and_says_so(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/v1/search").respond(200, json=PARALLEL_SEARCH)
        envelope = dispatch_search("transformer shortage", 50, backend="parallel", config=config)
    assert envelope["success"] is True, envelope
    assert body_of(route)["advanced_settings"]["max_results"] == 40
    assert (
        "parallel returns at most 40 results per request; 50 were asked for."
        in envelope["meta"]["warnings"]
    )


def test_a_logged_exception_shows_no_gateway_password_to_formatters_that_format_it_themselves(
    make_config: Any, http_server: Any
) -> None:
    """The SDK logs the ``httpx.HTTPStatusError`` it met (``exc_info``), whose message holds the
    request URL with the gateway's ``user:password@``; JSON loggers and structlog format that
    exception themselves rather than the scrubbed ``exc_text``."""
    password = "Gw-Pass-0123456789-xyz"

    class Refusing(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.dumps(parallel_error("Unauthorized")).encode()
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    port = http_server(Refusing).server_address[1]
    base_url = f"http://gateway:{password}@127.0.0.1:{port}"
    config = make_config(**settings("parallel", api_key=KEY, base_url=base_url))
    seen: list[str] = []

    class FormatsExceptions(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            info = record.exc_info
            exception = "".join(traceback.format_exception(*info)) if info else ""
            seen.append(f"{record.getMessage()}\n{exception}\n{logging.Formatter().format(record)}")

    handler, root = FormatsExceptions(), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        envelope = dispatch_search("q", backend="parallel", config=config)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert envelope["error_code"] == "auth_error"
    logged = [text for text in seen if "HTTPStatusError" in text]
    assert logged, "the SDK logged no exception"
    # The traceback is still shown, scrubbed.
    assert all("for url 'http://***@127.0.0.1" in text for text in logged)
    assert [text for text in seen if password in text] == []


def test_full_content_parallel_cut_at_the_cap_asked_for_says_it_was_cut(config: Any) -> None:
    """``max_chars_per_result`` has Parallel cut each page's full content; a page cut so said
    nothing. One character more is asked for: a page reaching it was cut, one exactly as long
    as the cap was not."""
    results = [
        {**PARALLEL_EXTRACT["results"][0], "url": "https://example.com/long", "full_content": "word " * 8 + "w"},
        {**PARALLEL_EXTRACT["results"][0], "full_content": "x" * 40},
    ]
    with respx.mock() as router:
        route = router.post(f"{API}/v1/extract").respond(200, json={**PARALLEL_EXTRACT, "results": results})
        envelope = dispatch_extract(["https://example.com/long", "https://example.com/a"], backend="parallel",
                                    config=config, max_chars_per_result=40)
    assert body_of(route)["advanced_settings"] == {"full_content": {"max_chars_per_result": 41}}
    cut, whole = envelope["data"]
    assert cut["metadata"]["truncated"] is True and cut["content"] == ("word " * 8).strip()
    assert whole["content"] == "x" * 40 and "truncated" not in whole["metadata"]


def test_keyword_queries_are_held_to_parallels_five_of_two_hundred_characters(config: Any) -> None:
    """Parallel takes at most 5 keyword queries of 200 characters each; a long natural-language
    query stays whole as the objective and is cut at a word break as the keyword query."""
    query = " ".join(["transformer shortage lead times for utilities"] * 7)  # 321 characters
    extra = [f"grid backlog {n}" for n in range(6)]
    with respx.mock() as router:
        route = router.post(f"{API}/v1/search").respond(200, json=PARALLEL_SEARCH)
        envelope = dispatch_search(query, backend="parallel", config=config, queries=extra)
    assert envelope["success"] is True, envelope
    sent = body_of(route)
    assert sent["objective"] == query
    assert len(sent["search_queries"]) == 5
    first = sent["search_queries"][0]
    assert len(first) <= 200 and query.startswith(first) and query[len(first)] == " "
    assert sent["search_queries"][1:] == extra[:4]
    warnings = envelope["meta"]["warnings"]
    assert any("at most 200 characters" in w for w in warnings)
    assert any("at most 5 keyword queries; 7 were given" in w for w in warnings)


def test_extract_keyword_queries_are_held_to_the_same_bounds(config: Any) -> None:
    """Extract's ``search_queries`` are "as in SearchRequest": at most 5 of 200 characters."""
    long = "x" * 170 + " " + "y" * 80
    with respx.mock() as router:
        route = router.post(f"{API}/v1/extract").respond(200, json=PARALLEL_EXTRACT)
        envelope = dispatch_extract(
            ["https://example.com/a"],
            backend="parallel",
            config=config,
            objective="the main claims",
            queries=[long, "b", "c", "d", "e", "f"],
        )
    assert envelope["success"] is True, envelope
    assert body_of(route)["search_queries"] == ["x" * 170, "b", "c", "d", "e"]
    assert any("at most 5 keyword queries; 6 were given" in w for w in envelope["meta"]["warnings"])
