"""webproviders.agents.tools: OpenAI / Anthropic definitions and run_tool round trips."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from webproviders import dispatch_crawl, dispatch_extract, dispatch_search
from webproviders.agents.tools import (
    anthropic_tools,
    arun_tool,
    call_tool,
    input_schema,
    openai_tools,
    run_tool,
)
from webproviders.validate import (
    COUNTRY_PATTERN,
    LANG_PATTERN,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_URL_CHARS,
    MAX_URLS,
    MIN_LIMIT,
)

NAMES = ["web_search", "web_extract", "web_crawl"]


def schemas() -> list[dict[str, Any]]:
    chat = [tool["function"]["parameters"] for tool in openai_tools()]
    flat = [tool["parameters"] for tool in openai_tools(api="responses")]
    anthropic = [tool["input_schema"] for tool in anthropic_tools()]
    return chat + flat + anthropic


def test_definitions_cover_the_three_capabilities() -> None:
    assert [t["function"]["name"] for t in openai_tools()] == NAMES
    assert all(t["type"] == "function" and t["function"]["description"] for t in openai_tools())
    assert [t["name"] for t in openai_tools(api="responses")] == NAMES
    assert [t["name"] for t in anthropic_tools()] == NAMES
    assert [t["name"] for t in anthropic_tools(["web_search"])] == ["web_search"]
    with pytest.raises(KeyError):
        anthropic_tools(["web_fetch"])


def test_one_tool_named_as_text_is_that_tool() -> None:
    """``anthropic_tools("web_search")`` read the name letter by letter: ``Unknown tool 'w'``."""
    assert anthropic_tools("web_search") == anthropic_tools(["web_search"])
    assert openai_tools("web_crawl", api="responses") == openai_tools(["web_crawl"], api="responses")


@pytest.mark.parametrize(
    "offered",
    [
        openai_tools(),
        openai_tools(api="responses", strict=True),
        anthropic_tools(),
        anthropic_tools(["web_search"]),
        openai_tools(["web_search", "web_crawl"]),
    ],
    ids=["chat", "responses", "anthropic", "search-only", "search-and-crawl"],
)
def test_the_definitions_name_only_tools_that_are_offered(offered: list[dict[str, Any]]) -> None:
    """A model told to look a name up with a tool it was not given cannot act on that."""
    text = json.dumps(offered)
    names = {tool.get("name") or tool["function"]["name"] for tool in offered}
    assert set(re.findall(r"\bweb_[a-z]+", text)) == names
    backend = input_schema("web_search")["properties"]["backend"]["description"]
    refused = run_tool("web_search", {"query": "x", "backend": "Brave"})
    assert "web_providers" not in backend + refused


@pytest.mark.parametrize("schema", schemas(), ids=lambda s: ",".join(s["required"]))
def test_every_definition_is_a_valid_closed_json_schema(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert not [p for p in schema["properties"] if any(w in p for w in ("key", "token", "secret"))]


def test_schema_limits_are_the_dispatch_limits() -> None:
    search = input_schema("web_search")["properties"]
    assert search["query"]["maxLength"] == MAX_QUERY_CHARS
    assert (search["limit"]["minimum"], search["limit"]["maximum"]) == (MIN_LIMIT, MAX_LIMIT)
    urls = input_schema("web_extract")["properties"]["urls"]
    assert urls["maxItems"] == MAX_URLS and urls["items"]["maxLength"] == MAX_URL_CHARS
    assert input_schema("web_crawl")["properties"]["url"]["maxLength"] == MAX_URL_CHARS


def test_code_patterns_are_the_dispatch_patterns() -> None:
    search = input_schema("web_search")["properties"]
    assert search["country"]["pattern"] == rf"^\s*(?:{COUNTRY_PATTERN.pattern})\s*$"
    assert search["lang"]["pattern"] == rf"^\s*(?:{LANG_PATTERN.pattern})\s*$"


ARGUMENT_CASES = [
    ("web_search", {"query": "python"}),
    (
        "web_search",
        {"query": "python", "limit": 50, "time_range": "week", "include_domains": ["python.org"]},
    ),
    ("web_search", {"query": ""}),
    ("web_search", {"query": "x" * (MAX_QUERY_CHARS + 1)}),
    ("web_search", {"query": "python", "limit": 0}),
    ("web_search", {"query": "python", "limit": 51}),
    ("web_search", {"query": "python", "time_range": "decade"}),
    ("web_search", {"query": "python", "api_key": "sk-live-123"}),
    ("web_search", {"limit": 3}),
    ("web_search", {"query": "python", "backend": "Not A Name"}),
    ("web_search", {"query": "python", "limit": True}),
    ("web_search", {"query": "python", "country": "de", "lang": "pt-BR"}),
    ("web_search", {"query": "python", "country": " us ", "lang": "zh-Hans-CN"}),
    ("web_search", {"query": "python", "country": "12"}),
    ("web_search", {"query": "python", "country": "u"}),
    ("web_search", {"query": "python", "lang": "english"}),
    ("web_extract", {"urls": ["https://example.com/"]}),
    ("web_extract", {"urls": []}),
    ("web_extract", {"urls": ["ftp://example.com/"]}),
    ("web_extract", {"urls": [f"https://example.com/{i}" for i in range(MAX_URLS + 1)]}),
    ("web_extract", {"urls": ["https://example.com/" + "a" * MAX_URL_CHARS]}),
    ("web_crawl", {"url": "https://example.com/", "max_pages": 3, "max_depth": 1}),
    ("web_crawl", {"url": "https://example.com/", "max_pages": 0}),
    ("web_crawl", {"url": "https://example.com/", "max_depth": True}),
    ("web_crawl", {"url": "javascript:alert(1)"}),
    ("web_crawl", {"url": "\nhttps://example.com/\n"}),
    ("web_extract", {"urls": [" https://example.com/"]}),
    ("web_extract", {"urls": [" example.com"]}),
    ("web_crawl", {"url": "https://example.com/", "token": "abc"}),
]


def test_a_count_sent_as_text_is_read_as_its_number(make_config: Any) -> None:
    """Models outside strict mode send ``"limit": "5"``; it has always been read as 5."""
    config = make_config(web={"backend": "stub"})
    assert call_tool("web_search", {"query": "python", "limit": "2"}, config=config)["data"]["web"][-1]["position"] == 2
    crawl = call_tool("web_crawl", {"url": "https://example.com/", "max_pages": "2"}, config=config)
    assert len(crawl["data"]) == 2


def test_a_list_sent_as_text_is_read_as_its_list(make_config: Any, http_server: Any) -> None:
    """Models outside strict mode send ``"urls": "[\\"https://...\\"]"`` or one domain as a
    string; as a count sent as text, they are read as what they say."""
    from http.server import BaseHTTPRequestHandler
    from urllib.parse import parse_qs, urlsplit

    asked: list[str] = []

    class Searxng(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            params = parse_qs(urlsplit(self.path).query)
            if params["pageno"] == ["1"]:  # a search, not the next page it reads for more hits
                asked.append(params["q"][0])
            hit = {"url": "https://docs.python.org/3/", "title": "Python docs", "content": "Docs."}
            body = json.dumps({"query": "x", "results": [hit]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    base = f"http://127.0.0.1:{http_server(Searxng).server_address[1]}"
    searxng = make_config(
        web={"backend": "searxng", "cache": False, "providers": {"searxng": {"base_url": base}}}
    )
    for domains in ("python.org", '["python.org"]'):
        envelope = call_tool("web_search", {"query": "x", "include_domains": domains}, config=searxng)
        assert envelope["success"] is True, envelope.get("error")
    assert asked == ["x site:python.org"] * 2
    urls = ["https://a.example.com/", "https://b.example.com/"]
    pages = call_tool("web_extract", {"urls": json.dumps(urls)}, config=make_config(web={"backend": "stub"}))
    assert [page["url"] for page in pages["data"]] == urls
    broken = run_tool("web_extract", {"urls": '["https://a.example.com/"'}, config=make_config())
    assert broken.startswith("Error [invalid_input]:") and "'urls.0' must be an http://" in broken


def test_a_url_after_whitespace_is_read_as_every_surface_reads_it(make_config: Any) -> None:
    """A URL a model wrote after a space or a line break was refused as no http(s) address by
    the tools' schemas, where dispatch, ``webread`` and the Hermes objects trim it."""
    config = make_config(web={"backend": "stub", "cache": False, "usage": False})
    pages = call_tool("web_extract", {"urls": [" https://a.example.com/x", "\nhttps://b.example.com/\n"]}, config=config)
    assert [page["url"] for page in pages["data"]] == ["https://a.example.com/x", "https://b.example.com/"]
    crawl = call_tool("web_crawl", {"url": "\thttps://a.example.com/", "max_pages": 1}, config=config)
    assert [page["url"] for page in crawl["data"]] == ["https://a.example.com/"]
    assert Draft202012Validator(input_schema("web_crawl")).is_valid({"url": " https://a.example.com/"})


