"""The LangChain adapter through invoke and ainvoke."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from pydantic import ValidationError

from webproviders import dispatch_extract, dispatch_search
from webproviders.agents.langchain import (
    WebCrawlTool,
    WebExtractTool,
    WebSearchTool,
    create_langchain_tools,
)
from webproviders.agents.tools import openai_tools, run_tool


@pytest.fixture
def stub_config(make_config: Any) -> Any:
    return make_config(web={"backend": "stub"})


def test_factory_builds_search_and_extract(stub_config: Any) -> None:
    tools = create_langchain_tools(stub_config)
    assert [t.name for t in tools] == ["web_search", "web_extract"]
    assert all(isinstance(t, BaseTool) and t.description for t in tools)
    assert [t.name for t in create_langchain_tools(stub_config, crawl=True)][-1] == "web_crawl"
    assert "api_key" not in tools[0].args and set(tools[0].args) >= {"query", "limit"}


def test_search_invoke(stub_config: Any) -> None:
    tool = WebSearchTool(config=stub_config)
    text = tool.invoke({"query": "langchain tools", "limit": 2})
    envelope = dispatch_search("langchain tools", 2, backend="stub", config=stub_config)
    hits = envelope["data"]["web"]
    assert text == "\n\n".join(
        [f"{h['position']}. [{h['title']}]({h['url']})\n   {h['description']}" for h in hits]
        + [f"> Note: {envelope['meta']['warnings'][0]}"]
    )


def test_search_ainvoke_matches_invoke(stub_config: Any) -> None:
    tool = WebSearchTool(config=stub_config)
    arguments = {"query": "async langchain", "limit": 3}
    assert asyncio.run(tool.ainvoke(arguments)) == tool.invoke(arguments)


def test_a_plain_string_is_the_query(stub_config: Any) -> None:
    text = WebSearchTool(config=stub_config).invoke("just words")
    assert text.startswith("1. [just words — result 1]") and "5. [just words" in text


def test_text_that_is_a_json_object_is_the_arguments(stub_config: Any) -> None:
    """ReAct-style agents hand a tool its input as text, often the arguments as JSON; it was
    searched for literally."""
    search, extract = WebSearchTool(config=stub_config), WebExtractTool(config=stub_config)
    text = '{"query": "heat pumps", "limit": 2}'
    expected = search.invoke({"query": "heat pumps", "limit": 2})
    assert search.invoke(text) == search.run(text) == asyncio.run(search.ainvoke(text)) == expected
    assert expected.startswith("1. [heat pumps — result 1]") and "3. [" not in expected
    urls = '{"urls": ["https://a.example.com/"]}'
    assert asyncio.run(extract.arun(urls)) == extract.invoke({"urls": ["https://a.example.com/"]})
    assert search.invoke("{not json").startswith("1. [{not json — result 1]")


def test_json_text_holding_an_integer_too_long_for_python_is_still_the_arguments(stub_config: Any) -> None:
    """The decoder refused an integer of over 4300 digits, so the whole JSON text was searched
    for as the query; it is the arguments, and the count is refused as out of range."""
    search = WebSearchTool(config=stub_config)
    out = search.invoke('{"query": "heat pumps", "limit": ' + "9" * 5000 + "}")
    assert out == "Error [invalid_input]: Invalid arguments for web_search: limit: Input should be a finite number."


def test_extract_invoke_and_ainvoke(stub_config: Any) -> None:
    tool = WebExtractTool(config=stub_config)
    url = "https://docs.example.com/guide"
    envelope = dispatch_extract([url], backend="stub", config=stub_config)
    page, [note] = envelope["data"][0], envelope["meta"]["warnings"]
    assert tool.invoke({"urls": [url]}) == f"## {page['title']}\nURL: {url}\n\n{page['content']}\n\n> Note: {note}"
    assert asyncio.run(tool.ainvoke({"urls": [url]})) == tool.invoke({"urls": [url]})
    assert tool.invoke(url) == tool.invoke({"urls": [url]})


def test_crawl_ainvoke(stub_config: Any) -> None:
    text = asyncio.run(
        WebCrawlTool(config=stub_config).ainvoke(
            {"url": "https://site.example.com/", "max_pages": 2}
        )
    )
    assert "## 1. " in text and "https://site.example.com/page-1" in text


def test_tool_call_gives_a_tool_message(stub_config: Any) -> None:
    call = {
        "name": "web_search",
        "args": {"query": "q", "limit": 1},
        "id": "call_7",
        "type": "tool_call",
    }
    message = WebSearchTool(config=stub_config).invoke(call)
    assert isinstance(message, ToolMessage) and message.tool_call_id == "call_7"
    assert message.content.startswith("1. [q — result 1]")


def test_a_tool_call_whose_args_is_no_dict_gives_a_tool_message(stub_config: Any) -> None:
    """A host that puts OpenAI's ``function.arguments`` (JSON text) or ``None`` into a tool call's
    ``args`` got LangChain's ``AttributeError: 'str' object has no attribute 'copy'``."""
    tools = {tool.name: tool for tool in create_langchain_tools(stub_config)}
    search, extract = tools["web_search"], tools["web_extract"]
    for invoke in (search.invoke, lambda call: asyncio.run(search.ainvoke(call))):
        found = invoke({"name": "web_search", "args": '{"query": "q", "limit": 1}', "id": "c1", "type": "tool_call"})
        assert isinstance(found, ToolMessage) and found.tool_call_id == "c1" and found.status == "success"
        assert found.content.startswith("1. [q — result 1]") and "2. [" not in found.content
        bare = invoke({"name": "web_search", "args": "heat pumps", "id": "c2", "type": "tool_call"})
        assert bare.status == "success" and bare.content.startswith("1. [heat pumps — result 1]")
        for call in (
            {"name": "web_search", "args": None, "id": "c3", "type": "tool_call"},
            {"name": "web_search", "id": "c3", "type": "tool_call"},
        ):
            empty = invoke(call)
            assert isinstance(empty, ToolMessage) and empty.tool_call_id == "c3" and empty.status == "error"
            assert empty.content == "Error [invalid_input]: Invalid arguments for web_search: 'query' is required."
    page = extract.invoke({"name": "web_extract", "args": "https://a.example/", "id": "c4", "type": "tool_call"})
    assert page.status == "success" and "https://a.example/" in page.content


