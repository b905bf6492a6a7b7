"""Exa through ``AsyncExa`` against Exa's real response and error shapes."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import warnings
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_extract, dispatch_search, list_providers

from .bodies import (
    EXA_BAD_BODY,
    EXA_CONTENTS,
    EXA_EMPTY,
    EXA_INVALID_KEY,
    EXA_NO_CREDITS,
    EXA_OVERLOADED,
    EXA_RATE_LIMITED,
    EXA_SEARCH,
    exa_error,
)
from .conftest import assert_no_secret, body_of, settings

KEY = "exa-3f9c2b7e-test-key-00aa"
API = "https://api.exa.ai"


@pytest.fixture
def config(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("EXA_API_KEY", KEY)
    return make_config(**settings("exa"))


def test_search_uses_highlights_as_description(run: Any, config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=EXA_SEARCH)
        envelope = run("search", config, "transformer supply", backend="exa", limit=2)
    assert envelope["success"] is True and envelope["provider"] == "exa"
    first, second = envelope["data"]["web"]
    assert first == {
        "title": "Transformer supplier doubles capacity",
        "url": "https://example.com/supplier",
        "description": "capacity is sold out through 2028 … a second plant opens in 2027",
        "position": 1,
        "score": 0.71,
        "published_at": "2026-08-30T00:00:00.000Z",
        "author": "A Reporter",
    }
    assert second["description"] == "Plain page text used when there are no highlights."
    assert "published_at" not in second and "score" not in second
    assert route.calls.last.request.headers["x-api-key"] == KEY
    assert body_of(route) == {
        "query": "transformer supply",
        "numResults": 2,
        "contents": {"highlights": True},
    }
    assert_no_secret(envelope, KEY)


def test_a_result_without_title_keeps_an_empty_title(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/search").respond(200, json=EXA_SEARCH)
        envelope = dispatch_search("transformer supply", backend="exa", config=config)
    pdf = envelope["data"]["web"][2]
    assert (pdf["url"], pdf["title"]) == ("https://example.net/report.pdf", "")
    assert pdf["description"] == "Annual transformer capacity report."


def test_empty_result_is_an_empty_success(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/search").respond(200, json=EXA_EMPTY)
        envelope = dispatch_search("zzzz", backend="exa", config=config)
    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("status", "kwargs", "code", "words"),
    [
        (401, {"json": EXA_INVALID_KEY}, "auth_error", "Invalid API key"),
        (
            400,
            {"json": exa_error("x-api-key header is invalid", "INVALID_API_KEY")},
            "auth_error",
            "INVALID_API_KEY",
        ),
        (402, {"json": EXA_NO_CREDITS}, "quota_exceeded", "NO_MORE_CREDITS"),
        (
            403,
            {"json": exa_error("Feature not enabled for your team", "FEATURE_DISABLED")},
            "unsupported",
            "FEATURE_DISABLED",
        ),
        (
            429,
            {"json": EXA_RATE_LIMITED, "headers": {"retry-after": "2"}},
            "rate_limited",
            "Rate limit exceeded",
        ),
        (400, {"json": EXA_BAD_BODY}, "invalid_input", "Validation error"),
        (
            400,
            {"json": exa_error("Requested numResults exceeds your plan limit", "NUM_RESULTS_EXCEEDED")},
            "unsupported",
            "NUM_RESULTS_EXCEEDED",
        ),
        (503, {"json": EXA_OVERLOADED}, "bad_gateway", "SERVICE_OVERLOADED"),
        (
            200,
            {"json": exa_error("Search failed internally", "INTERNAL_ERROR")},
            "provider_error",
            "Search failed",
        ),
        (
            200,
            {
                "text": "<!doctype html><title>Just a moment...</title>",
                "headers": {"content-type": "text/html"},
            },
            "parse_error",
            "not valid JSON",
        ),
        (
            200,
            {
                "content": b'{"requestId": "x", "results": [',
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
        router.post(f"{API}/search").respond(status, **kwargs)
        envelope = dispatch_search("q", backend="exa", config=config)
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    assert words in envelope["error"]
    if code == "rate_limited":
        assert envelope["retry_after"] == 2
    assert_no_secret(envelope, KEY)


def test_key_echoed_by_the_vendor_is_scrubbed(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/search").respond(
            401, json=exa_error(f"Invalid API key {KEY}", "INVALID_API_KEY")
        )
        envelope = dispatch_search("q", backend="exa", config=config)
    assert envelope["error_code"] == "auth_error"
    assert_no_secret(envelope, KEY)


#: A search answer with a note in Exa's ``warnings`` array (the SDK repeats each as a Python
#: warning) that quotes the key, as a gateway in front of Exa might.
NOTED = {**EXA_SEARCH, "warnings": [{"code": "KEY_EXPIRING", "path": "/apiKey", "message": f"the key {KEY} expires soon"}]}


def test_a_note_exa_answers_with_is_logged_without_the_key_when_logging_takes_warnings(
    config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING):
        warnings.simplefilter("always")
        logging.captureWarnings(False)  # taken afresh, whatever an earlier in-process command left
        logging.captureWarnings(True)  # as an application that logs its warnings does
        try:
            with respx.mock() as router:
                router.post(f"{API}/search").respond(200, json=NOTED)
                envelope = dispatch_search("transformer supply", backend="exa", config=config)
        finally:
            logging.captureWarnings(False)
    assert envelope["success"] is True
    notes = [record.getMessage() for record in caplog.records if record.name == "py.warnings"]
    assert notes and "the key *** expires soon" in notes[0]
    assert [note for note in notes if KEY in note] == []


def test_the_command_prints_exa_s_note_without_the_key(http_server: Any, tmp_path: Path) -> None:
    class Exa(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            body = json.dumps(NOTED).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    base_url = f"http://127.0.0.1:{http_server(Exa).server_address[1]}"
    path = tmp_path / "config.yaml"
    path.write_text(json.dumps({"web": {"providers": {"exa": {"api_key": KEY, "base_url": base_url}}}}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL")}
    env.update(HOME=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "--config", str(path), "search", "transformer supply", "--backend", "exa"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "the key *** expires soon" in done.stderr
    assert KEY not in done.stderr + done.stdout


def test_common_options_are_mapped_and_lang_is_warned(config: Any) -> None:
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=EXA_SEARCH)
        envelope = dispatch_search(
            "q",
            backend="exa",
            config=config,
            time_range="week",
            include_domains=["example.com"],
            exclude_domains=["spam.example"],
            country="gb",
            safe_search="strict",
            lang="en",
            category="news",
        )
    sent = body_of(route)
    assert sent["includeDomains"] == ["example.com"] and sent["excludeDomains"] == ["spam.example"]
    assert (
        sent["userLocation"] == "GB" and sent["moderation"] is True and sent["category"] == "news"
    )
    start = datetime.strptime(sent["startPublishedDate"], "%Y-%m-%dT%H:%M:%S.000Z").replace(
        tzinfo=timezone.utc
    )
    assert abs((datetime.now(timezone.utc) - start) - timedelta(weeks=1)) < timedelta(minutes=5)
    assert envelope["meta"]["warnings"] == ["exa does not support lang; ignored."]


def _exa_narrow_categories(request: httpx.Request) -> httpx.Response:
    """Exa's search docs: the company and people categories take no date or excluded-domain
    filter, "Using unsupported parameters will result in a 400 error"."""
    body = json.loads(request.content)
    if body.get("category") in ("company", "people") and ({"startPublishedDate", "excludeDomains"} & body.keys()):
        message = "Invalid request body | excludeDomains and startPublishedDate are not supported for this category"
        return httpx.Response(400, json=exa_error(message, "INVALID_REQUEST_BODY"))
    return httpx.Response(200, json=EXA_SEARCH)


@pytest.mark.parametrize("category", ["company", "people"])
def test_common_filters_a_category_cannot_take_are_warned_not_sent(config: Any, category: str) -> None:
    """A time_range or exclude_domains with category="company" went to Exa as its date and
    domain filters, and its 400 failed the search as the caller's invalid_input."""
    with respx.mock() as router:
        route = router.post(f"{API}/search").mock(side_effect=_exa_narrow_categories)
        envelope = dispatch_search(
            "acme", backend="exa", config=config, category=category, time_range="year", exclude_domains=["x.example"]
        )
    assert envelope["success"] is True, envelope
    sent = body_of(route)
    assert sent["category"] == category and "startPublishedDate" not in sent and "excludeDomains" not in sent
    assert envelope["meta"]["warnings"] == [
        f"exa filters the {category} category by neither date nor excluded domain; time_range ignored.",
        f"exa filters the {category} category by neither date nor excluded domain; exclude_domains ignored.",
    ]