@pytest.mark.parametrize(("name", "arguments"), ARGUMENT_CASES)
def test_schema_and_runtime_validation_agree(
    name: str, arguments: dict[str, Any], make_config: Any
) -> None:
    schema_ok = Draft202012Validator(input_schema(name)).is_valid(arguments)
    envelope = call_tool(name, arguments, config=make_config(web={"backend": "stub"}))
    runtime_ok = envelope["success"] or envelope["error_code"] != "invalid_input"
    assert schema_ok == runtime_ok, envelope.get("error")


def test_openai_call_round_trips_through_run_tool(make_config: Any) -> None:
    config = make_config(web={"backend": "stub"})
    definition = openai_tools()[0]["function"]
    arguments = json.dumps({"query": "pydantic validators", "limit": 3})  # as a model sends them
    Draft202012Validator(definition["parameters"]).validate(json.loads(arguments))
    text = run_tool(definition["name"], arguments, config=config)
    envelope = dispatch_search("pydantic validators", 3, backend="stub", config=config)
    for hit in envelope["data"]["web"]:
        assert f"{hit['position']}. [{hit['title']}]({hit['url']})" in text
    assert "4. [" not in text


def test_anthropic_calls_round_trip_through_run_tool(make_config: Any) -> None:
    config = make_config(web={"backend": "stub"})
    by_name = {tool["name"]: tool for tool in anthropic_tools()}
    extract_input = {"urls": ["https://docs.example.com/a"]}
    crawl_input = {"url": "https://docs.example.com/", "max_pages": 2}
    Draft202012Validator(by_name["web_extract"]["input_schema"]).validate(extract_input)
    Draft202012Validator(by_name["web_crawl"]["input_schema"]).validate(crawl_input)

    page = dispatch_extract(extract_input["urls"], backend="stub", config=config)["data"][0]
    assert page["content"] in run_tool("web_extract", extract_input, config=config)

    crawled = dispatch_crawl(
        "https://docs.example.com/", max_pages=2, backend="stub", config=config
    )["data"]
    text = run_tool("web_crawl", crawl_input, config=config, style="text")
    assert len(crawled) == 2 and all(p["url"] in text for p in crawled)