def test_null_arguments_are_left_out_as_on_every_surface(stub_config: Any) -> None:
    """A strict-mode model sends ``null`` for what it leaves out; run_tool reads it as the default."""
    search, crawl = WebSearchTool(config=stub_config), WebCrawlTool(config=stub_config)
    nulls = {"query": "q", "limit": None, "time_range": None, "country": None, "backend": None}
    assert search.invoke(nulls) == search.invoke({"query": "q"}) == run_tool("web_search", nulls, config=stub_config)
    assert asyncio.run(search.ainvoke(nulls)) == search.invoke({"query": "q"})
    start = {"url": "https://site.example.com/", "max_pages": 2}
    assert crawl.invoke({**start, "max_depth": None}) == crawl.invoke(start)
    assert search.invoke({"query": None}).startswith("Error [invalid_input]: Invalid arguments for web_search: 'query' is required.")


def test_strict_definitions_bound_through_langchain_are_run_by_the_tools(stub_config: Any) -> None:
    """The documented way to OpenAI strict mode: LangChain's own schemas of the tools keep
    keywords strict mode refuses, so the strict definitions are bound and the tools run the calls."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tools = {tool.name: tool for tool in create_langchain_tools(stub_config, crawl=True)}
    given = {"web_search": {"query": "q"}, "web_extract": {"urls": ["https://site.example.com/"]}}
    given["web_crawl"] = {"url": "https://site.example.com/"}
    for definition in openai_tools(strict=True):
        assert convert_to_openai_tool(definition, strict=True) == definition  # as bind_tools sends it
        name, schema = definition["function"]["name"], definition["function"]["parameters"]
        args = {prop: None for prop in schema["properties"]} | given[name]  # a strict model's call
        message = tools[name].invoke({"name": name, "args": args, "id": "c1", "type": "tool_call"})
        assert message.status == "success", message.content


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"query": "x", "api_key": "sk-live-42"}, "never tool arguments"),
        ({"query": "x", "limit": 99}, "limit: Input should be less than or equal to 50"),
        ({"query": "   "}, "The query is empty"),
    ],
)
def test_invalid_arguments_come_back_as_text(
    arguments: dict[str, Any], expected: str, stub_config: Any
) -> None:
    tool = WebSearchTool(config=stub_config)
    for text in (tool.invoke(arguments), asyncio.run(tool.ainvoke(arguments))):
        assert text.startswith("Error [invalid_input]:") and expected in text
        assert "sk-live-42" not in text


@pytest.mark.parametrize(("given", "kind"), [([1], "an array"), (None, "null"), (5, "a number")])
def test_input_that_is_no_object_is_named_in_json_words(given: Any, kind: str, stub_config: Any) -> None:
    """It was "Input should be a valid dictionary or instance of SearchArguments"."""
    assert WebSearchTool(config=stub_config).invoke(given) == (
        f"Error [invalid_input]: Invalid arguments for web_search: The arguments must be a JSON object, not {kind}."
    )


def test_provider_failure_is_text_not_an_exception(stub_config: Any) -> None:
    text = WebExtractTool(config=stub_config).invoke(
        {"urls": ["https://x.example/"], "backend": "nosuch"}
    )
    assert text.startswith("Error [invalid_input]: Unknown backend 'nosuch'")


def test_max_chars_is_honoured(stub_config: Any) -> None:
    text = WebSearchTool(config=stub_config, max_chars=300).invoke(
        {"query": "budget", "limit": 30}
    )
    assert len(text) <= 300


def test_a_refused_call_is_cut_to_max_chars_and_in_the_tools_style(stub_config: Any) -> None:
    """LangChain checks the arguments itself; its refusal was handed to the model whole."""
    many = {"query": "x", **{f"option_{n}": n for n in range(2000)}}
    call = {"type": "tool_call", "id": "call_9", "name": "web_search", "args": many}
    tool = WebSearchTool(config=stub_config, max_chars=300)
    for message in (tool.invoke(call), asyncio.run(tool.ainvoke(call))):
        assert message.status == "error" and len(message.content) <= 300
        assert message.content.startswith("Error [invalid_input]: Invalid arguments for web_search:")
    refused = json.loads(WebSearchTool(config=stub_config, style="json").invoke({"limit": 3}))
    assert refused["error_code"] == "invalid_input" and "'query' is required" in refused["error"]


def test_a_tool_can_be_printed(stub_config: Any) -> None:
    """Printing the tools (a notebook, a debug log, an agent listing its tools) never ended:
    the refusal handler's repr held the tool's repr, which held the handler's."""
    tools = create_langchain_tools(stub_config, crawl=True)
    shown = repr(tools)
    for tool in tools:
        assert f"name='{tool.name}'" in str(tool)
        assert f"handle_validation_error=<{tool.name} invalid-arguments answer>" in repr(tool)
    assert shown.count("WebSearchTool(") == 1


