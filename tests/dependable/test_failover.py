"""Failover chains: which failures move on to the next provider, and what the envelope says."""

from __future__ import annotations

import asyncio
import json
import logging
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import webproviders
from webproviders import (
    adispatch_extract,
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
)
from webproviders.config import config_from_dict
from webproviders.errors import (
    AuthError,
    BadGatewayError,
    BlockedError,
    InvalidInputError,
    NetworkError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    UnsafeURLError,
    WebTimeoutError,
)

from .conftest import PLUGINS, FakeClock, SleepLog, build_config, provider, send_answer, state


def _chain_config(**web: Any) -> Any:
    config = build_config(search_backend=["fake-a", "fake-b"], extract_backend=["fake-a", "fake-b"], **web)
    state(config).sleep = SleepLog()
    return config


@pytest.mark.parametrize(
    "error",
    [
        NetworkError("down"),
        WebTimeoutError("slow"),
        BadGatewayError("502", status_code=502),
        RateLimitedError("429", retry_after=3),
        QuotaExceededError("out of credits"),
        AuthError("bad key"),
        BlockedError("captcha", detail="captcha_required"),
        ParseError("garbage"),
    ],
    ids=lambda e: e.code,
)
def test_chain_fails_over_on_provider_side_failures(error: Exception) -> None:
    config = _chain_config(retry={"max_retries": 0})
    provider(config, "fake-a").script = [error]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["success"] is True
    assert envelope["provider"] == "fake-b"
    assert envelope["meta"]["served_by"] == "fake-b"
    first, second = envelope["meta"]["attempts"]
    assert first["provider"] == "fake-a" and first["outcome"] == "error"
    assert first["error_code"] == error.code  # type: ignore[attr-defined]
    assert isinstance(first["latency_ms"], float)
    assert second == {"provider": "fake-b", "outcome": "ok", "latency_ms": second["latency_ms"]}


@pytest.mark.parametrize("error", [InvalidInputError("bad query"), UnsafeURLError("private")], ids=lambda e: e.code)
def test_caller_errors_never_fail_over(error: Exception) -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [error]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["success"] is False
    assert envelope["error_code"] == error.code  # type: ignore[attr-defined]
    assert provider(config, "fake-b").calls == 0


def test_unexpected_provider_errors_stop_the_chain() -> None:
    """A bug in a provider is not retryable: moving on would hide it."""
    config = _chain_config()
    provider(config, "fake-a").script = [ProviderError("boom")]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["error_code"] == "provider_error"
    assert provider(config, "fake-b").calls == 0


def test_auth_failover_is_logged_naming_the_provider(caplog: pytest.LogCaptureFixture) -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [AuthError("rejected")]
    with caplog.at_level(logging.WARNING, logger="webproviders.dispatch"):
        envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["provider"] == "fake-b"
    assert any("fake-a" in r.getMessage() and "credentials" in r.getMessage() for r in caplog.records)


class _RaisingHandler(logging.Handler):
    """An application's handler whose ``emit`` raises (it does not use ``handleError``)."""

    def emit(self, record: logging.LogRecord) -> None:
        raise RuntimeError("the log sink is down")


def test_a_logging_handler_that_raises_does_not_fail_the_call_being_logged() -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [AuthError("rejected"), AuthError("rejected")]
    logger = logging.getLogger("webproviders")
    handler = _RaisingHandler()
    logger.addHandler(handler)
    try:
        envelope = dispatch_search("python", config=config, cache=False)
        answered = asyncio.run(adispatch_search("java", config=config, cache=False))
    finally:
        logger.removeHandler(handler)
    assert envelope["success"] is True and envelope["provider"] == "fake-b", envelope
    assert answered["success"] is True and answered["provider"] == "fake-b", answered


def test_unconfigured_provider_in_a_chain_is_skipped_without_a_call() -> None:
    config = build_config(search_backend=["fake-vendor", "fake-a"])
    envelope = dispatch_search("python", config=config)
    assert envelope["provider"] == "fake-a"
    skipped = envelope["meta"]["attempts"][0]
    assert skipped["provider"] == "fake-vendor"
    assert skipped["outcome"] == "skipped" and skipped["error_code"] == "not_configured"
    assert "FAKE_VENDOR_API_KEY" in skipped["reason"]


