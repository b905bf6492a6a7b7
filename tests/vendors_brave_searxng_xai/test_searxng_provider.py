"""SearXNG against the JSON (and non-JSON) answers a real instance gives."""

from __future__ import annotations

import json
import logging
import re
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from webproviders import dispatch_search
from webproviders.registry.providers import get_registry

from .bodies import SEARX_403_HTML, SEARX_EMPTY, SEARX_SUCCESS, _searx_result
from .helpers import SEARX_KEY, SEARX_URL, assert_no_secret, web

SEARCH_URL = f"{SEARX_URL}/search"


@pytest.fixture
def config(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("SEARXNG_URL", SEARX_URL)
    return make_config(web=web())


def test_success_orders_by_score_and_skips_non_pages(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=SEARX_SUCCESS)
        envelope = search(config, "searxng", backend="searxng", limit=10)
    assert envelope["success"] is True, envelope
    hits = envelope["data"]["web"]
    # Sorted by score (6.0, 3.0, 0.5); magnet link, url-less result, answer and infobox skipped.
    assert [h["url"] for h in hits] == [
        "https://github.com/searxng/searxng",
        "https://en.wikipedia.org/wiki/SearXNG",
        "https://docs.searxng.org/",
    ]
    assert hits[0] == {
        "title": "searxng/searxng: SearXNG is a free internet metasearch engine",
        "url": "https://github.com/searxng/searxng",
        "description": "SearXNG is a free internet metasearch engine which aggregates results from …",
        "position": 1,
        "score": 6.0,
        "engines": ["duckduckgo", "brave", "startpage"],
    }
    assert hits[2]["published_at"] == "2026-05-01T00:00:00"
    assert envelope["meta"]["warnings"] == [
        "searxng: some engines did not answer: google (CAPTCHA), bing (timeout)."
    ]
    request = route.calls[0].request
    assert dict(request.url.params) == {"q": "searxng", "format": "json", "pageno": "1"}
    assert request.headers["Accept"] == "application/json"
    assert request.headers["Accept-Language"]  # the bot limiter refuses requests without it
    assert "Authorization" not in request.headers


def _searx_page(number: int) -> dict[str, Any]:
    """Page ``number`` of an instance holding 18 results for a query: ten a page, the second
    repeating two of the first (engines page differently), nothing after it."""
    urls = {1: range(10), 2: [*range(8, 18)]}.get(number, [])
    results = [
        _searx_result(f"https://site{n}.example/page", f"Result {n}", f"About result {n}.", ["brave"], 20.0 - n)
        for n in urls
    ]
    silent = {1: [["google", "CAPTCHA"]], 2: [["google", "CAPTCHA"], ["bing", "timeout"]]}.get(number, [])
    return {"query": "q", "number_of_results": 0, "results": results, "answers": [], "corrections": [],
            "infoboxes": [], "suggestions": [], "unresponsive_engines": silent}


class _PagedSearxng(BaseHTTPRequestHandler):
    """A SearXNG instance on 127.0.0.1 answering ``/search?pageno=N`` with its page N."""

    asked: list[str] = []
    failing: set[int] = set()

    def do_GET(self) -> None:
        number = int(parse_qs(urlsplit(self.path).query)["pageno"][0])
        type(self).asked.append(str(number))
        status, body = (500, {"error": "search error"}) if number in self.failing else (200, _searx_page(number))
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def paged(http_server: Any, make_config: Any) -> Any:
    _PagedSearxng.asked, _PagedSearxng.failing = [], set()
    port = http_server(_PagedSearxng).server_address[1]
    return make_config(web=web(providers={"searxng": {"base_url": f"http://127.0.0.1:{port}"}}))


@pytest.mark.parametrize(("limit", "pages", "found"), [(5, ["1"], 5), (15, ["1", "2"], 15), (30, ["1", "2", "3"], 18)])
def test_a_limit_above_one_page_reads_the_next_pages(paged: Any, search: Any, limit: int, pages: list[str], found: int) -> None:
    """An instance answers ten results or so a page; a limit above that got one page only."""
    envelope = search(paged, "q", backend="searxng", limit=limit)
    assert envelope["success"] is True, envelope
    assert [hit["url"] for hit in envelope["data"]["web"]] == [f"https://site{n}.example/page" for n in range(found)]
    assert _PagedSearxng.asked == pages
    engines = "google (CAPTCHA), bing (timeout)" if len(pages) > 1 else "google (CAPTCHA)"
    assert envelope["meta"]["warnings"] == [f"searxng: some engines did not answer: {engines}."]


class _RaisingHandler(logging.Handler):
    """An application's handler whose ``emit`` raises (it does not use ``handleError``)."""

    def emit(self, record: logging.LogRecord) -> None:
        raise RuntimeError("the log sink is down")


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_log_handler_that_raises_on_the_http_stacks_records_fails_no_search(
    paged: Any, search: Any, asearch: Any, how: str
) -> None:
    """httpx logs each request at INFO: a handler that raised on it failed every search,
    as ``provider_error`` against the instance."""
    logger = logging.getLogger("httpx")
    handler = _RaisingHandler()
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        envelope = (search if how == "sync" else asearch)(paged, "q", backend="searxng", limit=5)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert envelope["success"] is True, envelope


def test_a_later_page_that_fails_leaves_the_pages_read(paged: Any, search: Any) -> None:
    _PagedSearxng.failing = {2}
    envelope = search(paged, "q", backend="searxng", limit=15)
    assert envelope["success"] is True, envelope
    assert len(envelope["data"]["web"]) == 10 and _PagedSearxng.asked == ["1", "2"]
    assert "the next page of results was not read, as it failed (bad_gateway" in envelope["meta"]["warnings"][0]


@pytest.mark.parametrize("how", ["sync", "async"])
def test_each_later_page_takes_a_slot_of_the_request_budget(
    http_server: Any, make_config: Any, search: Any, asearch: Any, how: str
) -> None:
    """A budget counts requests as the instance sees them: with two a minute, a search that
    would read three pages reads two, says why, and the next call finds the budget spent.
    Before, the whole paged search took one slot and sent three requests."""
    _PagedSearxng.asked, _PagedSearxng.failing = [], set()
    port = http_server(_PagedSearxng).server_address[1]
    config = make_config(
        web=web(providers={"searxng": {"base_url": f"http://127.0.0.1:{port}", "rate_limit": "2/min"}})
    )
    run = search if how == "sync" else asearch
    envelope = run(config, "q", backend="searxng", limit=30, timeout=5)
    assert envelope["success"] is True, envelope
    assert _PagedSearxng.asked == ["1", "2"]
    assert len(envelope["data"]["web"]) == 18
    said = [w for w in envelope["meta"]["warnings"] if "next page" in w]
    assert len(said) == 1 and "request budget had no slot for it in time" in said[0], envelope["meta"]
    assert "(2/min)" in said[0] and "the answer holds the 18 results" in said[0]
    again = run(config, "other", backend="searxng", limit=5, timeout=1)
    assert again["success"] is False and again["error_code"] == "rate_limited", again
    assert _PagedSearxng.asked == ["1", "2"]


def test_a_later_page_s_429_pauses_the_provider_for_the_next_callers(
    http_server: Any, make_config: Any, search: Any
) -> None:
    """A 429 with Retry-After on the second page leaves the first page's hits as the answer,
    and holds the instance back as a 429 on a first page does: the next call is refused
    without a request. Before, the pause was lost with the page, and the next call was sent
    straight into the instance's limit."""

    class Limited(_PagedSearxng):
        def do_GET(self) -> None:
            number = int(parse_qs(urlsplit(self.path).query)["pageno"][0])
            if number == 1:
                super().do_GET()
                return
            type(self).asked.append(str(number))
            self.send_response(429)
            self.send_header("Retry-After", "60")
            self.send_header("Content-Length", "0")
            self.end_headers()

    Limited.asked = []
    port = http_server(Limited).server_address[1]
    config = make_config(web=web(providers={"searxng": {"base_url": f"http://127.0.0.1:{port}"}}))
    envelope = search(config, "q", backend="searxng", limit=15)
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 10, envelope
    assert any("(rate_limited: " in said for said in envelope["meta"]["warnings"]), envelope["meta"]
    again = search(config, "other", backend="searxng", limit=5, timeout=1)
    assert again["success"] is False and again["error_code"] == "rate_limited", again
    assert again["retry_after"] > 50
    assert Limited.asked == ["1", "2"]


def test_async_dispatch(config: Any, asearch: Any) -> None:
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(200, json=SEARX_SUCCESS)
        envelope = asearch(config, "searxng", backend="searxng", limit=1)
    assert envelope["success"] is True
    assert [h["url"] for h in envelope["data"]["web"]] == ["https://github.com/searxng/searxng"]


def test_empty_result(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(200, json=SEARX_EMPTY)
        envelope = search(config, "zxqv", backend="searxng")
    assert envelope["success"] is True
    assert envelope["data"]["web"] == []
    assert "warnings" not in envelope["meta"]


@pytest.mark.parametrize("answer", [{}, {"query": "x"}, {"query": "x", "results": None}])
def test_an_answer_without_results_is_a_parse_error_not_nothing_found(
    config: Any, search: Any, answer: dict[str, Any]
) -> None:
    """Every SearXNG answer holds ``results``; another JSON service at the base URL answering
    ``{}`` read as "nothing found", an empty success a chain stopped at."""
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(200, json=answer)
        envelope = search(config, "x", backend="searxng")
    assert envelope["success"] is False and envelope["error_code"] == "parse_error"
    assert "without a 'results' list" in envelope["error"]


def test_odd_shapes_never_break_the_call(config: Any, search: Any) -> None:
    body = {
        "query": "x",
        "results": [
            "not a dict",
            {"url": None, "title": "null url"},
            {"url": "/relative/path", "title": "relative"},
            {"url": "https://ok.example/", "title": None, "content": None, "score": "high"},
        ],
        "answers": ["a plain string answer"],
        "infoboxes": "unexpected",
        "unresponsive_engines": [["qwant"], "mojeek", None],
    }
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(200, json=body)
        envelope = search(config, "x", backend="searxng")
    assert envelope["success"] is True
    assert [h["url"] for h in envelope["data"]["web"]] == ["https://ok.example/"]
    assert envelope["meta"]["warnings"] == ["searxng: some engines did not answer: qwant, mojeek."]


def test_dict_shaped_unresponsive_engines_are_reported(config: Any, search: Any) -> None:
    body = {
        **SEARX_EMPTY,
        "results": [_searx_result("https://ok.example/", "Ok", "An answer.", ["qwant"], 1.0)],
        "unresponsive_engines": [
            {"engine": "google", "error": "CAPTCHA"},
            {"engine": "duckduckgo", "reason": "timeout"},
            {"engine": "brave"},
            ["bing", "HTTP error"],
            {"error": "no engine named"},
        ],
    }
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(200, json=body)
        envelope = search(config, "x", backend="searxng")
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == [
        "searxng: some engines did not answer: google (CAPTCHA), duckduckgo (timeout), brave, "
        "bing (HTTP error)."
    ]


@pytest.mark.parametrize("run", ["search", "asearch"])
def test_no_results_while_engines_failed_is_a_failure(
    config: Any, run: str, request: pytest.FixtureRequest
) -> None:
    """Every engine that was asked hit a CAPTCHA or a limit: SearXNG answers 200 with no
    results, which is no evidence that nothing matched; a chain moves on to its next member."""
    body = {
        **SEARX_EMPTY,
        "unresponsive_engines": [["google", "CAPTCHA"], ["duckduckgo", "too many requests"]],
    }
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(200, json=body)
        envelope = request.getfixturevalue(run)(config, "x", backend="searxng")
    assert envelope["success"] is False, envelope
    assert envelope["error_code"] == "bad_gateway"
    named = "google (CAPTCHA), duckduckgo (too many requests)"
    assert f"found no results, and its engines did not answer: {named}" in envelope["error"]


def _searx_with_external_bangs(request: httpx.Request) -> httpx.Response:
    """SearXNG's answer to a query holding an external bang (a word starting with ``!!``): a
    redirect to that site's search, before it looks at ``format=json``."""
    words = request.url.params["q"].split()
    if any(word.startswith("!!") for word in words):
        return httpx.Response(302, headers={"Location": "https://en.wikipedia.org/wiki/Special:Search?search=rust"})
    return httpx.Response(200, json=SEARX_SUCCESS)


@pytest.mark.parametrize(("query", "sent"), [("!!w rust", '"!!w" rust'), ("rust !!g", 'rust "!!g"')])
def test_an_external_bang_in_the_query_is_searched_not_redirected(
    config: Any, search: Any, query: str, sent: str
) -> None:
    """Before, SearXNG's redirect for ``!!w`` failed the search as ``provider_error``, blaming
    the configured base_url."""
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).mock(side_effect=_searx_with_external_bangs)
        envelope = search(config, query, backend="searxng")
    assert envelope["success"] is True, envelope
    assert route.calls[0].request.url.params["q"] == sent


def test_searxng_s_own_engine_selection_is_left_as_written(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=SEARX_SUCCESS)
        search(config, "!wp paris", backend="searxng")
    assert route.calls[0].request.url.params["q"] == "!wp paris"


def test_option_mapping(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=SEARX_EMPTY)
        envelope = search(
            config,
            "searxng",
            backend="searxng",
            time_range="month",
            lang="de",
            country="at",
            safe_search="strict",
            categories=["general", "it"],
            engines="duckduckgo,brave",
        )
    assert envelope["success"] is True
    params = dict(route.calls.last.request.url.params)
    assert params == {
        "q": "searxng",
        "format": "json",
        "pageno": "1",
        "language": "de-AT",
        "time_range": "month",
        "safesearch": "2",
        "categories": "general,it",
        "engines": "duckduckgo,brave",
    }
    assert route.calls.last.request.headers["Accept-Language"] == "de"
    assert "warnings" not in envelope["meta"]


def _searxng_language_check(request: Any) -> Any:
    """SearXNG takes ``language`` only as ``xx`` or ``xx-YY`` (``VALID_LANGUAGE_CODE`` in
    searx/webutils.py); any other value is its ``SearxParameterException``, answered as
    HTTP 400 ``{"error": "Invalid value ... for parameter language"}`` (searx/webapp.py)."""
    value = request.url.params.get("language", "auto")
    if value != "auto" and not re.match(r"^[a-z]{2,3}(-[a-zA-Z]{2})?$", value):
        return httpx.Response(400, json={"error": f"Invalid value {value} for parameter language"})
    return httpx.Response(200, json=SEARX_EMPTY)


@pytest.mark.parametrize(
    ("lang", "country", "sent"),
    [
        ("EN", None, "en"),
        ("zh-Hans-CN", None, "zh-CN"),
        ("zh-Hant", None, "zh-TW"),
        ("es-419", None, "es"),
        ("es-419", "mx", "es-MX"),
        ("sr-Latn-RS", "at", "sr-RS"),
        ("pt_BR", None, "pt-BR"),
    ],
)
def test_a_language_tag_is_sent_in_the_shape_searxng_takes(
    config: Any, search: Any, lang: str, country: str | None, sent: str
) -> None:
    """A valid tag SearXNG does not take (``zh-Hans-CN``, ``es-419``, ``EN``) was sent as
    given: its 400 failed the search as the caller's invalid_input, ending a chain."""
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).mock(side_effect=_searxng_language_check)
        envelope = search(config, backend="searxng", lang=lang, country=country)
    assert envelope["success"] is True, envelope
    assert route.calls.last.request.url.params["language"] == sent


