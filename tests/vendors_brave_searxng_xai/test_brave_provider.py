"""Brave Search (``brave`` and ``brave-free``) against Brave's real response and error shapes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from webproviders.registry.providers import get_registry

from .bodies import (
    BRAVE_BAD_COUNTRY,
    BRAVE_EMPTY,
    BRAVE_NO_SUBSCRIPTION,
    BRAVE_NOT_IN_PLAN,
    BRAVE_QUOTA_LIMITED,
    BRAVE_RATE_HEADERS_OK,
    BRAVE_RATE_LIMITED,
    BRAVE_RATE_LIMITED_QUOTA_SPENT,
    BRAVE_SEARCH_PLAN_HEADERS,
    BRAVE_SEARCH_PLAN_RATE_LIMITED,
    BRAVE_SUCCESS,
    BRAVE_TOKEN_INVALID,
    BRAVE_TOKEN_INVALID_DOCS_SHAPE,
    BRAVE_TOKEN_MISSING,
    brave_error,
    brave_rate_headers,
)
from .helpers import BRAVE_KEY, BRAVE_URL, assert_no_secret, web


@pytest.fixture
def config(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", BRAVE_KEY)
    return make_config(web=web())


def test_success_maps_brave_results(config: Any, search: Any) -> None:
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS, headers=BRAVE_RATE_HEADERS_OK)
        envelope = search(config, backend="brave")
    assert envelope["success"] is True, envelope
    assert envelope["provider"] == "brave"
    first, second = envelope["data"]["web"]
    assert first == {
        "title": "Tokio - An asynchronous Rust runtime",
        "url": "https://tokio.rs/",
        "description": "Tokio is an asynchronous runtime for the Rust programming language & its ecosystem.",
        "position": 1,
        "published_at": "2026-09-01T10:00:00",
        "extra_snippets": [
            "Tokio provides the building blocks needed for writing network applications."
        ],
    }
    assert second["url"] == "https://async.rs/" and second["position"] == 2
    assert "published_at" not in second  # only "age": "2 weeks ago", which is not a date
    request = route.calls.last.request
    assert request.headers["X-Subscription-Token"] == BRAVE_KEY
    assert request.headers["Accept"] == "application/json"
    assert dict(request.url.params) == {"q": "rust async runtime", "count": "5"}
    assert "warnings" not in envelope["meta"]
    assert_no_secret(envelope, BRAVE_KEY)


def test_async_dispatch(config: Any, asearch: Any) -> None:
    with respx.mock() as mock:
        mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = asearch(config, backend="brave", limit=1)
    assert envelope["success"] is True
    assert [hit["url"] for hit in envelope["data"]["web"]] == ["https://tokio.rs/"]


@pytest.mark.parametrize(
    "body",
    [
        BRAVE_EMPTY,
        {**BRAVE_EMPTY, "web": {"type": "search", "results": [], "family_friendly": True}},
    ],
    ids=["no-web-section", "empty-web-results"],
)
def test_empty_result_is_an_empty_success(config: Any, search: Any, body: dict[str, Any]) -> None:
    with respx.mock() as mock:
        mock.get(BRAVE_URL).respond(200, json=body)
        envelope = search(config, "zxqv nonexistent term", backend="brave")
    assert envelope["success"] is True
    assert envelope["data"]["web"] == []


@pytest.mark.parametrize("body", [{}, {"status": "ok"}])
def test_an_answer_that_is_not_a_web_search_is_a_parse_error(config: Any, search: Any, body: dict[str, Any]) -> None:
    """Brave's sections are optional, but every web-search answer is ``"type": "search"``:
    ``{}`` (another service at the base URL) read as "nothing found", a chain stopping at it."""
    with respx.mock() as mock:
        mock.get(BRAVE_URL).respond(200, json=body)
        alone = search(config, "rust", backend="brave")
        chained = search(config, "rust", backend=["brave", "stub"])
    assert alone["success"] is False and alone["error_code"] == "parse_error", alone
    assert "without 'type': 'search'" in alone["error"]
    assert chained["success"] is True and chained["provider"] == "stub"


def test_option_mapping(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(
            config,
            "tokio",
            backend="brave",
            limit=10,
            time_range="week",
            country="de",
            lang="ja",
            safe_search="strict",
            include_domains=["tokio.rs", "docs.rs"],
            exclude_domains=["reddit.com"],
        )
    assert envelope["success"] is True
    params = dict(route.calls.last.request.url.params)
    assert params == {
        "q": "tokio site:tokio.rs OR site:docs.rs -site:reddit.com",
        "count": "10",
        "freshness": "pw",
        "country": "DE",
        "search_lang": "jp",
        "safesearch": "strict",
    }
    assert "warnings" not in envelope["meta"]


def _brave_country_enum(request: Any) -> Any:
    """Brave's ``country`` is an enum of two-letter codes (the United Kingdom's is ``GB``):
    anything else is its 422."""
    country = request.url.params.get("country", "ALL")
    if (len(country) != 2 or country.upper() == "UK") and country != "ALL":
        return respx.MockResponse(422, json=BRAVE_BAD_COUNTRY)
    return respx.MockResponse(200, json=BRAVE_SUCCESS)


@pytest.mark.parametrize(("given", "sent"), [("deu", "DE"), ("GBR", "GB"), ("usa", "US"), ("uk", "GB"), ("UK", "GB")])
def test_a_three_letter_country_or_uk_is_sent_as_brave_two_letter_code(
    config: Any, search: Any, given: str, sent: str
) -> None:
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).mock(side_effect=_brave_country_enum)
        envelope = search(config, backend="brave", country=given)
    assert envelope["success"] is True, envelope
    assert route.calls.last.request.url.params["country"] == sent


@pytest.mark.parametrize(
    ("time_range", "freshness"), [("day", "pd"), ("week", "pw"), ("month", "pm"), ("year", "py")]
)
def test_time_range_to_freshness(config: Any, search: Any, time_range: str, freshness: str) -> None:
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        search(config, backend="brave", time_range=time_range)
    assert route.calls.last.request.url.params["freshness"] == freshness


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en-US", "en"),
        ("en-GB", "en-gb"),
        ("pt_BR", "pt-br"),
        ("zh-TW", "zh-hant"),
        ("de", "de"),
        # A script subtag before the region: traditional Chinese was sent as simplified.
        ("zh-Hant-TW", "zh-hant"),
        ("zh-Hant-HK", "zh-hant"),
        ("zh-MO", "zh-hant"),
        ("zh-Hans-CN", "zh-hans"),
    ],
)
def test_language_codes_follow_brave(config: Any, search: Any, lang: str, expected: str) -> None:
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        search(config, backend="brave", lang=lang)
    assert route.calls.last.request.url.params["search_lang"] == expected


def _brave_pages(total: int, failing: int | None = None) -> Any:
    """Brave holding ``total`` results for the query: ``offset`` counts pages of ``count``
    (Brave's docs), ``query.more_results_available`` says whether a later page holds more."""
    first = BRAVE_SUCCESS["web"]["results"][0]

    def answer(request: Any) -> Any:
        count = int(request.url.params["count"])
        offset = int(request.url.params.get("offset", "0"))
        if offset == failing:
            return httpx.Response(500, json=brave_error(500, "SERVER_ERROR", "Unable to serve."))
        start = offset * count
        results = [{**first, "url": f"https://site{n}.example/", "title": f"Result {n}"} for n in range(start, min(total, start + count))]
        query = {**BRAVE_SUCCESS["query"], "more_results_available": start + count < total}
        return httpx.Response(200, json={**BRAVE_SUCCESS, "query": query, "web": {**BRAVE_SUCCESS["web"], "results": results}})

    return answer


def test_a_limit_above_20_reads_the_next_pages(config: Any, search: Any) -> None:
    """Brave serves 20 results a request: a limit of 35 got 20 and a warning, although Brave
    pages with ``offset`` (up to 9)."""
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).mock(side_effect=_brave_pages(100))
        envelope = search(config, backend="brave", limit=35)
    assert envelope["success"] is True, envelope
    assert [h["url"] for h in envelope["data"]["web"]] == [f"https://site{n}.example/" for n in range(35)]
    sent = [dict(call.request.url.params) for call in route.calls]
    assert [(p["count"], p.get("offset")) for p in sent] == [("20", None), ("20", "1")]
    assert "warnings" not in envelope["meta"]
    assert envelope["meta"]["cost"]["units"] == 2  # each page is a request Brave bills