def test_last_failure_is_reported_when_every_provider_fails() -> None:
    config = _chain_config(retry={"max_retries": 0})
    provider(config, "fake-a").script = [NetworkError("a down")]
    provider(config, "fake-b").script = [BadGatewayError("b down", status_code=503)]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["success"] is False
    assert envelope["error_code"] == "bad_gateway"
    assert envelope["provider"] == "fake-b"
    assert [a["error_code"] for a in envelope["meta"]["attempts"]] == ["network_error", "bad_gateway"]


@pytest.mark.parametrize("hedge_after", [None, 0.5])
def test_a_provider_that_cannot_run_does_not_hide_the_failure_of_one_that_was_asked(
    hedge_after: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 503 followed by a member without its key was reported as that key missing
    (``not_configured``, not retryable), as if nothing had been asked."""
    monkeypatch.delenv("FAKE_VENDOR_API_KEY", raising=False)
    monkeypatch.delenv("FAKE_COUNTER_URL", raising=False)
    config = build_config(retry={"max_retries": 0})
    provider(config, "fake-a").script = [BadGatewayError("fake-a answered 503 Service Unavailable.", status_code=503)]
    envelope = dispatch_search("python", backend=["fake-a", "fake-vendor"], config=config, hedge_after=hedge_after)
    assert (envelope["error_code"], envelope["provider"], envelope["retryable"]) == ("bad_gateway", "fake-a", True)
    assert envelope["error"] == "fake-a answered 503 Service Unavailable."
    assert [(a["provider"], a["error_code"]) for a in envelope["meta"]["attempts"]] == [
        ("fake-a", "bad_gateway"),
        ("fake-vendor", "not_configured"),
    ]
    # with none asked, the one that could not run is the call's error
    alone = dispatch_search("python", backend=["fake-vendor", "fake-counter"], config=config)
    assert (alone["error_code"], alone["provider"]) == ("not_configured", "fake-counter")


@pytest.mark.parametrize("left_out", ["cooling", "paused", "budget"])
@pytest.mark.parametrize("how", [{}, {"hedge_after": 0.5}, {"mode": "fuse"}], ids=["chain", "hedged", "fused"])
def test_a_member_left_out_without_a_request_does_not_hide_the_failure_of_one_that_was_asked(
    left_out: str, how: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 503 followed by a member cooling down, paused by a vendor's Retry-After or out of
    request-budget slots was reported as that member's refusal (its old failure, its pause),
    as if the member that was asked had not answered at all."""
    monkeypatch.delenv("FAKE_COUNTER_URL", raising=False)
    config = build_config(
        retry={"max_retries": 0}, health={"failures": 1}, cache=False, providers={"fake-b": {"rate_limit": "1/min"}}
    )
    clock = FakeClock()
    state(config).health.clock = state(config).limits.local.clock = clock
    state(config).sleep = SleepLog(clock)
    if left_out == "cooling":
        provider(config, "fake-b").script = [NetworkError("fake-b could not be reached.")]
    elif left_out == "paused":
        provider(config, "fake-b").script = [RateLimitedError("fake-b answered 429.", retry_after=60)]
    dispatch_search("python", backend="fake-b", config=config)
    provider(config, "fake-a").script = [BadGatewayError("fake-a answered 503 Service Unavailable.", status_code=503)]
    envelope = dispatch_search("python", backend=["fake-a", "fake-b"], config=config, timeout=5, **how)
    assert (envelope["error_code"], envelope["provider"]) == ("bad_gateway", "fake-a")
    assert envelope["error"] == "fake-a answered 503 Service Unavailable."
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("fake-a", "error"),
        ("fake-b", "skipped"),
    ]
    assert provider(config, "fake-b").calls == 1
    # with none asked, the member left out is the call's error
    alone = dispatch_search("python", backend=["fake-b", "fake-counter"], config=config, timeout=5, **how)
    assert (alone["provider"], alone["retryable"]) == ("fake-b", True)
    assert alone["error_code"] == ("network_error" if left_out == "cooling" else "rate_limited")


