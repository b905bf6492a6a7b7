"""The web.search tool contract: one test per rule."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest
import respx

from webproviders import list_providers
from webproviders.agents.search_contract import (
    TOOL_NAME,
    WebSearchContract,
    WebSearchError,
    items_from_envelope,
)

ITEM_KEYS = {"title", "url", "snippet", "provider", "rank"}
STUB_NOTICE = (
    "These are offline placeholder results from the stub backend, not from the web: "
    "no real backend is configured for this call."
)


def run(tool: WebSearchContract, arguments: Any) -> dict[str, Any]:
    return tool.run(arguments)


def error_of(tool: WebSearchContract, arguments: Any) -> WebSearchError:
    with pytest.raises(WebSearchError) as info:
        tool.run(arguments)
    return info.value


def test_defaults_to_stub_without_any_environment(make_config: Any) -> None:
    tool = WebSearchContract(make_config())
    assert tool.name == TOOL_NAME == "web.search"
    assert tool.settings.backend == "stub"
    result = run(tool, {"query": "offline by default"})
    assert list(result) == ["items", "meta"]
    assert result["meta"] == {"warnings": [STUB_NOTICE]}
    assert "no real backend is configured" in STUB_NOTICE
    assert len(result["items"]) == 5
    assert all(set(item) == ITEM_KEYS and item["provider"] == "stub" for item in result["items"])
    assert [item["rank"] for item in result["items"]] == [1, 2, 3, 4, 5]


def test_unknown_backend_is_logged_and_answered_by_stub(
    monkeypatch: pytest.MonkeyPatch, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "altavista")
    with caplog.at_level(logging.WARNING, logger="webproviders.agents.search_contract"):
        tool = WebSearchContract(make_config())
    assert tool.settings.backend == "stub"
    assert any("altavista" in r.getMessage() and "stub" in r.getMessage() for r in caplog.records)
    result = run(tool, {"query": "x", "max_results": 2})
    assert result["items"][0]["provider"] == "stub"
    unknown, stub = result["meta"]["warnings"]
    assert "WEB_SEARCH_BACKEND names unknown search backend(s) 'altavista'; answering with 'stub'" in unknown
    assert stub == STUB_NOTICE


@pytest.mark.parametrize("setting", ["probe", "probe,altavista"])
def test_known_backend_comes_from_the_environment(
    setting: str, monkeypatch: pytest.MonkeyPatch, probe_config: Any
) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", setting)
    tool = WebSearchContract(probe_config())
    assert tool.settings.backend == "probe"
    result = run(tool, {"query": "anything"})
    assert {item["provider"] for item in result["items"]} == {"probe"}
    if setting == "probe":
        assert list(result) == ["items"]  # a real backend answered: nothing to warn about
        return
    known = sorted(r["name"] for r in list_providers(probe_config()) if "search" in r["capabilities"])
    assert result["meta"]["warnings"] == [  # an unknown name in a chain is said in every answer
        f"WEB_SEARCH_BACKEND names unknown search backend(s) 'altavista'. Known: {', '.join(known)}."
    ]


@pytest.mark.parametrize("query", ["", "   ", None, 42])
def test_query_needs_at_least_one_character(query: Any, make_config: Any) -> None:
    error = error_of(WebSearchContract(make_config()), {"query": query})
    assert error.code == "InvalidInput"
    assert "query" in error.message


def test_one_character_query_is_enough(make_config: Any) -> None:
    assert (
        run(WebSearchContract(make_config()), {"query": "a", "max_results": 1})["items"][0]["rank"] == 1
    )


@pytest.mark.parametrize("bad", [0, 11, -1, True, "many", 2.5])
def test_max_results_outside_1_to_10_is_invalid(bad: Any, make_config: Any) -> None:
    error = error_of(WebSearchContract(make_config()), {"query": "x", "max_results": bad})
    assert error.code == "InvalidInput"
    assert "max_results" in error.message


def test_max_results_written_with_an_exponent_is_held_to_the_range(make_config: Any) -> None:
    """``1e20`` (how JavaScript writes a large number) was refused with "Unable to parse input
    string as an integer, exceeded maximum size"."""
    error = error_of(WebSearchContract(make_config()), {"query": "x", "max_results": 1e20})
    assert error.message == "Invalid web.search input: max_results: Input should be less than or equal to 10."


@pytest.mark.parametrize("count", [1, 10])
def test_max_results_bounds_are_honoured(count: int, make_config: Any) -> None:
    assert (
        len(run(WebSearchContract(make_config()), {"query": "x", "max_results": count})["items"])
        == count
    )


def test_non_http_urls_are_dropped_and_rank_follows_de_duplication(
    monkeypatch: pytest.MonkeyPatch, probe_config: Any
) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "probe")
    items = run(WebSearchContract(probe_config()), {"query": "mixed", "max_results": 10})["items"]
    assert [item["url"] for item in items] == [
        "https://alpha.example.org/",
        "http://beta.example.org/page",
        "https://gamma.example.org/",
    ]
    assert [item["rank"] for item in items] == [1, 2, 3]
    assert items[0]["snippet"] == "first"
    assert items[2]["title"] == "" and items[2]["snippet"] == ""


