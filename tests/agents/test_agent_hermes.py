"""The Hermes-style drop-in: every member of the contract, and that it never raises."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders.agents.hermes import MAX_RESULTS, as_hermes_provider


def test_every_member_on_a_working_backend(make_config: Any) -> None:
    provider = as_hermes_provider("stub", make_config())

    assert provider.name == "stub" and provider.display_name == "Stub (offline)"
    assert provider.is_available() is True and provider.is_keyless_available() is True
    assert (provider.supports_search(), provider.supports_extract(), provider.supports_crawl()) == (True, True, True)

    found = provider.search("hermes drop-in", 50)
    assert found["success"] is True and len(found["data"]["web"]) == MAX_RESULTS == 20
    assert "limit 50 is above 20; at most 20 results were asked for." in found["meta"]["warnings"]
    assert [hit["position"] for hit in provider.search("hermes drop-in", 3)["data"]["web"]] == [1, 2, 3]

    read = provider.extract(["https://docs.example/a", "https://docs.example/b"], format="markdown")
    assert [page["url"] for page in read] == ["https://docs.example/a", "https://docs.example/b"]
    assert not any("error" in page for page in read)
    page = provider.extract("https://docs.example/a")[0]
    assert set(page) == {"url", "title", "content", "raw_content", "metadata"}
    assert page["content"].startswith("# Stub page") and page["raw_content"] == page["content"]
    assert asyncio.run(provider.aextract(["https://docs.example/a"])) == provider.extract(["https://docs.example/a"])

    crawled = provider.crawl("https://docs.example/", max_pages=2)
    assert set(crawled) == {"results"} and len(crawled["results"]) == 2
    assert asyncio.run(provider.acrawl("https://docs.example/", max_pages=2)) == crawled

    schema = provider.get_setup_schema()
    assert schema["name"] == "Stub (offline)" and schema["env_vars"] == []


def test_a_keyed_backend_is_available_only_with_its_key_and_never_keyless(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRAVE_SEARCH_API_KEY", raising=False)
    brave = as_hermes_provider("brave", make_config())
    assert brave.display_name != "" and brave.is_available() is False
    assert brave.is_keyless_available() is False
    assert (brave.supports_search(), brave.supports_extract(), brave.supports_crawl()) == (True, False, False)
    refused = brave.search("q")
    assert refused["success"] is False and refused["error_code"] == "not_configured"
    assert "BRAVE_SEARCH_API_KEY" in refused["error"]
    assert brave.extract("https://a.example/") == [
        {
            "url": "https://a.example/",
            "title": "",
            "content": "",
            "raw_content": "",
            "metadata": {},
            "error": brave.extract("https://a.example/")[0]["error"],
            "error_code": "unsupported",
        }
    ]
    assert [var["key"] for var in brave.get_setup_schema()["env_vars"]] == ["BRAVE_SEARCH_API_KEY"]

    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "BSA-test-key-0123456789")
    keyed = as_hermes_provider("brave", make_config())
    assert keyed.is_available() is True and keyed.is_keyless_available() is False


def test_a_self_hosted_instance_without_a_key_is_keyless(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FIRECRAWL_API_KEY", raising=False)
    config = make_config(web={"providers": {"firecrawl": {"base_url": "http://127.0.0.1:3002"}}})
    assert as_hermes_provider("firecrawl", config).is_keyless_available() is True
    assert as_hermes_provider("ddgs", make_config()).is_keyless_available() is True


def test_a_name_in_another_case_is_that_provider(make_config: Any) -> None:
    """``Stub`` searched as stub, while the same object said it was unavailable and searched nothing."""
    provider = as_hermes_provider("Stub", make_config())
    assert provider.is_available() is True and provider.supports_search() is True
    assert provider.search("q")["success"] is True


def test_an_unknown_name_answers_and_never_raises(make_config: Any) -> None:
    nobody = as_hermes_provider("altavista", make_config())
    assert nobody.name == nobody.display_name == "altavista"
    assert nobody.is_available() is False and nobody.is_keyless_available() is False
    assert not (nobody.supports_search() or nobody.supports_extract() or nobody.supports_crawl())
    assert nobody.get_setup_schema() == {"name": "altavista", "badge": "", "tag": "", "env_vars": []}
    refused = nobody.search("q")
    assert refused["success"] is False and refused["error_code"] == "invalid_input"
    for page in (nobody.extract(["https://a.example/"])[0], nobody.crawl("https://a.example/")["results"][0]):
        assert page["url"] == "https://a.example/" and page["error_code"] == "invalid_input"
        assert "Unknown backend 'altavista'" in page["error"]


def failure_of(answer: Any) -> tuple[str, str]:
    """``(error_code, error)`` of a search envelope, an extract page list or a crawl result."""
    if isinstance(answer, dict) and "results" in answer:
        answer = answer["results"]
    if isinstance(answer, list):
        return answer[0]["error_code"], answer[0]["error"]
    assert answer["success"] is False
    return answer["error_code"], answer["error"]


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda p: p.search("fail-crash"), "provider_error"),
        (lambda p: p.search("q", "five"), "invalid_input"),
        (lambda p: p.search("", 5), "invalid_input"),
        (lambda p: p.extract(["ftp://docs.example/"]), "invalid_input"),
        (lambda p: p.crawl("https://docs.example/"), "unsupported"),  # probe cannot crawl
    ],
)
def test_failures_are_answers_not_exceptions(call: Any, code: str, probe_config: Any) -> None:
    error_code, error = failure_of(call(as_hermes_provider("probe", probe_config(retry={"max_retries": 0}))))
    assert error_code == code and isinstance(error, str) and error


def test_an_extract_of_no_urls_is_an_empty_list(probe_config: Any) -> None:
    assert as_hermes_provider("probe", probe_config()).extract([]) == []


def test_no_url_at_all_is_an_error_page_not_silence(make_config: Any) -> None:
    """``extract(None)`` answered ``[]``, as if there were simply nothing to read: the caller's
    mistake is one page with an empty URL and the refusal, as Hermes' own tool gives it."""
    web = as_hermes_provider("stub", make_config(web={"cache": False, "usage": False}))
    for pages in (web.extract(None), asyncio.run(web.aextract(None)), web.crawl(None)["results"]):
        assert [(page["url"], page["error_code"]) for page in pages] == [("", "invalid_input")]
        assert pages[0]["content"] == "" and pages[0]["error"]