def test_a_rate_limited_provider_in_a_chain_fails_over_without_retrying() -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [RateLimitedError("slow down")]
    envelope = dispatch_search("python", config=config, cache=False)
    assert envelope["provider"] == "fake-b"
    assert provider(config, "fake-a").calls == 1


def test_chain_as_call_argument_async() -> None:
    config = build_config()
    provider(config, "fake-c").script = [NetworkError("down")] * 3
    state(config).sleep = SleepLog()
    envelope = asyncio.run(adispatch_search("python", backend=["fake-c", "fake-async"], config=config))
    assert envelope["provider"] == "fake-async"
    # Two retries of the transient failure first, then the next provider.
    assert [a["provider"] for a in envelope["meta"]["attempts"]] == ["fake-c", "fake-c", "fake-c", "fake-async"]
    assert [a.get("retry") for a in envelope["meta"]["attempts"][:3]] == [None, 1, 2]


def test_extract_chain_fails_over() -> None:
    config = _chain_config(retry={"max_retries": 0})
    provider(config, "fake-a").script = [WebTimeoutError("slow")]
    envelope = asyncio.run(adispatch_extract(["https://example.com/a"], config=config))
    assert envelope["provider"] == "fake-b"
    assert envelope["data"][0]["content"] == "body of https://example.com/a"


def test_crawl_chain_fails_over() -> None:
    config = build_config(crawl_backend=["fake-a", "fake-b"], retry={"max_retries": 0})
    provider(config, "fake-a").script = [NetworkError("down")]
    envelope = dispatch_crawl("https://example.com/", config=config)
    assert envelope["provider"] == "fake-b"


def test_failover_on_empty_moves_past_an_empty_answer() -> None:
    config = _chain_config(failover_on_empty=True)
    provider(config, "fake-a").script = [[]]
    envelope = dispatch_search("python", config=config)
    assert envelope["provider"] == "fake-b"
    assert envelope["meta"]["attempts"][0]["empty"] is True
    assert len(envelope["data"]["web"]) == 5


def test_empty_answers_are_kept_when_failover_on_empty_is_off() -> None:
    config = _chain_config()
    provider(config, "fake-a").script = [[]]
    envelope = dispatch_search("python", config=config)
    assert envelope["success"] is True and envelope["provider"] == "fake-a"
    assert envelope["data"]["web"] == []


def test_an_empty_answer_beats_a_later_failure() -> None:
    config = _chain_config(failover_on_empty=True, retry={"max_retries": 0})
    provider(config, "fake-a").script = [[]]
    provider(config, "fake-b").script = [NetworkError("down")]
    envelope = dispatch_search("python", config=config)
    assert envelope["success"] is True
    assert envelope["provider"] == "fake-a"
    assert envelope["data"]["web"] == []


class _JinaReader(BaseHTTPRequestHandler):
    """Jina's reader: reads ``/found`` pages, answers every other one with its 503 error body."""

    def do_POST(self) -> None:
        url = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["url"]
        if url.endswith("/found"):
            status = 200
            answer: dict[str, Any] = {
                "code": 200,
                "status": 20000,
                "data": {"title": "Found", "description": "", "url": url, "content": "The found page."},
                "meta": {"usage": {"tokens": 4}},
            }
        else:
            status = 503
            answer = {"data": None, "code": 503, "name": "ServiceUnavailableError", "status": 50301,
                      "message": "Service unavailable", "readableMessage": "ServiceUnavailableError: unavailable"}
        body = json.dumps(answer).encode()
        send_answer(self, body, status)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _NoSuchPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.parametrize("hedge_after", [None, 5.0])
