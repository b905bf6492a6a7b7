"""OpenAI strict-mode tool definitions, and the host's ``tags`` on run_tool."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openai import pydantic_function_tool
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from webproviders.agents.tools import (
    TOOLS,
    arun_tool,
    call_tool,
    input_schema,
    openai_tools,
    run_tool,
)

NAMES = list(TOOLS)


def objects(node: Any) -> list[dict[str, Any]]:
    """Every object schema inside ``node``."""
    if isinstance(node, list):
        return [found for item in node for found in objects(item)]
    if not isinstance(node, dict):
        return []
    own = [node] if "properties" in node else []
    return own + [found for value in node.values() for found in objects(value)]


def keywords(node: Any) -> set[str]:
    if isinstance(node, list):
        return {key for item in node for key in keywords(item)}
    if not isinstance(node, dict):
        return set()
    return set(node) | {key for value in node.values() for key in keywords(value)}


def test_strict_definitions_are_what_the_openai_sdk_accepts() -> None:
    for tool in openai_tools(strict=True):
        TypeAdapter(ChatCompletionToolParam).validate_python(tool)
        assert tool["function"]["strict"] is True
    for tool in openai_tools(api="responses", strict=True):
        TypeAdapter(FunctionToolParam).validate_python(tool)
        assert tool["strict"] is True
    assert all("strict" not in tool["function"] for tool in openai_tools())


@pytest.mark.parametrize("name", NAMES)
def test_strict_schemas_follow_the_strict_mode_rules(name: str) -> None:
    schema = input_schema(name, strict=True)
    Draft202012Validator.check_schema(schema)
    for node in objects(schema):
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])
    assert not keywords(schema) & {"default", "minLength", "maxLength"}
    # The same properties the OpenAI SDK's own strict conversion of the argument model has.
    sdk = pydantic_function_tool(TOOLS[name].arguments)["function"]["parameters"]
    assert set(sdk["properties"]) == set(schema["properties"])


@pytest.mark.parametrize("name", NAMES)
def test_exactly_the_optional_arguments_accept_null(name: str) -> None:
    loose, strict = input_schema(name), input_schema(name, strict=True)
    validator = Draft202012Validator(strict)
    for prop in strict["properties"]:
        nullable = validator.evolve(schema=strict["properties"][prop]).is_valid(None)
        assert nullable == (prop not in loose.get("required", [])), prop


def test_a_strict_call_with_nulls_runs_with_the_defaults(make_config: Any) -> None:
    config = make_config(web={"backend": "stub"})
    schema = input_schema("web_search", strict=True)
    arguments = {prop: None for prop in schema["properties"]} | {"query": "heat pumps"}
    Draft202012Validator(schema).validate(arguments)  # what a strict-mode model sends

    envelope = call_tool("web_search", json.dumps(arguments), config=config)

    assert envelope["success"] is True, envelope
    assert len(envelope["data"]["web"]) == 5  # limit: null is the default limit


def test_a_null_required_argument_is_still_refused(make_config: Any) -> None:
    envelope = call_tool("web_search", {"query": None}, config=make_config(web={"backend": "stub"}))
    assert envelope["error_code"] == "invalid_input"
    assert "'query' is required" in envelope["error"]


def test_optional_arguments_sent_as_blank_text_are_left_out(make_config: Any) -> None:
    """Models often send "" for an argument they leave out; refused, they would pick a
    country or a backend nobody asked for."""
    config = make_config(web={"backend": "stub"})
    blank = {"limit": "", "time_range": "", "country": "", "lang": " ", "safe_search": "", "backend": ""}

    searched = call_tool("web_search", {"query": "heat pumps", **blank}, config=config)
    crawled = call_tool(
        "web_crawl", {"url": "https://93.184.216.34/", "max_pages": "", "max_depth": " ", "backend": ""}, config=config
    )

    assert searched["success"] is True, searched.get("error")
    assert searched["data"] == call_tool("web_search", {"query": "heat pumps"}, config=config)["data"]
    assert crawled["success"] is True, crawled.get("error")
    for name, required in (("web_search", {"query": " "}), ("web_crawl", {"url": ""})):
        assert call_tool(name, required, config=config)["error_code"] == "invalid_input"


def test_tags_reach_the_per_tag_budget(per_user_budget: Any) -> None:
    def search(user: str) -> str:
        return run_tool("web_search", {"query": "tags"}, config=per_user_budget, tags={"user": user})

    assert [search("alice").startswith("Error") for _ in range(3)] == [False, False, True]
    assert "budget_exceeded" in search("alice") and "user=alice" in search("alice")
    assert not search("bob").startswith("Error")
    later = asyncio.run(
        arun_tool("web_search", {"query": "tags"}, config=per_user_budget, tags={"user": "bob"})
    )
    assert not later.startswith("Error")


def test_bad_tags_are_a_failure_not_an_exception(make_config: Any) -> None:
    envelope = call_tool(
        "web_search", {"query": "x"}, config=make_config(web={"backend": "stub"}), tags={"bad name": 1}
    )
    assert envelope["error_code"] == "invalid_input" and "tag name" in envelope["error"]