def test_a_later_page_is_not_read_when_its_cost_would_go_over_the_budget(
    make_config: Any, search: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page is a request Brave bills: a call reserved one request's cost, then read
    three pages, and a $0.01 daily budget had $0.015 spent on it."""
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", BRAVE_KEY)
    config = make_config(web=web(budget={"daily_usd": 0.01}))
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).mock(side_effect=_brave_pages(100))
        envelope = search(config, backend="brave", limit=50)
        assert envelope["success"] is True, envelope
        assert route.call_count == 2 and len(envelope["data"]["web"]) == 40
        assert envelope["meta"]["cost"]["usd"] == 0.01
        assert any(
            "next page of results was not read, as its cost was not within the spending budget" in w
            and "web.budget.daily_usd" in w
            for w in envelope["meta"]["warnings"]
        )
        refused = search(config, backend="brave", limit=50)
    assert refused["error_code"] == "budget_exceeded" and "$0.0100 is already spent" in refused["error"]
    assert route.call_count == 2


def test_paging_stops_when_brave_has_no_more_results(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).mock(side_effect=_brave_pages(30))
        envelope = search(config, backend="brave", limit=50)
        assert len(envelope["data"]["web"]) == 30 and route.call_count == 2
        # A limit one request covers is not paged for, though Brave may deliver fewer.
        search(config, backend="brave", limit=10)
        assert route.call_count == 3


def test_a_later_page_that_fails_keeps_the_pages_read(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        mock.get(BRAVE_URL).mock(side_effect=_brave_pages(100, failing=2))
        envelope = search(config, backend="brave", limit=50)
    assert envelope["success"] is True, envelope
    assert len(envelope["data"]["web"]) == 40
    assert any("next page of results was not read" in w for w in envelope["meta"]["warnings"])


def test_brave_free_reads_one_page_with_a_warning(config: Any, search: Any) -> None:
    """The free plan takes one request a second: a second page at once would be its 429."""
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).mock(side_effect=_brave_pages(100))
        envelope = search(config, backend="brave-free", limit=35)
    assert route.call_count == 1
    assert route.calls.last.request.url.params["count"] == "20"
    assert any("at most 20 results" in w for w in envelope["meta"]["warnings"])


def test_query_over_brave_limits_is_refused_before_sending(config: Any, search: Any) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(config, " ".join(["word"] * 51), backend="brave")
    assert not route.called
    assert envelope["success"] is False
    assert envelope["error_code"] == "invalid_input"
    assert "50 words" in envelope["error"]


def test_spelling_correction_is_reported(config: Any, search: Any) -> None:
    body = {**BRAVE_SUCCESS, "query": {**BRAVE_SUCCESS["query"], "altered": "rust async runtime"}}
    with respx.mock() as mock:
        mock.get(BRAVE_URL).respond(200, json=body)
        envelope = search(config, "rust asynk runtme", backend="brave")
    assert any("spelling corrected" in w for w in envelope["meta"]["warnings"])


def _failure(config: Any, search: Any, status: int, **response: Any) -> dict[str, Any]:
    with respx.mock() as mock:
        mock.get(BRAVE_URL).respond(status, **response)
        envelope = search(config, backend="brave")
    assert envelope["success"] is False, envelope
    assert_no_secret(envelope, BRAVE_KEY)
    return envelope


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (422, BRAVE_TOKEN_INVALID, "auth_error"),
        (422, BRAVE_TOKEN_INVALID_DOCS_SHAPE, "auth_error"),
        (422, BRAVE_TOKEN_MISSING, "auth_error"),
        (400, BRAVE_NOT_IN_PLAN, "auth_error"),
        (404, BRAVE_NO_SUBSCRIPTION, "auth_error"),
        (401, None, "auth_error"),
        (422, BRAVE_BAD_COUNTRY, "invalid_input"),
        (
            500,
            brave_error(500, "INTERNAL_ERROR", "Internal server error.", {"component": "api"}),
            "bad_gateway",
        ),
        (200, BRAVE_TOKEN_INVALID, "auth_error"),
        (
            200,
            brave_error(200, "UNKNOWN", "Something odd happened.", {"component": "api"}),
            "provider_error",
        ),
    ],
    ids=[
        "token-invalid-422",
        "token-invalid-docs-shape",
        "token-missing",
        "option-not-in-plan",
        "no-subscription",
        "plain-401",
        "bad-parameter",
        "server-error",
        "200-with-auth-error",
        "200-with-unknown-error",
    ],
)
def test_error_bodies(config: Any, search: Any, status: int, body: Any, code: str) -> None:
    envelope = (
        _failure(config, search, status, json=body) if body else _failure(config, search, status)
    )
    assert envelope["error_code"] == code


def test_bad_parameter_names_the_field(config: Any, search: Any) -> None:
    envelope = _failure(config, search, 422, json=BRAVE_BAD_COUNTRY)
    assert "query.country" in envelope["error"]


def test_rate_limited_uses_the_exhausted_window_reset(config: Any, search: Any) -> None:
    headers = {
        **BRAVE_RATE_HEADERS_OK,
        "X-RateLimit-Remaining": "0, 1582",
        "X-RateLimit-Reset": "1, 1419704",
    }
    envelope = _failure(config, search, 429, json=BRAVE_RATE_LIMITED, headers=headers)
    assert envelope["error_code"] == "rate_limited"
    assert envelope["retryable"] is True
    assert envelope["retry_after"] == 1


def test_rate_limited_prefers_retry_after(config: Any, search: Any) -> None:
    headers = {**BRAVE_RATE_HEADERS_OK, "Retry-After": "7"}
    envelope = _failure(config, search, 429, json=BRAVE_RATE_LIMITED, headers=headers)
    assert envelope["retry_after"] == 7


def test_monthly_quota_is_quota_exceeded(config: Any, search: Any) -> None:
    headers = {
        **BRAVE_RATE_HEADERS_OK,
        "X-RateLimit-Remaining": "1, 0",
        "X-RateLimit-Reset": "1, 1419704",
    }
    envelope = _failure(config, search, 429, json=BRAVE_QUOTA_LIMITED, headers=headers)
    assert envelope["error_code"] == "quota_exceeded"
    assert envelope["retryable"] is False
    assert envelope["retry_after"] == 1419704


def test_429_without_body_reads_the_headers(config: Any, make_config: Any, search: Any) -> None:
    spent = {**BRAVE_RATE_HEADERS_OK, "X-RateLimit-Remaining": "1, 0"}
    assert _failure(config, search, 429, headers=spent)["error_code"] == "quota_exceeded"
    # A fresh config: the first answer put brave in a quota cool-down for this registry.
    envelope = _failure(make_config(web=web()), search, 429, headers=BRAVE_RATE_HEADERS_OK)
    assert (envelope["error_code"], envelope["retry_after"]) == ("rate_limited", 1)


def test_monthly_window_at_zero_is_quota_exceeded_even_when_brave_says_rate_limited(
    config: Any, search: Any
) -> None:
    headers = brave_rate_headers("1, 0")
    envelope = _failure(config, search, 429, json=BRAVE_RATE_LIMITED, headers=headers)
    assert envelope["error_code"] == "quota_exceeded"
    assert envelope["retryable"] is False
    assert envelope["retry_after"] == 1419704
    assert "monthly request quota (2,000 requests) is used up" in envelope["error"]
    assert "16.4 days" in envelope["error"]
    assert "per second" not in envelope["error"]


def test_quota_counters_in_the_body_mean_quota_exceeded(config: Any, search: Any) -> None:
    # No rate-limit headers at all: the body's quota_current has reached quota_limit.
    envelope = _failure(config, search, 429, json=BRAVE_RATE_LIMITED_QUOTA_SPENT)
    assert envelope["error_code"] == "quota_exceeded"
    assert "per second" not in envelope["error"]


def test_search_plan_without_monthly_cap_is_rate_limited(config: Any, search: Any) -> None:
    # quota_limit 0 and a monthly window of "0" are Brave's way of saying "no monthly cap".
    envelope = _failure(
        config, search, 429, json=BRAVE_SEARCH_PLAN_RATE_LIMITED, headers=BRAVE_SEARCH_PLAN_HEADERS
    )
    assert (envelope["error_code"], envelope["retry_after"]) == ("rate_limited", 1)
    assert "50 request(s) per second are used up (HTTP 429, RATE_LIMITED)" in envelope["error"]


def test_window_lengths_come_from_the_policy_not_the_order(config: Any, search: Any) -> None:
    monthly_first = {"limit": "2000, 1", "reset": "1419704, 1", "policy": "2000;w=2592000, 1;w=1"}
    headers = brave_rate_headers("1500, 0", **monthly_first)
    envelope = _failure(config, search, 429, json=BRAVE_RATE_LIMITED, headers=headers)
    assert (envelope["error_code"], envelope["retry_after"]) == ("rate_limited", 1)
    spent = brave_rate_headers("0, 1", **monthly_first)
    fresh = _failure(config, search, 429, json=BRAVE_RATE_LIMITED, headers=spent)
    assert (fresh["error_code"], fresh["retry_after"]) == ("quota_exceeded", 1419704)


def test_plain_text_429_is_explained_without_guessing_the_window(config: Any, search: Any) -> None:
    envelope = _failure(
        config,
        search,
        429,
        text="Too Many Requests",
        headers={"Content-Type": "text/plain", "Retry-After": "3"},
    )
    assert (envelope["error_code"], envelope["retry_after"]) == ("rate_limited", 3)
    assert envelope["error"] == (
        "brave is rate limiting requests (HTTP 429). Retry after 3 s. "
        'The response said: "Too Many Requests".'
    )


@pytest.mark.parametrize(
    "response",
    [
        {
            "status_code": 200,
            "text": "<html><body>Just a moment...</body></html>",
            "headers": {"Content-Type": "text/html"},
        },
        {
            "status_code": 200,
            "content": b'{"type": "search", "web": {"results": [{"title": "Tok',
            "headers": {"Content-Type": "application/json"},
        },
        {"status_code": 200, "json": ["not", "an", "object"]},
        {"status_code": 200, "json": {"type": "search", "web": {"results": "oops"}}},
    ],
    ids=["html", "truncated-json", "json-array", "results-not-a-list"],
)
def test_malformed_bodies_are_parse_errors(
    config: Any, search: Any, response: dict[str, Any]
) -> None:
    status = response.pop("status_code")
    envelope = _failure(config, search, status, **response)
    assert envelope["error_code"] == "parse_error"


def test_gateway_html_5xx_is_bad_gateway(config: Any, search: Any) -> None:
    envelope = _failure(
        config,
        search,
        502,
        text="<html>502 Bad Gateway</html>",
        headers={"Content-Type": "text/html"},
    )
    assert envelope["error_code"] == "bad_gateway"


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        (
            "http://127.0.0.1:9911/brave-proxy",
            "http://127.0.0.1:9911/brave-proxy/res/v1/web/search",
        ),
        ("http://127.0.0.1:9911/res/v1/", "http://127.0.0.1:9911/res/v1/web/search"),
    ],
)
def test_base_url_override(make_config: Any, search: Any, base_url: str, expected: str) -> None:
    config = make_config(web=web(providers={"brave": {"api_key": BRAVE_KEY, "base_url": base_url}}))
    with respx.mock() as mock:
        route = mock.get(expected).respond(200, json=BRAVE_SUCCESS)
        envelope = search(config, backend="brave")
    assert envelope["success"] is True
    assert route.called


def test_config_key_wins_over_environment(
    make_config: Any, search: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "env-key-should-not-be-used")
    config = make_config(web=web(providers={"brave": {"api_key": BRAVE_KEY}}))
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        search(config, backend="brave")
    assert route.calls.last.request.headers["X-Subscription-Token"] == BRAVE_KEY


def test_brave_api_key_alias(
    make_config: Any, search: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", BRAVE_KEY)
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(make_config(web=web()), backend="brave")
    assert envelope["success"] is True
    assert route.calls.last.request.headers["X-Subscription-Token"] == BRAVE_KEY


def test_without_key_it_is_not_configured(make_config: Any, search: Any) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(make_config(web=web()), backend="brave")
    assert not route.called
    assert envelope["error_code"] == "not_configured"
    assert "BRAVE_SEARCH_API_KEY" in envelope["error"]


# ------------------------------------------------------------------ brave-free ------------


def test_brave_free_is_the_same_api_with_a_one_per_second_budget(config: Any, search: Any) -> None:
    entry = get_registry(config).get("brave-free")
    assert entry is not None
    assert entry.manifest.rate_limit == "1/s"
    assert entry.manifest.auto_detect is False
    assert get_registry(config).get("brave").manifest.rate_limit is None
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(config, backend="brave-free", time_range="day")
    assert envelope["success"] is True
    assert envelope["provider"] == "brave-free"
    assert route.calls.last.request.url.params["freshness"] == "pd"


def test_brave_free_errors_name_brave_free(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        mock.get(BRAVE_URL).respond(
            429, json=BRAVE_QUOTA_LIMITED, headers={"X-RateLimit-Remaining": "1, 0"}
        )
        envelope = search(config, backend="brave-free")
    assert envelope["error_code"] == "quota_exceeded"
    assert envelope["error"].startswith("brave-free")


def test_auto_detect_picks_paid_brave_for_a_bare_key(config: Any, search: Any) -> None:
    with respx.mock() as mock:
        mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(config)
    assert envelope["provider"] == "brave"


def test_setup_schema(config: Any) -> None:
    registry = get_registry(config)
    paid = registry.get("brave").provider.get_setup_schema()
    free = registry.get("brave-free").provider.get_setup_schema()
    assert paid["env_vars"][0]["key"] == free["env_vars"][0]["key"] == "BRAVE_SEARCH_API_KEY"
    assert paid["env_vars"][0]["url"].startswith("https://")
    assert (paid["name"], free["name"]) == ("Brave Search", "Brave Search (free plan)")


@pytest.mark.parametrize(
    ("option", "value", "warning"),
    [
        ("country", "GR", "brave does not offer results for the country 'GR'; country ignored."),
        ("lang", "el", "brave does not search in the language 'el'; lang ignored."),
    ],
)
def test_a_country_or_language_outside_brave_s_lists_is_warned_not_sent(
    config: Any, search: Any, option: str, value: str, warning: str
) -> None:
    """Brave's ``country`` and ``search_lang`` are enums: a valid code it does not list was
    sent, and its 422 failed the call as the caller's invalid_input (ending a chain that
    another provider could serve)."""
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(config, backend="brave", **{option: value})
    assert envelope["success"] is True, envelope
    params = route.calls.last.request.url.params
    assert "country" not in params and "search_lang" not in params
    assert envelope["meta"]["warnings"] == [warning]


@pytest.mark.parametrize("setting", [True, "true", "${BRAVE_SNIPPETS}"])
def test_extra_snippets_are_asked_for_when_the_set_up_says_so(
    make_config: Any, search: Any, monkeypatch: pytest.MonkeyPatch, setting: Any
) -> None:
    """Brave sends a hit's other excerpts only when the request asks: the docs promised them and
    no request asked, so no hit ever had them."""
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", BRAVE_KEY)
    monkeypatch.setenv("BRAVE_SNIPPETS", "yes")
    config = make_config(web=web(providers={"brave": {"extra_snippets": setting}}))
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(config, backend="brave", limit=1)
    assert envelope["success"] is True, envelope
    assert route.calls.last.request.url.params["extra_snippets"] == "true"
    assert envelope["data"]["web"][0]["extra_snippets"]


@pytest.mark.parametrize("setting", [None, False, "false", ""])
def test_extra_snippets_are_not_asked_for_unless_set(
    make_config: Any, search: Any, monkeypatch: pytest.MonkeyPatch, setting: Any
) -> None:
    """A plan without them refuses the whole search (OPTION_NOT_IN_PLAN): never asked unasked."""
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", BRAVE_KEY)
    providers = {} if setting is None else {"brave": {"extra_snippets": setting}}
    config = make_config(web=web(providers=providers))
    with respx.mock() as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_SUCCESS)
        envelope = search(config, backend="brave", limit=1)
    assert envelope["success"] is True, envelope
    assert "extra_snippets" not in route.calls.last.request.url.params