@pytest.mark.parametrize(("safe", "value"), [("off", "0"), ("moderate", "1"), ("strict", "2")])
def test_safe_search_levels(config: Any, search: Any, safe: str, value: str) -> None:
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=SEARX_EMPTY)
        search(config, backend="searxng", safe_search=safe)
    assert route.calls.last.request.url.params["safesearch"] == value


def test_country_without_language_warns(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=SEARX_EMPTY)
        envelope = search(config, backend="searxng", country="fr")
    assert "language" not in route.calls.last.request.url.params
    assert any("country" in w for w in envelope["meta"]["warnings"])


def test_domain_filters_go_into_the_query_and_hold_on_results(config: Any, search: Any) -> None:
    body = {
        **SEARX_EMPTY,
        "results": [
            _searx_result("https://docs.searxng.org/admin/", "Admin", "…", ["brave"], 2.0),
            _searx_result("https://github.com/searxng/searxng", "GitHub", "…", ["duckduckgo"], 5.0),
            _searx_result("https://searxng.org/", "Home", "…", ["bing"], 1.0),
            _searx_result("https://notsearxng.org/", "Lookalike", "…", ["bing"], 9.0),
        ],
    }
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=body)
        envelope = search(
            config,
            "searxng admin",
            backend="searxng",
            include_domains=["searxng.org"],
            exclude_domains=["github.com"],
        )
    assert (
        route.calls.last.request.url.params["q"]
        == "searxng admin site:searxng.org -site:github.com"
    )
    assert [h["url"] for h in envelope["data"]["web"]] == [
        "https://docs.searxng.org/admin/",
        "https://searxng.org/",
    ]


