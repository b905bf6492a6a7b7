"""create_websearch_tool / create_webread_tool: async one-argument tools over dispatch."""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
from typing import Any

import pytest
import respx
from pydantic import ValidationError

from webproviders import WebToolConfig, create_webread_tool, create_websearch_tool, dispatch_search

BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
BRAVE_BODY = {
    "type": "search",
    "query": {"original": "httpx", "more_results_available": False},
    "web": {
        "type": "search",
        "results": [
            {
                "type": "search_result",
                "title": "HTTPX",
                "url": "https://www.python-httpx.org/",
                "description": "A next-generation HTTP client for Python.",
                "language": "en",
                "family_friendly": True,
                "meta_url": {
                    "scheme": "https",
                    "netloc": "python-httpx.org",
                    "hostname": "www.python-httpx.org",
                },
            }
        ],
        "family_friendly": True,
    },
}


def test_websearch_returns_a_markdown_list(make_config: Any) -> None:
    websearch = create_websearch_tool(
        {"provider": "stub", "max_results": 3, "config": make_config()}
    )
    assert inspect.iscoroutinefunction(websearch) and websearch.__name__ == "websearch"
    text = asyncio.run(websearch("vector databases"))
    expected = dispatch_search("vector databases", 3, backend="stub", config=make_config())["data"][
        "web"
    ]
    for hit in expected:
        assert f"{hit['position']}. [{hit['title']}]({hit['url']})" in text
    assert "4. [" not in text


def test_webread_returns_the_page_markdown(make_config: Any) -> None:
    webread = create_webread_tool(WebToolConfig(provider="stub", config=make_config()))
    text = asyncio.run(webread("https://blog.example.com/post"))
    assert text.startswith(
        "## Stub page for blog.example.com\nURL: https://blog.example.com/post\n\n# Stub page"
    )


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "ftp://files.example.com/a",
            "Error [invalid_input]: The URL 'ftp://files.example.com/a' is not an http",
        ),
        ("", "Error [invalid_input]: The URL is empty."),
        (  # webread takes one URL: a list is no remedy for several pasted together
            "https://a.example/x https://b.example/y",
            "Error [invalid_input]: The URL 'https://a.example/x https://b.example/y' holds several "
            "addresses; this takes one URL: make one call per address.",
        ),
    ],
)
def test_webread_gives_a_readable_error_for_bad_urls(
    url: str, expected: str, make_config: Any
) -> None:
    webread = create_webread_tool({"provider": "stub", "config": make_config()})
    assert asyncio.run(webread(url)).startswith(expected)


def test_webread_page_failure_is_readable(probe_config: Any) -> None:
    webread = create_webread_tool({"provider": "probe", "config": probe_config()})
    text = asyncio.run(webread("https://blocked.example.com/"))
    assert text == "Error [blocked]: A CAPTCHA page answered."


def test_webread_respects_max_chars(probe_config: Any) -> None:
    webread = create_webread_tool({"provider": "probe", "max_chars": 800, "config": probe_config()})
    text = asyncio.run(webread("https://long.example.com/"))
    assert len(text) <= 800
    assert "characters cut" in text


def test_websearch_failure_is_a_string_not_an_exception(probe_config: Any) -> None:
    websearch = create_websearch_tool({"provider": "probe", "config": probe_config()})
    assert (
        asyncio.run(websearch("fail-auth")) == "Error [auth_error]: The probe rejected the API key."
    )
    assert asyncio.run(websearch("")).startswith("Error [invalid_input]: The query is empty")


def test_api_key_is_interpolated_from_the_environment_and_sent(
    monkeypatch: pytest.MonkeyPatch, make_config: Any
) -> None:
    monkeypatch.setenv("MY_BRAVE_KEY", "brave-test-key-123")
    config = WebToolConfig(provider="brave", api_key="${MY_BRAVE_KEY}", config=make_config())
    assert config.api_key is not None and config.api_key.get_secret_value() == "brave-test-key-123"
    assert "brave-test-key-123" not in repr(config)
    websearch = create_websearch_tool(config)
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_BODY)
        text = asyncio.run(websearch("httpx"))
    assert route.calls.last.request.headers["x-subscription-token"] == "brave-test-key-123"
    assert (
        text
        == "1. [HTTPX](https://www.python-httpx.org/)\n   A next-generation HTTP client for Python."
    )


def test_a_config_given_as_a_mapping_is_read_as_a_config_file_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """``config={"web": ...}`` was made a ``Config`` by pydantic alone, without the
    ``${VAR}`` interpolation of every other way in: Brave was sent ``${MY_BRAVE_KEY}``."""
    monkeypatch.setenv("MY_BRAVE_KEY", "brave-test-key-123")
    tree = {"web": {"backend": "brave", "providers": {"brave": {"api_key": "${MY_BRAVE_KEY}"}}}}
    websearch = create_websearch_tool({"config": tree})
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(BRAVE_URL).respond(200, json=BRAVE_BODY)
        text = asyncio.run(websearch("httpx"))
    assert route.calls.last.request.headers["x-subscription-token"] == "brave-test-key-123"
    assert text.startswith("1. [HTTPX](https://www.python-httpx.org/)")
    with pytest.raises(ValidationError, match="'web.timeout'") as refused:
        WebToolConfig(config={"web": {"timeout": "soon", "providers": {"brave": {"api_key": "brave-k-77"}}}})
    assert "brave-k-77" not in str(refused.value)


