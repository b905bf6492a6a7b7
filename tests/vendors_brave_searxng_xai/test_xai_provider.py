"""xAI web search through the Responses API: request shape, three parsing paths, errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
import respx

from webproviders.registry.providers import get_registry

from .bodies import (
    XAI_ANNOTATIONS,
    XAI_BAD_KEY,
    XAI_BAD_KEY_OLD,
    XAI_BAD_SCHEMA,
    XAI_CITATIONS,
    XAI_INTERNAL,
    XAI_JSON_TEXT,
    XAI_NO_CREDITS,
    XAI_PROSE,
    XAI_RATE_LIMITED,
    XAI_UNKNOWN_MODEL,
    xai_response,
)
from .helpers import XAI_KEY, XAI_URL, assert_no_secret, web


@pytest.fixture
def config(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("XAI_API_KEY", XAI_KEY)
    return make_config(web=web())


def _sent(route: Any) -> dict[str, Any]:
    return json.loads(route.calls.last.request.content)


def test_json_block_is_parsed_first(config: Any, search: Any) -> None:
    body = xai_response(XAI_JSON_TEXT, annotations=XAI_ANNOTATIONS, citations=XAI_CITATIONS)
    with respx.mock() as mock:
        route = mock.post(XAI_URL).respond(200, json=body)
        envelope = search(config, "What did xAI announce this week?", backend="xai", limit=5)
    assert envelope["success"] is True, envelope
    hits = envelope["data"]["web"]
    assert [h["url"] for h in hits] == [
        "https://x.ai/news",
        "https://docs.x.ai/developers/release-notes",
        "https://example.com/invented",
    ]
    assert hits[0] == {
        "title": "xAI News",
        "url": "https://x.ai/news",
        "description": "xAI released a new model this week.",
        "position": 1,
        "published_at": "2026-10-06",
        "cited": True,
    }
    assert "published_at" not in hits[1]
    assert hits[2]["cited"] is False  # the model produced a URL its search never reported
    assert "warnings" not in envelope["meta"]
    request = route.calls.last.request
    assert request.headers["Authorization"] == f"Bearer {XAI_KEY}"
    sent = _sent(route)
    assert sent["model"] == "grok-4-1-fast-reasoning"
    assert sent["tools"] == [{"type": "web_search"}]
    assert sent["include"] == ["no_inline_citations"]
    assert sent["stream"] is False
    assert [m["role"] for m in sent["input"]] == ["system", "user"]
    assert '{"results": [' in sent["input"][0]["content"]
    assert "up to 5 " in sent["input"][0]["content"]
    assert "What did xAI announce this week?" in sent["input"][1]["content"]
    assert_no_secret(envelope, XAI_KEY)


def test_json_block_inside_prose_without_fences(config: Any, search: Any) -> None:
    text = (
        'Sure! {"results": [{"title": "Grok", "url": "https://x.ai/grok", "snippet": "The model."}]} '
        "Those are the {best} matches."
    )
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=xai_response(text))
        envelope = search(config, backend="xai")
    # Not among the sources the search tool reported (only https://x.ai/news was).
    assert envelope["data"]["web"] == [
        {
            "title": "Grok",
            "url": "https://x.ai/grok",
            "description": "The model.",
            "position": 1,
            "cited": False,
        }
    ]


def test_async_dispatch(config: Any, asearch: Any) -> None:
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=xai_response(XAI_JSON_TEXT, citations=XAI_CITATIONS))
        envelope = asearch(config, backend="xai", limit=2)
    assert envelope["success"] is True
    assert len(envelope["data"]["web"]) == 2


def test_falls_back_to_url_citation_annotations(config: Any, search: Any) -> None:
    body = xai_response(XAI_PROSE, annotations=XAI_ANNOTATIONS, citations=XAI_CITATIONS)
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=body)
        envelope = search(config, backend="xai")
    hits = envelope["data"]["web"]
    assert [h["url"] for h in hits] == [
        "https://x.ai/news",
        "https://docs.x.ai/developers/release-notes",
        "https://status.x.ai/",
    ]
    # Citation numbers and bare URLs are not titles: the title stays empty; a real one is kept.
    assert [h["title"] for h in hits] == ["", "", "xAI Status"]
    assert any("url_citation" in w for w in envelope["meta"]["warnings"])


def test_truncated_json_block_falls_back_to_annotations(config: Any, search: Any) -> None:
    text = '```json\n{"results": [{"title": "xAI News", "url": "https://x.ai/news", "descr'
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=xai_response(text, annotations=XAI_ANNOTATIONS[:1]))
        envelope = search(config, backend="xai")
    assert envelope["success"] is True
    assert [h["url"] for h in envelope["data"]["web"]] == ["https://x.ai/news"]


def test_falls_back_to_top_level_citations(config: Any, search: Any) -> None:
    citations = [*XAI_CITATIONS, {"url": "https://news.example.com/xai"}, "not a url"]
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=xai_response(XAI_PROSE, citations=citations))
        envelope = search(config, backend="xai", limit=10)
    assert [h["url"] for h in envelope["data"]["web"]] == [
        *XAI_CITATIONS,
        "https://news.example.com/xai",
    ]
    assert any("citations" in w for w in envelope["meta"]["warnings"])


@pytest.mark.parametrize(
    "body",
    [
        xai_response('```json\n{"results": []}\n```'),
        xai_response("I could not find anything relevant."),
    ],
    ids=["empty-results-block", "no-sources-at-all"],
)
def test_empty_result(config: Any, search: Any, body: dict[str, Any]) -> None:
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=body)
        envelope = search(config, "zxqv", backend="xai")
    assert envelope["success"] is True
    assert envelope["data"]["web"] == []


@pytest.mark.parametrize("body", [{}, {"id": "resp_1", "status": "completed"}, {"output": None}])
def test_an_answer_without_output_is_a_parse_error_not_nothing_found(
    config: Any, search: Any, body: dict[str, Any]
) -> None:
    """Every Responses API answer holds ``output``; ``{}`` (another service at the base URL)
    read as a search that found nothing, an empty success a chain stopped at."""
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=body)
        envelope = search(config, "q", backend="xai")
    assert envelope["success"] is False and envelope["error_code"] == "parse_error", envelope
    assert "without an 'output' list" in envelope["error"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"output": 5}, "output"),
        ({"output": [{"type": "message", "content": "hello"}]}, "output[].content"),
        ({"output": [{"type": "message", "content": [{"type": "output_text", "text": "x", "annotations": 5}]}]}, "annotations"),
        ({"output": [], "citations": {"url": "https://a.example/"}}, "citations"),
    ],
)
def test_a_list_out_of_shape_is_a_parse_error(config: Any, search: Any, body: dict[str, Any], field: str) -> None:
    """Iterating it raised TypeError: a provider_error ("xai failed: TypeError: 'int' object
    is not iterable"), which a chain does not move on from."""
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=body)
        envelope = search(config, "q", backend="xai")
    assert envelope["success"] is False and envelope["error_code"] == "parse_error", envelope
    assert envelope["error"] == f"xAI sent '{field}' that is not a list.", envelope