def _failure(config: Any, search: Any, status: int, **response: Any) -> dict[str, Any]:
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(status, **response)
        envelope = search(config, backend="searxng")
    assert envelope["success"] is False, envelope
    return envelope


def test_403_explains_the_json_format_setting(config: Any, search: Any) -> None:
    envelope = _failure(
        config,
        search,
        403,
        text=SEARX_403_HTML,
        headers={"Content-Type": "text/html; charset=utf-8"},
    )
    assert envelope["error_code"] == "not_configured"
    assert "settings.yml" in envelope["error"] and "json" in envelope["error"]
    assert SEARX_URL in envelope["error"]


@pytest.mark.parametrize(
    ("status", "response", "code", "words"),
    [
        (
            429,
            {"text": "Too Many Requests", "headers": {"Content-Type": "text/plain"}},
            "rate_limited",
            "limiter",
        ),
        (
            400,
            {"json": {"error": 'Invalid value "decade" for parameter time_range'}},
            "invalid_input",
            "decade",
        ),
        (500, {"json": {"error": "search error"}}, "bad_gateway", "search error"),
        (
            502,
            {
                "text": "<html><h1>502 Bad Gateway</h1></html>",
                "headers": {"Content-Type": "text/html"},
            },
            "bad_gateway",
            "502",
        ),
        (
            401,
            {"text": "Unauthorized", "headers": {"WWW-Authenticate": "Bearer"}},
            "auth_error",
            "SEARXNG_API_KEY",
        ),
        (200, {"json": {"error": "search error"}}, "provider_error", "search error"),
        (
            200,
            {"text": "<html><form>Sign in</form></html>", "headers": {"Content-Type": "text/html"}},
            "parse_error",
            "HTML",
        ),
        (
            200,
            {
                "content": b'{"query": "x", "results": [{"url": "https://a.exa',
                "headers": {"Content-Type": "application/json"},
            },
            "parse_error",
            "JSON",
        ),
    ],
    ids=[
        "limiter-429",
        "bad-parameter-400",
        "search-error-500",
        "proxy-502",
        "proxy-401",
        "200-with-error",
        "html-login-page",
        "truncated-json",
    ],
)
def test_errors(
    config: Any, search: Any, status: int, response: dict[str, Any], code: str, words: str
) -> None:
    envelope = _failure(config, search, status, **response)
    assert envelope["error_code"] == code
    assert words in envelope["error"]