def test_importing_webproviders_does_not_import_langchain_or_mcp() -> None:
    code = (
        "import sys, webproviders; webproviders.list_providers(); import webproviders.agents.tools, "
        "webproviders.agents.formatting, webproviders.agents.factories, webproviders.agents.search_contract, webproviders.agents.mcp_server; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langchain_core', 'mcp')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "[]"


def tool_call(arguments: dict[str, Any], name: str = "web_search") -> dict[str, Any]:
    return {"name": name, "args": arguments, "id": "call_9", "type": "tool_call"}


def test_config_is_one_spelling_and_an_unknown_keyword_is_an_error(stub_config: Any) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="web_config"):
        WebSearchTool(web_config=stub_config)
    with pytest.raises(ValidationError, match="confg"):
        create_langchain_tools(confg=stub_config)
    with pytest.raises(ValidationError, match="confg"):
        create_langchain_tools(stub_config, confg=stub_config)


def test_a_config_given_as_a_mapping_is_read_as_a_config_file_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """``config={"web": ...}`` was made a ``Config`` by pydantic alone: ``${VAR}`` stayed as
    written (here the backend, ``Unknown backend '${SEARCH_BACKEND}'``), and a refused mapping
    was quoted whole in the error, keys and all."""
    monkeypatch.setenv("SEARCH_BACKEND", "stub")
    search = WebSearchTool(config={"web": {"backend": "${SEARCH_BACKEND}", "cache": False, "usage": False}})
    assert search.invoke({"query": "heat pumps", "limit": 1}).startswith("1. [heat pumps — result 1]")
    with pytest.raises(ValidationError, match="'web.timeout'") as refused:
        WebSearchTool(config={"web": {"timeout": "soon", "providers": {"brave": {"api_key": "brave-k-77"}}}})
    assert "brave-k-77" not in str(refused.value)
    tools = create_langchain_tools({"web": {"backend": "${SEARCH_BACKEND}"}}, crawl=True)
    assert tools[0].config is tools[1].config is tools[2].config  # one cache, health and budget