@pytest.mark.parametrize("given", ["config.yaml", ["provider", "stub"], 5])
def test_a_config_that_is_no_mapping_is_refused_with_a_sentence(given: Any) -> None:
    """A path given as ``config`` raised ``dictionary update sequence element #0 has length 1``."""
    for create in (create_websearch_tool, create_webread_tool):
        with pytest.raises(TypeError, match=r"^config must be a WebToolConfig, a mapping of its fields or a library Config \(load_config\(path\) reads a file\), not "):
            create(given)


def test_url_credentials_are_masked_in_the_repr_and_kept_for_the_library() -> None:
    url = "http://admin:hunter3pass@127.0.0.1:8888"
    config = WebToolConfig(provider="searxng", base_url=url)
    assert "hunter3pass" not in repr(config) and "hunter3pass" not in str(config)
    assert "base_url='http://***@127.0.0.1:8888'" in repr(config)
    assert config.base_url == url
    assert config.library_config().provider("searxng").base_url == url


def test_unset_env_key_means_no_key(make_config: Any) -> None:
    config = WebToolConfig(provider="brave", api_key="${NOT_SET_ANYWHERE}", config=make_config())
    assert config.api_key is None
    websearch = create_websearch_tool(config)
    assert asyncio.run(websearch("x")).startswith("Error [not_configured]:")


def test_interpolation_default_value(make_config: Any) -> None:
    assert WebToolConfig(provider="${NO_SUCH_VAR:-stub}").provider == "stub"


def test_key_without_provider_is_refused() -> None:
    with pytest.raises(ValidationError, match="needs 'provider'"):
        WebToolConfig(api_key="sk-123")
    with pytest.raises(ValidationError):
        WebToolConfig(provider="stub", colour="red")  # type: ignore[call-arg]


def test_provider_defaults_to_the_library_config(make_config: Any) -> None:
    websearch = create_websearch_tool(
        {"config": make_config(web={"backend": "stub"}), "max_results": 1}
    )
    assert asyncio.run(websearch("library default")).startswith("1. [library default — result 1]")


def test_a_library_config_is_accepted_as_config(probe_config: Any) -> None:
    websearch = create_websearch_tool(probe_config(backend="probe"))
    assert asyncio.run(websearch("which backend")).startswith("1. [Alpha](https://alpha.example.org/)")


def test_an_unknown_setting_is_an_error(make_config: Any) -> None:
    with pytest.raises(ValidationError, match="web_config"):
        create_websearch_tool({"web_config": make_config(web={"backend": "stub"})})


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({"timeout": 7200}, "timeout"),
        ({"tags": {"bad name": "x"}}, "tag name 'bad name' is not allowed"),
        ({"tags": {f"t{n}": n for n in range(17)}}, "at most 16 entries"),
    ],
)
def test_a_setting_no_call_could_take_is_refused_when_the_tool_is_built(
    setting: dict[str, Any], expected: str, make_config: Any
) -> None:
    """It was taken, and then every call answered the model ``invalid_input`` about it."""
    with pytest.raises(ValidationError, match=expected):
        create_websearch_tool({"config": make_config(web={"backend": "stub"}), **setting})


def test_tags_reach_the_per_tag_budget(per_user_budget: Any) -> None:
    alice = create_websearch_tool({"config": per_user_budget, "tags": {"user": "alice"}})
    bob = create_websearch_tool(WebToolConfig(config=per_user_budget, tags={"user": "bob"}))
    answers = [asyncio.run(alice("x")) for _ in range(3)]
    assert [a.startswith("Error [budget_exceeded]") for a in answers] == [False, False, True]
    assert not asyncio.run(bob("x")).startswith("Error")


def test_the_tools_keep_their_descriptions_under_python_oo() -> None:
    """Agents read a tool's description from its ``__doc__``; ``-OO`` strips docstrings."""
    script = (
        "from webproviders import create_webread_tool, create_websearch_tool\n"
        "print(create_websearch_tool({'provider': 'stub'}).__doc__)\n"
        "print(create_webread_tool({'provider': 'stub'}).__doc__)\n"
    )
    done = subprocess.run([sys.executable, "-OO", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    search, read = done.stdout.splitlines()
    assert search.startswith("Search the web") and read.startswith("Read one web page")


def test_a_refused_tool_key_is_named_as_the_tool_key(make_config: Any) -> None:
    """The tool's own key was refused with "Check BRAVE_SEARCH_API_KEY", a variable the host
    never set: the sentence names the key the tool was given, never showing it."""
    key = "brave-tool-key-0f3c9d2e"
    websearch = create_websearch_tool(
        WebToolConfig(provider="brave", api_key=key, config=make_config(web={"cache": False}))
    )
    with respx.mock(assert_all_called=True) as mock:
        mock.get(BRAVE_URL).respond(401, json={"type": "ErrorResponse", "error": {"status": 401}})
        text = asyncio.run(websearch("httpx"))
    assert text.startswith("Error [auth_error]:")
    assert text.endswith("Check the tool's api_key (WebToolConfig).")
    assert "BRAVE_SEARCH_API_KEY" not in text and key not in text