def test_raw_upstream_fields_never_reach_the_caller(
    monkeypatch: pytest.MonkeyPatch, probe_config: Any
) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "probe")
    items = run(WebSearchContract(probe_config()), {"query": "mixed"})["items"]
    assert all(set(item) == ITEM_KEYS for item in items)
    assert "upstream" not in repr(items)


def test_the_contract_layer_itself_filters_merges_and_ranks() -> None:
    envelope = {
        "success": True,
        "provider": "fused",
        "data": {
            "web": [
                {
                    "title": "A",
                    "url": "https://a.example/",
                    "description": "a",
                    "provider": "brave",
                    "position": 1,
                },
                {"title": "bad", "url": "ftp://a.example/", "description": "", "position": 2},
                {
                    "title": "A twin",
                    "url": "https://a.example/",
                    "description": "dup",
                    "provider": "exa",
                    "position": 3,
                },
                {"title": "B", "url": "http://b.example/", "description": "b", "position": 4},
                {"title": "C", "url": "https://c.example/", "description": "c", "position": 5},
            ]
        },
    }
    items = items_from_envelope(envelope, 2)
    assert items == [
        {"title": "A", "url": "https://a.example/", "snippet": "a", "provider": "brave", "rank": 1},
        {"title": "B", "url": "http://b.example/", "snippet": "b", "provider": "fused", "rank": 2},
    ]


@pytest.mark.parametrize(
    ("query", "code", "detail_code"),
    [
        ("fail-invalid", "InvalidInput", None),
        ("fail-provider", "WebProviderError", None),
        ("fail-unsupported", "WebProviderError", None),
        ("fail-quota", "WebProviderError", None),
        ("fail-crash", "WebProviderError", None),
        ("fail-timeout", "Timeout", None),
        ("fail-captcha", "WebBlocked", "captcha_required"),
        ("fail-403", "WebBlocked", "http_403"),
        ("fail-ratelimit", "WebBlocked", "http_429"),
        ("fail-parse", "WebParseError", None),
        ("fail-network", "NetworkError", None),
        ("fail-auth", "AuthError", None),
        ("fail-notconfigured", "AuthError", None),
        ("fail-badgateway", "BadGateway", None),
    ],
)
def test_error_codes(
    query: str,
    code: str,
    detail_code: str | None,
    monkeypatch: pytest.MonkeyPatch,
    probe_config: Any,
) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "probe")
    error = error_of(WebSearchContract(probe_config()), {"query": query})
    assert error.code == code
    assert error.detail_code == detail_code
    assert error.to_dict()["code"] == code
    assert ("detail_code" in error.to_dict()) == (detail_code is not None)
    assert len(error.message) <= 500  # a sentence, never a raw upstream body


def test_timeout_comes_from_web_search_timeout_ms(
    monkeypatch: pytest.MonkeyPatch, probe_config: Any
) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "probe")
    monkeypatch.setenv("WEB_SEARCH_TIMEOUT_MS", "200")
    tool = WebSearchContract(probe_config())
    assert tool.settings.timeout == 0.2
    with pytest.raises(WebSearchError) as info:
        asyncio.run(tool.arun({"query": "slow"}))
    assert info.value.code == "Timeout"
    assert info.value.retryable is True


def test_a_bad_timeout_is_logged_and_ignored(
    monkeypatch: pytest.MonkeyPatch, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("WEB_SEARCH_TIMEOUT_MS", "soon")
    with caplog.at_level(logging.WARNING, logger="webproviders.agents.search_contract"):
        tool = WebSearchContract(make_config())
    assert tool.settings.timeout is None
    assert any("WEB_SEARCH_TIMEOUT_MS" in r.getMessage() for r in caplog.records)


def test_searxng_settings_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, make_config: Any
) -> None:
    monkeypatch.setenv("SEARXNG_BASE_URL", "http://127.0.0.1:8888")
    monkeypatch.setenv("SEARXNG_API_KEY", "searx-proxy-token")
    monkeypatch.setenv("SEARXNG_TIMEOUT_MS", "2500")
    monkeypatch.setenv("WEB_SEARCH_TIMEOUT_MS", "9000")
    settings = WebSearchContract(make_config()).config.provider("searxng")
    assert settings.base_url == "http://127.0.0.1:8888"
    assert settings.api_keys() == ["searx-proxy-token"]
    assert settings.timeout == 2.5


def test_searxng_timeout_falls_back_to_web_search_timeout(
    monkeypatch: pytest.MonkeyPatch, make_config: Any
) -> None:
    monkeypatch.setenv("SEARXNG_BASE_URL", "http://127.0.0.1:8888")
    monkeypatch.setenv("WEB_SEARCH_TIMEOUT_MS", "9000")
    assert WebSearchContract(make_config()).config.provider("searxng").timeout == 9.0