@pytest.mark.parametrize("label", ["undefined", "idna", "x-foo", "shift_jis"])
@pytest.mark.parametrize(("status", "code"), [(500, "bad_gateway"), (429, "rate_limited")])
def test_an_error_body_is_quoted_whatever_its_charset_label(
    config: Any, search: Any, label: str, status: int, code: str
) -> None:
    """Python's codecs ``undefined`` and ``idna`` fail whatever the error handler: a proxy's
    500 labelled so was ``provider_error`` ("UnicodeError"), not ``bad_gateway``. An unknown
    label counts as none, as in browsers, and the text is read in its own encoding."""
    body = "サーバーが混雑しています".encode("cp932")
    envelope = _failure(config, search, status, content=body, headers={"Content-Type": f"text/plain; charset={label}"})
    assert envelope["error_code"] == code, envelope
    assert 'The response said: "サーバーが混雑しています".' in envelope["error"]


def test_429_retry_after_header(config: Any, search: Any) -> None:
    envelope = _failure(
        config, search, 429, text="Too Many Requests", headers={"Retry-After": "30"}
    )
    assert envelope["retry_after"] == 30


def test_api_key_is_a_bearer_token_and_never_echoed(
    config: Any, search: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEARXNG_API_KEY", SEARX_KEY)
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=SEARX_SUCCESS)
        ok = search(config, backend="searxng")
    assert route.calls.last.request.headers["Authorization"] == f"Bearer {SEARX_KEY}"
    failed = _failure(config, search, 403, text=SEARX_403_HTML)
    assert "SEARXNG_API_KEY" in failed["error"]
    assert_no_secret(ok, SEARX_KEY)
    assert_no_secret(failed, SEARX_KEY)