def test_contents_setting_changes_what_is_asked(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXA_API_KEY", KEY)
    config = make_config(**settings("exa", contents="text", type="fast"))
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(200, json=EXA_EMPTY)
        dispatch_search("q", backend="exa", config=config)
    assert body_of(route)["contents"] == {"text": {"maxCharacters": 500}}
    assert body_of(route)["type"] == "fast"


def test_a_contents_setting_exa_has_not_is_named(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``contents: summaries`` (for ``summary``) asked for highlights, unsaid."""
    monkeypatch.setenv("EXA_API_KEY", KEY)
    config = make_config(**settings("exa", contents="summaries"))
    with respx.mock(assert_all_called=False) as router:
        route = router.post(f"{API}/search").respond(200, json=EXA_EMPTY)
        envelope = dispatch_search("q", backend="exa", config=config)
    assert envelope["error_code"] == "not_configured", envelope
    assert envelope["error"] == (
        "web.providers.exa.contents must be one of highlights, summary, text, none; it is 'summaries'."
    )
    assert route.call_count == 0


def test_base_url_override(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXA_API_KEY", KEY)
    config = make_config(**settings("exa", base_url="https://exa-proxy.example.net/exa"))
    with respx.mock() as router:
        route = router.post("https://exa-proxy.example.net/exa/search").respond(
            200, json=EXA_SEARCH
        )
        envelope = dispatch_search("q", backend="exa", config=config)
    assert route.called and envelope["success"] is True


def test_a_refused_key_rests_and_the_next_is_used(make_config: Any) -> None:
    second = "exa-second-key-77665544"
    config = make_config(**settings("exa", api_key=f"{KEY},{second}"))
    with respx.mock() as router:
        route = router.post(f"{API}/search").mock(
            side_effect=[
                httpx.Response(402, json=EXA_NO_CREDITS),
                httpx.Response(200, json=EXA_SEARCH),
            ]
        )
        envelope = dispatch_search("q", backend="exa", config=config)
    assert envelope["success"] is True
    assert [c.request.headers["x-api-key"] for c in route.calls] == [KEY, second]


def test_a_content_policy_refusal_is_blocked_and_rests_no_key(make_config: Any) -> None:
    """Exa's 403 ``CONTENT_FILTER_ERROR`` (content refused by a safety policy, its error-code
    reference) is about what was asked, not the key: it read as "Exa rejected the API key",
    and the key was rested and the next one asked the same."""
    second = "exa-second-key-77665544"
    config = make_config(**settings("exa", api_key=f"{KEY},{second}"))
    refusal = exa_error("Content was rejected by a safety policy", "CONTENT_FILTER_ERROR")
    with respx.mock() as router:
        route = router.post(f"{API}/search").respond(403, json=refusal)
        envelope = dispatch_search("q", backend="exa", config=config)
    assert envelope["error_code"] == "blocked", envelope
    assert "CONTENT_FILTER_ERROR" in envelope["error"] and "API key" not in envelope["error"]
    assert [c.request.headers["x-api-key"] for c in route.calls] == [KEY]


def test_extract_reads_contents_with_per_url_statuses(config: Any) -> None:
    urls = [
        "https://example.com",
        "https://gone.example",
        "https://slow.example",
        "https://absent.example",
    ]
    with respx.mock() as router:
        route = router.post(f"{API}/contents").respond(200, json=EXA_CONTENTS)
        envelope = dispatch_extract(urls, backend="exa", config=config)
    sent = body_of(route)
    assert isinstance(sent.pop("livecrawlTimeout"), int)
    assert sent == {"urls": urls, "text": True}
    page, gone, slow, absent = envelope["data"]
    assert page["title"] == "Example" and page["content"].startswith("Example Domain.")
    assert page["metadata"] == {"published_at": "2026-01-02T00:00:00.000Z"}
    assert gone["error_code"] == "not_found" and "CRAWL_NOT_FOUND" in gone["error"]
    assert slow["error_code"] == "timeout"
    assert absent["error"] and absent["url"] == "https://absent.example"


@pytest.mark.parametrize("http_status", [None, 504])
def test_a_page_past_the_live_crawl_timeout_is_a_timeout_item(config: Any, http_status: int | None) -> None:
    """Exa reports a page whose live crawl outlasted ``livecrawlTimeout`` with its own tag,
    ``CRAWL_LIVECRAWL_TIMEOUT`` (its /contents reference), with a 504 beside it or none; the
    page read as Exa's failure (provider_error), not the timeout the call asked for."""
    error: dict[str, Any] = {"tag": "CRAWL_LIVECRAWL_TIMEOUT"}
    if http_status:
        error["httpStatusCode"] = http_status
    contents = {
        **EXA_CONTENTS,
        "statuses": [
            EXA_CONTENTS["statuses"][0],
            {"id": "https://slow.example", "status": "error", "error": error},
        ],
    }
    with respx.mock() as router:
        router.post(f"{API}/contents").respond(200, json=contents)
        envelope = dispatch_extract(["https://example.com", "https://slow.example"], backend="exa", config=config)
    page, slow = envelope["data"]
    assert page["content"].startswith("Example Domain.")
    assert slow["error_code"] == "timeout" and "CRAWL_LIVECRAWL_TIMEOUT" in slow["error"]


def test_a_status_named_in_the_tag_is_read_from_it(config: Any) -> None:
    """Exa's /contents names the status a site answered in the tag itself
    (``CRAWL_HTTP_{status}``, its error-code reference), ``httpStatusCode`` being optional:
    a 403 or a 404 so named read as Exa's own failure (provider_error)."""
    urls = ["https://example.com", "https://walled.example", "https://moved.example"]
    contents = {
        **EXA_CONTENTS,
        "statuses": [
            EXA_CONTENTS["statuses"][0],
            {"id": urls[1], "status": "error", "error": {"tag": "CRAWL_HTTP_403"}},
            {"id": urls[2], "status": "error", "error": {"tag": "CRAWL_HTTP_410"}},
        ],
    }
    with respx.mock() as router:
        router.post(f"{API}/contents").respond(200, json=contents)
        envelope = dispatch_extract(urls, backend="exa", config=config)
    page, walled, moved = envelope["data"]
    assert page["content"].startswith("Example Domain.")
    assert walled["error_code"] == "blocked" and walled["detail"] == "http_403", walled
    assert moved["error_code"] == "not_found" and "CRAWL_HTTP_410" in moved["error"], moved


@pytest.mark.parametrize(("timeout", "most_ms"), [(3, 3000), (8, 8000)])
def test_a_live_crawl_waits_within_the_call(config: Any, timeout: int, most_ms: int) -> None:
    """Exa waits 10 s for a page it crawls live unless told (``livecrawlTimeout``, ms, its
    /contents reference): on a shorter call one slow page held the request past the deadline,
    and the call was a timeout for every URL, the pages Exa had read with it."""
    with respx.mock() as router:
        route = router.post(f"{API}/contents").respond(200, json=EXA_CONTENTS)
        envelope = dispatch_extract(["https://example.com"], backend="exa", config=config, timeout=timeout)
    assert envelope["success"] is True, envelope
    sent = body_of(route)["livecrawlTimeout"]
    assert isinstance(sent, int) and 1000 <= sent < most_ms


def test_extract_keeps_the_page_image_and_favicon(config: Any) -> None:
    """Exa's /contents results carry ``image`` and ``favicon`` (its reference); both were dropped."""
    result = {
        **EXA_CONTENTS["results"][0],
        "author": "Jane Roe",
        "image": "https://example.com/og.png",
        "favicon": "https://example.com/favicon.ico",
    }
    with respx.mock() as router:
        router.post(f"{API}/contents").respond(200, json={**EXA_CONTENTS, "results": [result]})
        envelope = dispatch_extract(["https://example.com"], backend="exa", config=config)
    assert envelope["data"][0]["metadata"] == {
        "published_at": "2026-01-02T00:00:00.000Z",
        "author": "Jane Roe",
        "image": "https://example.com/og.png",
        "favicon": "https://example.com/favicon.ico",
    }


def test_extract_failure_of_the_whole_call(config: Any) -> None:
    with respx.mock() as router:
        router.post(f"{API}/contents").respond(401, json=EXA_INVALID_KEY)
        envelope = dispatch_extract(["https://example.com"], backend="exa", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "auth_error"


def test_a_url_exa_could_not_fetch_is_not_the_caller_s_mistake(config: Any) -> None:
    """Exa documents a 422 from /contents as a URL it failed to fetch; it read as
    invalid_input ("Exa rejected the request"), which tells a caller not to try again and
    stops a chain before the next backend may read the page. It is not Exa's ill health."""
    failed = {"requestId": "4a1c9e", "error": "Failed to fetch content for the requested URL(s)."}
    with respx.mock() as router:
        route = router.post(f"{API}/contents").respond(422, json=failed)
        for _ in range(6):
            envelope = dispatch_extract(["https://example.com/gone"], backend="exa", config=config)
            assert envelope["error_code"] == "provider_error", envelope
            assert envelope["error"] == (
                "Exa could not fetch or read the page(s) asked for (HTTP 422): "
                "Failed to fetch content for the requested URL(s)."
            )
        route.respond(200, json=EXA_CONTENTS)
        served = dispatch_extract(["https://example.com"], backend="exa", config=config)
    assert served["success"] is True, served  # six of them did not cool Exa down


def test_unavailable_without_a_key(make_config: Any) -> None:
    config = make_config(**settings("exa"))
    row = next(r for r in list_providers(config) if r["name"] == "exa")
    assert row["available"] is False and "EXA_API_KEY" in row["reason"]


def test_missing_sdk_is_reported_by_its_extra(config: Any, hide_module: Any) -> None:
    hide_module("exa_py")
    row = next(r for r in list_providers(config) if r["name"] == "exa")
    assert row["available"] is False and "webproviders[exa]" in row["reason"]
    envelope = dispatch_search("q", backend="exa", config=config)
    assert envelope["error_code"] == "not_configured" and "webproviders[exa]" in envelope["error"]


def test_a_page_exa_cut_at_the_cap_asked_for_says_it_was_cut(config: Any) -> None:
    """``max_characters`` has Exa cut each page; a page cut so said nothing, and read as the
    whole page. One character more is asked for: a page reaching it was cut, one exactly as
    long as the cap was not."""
    long_page = {**EXA_CONTENTS["results"][0], "id": "https://example.com/long", "url": "https://example.com/long",
                 "text": "word " * 8 + "w"}  # 41 characters: Exa's cut at the 41 asked for
    exact = {**EXA_CONTENTS["results"][0], "text": "x" * 40}
    with respx.mock() as router:
        route = router.post(f"{API}/contents").respond(200, json={**EXA_CONTENTS, "results": [long_page, exact]})
        envelope = dispatch_extract(["https://example.com/long", "https://example.com"], backend="exa",
                                    config=config, max_characters=40)
    assert body_of(route)["text"] == {"maxCharacters": 41}
    cut, whole = envelope["data"]
    assert cut["metadata"]["truncated"] is True and len(cut["content"]) <= 40
    assert cut["content"] == ("word " * 8).strip()
    assert whole["content"] == "x" * 40 and "truncated" not in whole["metadata"]