SEARXNG_BODY = {
    "query": "fastapi",
    "number_of_results": 0,
    "results": [
        {
            "url": "https://fastapi.tiangolo.com/",
            "title": "FastAPI",
            "content": "FastAPI framework, high performance, easy to learn.",
            "engine": "duckduckgo",
            "parsed_url": ["https", "fastapi.tiangolo.com", "/", "", "", ""],
            "template": "default.html",
            "engines": ["duckduckgo", "brave"],
            "positions": [1, 1],
            "score": 4.0,
            "category": "general",
        },
        {
            "url": "https://github.com/fastapi/fastapi",
            "title": "GitHub - fastapi/fastapi",
            "content": "FastAPI framework source code.",
            "engine": "brave",
            "parsed_url": ["https", "github.com", "/fastapi/fastapi", "", "", ""],
            "template": "default.html",
            "engines": ["brave"],
            "positions": [2],
            "score": 0.5,
            "category": "general",
        },
    ],
    "answers": [],
    "corrections": [],
    "infoboxes": [],
    "suggestions": ["fastapi tutorial"],
    "unresponsive_engines": [],
}


def test_searxng_end_to_end_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, make_config: Any
) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "searxng")
    monkeypatch.setenv("SEARXNG_BASE_URL", "http://searx.test:8080")
    monkeypatch.setenv("SEARXNG_API_KEY", "searx-proxy-token")
    tool = WebSearchContract(make_config())
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get("http://searx.test:8080/search").respond(200, json=SEARXNG_BODY)
        items = run(tool, {"query": "fastapi", "max_results": 5})["items"]
    request = route.calls.last.request
    assert request.url.params["q"] == "fastapi" and request.url.params["format"] == "json"
    assert request.headers["authorization"] == "Bearer searx-proxy-token"
    assert items == [
        {
            "title": "FastAPI",
            "url": "https://fastapi.tiangolo.com/",
            "snippet": "FastAPI framework, high performance, easy to learn.",
            "provider": "searxng",
            "rank": 1,
        },
        {
            "title": "GitHub - fastapi/fastapi",
            "url": "https://github.com/fastapi/fastapi",
            "snippet": "FastAPI framework source code.",
            "provider": "searxng",
            "rank": 2,
        },
    ]


def test_searxng_server_error_is_bad_gateway(
    monkeypatch: pytest.MonkeyPatch, make_config: Any
) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "searxng")
    monkeypatch.setenv("SEARXNG_BASE_URL", "http://searx.test:8080")
    tool = WebSearchContract(make_config())
    with respx.mock(assert_all_called=True) as mock:
        mock.get("http://searx.test:8080/search").mock(
            return_value=httpx.Response(500, text="<html>Internal Server Error</html>")
        )
        error = error_of(tool, {"query": "fastapi"})
    assert error.code == "BadGateway"
    assert "<html>" not in error.message


def test_async_and_json_string_arguments(make_config: Any) -> None:
    tool = WebSearchContract(make_config())
    result = asyncio.run(tool.arun('{"query": "async", "max_results": 3}'))
    assert [item["rank"] for item in result["items"]] == [1, 2, 3]
    assert error_of(tool, "{oops").code == "InvalidInput"


@pytest.mark.parametrize(
    "arguments",
    ["[" * 100_000, '{"query": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001],
    ids=["lists", "objects"],
)
def test_arguments_nested_too_deeply_are_invalid_input(make_config: Any, arguments: str) -> None:
    """A model's runaway JSON is the contract's InvalidInput, never a RecursionError."""
    tool = WebSearchContract(make_config())
    error = error_of(tool, arguments)
    assert error.code == "InvalidInput" and "nested too deeply" in error.message
    with pytest.raises(WebSearchError, match="nested too deeply"):
        asyncio.run(tool.arun(arguments))


def test_input_schema_matches_the_rules() -> None:
    schema = WebSearchContract.input_schema()
    assert schema["properties"]["query"]["minLength"] == 1
    assert (
        schema["properties"]["max_results"]["minimum"],
        schema["properties"]["max_results"]["maximum"],
    ) == (1, 10)
    assert schema["required"] == ["query"]


def test_a_key_set_as_the_backend_is_not_shown_lower_cased(
    monkeypatch: pytest.MonkeyPatch, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """WEB_SEARCH_BACKEND set to a key by mistake: the warning naming the unknown backend
    quoted it lower-cased, a spelling the scrub does not know."""
    key = "tvly-Mixed0Case0Key0123456789"
    monkeypatch.setenv("TAVILY_API_KEY", key)
    monkeypatch.setenv("WEB_SEARCH_BACKEND", key)
    with caplog.at_level(logging.WARNING, logger="webproviders.agents.search_contract"):
        tool = WebSearchContract(make_config())
    result = run(tool, {"query": "x"})
    texts = [r.getMessage() for r in caplog.records] + result["meta"]["warnings"]
    assert any("WEB_SEARCH_BACKEND names unknown search backend(s) '***'" in text for text in texts)
    assert not any("mixed0case0key" in text.lower() for text in texts)