def test_what_is_no_url_in_a_list_is_refused_with_an_empty_url_and_each_url_its_own_sentence(
    make_config: Any,
) -> None:
    """``extract([None])`` gave a page whose URL was "None", and when every URL of a batch was
    refused each page carried the first one's sentence (``notaurl`` was told of ``None``)."""
    web = as_hermes_provider("stub", make_config(web={"cache": False, "usage": False}))
    for pages in (web.extract([None, "notaurl"]), asyncio.run(web.aextract([None, "notaurl"]))):
        assert [(page["url"], page["error_code"], page["error"]) for page in pages] == [
            ("", "invalid_input", "Each URL must be a string, not NoneType."),
            ("notaurl", "invalid_input", "The URL 'notaurl' is not an http:// or https:// address."),
        ]
    pages = web.extract([7, "https://a.example.com/x"])
    assert [(page["url"], page.get("error_code")) for page in pages] == [("", "invalid_input"), ("https://a.example.com/x", None)]
    assert pages[0]["error"] == "Each URL must be a string, not int."
    pages = web.extract(["https://a.example.com/x"], max_chars=-1)  # the URL is fine: the call's sentence
    assert pages[0]["error"] == "max_chars must be a whole number above 0, not -1."


@pytest.mark.parametrize("keyword", ["backend", "config"])
def test_a_call_naming_the_backend_or_configuration_is_refused_with_a_sentence(
    keyword: str, make_config: Any
) -> None:
    """``search(q, backend="brave")`` answered ``stub failed: TypeError: dispatch_search() got
    multiple values for keyword argument 'backend'``, a ``provider_error`` blamed on the
    backend: the object's backend and configuration are set when it is made."""
    config = make_config(web={"cache": False, "usage": False})
    web = as_hermes_provider("stub", config)
    value = {"backend": "brave", "config": config}[keyword]
    answers = [
        web.search("q", 3, **{keyword: value}),
        web.extract(["https://a.example/"], **{keyword: value})[0],
        asyncio.run(web.aextract(["https://a.example/"], **{keyword: value}))[0],
        web.crawl("https://a.example/", **{keyword: value})["results"][0],
        asyncio.run(web.acrawl("https://a.example/", **{keyword: value}))["results"][0],
    ]
    for answer in answers:
        assert answer["error_code"] == "invalid_input"
        assert answer["error"].startswith(f"'{keyword}' cannot be given to a call: this object is the 'stub' backend")
        assert "TypeError" not in answer["error"]
    assert web.search("q", 1, **{keyword: None})["success"] is True  # None is left out, as any option