def test_domain_filters_map_to_the_tool(config: Any, search: Any) -> None:
    five = ["a.com", "b.com", "c.com", "d.com", "e.com"]
    with respx.mock() as mock:
        route = mock.post(XAI_URL).respond(200, json=xai_response('{"results": []}'))
        search(config, backend="xai", include_domains=five)
        assert _sent(route)["tools"] == [{"type": "web_search", "allowed_domains": five}]
        envelope = search(config, backend="xai", exclude_domains=["pinterest.com"])
        assert _sent(route)["tools"] == [
            {"type": "web_search", "excluded_domains": ["pinterest.com"]}
        ]
    assert "warnings" not in envelope["meta"]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"include_domains": ["a.com"], "exclude_domains": ["b.com"]}, "cannot combine"),
        ({"include_domains": [f"d{i}.com" for i in range(6)]}, "at most 5"),
        ({"exclude_domains": [f"d{i}.com" for i in range(6)]}, "at most 5"),
    ],
    ids=["both-kinds", "six-allowed", "six-excluded"],
)
def test_domain_filters_are_validated_before_sending(
    config: Any, search: Any, options: dict[str, Any], words: str
) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(XAI_URL).respond(200, json=xai_response('{"results": []}'))
        envelope = search(config, backend="xai", **options)
    assert not route.called
    assert envelope["error_code"] == "invalid_input"
    assert words in envelope["error"]