def test_arguments_encoded_twice_are_decoded_twice(make_config: Any) -> None:
    """Some model servers send the arguments as a JSON string holding the JSON object; it was
    refused as "not dict" (the words of Python, not of JSON)."""
    config = make_config(web={"backend": "stub"})
    once = json.dumps({"query": "heat pumps", "limit": 2})
    expected = run_tool("web_search", once, config=config)
    assert expected.startswith("1. [heat pumps — result 1]")
    assert run_tool("web_search", json.dumps(once), config=config) == expected
    assert asyncio.run(arun_tool("web_search", json.dumps(once).encode(), config=config)) == expected


def test_arun_tool_matches_run_tool(make_config: Any) -> None:
    config = make_config(web={"backend": "stub"})
    arguments = {"query": "async twin", "limit": 2}
    assert asyncio.run(arun_tool("web_search", arguments, config=config)) == run_tool(
        "web_search", arguments, config=config
    )


def test_json_style_returns_parseable_envelope(make_config: Any) -> None:
    out = run_tool(
        "web_search", {"query": "json"}, config=make_config(web={"backend": "stub"}), style="json"
    )
    assert len(json.loads(out)["data"]["web"]) == 5


def test_an_api_key_argument_is_refused_without_echoing_it(make_config: Any) -> None:
    out = run_tool(
        "web_search",
        {"query": "x", "api_key": "sk-live-9f8e7d6c"},
        config=make_config(web={"backend": "stub"}),
    )
    assert out.startswith("Error [invalid_input]:")
    assert "API keys and tokens are never tool arguments" in out
    assert "sk-live-9f8e7d6c" not in out


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("web_search", {"query": "   "}, "The query is empty"),
        ("web_search", {"query": "x", "limit": True}, "limit must be a whole number"),
        # a large count as JavaScript writes it: not "Unable to parse input string as an integer"
        ("web_search", {"query": "x", "limit": 1e20}, "limit: Input should be less than or equal to 50."),
        ("web_crawl", {"url": "https://a.example/", "max_pages": -1e300}, "max_pages: Input should be greater"),
        ("web_search", "{not json", "not valid JSON"),
        ("web_search", "[1, 2]", "must be a JSON object, not an array"),
        ("web_search", "null", "must be a JSON object, not null"),
        ("web_search", '"heat pumps"', "must be a JSON object, not a string"),
        (
            "web_search",
            {"query": "x", "colour": "red"},
            "'colour' is not an argument of web_search",
        ),
        (
            "web_crawl",
            {"url": "file:///etc/passwd"},
            "'url' must be an http:// or https:// address",
        ),
        ("web_crawl", {"url": "x.io"}, "'url' must be an http:// or https:// address"),
        ("web_extract", {"urls": ["a.com"]}, "'urls.0' must be an http:// or https:// address"),
        (
            "web_extract",
            {"urls": "https://a.example/x\nhttps://b.example/y"},
            "holds several addresses; give each URL on its own, as a list of URL strings",
        ),
        (  # a crawl has one start URL, which a list would not be
            "web_crawl",
            {"url": "https://a.example/x https://b.example/y"},
            "holds several addresses; this takes one URL: make one call per address",
        ),
        ("web_fetch", {"url": "https://example.com/"}, "Unknown tool 'web_fetch'"),
        ("web_search", {}, "'query' is required"),
        ("web_extract", '{"urls": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ("web_search", '{"query": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001, "nested too deeply"),
        ("web_search", '{"query": "caf\\ud800 menu"}', "query"),
        # an integer longer than Python reads (4300 digits) is out of range, not "not valid JSON"
        # with the advice to call sys.set_int_max_str_digits()
        pytest.param(
            "web_search",
            '{"query": "x", "limit": ' + "9" * 5000 + "}",
            "limit: Input should be a finite number.",
            id="a-5000-digit-limit",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_bad_calls_come_back_as_one_readable_line(
    name: str, arguments: Any, expected: str, make_config: Any
) -> None:
    out = run_tool(name, arguments, config=make_config(web={"backend": "stub"}))
    assert out.startswith("Error [invalid_input]:")
    assert expected in out
    assert "\n" not in out


def test_run_tool_respects_max_chars(make_config: Any) -> None:
    out = run_tool(
        "web_search",
        {"query": "budget", "limit": 20},
        config=make_config(web={"backend": "stub"}),
        max_chars=700,
    )
    assert len(out) <= 700
    assert "1. [budget" in out


def test_backend_argument_chooses_the_provider(make_config: Any) -> None:
    envelope = call_tool("web_search", {"query": "x", "backend": "stub"}, config=make_config())
    assert envelope["success"] and envelope["provider"] == "stub"
    unknown = call_tool("web_search", {"query": "x", "backend": "nosuch"}, config=make_config())
    assert (
        unknown["error_code"] == "invalid_input" and "Unknown backend 'nosuch'" in unknown["error"]
    )