def test_the_given_config_chooses_the_backend(probe_config: Any) -> None:
    config = probe_config(backend="probe")
    for tool in (WebSearchTool(config=config), create_langchain_tools(config)[0]):
        assert tool.invoke({"query": "which backend"}).startswith("1. [Alpha](https://alpha.example.org/)")


def test_a_failure_is_a_tool_message_with_error_status(probe_config: Any) -> None:
    tool = WebSearchTool(config=probe_config(backend="probe"))
    for message in (
        tool.invoke(tool_call({"query": "fail-invalid"})),
        asyncio.run(tool.ainvoke(tool_call({"query": "fail-invalid"}))),
    ):
        assert isinstance(message, ToolMessage) and message.status == "error"
        assert message.content.startswith("Error [invalid_input]: The probe refused this query.")
    assert tool.invoke(tool_call({"query": "ok"})).status == "success"


def test_without_handling_a_failure_raises_tool_exception(probe_config: Any) -> None:
    from langchain_core.tools import ToolException

    tool = WebSearchTool(config=probe_config(backend="probe"), handle_tool_error=False)
    with pytest.raises(ToolException, match=r"Error \[auth_error\]"):
        tool.invoke({"query": "fail-auth"})
    with pytest.raises(ToolException, match=r"Error \[auth_error\]"):
        asyncio.run(tool.ainvoke({"query": "fail-auth"}))


def test_content_and_artifact_gives_the_envelope(stub_config: Any) -> None:
    search, extract = create_langchain_tools(stub_config, response_format="content_and_artifact")
    message = search.invoke(tool_call({"query": "artifacts", "limit": 2}))
    assert message.content.startswith("1. [artifacts — result 1]")
    assert message.artifact["success"] is True and message.artifact["provider"] == "stub"
    assert [hit["position"] for hit in message.artifact["data"]["web"]] == [1, 2]
    page = asyncio.run(extract.ainvoke(tool_call({"urls": ["https://a.example/"]}, "web_extract")))
    assert page.artifact["data"][0]["url"] == "https://a.example/"


def test_web_tags_reach_the_per_tag_budget(per_user_budget: Any) -> None:
    alice = WebSearchTool(config=per_user_budget, web_tags={"user": "alice"})
    bob = WebSearchTool(config=per_user_budget, web_tags={"user": "bob"})
    statuses = [alice.invoke(tool_call({"query": "x"})).status for _ in range(3)]
    assert statuses == ["success", "success", "error"]
    assert "budget_exceeded" in alice.invoke(tool_call({"query": "x"})).content
    assert bob.invoke(tool_call({"query": "x"})).status == "success"


def test_bad_web_tags_are_refused_when_the_tool_is_built(stub_config: Any) -> None:
    """They were taken, and then every call answered the model ``invalid_input`` about them."""
    with pytest.raises(ValidationError, match="tag name 'bad name' is not allowed"):
        WebSearchTool(config=stub_config, web_tags={"bad name": "alice"})
    with pytest.raises(ValidationError, match="at most 16 entries"):
        create_langchain_tools(stub_config, web_tags={f"t{n}": n for n in range(17)})


@pytest.mark.parametrize("max_chars", [0, -5, True])
def test_a_max_chars_no_call_could_take_is_refused_when_the_tool_is_built(
    max_chars: Any, stub_config: Any
) -> None:
    """0 and -5 were taken, and every call then raised ValueError into the framework (``True``
    was read as 1)."""
    with pytest.raises(ValidationError, match="max_chars"):
        WebSearchTool(config=stub_config, max_chars=max_chars)
    assert create_langchain_tools(stub_config, max_chars=None)[0].invoke({"query": "q"})


def test_without_the_extra_the_import_names_it() -> None:
    """Before: a bare ``ModuleNotFoundError: No module named 'langchain_core'``."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['langchain_core'] = None; import webproviders.agents.langchain"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 1
    assert "pip install 'webproviders[langchain]'" in done.stderr
