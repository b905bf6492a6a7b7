"""The Hermes-style drop-in: every member of the contract, and that it never raises."""

from __future__ import annotations

import asyncio
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

    read = provider.extract(["https://docs.example/a", "https://docs.example/b"])
    assert read["success"] is True and [page["url"] for page in read["data"]] == [
        "https://docs.example/a",
        "https://docs.example/b",
    ]
    assert provider.extract("https://docs.example/a")["data"][0]["content"].startswith("# Stub page")

    crawled = provider.crawl("https://docs.example/", max_pages=2)
    assert crawled["success"] is True and len(crawled["data"]) == 2


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
    assert brave.extract("https://a.example/")["error_code"] == "unsupported"

    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "BSA-test-key-0123456789")
    keyed = as_hermes_provider("brave", make_config())
    assert keyed.is_available() is True and keyed.is_keyless_available() is False


def test_a_self_hosted_instance_without_a_key_is_keyless(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FIRECRAWL_API_KEY", raising=False)
    config = make_config(web={"providers": {"firecrawl": {"base_url": "http://127.0.0.1:3002"}}})
    assert as_hermes_provider("firecrawl", config).is_keyless_available() is True
    assert as_hermes_provider("ddgs", make_config()).is_keyless_available() is True


def test_an_unknown_name_answers_and_never_raises(make_config: Any) -> None:
    nobody = as_hermes_provider("altavista", make_config())
    assert nobody.name == nobody.display_name == "altavista"
    assert nobody.is_available() is False and nobody.is_keyless_available() is False
    assert not (nobody.supports_search() or nobody.supports_extract() or nobody.supports_crawl())
    for envelope in (nobody.search("q"), nobody.extract(["https://a.example/"]), nobody.crawl("https://a.example/")):
        assert envelope["success"] is False and envelope["error_code"] == "not_configured"
        assert "Unknown backend 'altavista'" in envelope["error"]


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda p: p.search("fail-crash"), "provider_error"),
        (lambda p: p.search("q", "five"), "invalid_input"),
        (lambda p: p.search("", 5), "invalid_input"),
        (lambda p: p.extract([]), "invalid_input"),
        (lambda p: p.crawl("https://docs.example/"), "unsupported"),  # probe cannot crawl
    ],
)
def test_failures_are_envelopes(call: Any, code: str, probe_config: Any) -> None:
    envelope = call(as_hermes_provider("probe", probe_config(retry={"max_retries": 0})))
    assert envelope["success"] is False and envelope["error_code"] == code
    assert isinstance(envelope["error"], str) and envelope["error"]


def test_a_bad_configuration_is_reported_by_every_member_without_raising() -> None:
    provider = as_hermes_provider("stub", {"web": {"timeout": "later"}})
    assert provider.is_available() is False and provider.supports_search() is False
    envelope = provider.search("q")
    assert envelope["success"] is False and envelope["error_code"] == "invalid_input"
    assert "'web.timeout'" in envelope["error"]
    assert provider.extract("https://a.example/")["error_code"] == "invalid_input"


def test_calls_go_through_dispatch_with_its_cache_retries_and_url_safety(probe_config: Any, make_config: Any) -> None:
    probe = as_hermes_provider("probe", probe_config(retry={"max_retries": 2, "backoff": 0}))
    assert probe.search("cached question")["meta"].get("cached") is None
    assert probe.search("cached question")["meta"]["cached"] is True
    flaky = probe.search("fail-network")
    assert flaky["error_code"] == "network_error" and len(flaky["meta"]["attempts"]) == 3

    reader = as_hermes_provider("http", make_config())
    refused = reader.extract("http://127.0.0.1:9/admin")
    assert refused["success"] is False and refused["error_code"] == "unsafe_url"


def test_sync_calls_work_from_inside_a_running_event_loop(make_config: Any) -> None:
    provider = as_hermes_provider("stub", make_config())

    async def agent_step() -> dict[str, Any]:
        return provider.search("called from async code", 2)

    assert asyncio.run(agent_step())["success"] is True