def test_options_without_a_parameter_go_into_the_prompt_with_a_warning(
    config: Any, search: Any
) -> None:
    with respx.mock() as mock:
        route = mock.post(XAI_URL).respond(200, json=xai_response('{"results": []}'))
        envelope = search(
            config, backend="xai", time_range="week", lang="fr", country="ca", safe_search="strict"
        )
    prompt = _sent(route)["input"][1]["content"]
    assert "last 7 days" in prompt and "'fr'" in prompt and "'CA'" in prompt
    warnings = envelope["meta"]["warnings"]
    assert "xai does not support safe_search; ignored." in warnings
    assert any("time_range, lang, country" in w and "prompt" in w for w in warnings)


def test_unsupported_option_can_be_an_error(
    make_config: Any, search: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XAI_API_KEY", XAI_KEY)
    config = make_config(web=web(on_unsupported="error"))
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(XAI_URL).respond(200, json=xai_response('{"results": []}'))
        envelope = search(config, backend="xai", safe_search="strict")
    assert not route.called
    assert envelope["error_code"] == "unsupported"


def test_model_and_tool_call_cap_come_from_config(make_config: Any, search: Any) -> None:
    config = make_config(
        web=web(
            providers={
                "xai": {"api_key": XAI_KEY, "model": "grok-4.20-reasoning", "max_tool_calls": 3}
            }
        )
    )
    with respx.mock() as mock:
        route = mock.post(XAI_URL).respond(200, json=xai_response('{"results": []}'))
        search(config, backend="xai")
    sent = _sent(route)
    assert (sent["model"], sent["max_tool_calls"]) == ("grok-4.20-reasoning", 3)


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("http://127.0.0.1:9912/xai-proxy/v1", "http://127.0.0.1:9912/xai-proxy/v1/responses"),
        ("http://127.0.0.1:9912", "http://127.0.0.1:9912/v1/responses"),
    ],
)
def test_base_url_override(make_config: Any, search: Any, base_url: str, expected: str) -> None:
    config = make_config(web=web(providers={"xai": {"api_key": XAI_KEY, "base_url": base_url}}))
    with respx.mock() as mock:
        route = mock.post(expected).respond(200, json=xai_response('{"results": []}'))
        envelope = search(config, backend="xai")
    assert envelope["success"] is True
    assert route.called


def _failure(config: Any, search: Any, status: int, **response: Any) -> dict[str, Any]:
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(status, **response)
        envelope = search(config, backend="xai")
    assert envelope["success"] is False, envelope
    assert_no_secret(envelope, XAI_KEY)
    return envelope


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (400, XAI_BAD_KEY, "auth_error"),
        (400, XAI_BAD_KEY_OLD, "auth_error"),
        (
            401,
            {"code": "unauthenticated", "error": "Missing or invalid authorization header."},
            "auth_error",
        ),
        (403, XAI_NO_CREDITS, "quota_exceeded"),
        (402, {"code": "payment-required", "error": "Payment required."}, "quota_exceeded"),
        (404, XAI_UNKNOWN_MODEL, "not_configured"),
        (422, XAI_BAD_SCHEMA, "invalid_input"),
        (500, XAI_INTERNAL, "bad_gateway"),
        (503, None, "bad_gateway"),
        (200, {"code": "internal", "error": "Search backend unavailable."}, "provider_error"),
        (
            200,
            xai_response(
                "", status="failed", error={"code": "server_error", "message": "The model failed."}
            ),
            "provider_error",
        ),
        (200, XAI_BAD_KEY, "auth_error"),
    ],
    ids=[
        "bad-key-400",
        "bad-key-400-old-wording",
        "401",
        "no-credits-403",
        "402",
        "unknown-model-404",
        "bad-schema-422",
        "internal-500",
        "bare-503",
        "200-with-error",
        "200-status-failed",
        "200-with-key-error",
    ],
)
def test_errors(config: Any, search: Any, status: int, body: Any, code: str) -> None:
    envelope = (
        _failure(config, search, status, json=body)
        if body is not None
        else _failure(config, search, status)
    )
    assert envelope["error_code"] == code