def test_api_key_header_can_be_renamed(make_config: Any, search: Any) -> None:
    config = make_config(
        web=web(
            providers={
                "searxng": {
                    "base_url": SEARX_URL,
                    "api_key": SEARX_KEY,
                    "api_key_header": "X-API-Key",
                }
            }
        )
    )
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=SEARX_EMPTY)
        search(config, backend="searxng")
    headers = route.calls.last.request.headers
    assert headers["X-API-Key"] == SEARX_KEY
    assert "Authorization" not in headers


@pytest.mark.parametrize(
    ("env", "settings", "expected"),
    [
        ({"SEARXNG_BASE_URL": "http://127.0.0.1:7777"}, {}, "http://127.0.0.1:7777/search"),
        ({"SEARXNG_URL": "http://127.0.0.1:7777/search"}, {}, "http://127.0.0.1:7777/search"),
        (
            {"SEARXNG_URL": "http://127.0.0.1:7777"},
            {"base_url": "http://10.0.0.5:8080/searx/"},
            "http://10.0.0.5:8080/searx/search",
        ),
    ],
    ids=["base-url-alias", "endpoint-given", "config-overrides-env"],
)
def test_base_url_sources(
    make_config: Any,
    search: Any,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    settings: dict[str, Any],
    expected: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = make_config(web=web(providers={"searxng": settings}))
    with respx.mock() as mock:
        route = mock.get(expected).respond(200, json=SEARX_EMPTY)
        envelope = search(config, backend="searxng")
    assert envelope["success"] is True
    assert route.called


def test_a_password_in_a_url_variable_set_at_run_time_is_masked_at_once(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Watched variables are read again once a second; a base URL the provider reads is
    handed to the scrubber as it is read, as a key is, so the next call masks its password
    (a gateway's 400 quoting it read in full for up to a second)."""
    monkeypatch.setenv("SEARXNG_URL", SEARX_URL)
    config = make_config(web=web())
    gateway = "http://alice:Runtime0Pass99@127.0.0.1:8871"
    quoted = "upstream rejected user alice with password Runtime0Pass99"
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(200, json=SEARX_EMPTY)
        mock.get(url__startswith="http://127.0.0.1:8871/search").respond(400, text=quoted)
        dispatch_search("warm up", backend="searxng", config=config)  # the variables read now
        monkeypatch.setenv("SEARXNG_URL", gateway)
        envelope = dispatch_search("q", backend="searxng", config=config)
    assert envelope["error_code"] == "invalid_input", envelope
    assert "password ***" in envelope["error"] and "Runtime0Pass99" not in str(envelope)


def test_a_base_url_holding_a_byte_that_is_not_utf8_is_named_not_crashed_on(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A variable set from a file in another encoding reads as a lone surrogate: the provider
    is unavailable, naming the variable, as for a URL with no scheme (it was "The provider
    failed: UnicodeEncodeError", with no provider named)."""
    monkeypatch.setenv("SEARXNG_URL", "http://searx\udcff.example/")
    envelope = dispatch_search("q", backend="searxng", config=make_config(web=web()))
    assert envelope["error_code"] == "not_configured", envelope
    assert "SEARXNG_URL holds a character that is not text" in envelope["error"]
    json.dumps(envelope).encode("utf-8")


def test_unavailable_without_url_and_keyless_with_one(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = get_registry(make_config(web=web()))
    available, reason = registry.availability(registry.get("searxng"))
    assert available is False
    assert "SEARXNG_URL" in reason
    monkeypatch.setenv("SEARXNG_URL", SEARX_URL)
    registry = get_registry(make_config(web=web()))
    entry = registry.get("searxng")
    assert registry.availability(entry) == (True, None)
    assert entry.manifest.priority == 50
    assert entry.provider.key_required is False


@pytest.mark.parametrize(
    ("env", "settings", "seconds"),
    [
        ({"SEARXNG_TIMEOUT_MS": "2500", "WEB_SEARCH_TIMEOUT_MS": "9000"}, {}, 2.5),
        ({"WEB_SEARCH_TIMEOUT_MS": "9000"}, {}, 9.0),
        ({"SEARXNG_TIMEOUT_MS": "not-a-number", "WEB_SEARCH_TIMEOUT_MS": "4000"}, {}, 4.0),
        ({"SEARXNG_TIMEOUT_MS": "2500"}, {"timeout": 6}, 6.0),
    ],
    ids=["searxng-ms", "web-search-ms", "bad-value-skipped", "config-wins"],
)
def test_request_timeout(
    make_config: Any,
    search: Any,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    settings: dict[str, Any],
    seconds: float,
) -> None:
    monkeypatch.setenv("SEARXNG_URL", SEARX_URL)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = make_config(web=web(providers={"searxng": settings}))
    with respx.mock() as mock:
        route = mock.get(SEARCH_URL).respond(200, json=SEARX_EMPTY)
        search(config, backend="searxng")
    assert route.calls.last.request.extensions["timeout"]["read"] == pytest.approx(seconds)


def test_auto_detect_prefers_a_configured_instance_over_keyless_backends(
    config: Any, search: Any
) -> None:
    with respx.mock() as mock:
        mock.get(SEARCH_URL).respond(200, json=SEARX_EMPTY)
        envelope = search(config)
    assert envelope["provider"] == "searxng"