def test_a_password_in_an_address_without_its_scheme_is_masked(make_config: Any) -> None:
    """``alice:pw@host/x`` was refused as no http(s) address with its password quoted, in the
    sentence and as the page's URL: the masking looked for ``user:password@`` after a scheme."""
    from webproviders import create_webread_tool

    config = make_config(web={"cache": False, "usage": False})
    pages = as_hermes_provider("stub", config).extract(["alice:Hunter2pass@a.example/x?token=t0k3nvalue"])
    said = asyncio.run(create_webread_tool({"provider": "stub", "config": config})("alice:Hunter2pass@a.example/x"))
    assert [(page["url"], page["error_code"]) for page in pages] == [("***@a.example/x?token=***", "invalid_input")]
    assert pages[0]["error"] == "The URL '***@a.example/x?token=***' is not an http:// or https:// address."
    assert said == "Error [invalid_input]: The URL '***@a.example/x' is not an http:// or https:// address."


def test_a_bad_configuration_is_reported_by_every_member_without_raising() -> None:
    provider = as_hermes_provider("stub", {"web": {"timeout": "later"}})
    assert provider.is_available() is False and provider.supports_search() is False
    envelope = provider.search("q")
    assert envelope["success"] is False and envelope["error_code"] == "invalid_input"
    assert "'web.timeout'" in envelope["error"]
    assert failure_of(provider.extract("https://a.example/"))[0] == "invalid_input"
    assert asyncio.run(provider.aextract("https://a.example/"))[0]["error_code"] == "invalid_input"


def test_calls_go_through_dispatch_with_its_cache_retries_and_url_safety(probe_config: Any, make_config: Any) -> None:
    probe = as_hermes_provider("probe", probe_config(retry={"max_retries": 2, "backoff": 0}))
    assert probe.search("cached question")["meta"].get("cached") is None
    assert probe.search("cached question")["meta"]["cached"] is True
    flaky = probe.search("fail-network")
    assert flaky["error_code"] == "network_error" and len(flaky["meta"]["attempts"]) == 3

    reader = as_hermes_provider("http", make_config())
    refused = reader.extract(["http://127.0.0.1:9/admin"])
    assert [page["error_code"] for page in refused] == ["unsafe_url"]


class Gone(BaseHTTPRequestHandler):
    """Every page is missing (HTTP 404)."""

    def do_GET(self) -> None:
        self.send_error(404)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_failed_call_gives_each_url_its_own_failure_and_never_a_password(
    make_config: Any, http_server: Callable[..., Any]
) -> None:
    gone = f"http://127.0.0.1:{http_server(Gone).server_address[1]}/gone"
    secret = gone.replace("http://", "http://bob:pw-secret-77@")
    reader = as_hermes_provider("http", make_config(web={"allow_private_networks": True, "usage": False}))

    for pages in (reader.extract([secret]), reader.crawl(secret)["results"]):
        assert "pw-secret-77" not in repr(pages)
        assert pages[0]["url"].startswith("http://***@127.0.0.1:") and pages[0]["error_code"] == "unsafe_url"

    pages = reader.extract([f"  {gone}/1  ", secret, f" {gone}/2"])
    assert "pw-secret-77" not in repr(pages)
    assert [page["url"] for page in pages] == [f"{gone}/1", pages[1]["url"], f"{gone}/2"]
    assert [page["error_code"] for page in pages] == ["not_found", "unsafe_url", "not_found"]
    assert [pages[0]["error"], pages[2]["error"]] == [f"{gone}/{n} was not found (HTTP 404)." for n in (1, 2)]


def test_tags_given_once_or_per_call_reach_the_per_tag_budget(per_user_budget: Any) -> None:
    alice = as_hermes_provider("stub", per_user_budget, tags={"user": "alice"})
    assert [alice.search("q")["success"] for _ in range(3)] == [True, True, False]
    assert alice.search("q")["error_code"] == "budget_exceeded"
    anyone = as_hermes_provider("stub", per_user_budget)
    assert anyone.search("q", tags={"user": "bob"})["success"] is True
    assert anyone.search("q", tags={"user": "alice"})["error_code"] == "budget_exceeded"


def test_sync_calls_work_from_inside_a_running_event_loop(make_config: Any) -> None:
    provider = as_hermes_provider("stub", make_config())

    async def agent_step() -> dict[str, Any]:
        return provider.search("called from async code", 2)

    assert asyncio.run(agent_step())["success"] is True


def test_a_capability_that_needs_a_key_not_set_is_not_offered(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """jina reads pages without a key but searches only with one: it offered search all the
    same, and a framework that picks the first backend offering search sent it searches that
    could only fail."""
    monkeypatch.delenv("JINA_API_KEY", raising=False)
    keyless = as_hermes_provider("jina", make_config())
    assert keyless.is_available() is True
    assert (keyless.supports_search(), keyless.supports_extract()) == (False, True)
    keyed = as_hermes_provider("jina", make_config(web={"providers": {"jina": {"api_key": "jina_0123456789abcdef"}}}))
    assert (keyed.supports_search(), keyed.supports_extract()) == (True, True)