def test_bad_key_message_does_not_echo_the_vendor_key_fragment(config: Any, search: Any) -> None:
    envelope = _failure(config, search, 400, json=XAI_BAD_KEY_OLD)
    assert "xa***AB" not in envelope["error"]
    assert "XAI_API_KEY" in envelope["error"]


def test_rate_limited_with_retry_after(config: Any, search: Any) -> None:
    envelope = _failure(config, search, 429, json=XAI_RATE_LIMITED, headers={"Retry-After": "12"})
    assert envelope["error_code"] == "rate_limited"
    assert envelope["retry_after"] == 12


@pytest.mark.parametrize(
    "response",
    [
        {
            "text": "<html><body><h1>Cloudflare</h1></body></html>",
            "headers": {"Content-Type": "text/html"},
        },
        {
            "content": b'{"id": "d194be71", "object": "response", "output": [{"type": "mess',
            "headers": {"Content-Type": "application/json"},
        },
        {"json": [1, 2, 3]},
    ],
    ids=["html", "truncated-json", "json-array"],
)
def test_malformed_bodies_are_parse_errors(
    config: Any, search: Any, response: dict[str, Any]
) -> None:
    assert _failure(config, search, 200, **response)["error_code"] == "parse_error"


def test_incomplete_answer_warns(config: Any, search: Any) -> None:
    body = xai_response(
        XAI_JSON_TEXT, status="incomplete", incomplete_details={"reason": "max_output_tokens"}
    )
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=body)
        envelope = search(config, backend="xai")
    assert envelope["success"] is True
    assert any("max_output_tokens" in w for w in envelope["meta"]["warnings"])


def test_manifest_and_defaults(config: Any) -> None:
    entry = get_registry(config).get("xai")
    assert entry.manifest.env[0].key == "XAI_API_KEY"
    assert entry.provider.timeout() == 90.0
    assert "model-generated" in type(entry.provider).__doc__
    schema = entry.provider.get_setup_schema()
    assert schema["env_vars"] == [
        {"key": "XAI_API_KEY", "prompt": "xAI API key", "url": "https://console.x.ai/"}
    ]


@pytest.mark.parametrize(
    "response",
    [
        {
            "json": {
                "code": "Client%20specified%20an%20invalid%20argument",
                "error": "Incorrect%20API%20key%20provided%3A%20xa%2A%2A%2AAB.%20You%20can%20obtain"
                "%20an%20API%20key%20from%20https%3A%2F%2Fconsole.x.ai.",
            }
        },
        {
            "text": "Incorrect%20API%20key%20provided%3A%20xa%2A%2A%2AAB.",
            "headers": {"Content-Type": "text/plain"},
        },
        {"json": "Incorrect API key provided: xa***AB. You can obtain an API key from https://console.x.ai."},
    ],
    ids=["percent-encoded-json", "percent-encoded-text", "json-string"],
)
def test_a_bad_key_in_any_encoding_is_an_auth_error(
    config: Any, search: Any, response: dict[str, Any]
) -> None:
    envelope = _failure(config, search, 400, **response)
    assert envelope["error_code"] == "auth_error"
    assert "XAI_API_KEY" in envelope["error"]
    if "json" in response:  # our own words, not the vendor's echo of part of the key
        assert "xa***AB" not in envelope["error"] and "xa%2A" not in envelope["error"]


def test_a_plain_text_400_about_something_else_stays_invalid_input(config: Any, search: Any) -> None:
    envelope = _failure(
        config, search, 400, text="Bad%20request%3A%20unknown%20field", headers={"Content-Type": "text/plain"}
    )
    assert envelope["error_code"] == "invalid_input"