def test_a_url_no_provider_of_an_extract_chain_could_read_keeps_the_last_error(
    http_server: Any, hedge_after: float | None
) -> None:
    """Jina fails a URL with 503, ``http`` then finds the page gone (404): the item says 404 from
    ``http``. Before, when ``http`` read none of the URLs passed on, the item kept Jina's 503."""
    reader, site = http_server(_JinaReader), http_server(_NoSuchPage)
    config = build_config(
        usage=False,
        allow_private_networks=True,
        retry={"max_retries": 0},
        providers={"jina": {"api_key": "jina_test_0123456789abcdef", "base_url": f"http://127.0.0.1:{reader.server_port}"}},
    )
    found, gone = f"http://127.0.0.1:{site.server_port}/found", f"http://127.0.0.1:{site.server_port}/gone"
    envelope = dispatch_extract([found, gone], backend=["jina", "http"], hedge_after=hedge_after, config=config)
    assert envelope["success"] is True and envelope["provider"] == "jina", envelope
    read, unread = envelope["data"]
    assert (read["provider"], read["content"]) == ("jina", "The found page.")
    assert (unread["url"], unread["provider"], unread["error_code"]) == (gone, "http", "not_found"), unread
    assert envelope["meta"]["failed"] == 1
    assert [(a["provider"], a.get("error_code")) for a in envelope["meta"]["attempts"]] == [
        ("jina", None),
        ("http", "not_found"),
    ]


@pytest.mark.parametrize("hedge_after", [None, 5.0])
def test_with_on_unsupported_error_a_chain_moves_on_to_a_provider_that_honours_the_option(
    hedge_after: float | None,
) -> None:
    """Before, the chain ended on its first provider's ``unsupported`` though the next one
    honours the option (fusion of the same providers used it)."""
    config = _chain_config(on_unsupported="error")
    provider(config, "fake-b").search_options = frozenset({"safe_search"})
    envelope = dispatch_search("q", backend=["fake-a", "fake-b"], safe_search="strict", hedge_after=hedge_after, config=config)
    assert envelope["success"] is True and envelope["provider"] == "fake-b", envelope
    skipped, served = envelope["meta"]["attempts"]
    assert (skipped["provider"], skipped["outcome"], skipped["error_code"]) == ("fake-a", "skipped", "unsupported")
    assert "safe_search" in skipped["reason"]
    assert (served["provider"], served["outcome"]) == ("fake-b", "ok")
    assert provider(config, "fake-a").calls == 0


