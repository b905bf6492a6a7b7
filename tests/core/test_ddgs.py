"""The keyless ``ddgs`` provider, with the ddgs package's client replaced (no network)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from ddgs.ddgs import DDGS  # the real class (the package exports a lazy proxy)
from ddgs.exceptions import DDGSException, TimeoutException

from webproviders import dispatch_search

RESULTS = [
    {"title": "Python asyncio", "href": "https://docs.python.org/3/library/asyncio.html", "body": "asyncio is a library"},
    {"title": "Real Python", "href": "https://realpython.com/async-io-python/", "body": "A walkthrough"},
]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    def fake_text(self: Any, query: str, **kwargs: Any) -> list[dict[str, str]]:
        seen.append({"query": query, **kwargs})
        return list(RESULTS)

    monkeypatch.setattr(DDGS, "text", fake_text)
    return seen


def test_results_are_normalised(calls: list[dict[str, Any]], make_config: Any) -> None:
    envelope = dispatch_search("python asyncio", 2, backend="ddgs", config=make_config())
    assert envelope["success"] is True
    assert envelope["data"]["web"][0] == {
        "title": "Python asyncio",
        "url": "https://docs.python.org/3/library/asyncio.html",
        "description": "asyncio is a library",
        "position": 1,
    }
    assert calls[0]["max_results"] == 2


def test_common_options_are_mapped(calls: list[dict[str, Any]], make_config: Any) -> None:
    envelope = dispatch_search(
        "rust",
        3,
        backend="ddgs",
        config=make_config(),
        time_range="week",
        safe_search="strict",
        country="de",
        lang="de",
        include_domains=["doc.rust-lang.org"],
        exclude_domains=["reddit.com"],
    )
    assert "warnings" not in envelope["meta"]
    call = calls[0]
    assert call["query"] == "rust site:doc.rust-lang.org -site:reddit.com"
    assert (call["timelimit"], call["safesearch"], call["region"]) == ("w", "on", "de-de")


def test_no_results_is_an_empty_success_with_a_warning(monkeypatch: pytest.MonkeyPatch, make_config: Any) -> None:
    def no_results(self: Any, query: str, **kwargs: Any) -> list[dict[str, str]]:
        raise DDGSException("No results found.")

    monkeypatch.setattr(DDGS, "text", no_results)
    envelope = dispatch_search("zzzz", backend="ddgs", config=make_config())
    assert envelope["success"] is True and envelope["data"]["web"] == []
    assert "rate limits" in envelope["meta"]["warnings"][0]


@pytest.mark.parametrize(
    ("exc", "code"),
    [(TimeoutException("timed out"), "timeout"), (DDGSException("https://bing.com error 503"), "network_error")],
)
def test_errors_are_mapped(monkeypatch: pytest.MonkeyPatch, make_config: Any, exc: Exception, code: str) -> None:
    def failing(self: Any, query: str, **kwargs: Any) -> list[dict[str, str]]:
        raise exc

    monkeypatch.setattr(DDGS, "text", failing)
    config = make_config(web={"providers": {"ddgs": {"max_retries": 0}}})
    envelope = dispatch_search("q", backend="ddgs", config=config)
    assert envelope["error_code"] == code and envelope["retryable"] is True


def test_a_hanging_ddgs_is_abandoned_at_the_deadline(monkeypatch: pytest.MonkeyPatch, make_config: Any) -> None:
    def hang(self: Any, query: str, **kwargs: Any) -> list[dict[str, str]]:
        time.sleep(3)
        return []

    monkeypatch.setattr(DDGS, "text", hang)
    config = make_config(web={"providers": {"ddgs": {"max_retries": 0}}})
    envelope = dispatch_search("q", backend="ddgs", config=config, timeout=0.3)
    assert envelope["error_code"] == "timeout"