def test_with_on_unsupported_error_a_chain_none_of_whose_providers_honours_the_option_fails_unsupported() -> None:
    config = _chain_config(on_unsupported="error")
    envelope = dispatch_search("q", backend=["fake-a", "fake-b"], safe_search="strict", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "unsupported", envelope
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [
        ("fake-a", "skipped"),
        ("fake-b", "error"),
    ]
    assert provider(config, "fake-a").calls == provider(config, "fake-b").calls == 0


class _Vendors(BaseHTTPRequestHandler):
    """SearXNG answering 200 hits (some 56 KB, over the cap the test sets), a page over the
    fetch cap at ``/big``, a small one at ``/small``, and Tavily answering within its cap."""

    protocol_version = "HTTP/1.1"

    def _send(self, body: bytes, content_type: str) -> None:
        send_answer(self, body, 200, content_type)

    def do_GET(self) -> None:
        if self.path.startswith("/search"):
            hits = [
                {"url": f"https://a{i}.example/", "title": "A", "content": "x" * 200, "engines": ["google"], "score": 1.0}
                for i in range(200)
            ]
            self._send(json.dumps({"query": "q", "results": hits, "unresponsive_engines": []}).encode(), "application/json")
            return
        words = "word " * (5000 if self.path == "/big" else 100)
        self._send(f"<html><head><title>T</title></head><body><p>{words}</p></body></html>".encode(), "text/html")

    def do_POST(self) -> None:
        asked = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.endswith("/extract"):
            pages = [{"url": url, "raw_content": "# Tavily\n\nThe page, read by Tavily."} for url in asked["urls"]]
            body = {"results": pages, "failed_results": [], "response_time": 0.2}
        else:
            hit = {"title": "B", "url": "https://b.example/", "content": "small", "score": 0.9, "raw_content": None}
            body = {"query": asked["query"], "answer": None, "images": [], "results": [hit], "response_time": 0.2}
        self._send(json.dumps(body).encode(), "application/json")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def vendors(http_server: Any, make_config: Any) -> Any:
    """A config whose searxng answers over its 5,000-byte cap, whose ``http`` pages over
    10,000 bytes are too large, and whose tavily answers within its cap."""
    url = f"http://127.0.0.1:{http_server(_Vendors).server_address[1]}"
    providers = {
        "searxng": {"base_url": url, "max_response_bytes": 5000},
        "tavily": {"base_url": url, "api_key": "tvly-test-0123456789abcdef"},
    }
    web = {
        "cache": False,
        "allow_private_networks": True,
        "max_response_bytes": 10_000,
        "health": {"failures": 1},
        "providers": providers,
    }
    yield url, make_config(web=web)
    webproviders.close()


def test_an_answer_over_the_cap_fails_over_and_does_not_cool_the_provider(vendors: Any) -> None:
    _, config = vendors
    for _ in range(2):  # one counted failure would cool searxng down: the second call skips it
        envelope = dispatch_search("q", backend=["searxng", "tavily"], config=config)
        assert envelope["success"] is True, envelope
        assert envelope["provider"] == "tavily"
        assert [hit["url"] for hit in envelope["data"]["web"]] == ["https://b.example/"]
        first, second = envelope["meta"]["attempts"]
        assert (first["provider"], first["outcome"], first["error_code"]) == ("searxng", "error", "too_large")
        assert (second["provider"], second["outcome"]) == ("tavily", "ok")


def test_an_extract_chain_asks_the_next_provider_for_a_page_over_the_cap(vendors: Any) -> None:
    url, config = vendors
    envelope = dispatch_extract([f"{url}/small", f"{url}/big"], backend=["http", "tavily"], config=config)
    assert envelope["success"] is True, envelope
    small, big = envelope["data"]
    assert small["provider"] == "http" and "word word" in small["content"]
    assert big["provider"] == "tavily" and big["content"] == "# Tavily\n\nThe page, read by Tavily."
    alone = dispatch_extract([f"{url}/big"], backend=["http", "tavily"], config=config)
    assert alone["success"] is True and alone["provider"] == "tavily", alone


#: A policy hook that narrows fake-a's searches to its own site and tags every provider's query.
_PER_PROVIDER_HOOK = """
def before_dispatch(capability, backend, arguments):
    if backend == "fake-a":
        arguments["query"] += " site:a.example"
        arguments["options"]["only_for_a"] = True
    arguments["query"] += " -spam"
"""


@pytest.mark.parametrize("plan", ["chain", "fuse"])
def test_what_a_hook_writes_for_one_provider_is_sent_to_that_provider_only(plan: str, tmp_path: Any) -> None:
    """The hook edited one dict for the whole call: the chain's next provider was sent fake-a's
    site filter and option, and ``-spam`` twice (once per hook run); a fusion's members too."""
    folder = tmp_path / "policy"
    folder.mkdir()
    (folder / "plugin.yaml").write_text("name: policy\nkind: backend\nproviders: []\n", encoding="utf-8")
    (folder / "__init__.py").write_text(_PER_PROVIDER_HOOK, encoding="utf-8")
    config = config_from_dict(
        {
            "web": {"retry": {"max_retries": 0}},
            "plugins": {"paths": [str(tmp_path), str(PLUGINS)], "enabled": ["fakes", "policy"]},
        }
    )
    seen: dict[str, list[tuple[str, dict[str, Any]]]] = {"fake-a": [], "fake-b": []}

    def answering(name: str) -> Any:
        def search(query: str, limit: int = 5, **options: Any) -> Any:
            seen[name].append((query, options))
            if name == "fake-a" and plan == "chain":
                raise NetworkError("down")
            return [{"title": name, "url": f"https://{name}.example/", "description": query}]

        return search

    for name in seen:
        provider(config, name).search = answering(name)
    backend = ["fake-a", "fake-b"] if plan == "chain" else {"fuse": ["fake-a", "fake-b"]}
    envelope = dispatch_search("heat pumps", backend=backend, config=config)
    assert envelope["success"] is True, envelope
    assert seen == {
        "fake-a": [("heat pumps site:a.example -spam", {"only_for_a": True})],
        "fake-b": [("heat pumps -spam", {})],
    }


@pytest.mark.parametrize(
    "web",
    [
        {"search_backend": ["stub", "ddgs"]},
        {"search_backend": ["ddgs", "stub"]},
        {"search_backend": {"fuse": ["ddgs", "stub"]}},
        {"backend": ["ddgs", "stub"]},
    ],
    ids=["chain", "chain-led-by-it", "fuse", "web.backend"],
)
def test_a_member_whose_plugin_is_turned_off_is_left_out_as_one_without_its_key(web: dict[str, Any]) -> None:
    """A chain naming a provider ``plugins.disabled`` turns off failed every call
    (``not_configured``), even with its first member able to answer; one without its key is
    skipped, saying why."""
    config = config_from_dict({"web": web, "plugins": {"disabled": ["ddgs"]}})
    envelope = dispatch_search("heat pumps", config=config)
    assert envelope["success"] is True, envelope
    skipped = [a for a in envelope["meta"]["attempts"] if a["provider"] == "ddgs"]
    assert skipped == [
        {
            "provider": "ddgs",
            "outcome": "skipped",
            "error_code": "not_configured",
            "reason": "Backend 'ddgs' is not available: plugins.disabled turns it off.",
        }
    ]


def test_a_chain_of_members_whose_plugins_are_turned_off_says_so_and_a_mistaken_name_is_still_refused() -> None:
    config = config_from_dict({"web": {"search_backend": ["ddgs", "ddg_html"]}, "plugins": {"disabled": ["ddgs", "ddg_html"]}})
    envelope = dispatch_search("heat pumps", config=config)
    assert (envelope["error_code"], envelope["error"]) == (
        "not_configured",
        "Backend 'ddgs' is not available: plugins.disabled turns it off.",
    )
    typo = dispatch_search("heat pumps", backend=["stub", "dddgs"], config=config)
    assert typo["error_code"] == "invalid_input" and typo["error"].startswith("Unknown backend 'dddgs'."), typo


class _DownSearxngAndBrave(BaseHTTPRequestHandler):
    """SearXNG answering 503 (its engines down), Brave answering one result."""

    def do_GET(self) -> None:
        if self.path.startswith("/search"):
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        hit = {"title": "Heat pumps", "url": "https://example.com/heat", "description": "How they work."}
        body = json.dumps({"type": "search", "web": {"type": "search", "results": [hit]}}).encode()
        send_answer(self, body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("hedge_after", [None, 5.0], ids=["in-turn", "hedged"])
def test_members_the_plan_leaves_out_are_listed_in_chain_order(http_server: Any, hedge_after: float | None) -> None:
    """A member that cannot search (``http``) or whose plugin is off (``ddgs``) was listed
    first in ``meta.attempts``, before the members tried ahead of it in the chain."""
    url = f"http://127.0.0.1:{http_server(_DownSearxngAndBrave).server_address[1]}"
    web = {
        "cache": False,
        "retry": {"max_retries": 0},
        "providers": {"searxng": {"base_url": url}, "brave": {"api_key": "k-brave", "base_url": url}},
    }
    config = config_from_dict({"web": web, "plugins": {"disabled": ["ddgs"]}})
    chain = ["searxng", "http", "ddgs", "brave"]
    envelope = dispatch_search("heat pumps", backend=chain, hedge_after=hedge_after, config=config)
    assert envelope["provider"] == "brave", envelope
    attempts = [(a["provider"], a["outcome"], a.get("error_code")) for a in envelope["meta"]["attempts"]]
    assert attempts == [
        ("searxng", "error", "bad_gateway"),
        ("http", "skipped", "unsupported"),
        ("ddgs", "skipped", "not_configured"),
        ("brave", "ok", None),
    ]
