"""Caching: hits, misses, TTLs and bypass for the memory, SQLite and Redis backends;
single flight; no failures and no secrets in the cache."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_crawl, dispatch_extract, dispatch_search, warn
from webproviders.config import ProviderSettings
from webproviders.dependable.cache import cache_key
from webproviders.dependable.cache.fingerprint import provider_setup, settings_setup
from webproviders.dependable.cache.sqlite_backend import SQLiteCache
from webproviders.errors import NetworkError

from .conftest import (
    CountingServer,
    FakeClock,
    SleepLog,
    build_config,
    free_port,
    provider,
    send_answer,
    state,
)
from .plugins.fakes import hits_for

WORKER = Path(__file__).parent / "worker.py"


def _backend_settings(kind: str, tmp_path: Path, redis_url: str | None, namespace: str) -> dict[str, Any]:
    if kind == "sqlite":
        return {"backend": "sqlite", "path": str(tmp_path / "cache.sqlite3")}
    if kind == "redis":
        return {"backend": "redis", "url": redis_url, "namespace": namespace}
    return {"backend": "memory"}


@pytest.fixture(params=["memory", "sqlite", "redis"])
def cache_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def cache_config(cache_kind: str, tmp_path: Path, request: pytest.FixtureRequest, namespace: str) -> Any:
    redis_url = request.getfixturevalue("redis_server") if cache_kind == "redis" else None

    def build(**cache: Any) -> Any:
        settings = _backend_settings(cache_kind, tmp_path, redis_url, namespace) | cache
        return build_config(search_backend="fake-a", cache=settings)

    return build


def test_a_ttl_meaning_forever_caches_answers_in_every_store(cache_config: Any) -> None:
    """A TTL meaning "keep it" (1e20 s): Redis refused every answer ("value is not an integer or
    out of range"), so nothing was cached and every call warned."""
    config = cache_config(ttl={"search": 1e20})
    first = dispatch_search("python", config=config)
    second = dispatch_search("python", config=config)
    assert "warnings" not in first["meta"] and "warnings" not in second["meta"], first["meta"]
    assert second["meta"]["cached"] is True and provider(config, "fake-a").calls == 1


def test_second_identical_search_is_a_hit(cache_config: Any) -> None:
    config = cache_config()
    first = dispatch_search("python  asyncio", config=config)
    second = dispatch_search(" python asyncio ", config=config)  # same query, other spacing
    assert first["meta"].get("cached") is None
    assert second["meta"]["cached"] is True
    assert second["data"] == first["data"]
    assert second["provider"] == "fake-a"
    assert second["meta"]["attempts"] == [
        {"provider": "fake-a", "outcome": "ok", "latency_ms": second["meta"]["attempts"][0]["latency_ms"], "cached": True}
    ]
    assert provider(config, "fake-a").calls == 1


def test_a_providers_warning_is_cached_with_its_answer(cache_config: Any) -> None:
    """What a provider says about its answer (``warn``) is part of the answer: a hit says it
    again, as the first answer did."""
    config = cache_config()

    def capped(query: str) -> list[dict[str, Any]]:
        warn("fake-a returns at most 5 results per search; 9 were asked for.")
        return hits_for("fake-a", query)

    provider(config, "fake-a").script = [capped]
    first = dispatch_search("python", config=config)
    second = dispatch_search("python", config=config)
    assert second["meta"]["cached"] is True and provider(config, "fake-a").calls == 1
    for envelope in (first, second):
        assert envelope["meta"]["warnings"] == ["fake-a returns at most 5 results per search; 9 were asked for."]


def test_a_warning_given_as_an_object_is_said_as_text(cache_config: Any) -> None:
    """A plugin may pass the exception it caught, or a number: the answer stands, and the
    warning is its text (it turned the answer into a failure with no attempt recorded)."""
    config = cache_config()

    def warned(query: str) -> list[dict[str, Any]]:
        warn(ValueError("engine 2 of 3 did not answer"))  # type: ignore[arg-type]
        warn(3)  # type: ignore[arg-type]
        return hits_for("fake-a", query)

    provider(config, "fake-a").script = [warned]
    envelope = dispatch_search("python", config=config)
    assert envelope["success"] and envelope["meta"]["attempts"][0]["outcome"] == "ok", envelope
    assert envelope["meta"]["warnings"] == ["engine 2 of 3 did not answer", "3"]


def test_a_warning_about_the_call_is_not_cached_with_the_answer() -> None:
    """A store that is down is this call's news, not the answer's: a hit does not repeat it."""
    config = build_config(
        search_backend="fake-a",
        rate_limit={"url": f"redis://127.0.0.1:{free_port()}/0"},
        providers={"fake-a": {"rate_limit": "100/s"}},
    )
    first = dispatch_search("python", config=config)
    second = dispatch_search("python", config=config)
    assert any("rate limit" in w.lower() for w in first["meta"]["warnings"]), first["meta"]
    assert second["meta"]["cached"] is True and "warnings" not in second["meta"], second["meta"]


def test_a_page_read_through_a_url_carrying_a_credential_is_not_cached(
    cache_config: Any, cache_kind: str, tmp_path: Path
) -> None:
    """A signed or shared link is one caller's: the cache is a store every process sharing it
    (a fleet on one Redis) can read, and its answer quotes the link."""
    config = cache_config()
    token = "Sig-0123456789-abcdefghij"
    signed = f"https://files.example/report.pdf?X-Amz-Signature={token}"
    for _ in range(2):
        envelope = dispatch_extract(signed, backend="fake-a", config=config)
        shown = "https://files.example/report.pdf?X-Amz-Signature=***"  # masked as in its sentences
        assert envelope["data"][0]["url"] == shown and envelope["meta"].get("cached") is None
    assert provider(config, "fake-a").calls == 2
    dispatch_extract("https://files.example/open.pdf", backend="fake-a", config=config)
    assert dispatch_extract("https://files.example/open.pdf", backend="fake-a", config=config)["meta"]["cached"]
    if cache_kind == "sqlite":
        stored = b"".join(path.read_bytes() for path in tmp_path.glob("cache.sqlite3*"))
        assert b"open.pdf" in stored and token.encode() not in stored


def test_an_extract_answer_that_leaves_a_url_out_says_so_and_is_not_cached() -> None:
    config = build_config(extract_backend="fake-a")
    fake = provider(config, "fake-a")
    fake.leaves_out = {"https://example.com/b"}
    urls = ["https://example.com/b", "https://example.com/a"]
    envelope = dispatch_extract(urls, config=config)
    assert envelope["success"] is True and envelope["meta"]["failed"] == 1
    left_out, read = envelope["data"]
    assert (left_out["url"], left_out["error_code"]) == ("https://example.com/b", "provider_error")
    assert left_out["error"] == "fake-a returned nothing for this URL."
    assert read["content"] == "body of https://example.com/a"
    assert dispatch_extract(urls, config=config)["meta"].get("cached") is None
    assert fake.calls == 2


def test_an_empty_search_is_not_cached(cache_config: Any) -> None:
    """Keyless engines answer a rate limit or a bot check with an empty page: a cached empty
    answer would outlast the engine's recovery."""
    config = cache_config()
    provider(config, "fake-a").script = [[]]
    assert dispatch_search("python", config=config)["data"]["web"] == []
    again = dispatch_search("python", config=config)
    assert again["meta"].get("cached") is None and len(again["data"]["web"]) == 5
    assert dispatch_search("python", config=config)["meta"]["cached"] is True
    assert provider(config, "fake-a").calls == 2


def test_different_arguments_miss(cache_config: Any) -> None:
    config = cache_config()
    dispatch_search("python", config=config)
    dispatch_search("python", limit=3, config=config)
    dispatch_search("python", config=config, lang="en")
    dispatch_search("rust", config=config)
    assert provider(config, "fake-a").calls == 4


class _BraveWeb(BaseHTTPRequestHandler):
    """Brave's web search, answering every request with one result and keeping its path."""

    paths: list[str] = []

    def do_GET(self) -> None:
        self.paths.append(self.path)
        hit = {"title": "Heat pumps", "url": "https://example.com/heat", "description": "How they work."}
        body = json.dumps({"type": "search", "web": {"type": "search", "results": [hit]}}).encode()
        send_answer(self, body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_country_or_language_code_in_another_case_is_the_same_entry(
    cache_kind: str, tmp_path: Path, request: pytest.FixtureRequest, namespace: str, http_server: Any
) -> None:
    """``country="us"`` and ``"US"`` send Brave the same request; each case was a cache entry
    of its own, and a paid request more."""
    redis_url = request.getfixturevalue("redis_server") if cache_kind == "redis" else None
    handler = type("BraveWeb", (_BraveWeb,), {"paths": []})
    base = f"http://127.0.0.1:{http_server(handler).server_address[1]}"
    config = build_config(
        search_backend="brave",
        cache=_backend_settings(cache_kind, tmp_path, redis_url, namespace),
        providers={"brave": {"api_key": "k-brave", "base_url": base}},
    )
    first = dispatch_search("heat pumps", country="us", lang="en", config=config)
    assert first["success"] and "cached" not in first["meta"], first
    for country, lang in (("US", "EN"), ("Us", "en")):
        assert dispatch_search("heat pumps", country=country, lang=lang, config=config)["meta"]["cached"] is True
    assert handler.paths == ["/res/v1/web/search?q=heat+pumps&count=5&country=US&search_lang=en"]
    dispatch_search("heat pumps", country="de", lang="en", config=config)  # another country is another entry
    assert len(handler.paths) == 2


def test_cache_false_bypasses_reads_and_writes(cache_config: Any) -> None:
    config = cache_config()
    assert dispatch_search("python", config=config, cache=False)["meta"].get("cached") is None
    assert dispatch_search("python", config=config)["meta"].get("cached") is None
    assert dispatch_search("python", config=config, cache=False)["meta"].get("cached") is None
    assert provider(config, "fake-a").calls == 3


def test_failures_are_never_cached(cache_config: Any) -> None:
    config = cache_config()
    state(config).sleep = SleepLog()
    provider(config, "fake-a").script = [NetworkError("down")] * 3
    assert dispatch_search("python", config=config)["success"] is False
    envelope = dispatch_search("python", config=config)
    assert envelope["success"] is True and envelope["meta"].get("cached") is None


def test_entries_expire_after_their_ttl(cache_kind: str, cache_config: Any) -> None:
    if cache_kind == "redis":
        config = cache_config(ttl={"search": 0.3})
        dispatch_search("python", config=config)
        assert dispatch_search("python", config=config)["meta"]["cached"] is True
        time.sleep(0.45)  # Redis expires entries itself
    else:
        config = cache_config(ttl={"search": 60})
        clock = FakeClock(time.time())
        state(config).cache.store.clock = clock  # type: ignore[union-attr]
        dispatch_search("python", config=config)
        clock.advance(59)
        assert dispatch_search("python", config=config)["meta"]["cached"] is True
        clock.advance(2)
    assert dispatch_search("python", config=config)["meta"].get("cached") is None
    assert provider(config, "fake-a").calls == 2


def test_a_hit_is_a_copy_the_caller_may_change(cache_config: Any) -> None:
    config = cache_config()
    dispatch_search("python", config=config)
    hit = dispatch_search("python", config=config)
    hit["data"]["web"][0]["title"] = "changed"
    assert dispatch_search("python", config=config)["data"]["web"][0]["title"] != "changed"


def test_extract_is_cached_and_crawl_is_not_by_default() -> None:
    config = build_config(extract_backend="fake-a", crawl_backend="fake-a")
    dispatch_extract("https://example.com/a", config=config)
    assert dispatch_extract("https://example.com/a", config=config)["meta"]["cached"] is True
    dispatch_crawl("https://example.com/", config=config)
    assert dispatch_crawl("https://example.com/", config=config)["meta"].get("cached") is None
    assert provider(config, "fake-a").calls == 3


def test_cache_can_be_switched_off_in_config() -> None:
    config = build_config(search_backend="fake-a", cache=False)
    dispatch_search("python", config=config)
    dispatch_search("python", config=config)
    assert provider(config, "fake-a").calls == 2


@pytest.mark.parametrize("name", ["max_tokens", "include_cookies", "token_budget", "secret_sauce"])
def test_an_option_that_only_names_a_credential_word_is_part_of_the_key(name: str) -> None:
    """Options such as ``max_tokens`` change the answer: a cached answer for one value must
    not be served for another."""
    base = {"query": "q", "limit": 5}
    one = cache_key("search", "fake-a", {**base, "options": {name: 10}})
    assert one != cache_key("search", "fake-a", {**base, "options": {name: 20}})


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _nested(depth: int) -> list[Any]:
    top: list[Any] = []
    inner = top
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return top


@pytest.mark.parametrize(
    "option", [{1: "one", "1": "one as text"}, _nested(100_000), _Unprintable()], ids=["mixed_keys", "deep", "unprintable"]
)
def test_options_no_cache_key_can_be_written_from_are_answered_uncached_not_failed(option: Any) -> None:
    """Before, the key's failure was the call's: 'The provider failed: TypeError: '<' not
    supported between instances of 'str' and 'int'', though the provider never saw the call."""
    config = build_config(search_backend="fake-a")
    for _ in range(2):
        envelope = dispatch_search("python", config=config, weights=option)
        assert envelope["success"] is True, envelope
        assert envelope["meta"].get("cached") is None
    assert provider(config, "fake-a").calls == 2


def test_cache_key_ignores_secret_looking_options_and_option_order() -> None:
    base = {"query": "python", "limit": 5}
    one = cache_key("search", "fake-a", {**base, "options": {"lang": "en", "country": "us", "api_key": "sk-one"}})
    two = cache_key("search", "fake-a", {**base, "options": {"country": "us", "lang": "en", "api_key": "sk-two"}})
    assert one == two
    assert "sk-one" not in one
    assert cache_key("search", "fake-b", {**base, "options": {}}) != cache_key("search", "fake-a", {**base, "options": {}})


def test_a_provider_setup_in_the_key_holds_no_credential() -> None:
    settings = ProviderSettings(
        base_url="https://user:pw-secret-1@search.internal", api_key="sk-1", headers={"Authorization": "Bearer t-1"}
    )
    setup = provider_setup(settings_setup(settings), [])
    assert "search.internal" in setup
    assert not any(secret in setup for secret in ("pw-secret-1", "sk-1", "t-1"))


def test_no_secret_reaches_a_shared_store(tmp_path: Path) -> None:
    config = build_config(search_backend="fake-a", cache={"backend": "sqlite", "path": str(tmp_path / "c.db")})
    dispatch_search("python", config=config, access_token="tok-very-secret-1234")
    assert b"tok-very-secret-1234" not in (tmp_path / "c.db").read_bytes()
    assert dispatch_search("python", config=config, access_token="tok-other-5678")["meta"]["cached"] is True


def test_fifty_concurrent_identical_searches_make_one_upstream_call(cache_config: Any) -> None:
    config = cache_config()
    provider(config, "fake-a").delay = 0.3

    async def burst() -> list[dict[str, Any]]:
        return await asyncio.gather(*(adispatch_search("python", config=config) for _ in range(50)))

    envelopes = asyncio.run(burst())
    assert all(e["success"] for e in envelopes)
    assert provider(config, "fake-a").calls == 1
    assert sum(1 for e in envelopes if e["meta"].get("cached") is None) == 1
    assert len({json.dumps(e["data"]) for e in envelopes}) == 1


def test_single_flight_spans_threads_and_event_loops() -> None:
    """Sync callers (each on its thread's own loop) and async callers on a user loop share a flight."""
    config = build_config(search_backend="fake-a")
    provider(config, "fake-a").delay = 0.3
    results: list[dict[str, Any]] = []
    lock = threading.Lock()

    def sync_caller() -> None:
        envelope = dispatch_search("python", config=config)
        with lock:
            results.append(envelope)

    def loop_caller() -> None:
        async def many() -> list[dict[str, Any]]:
            return await asyncio.gather(*(adispatch_search("python", config=config) for _ in range(10)))

        envelopes = asyncio.run(many())
        with lock:
            results.extend(envelopes)

    threads = [threading.Thread(target=sync_caller) for _ in range(10)] + [threading.Thread(target=loop_caller)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 20 and all(e["success"] for e in results)
    assert provider(config, "fake-a").calls == 1


def test_waiters_share_the_leaders_failure_and_nothing_is_stored() -> None:
    config = build_config(search_backend="fake-a", retry={"max_retries": 0})
    fake = provider(config, "fake-a")
    fake.delay = 0.2
    fake.script = [NetworkError("down")]

    async def burst() -> list[dict[str, Any]]:
        return await asyncio.gather(*(adispatch_search("python", config=config) for _ in range(5)))

    envelopes = asyncio.run(burst())
    assert [e["error_code"] for e in envelopes] == ["network_error"] * 5
    assert fake.calls == 1
    assert dispatch_search("python", config=config)["meta"].get("cached") is None


@pytest.mark.parametrize("leader_fails", [True, False])
def test_a_waiter_that_left_a_flight_leaves_no_error_in_the_log(leader_fails: bool, caplog: pytest.LogCaptureFixture) -> None:
    """A waiter out of time stops waiting; what the flight ends with later (the provider's
    failure, or the leader's own deadline) is nobody's, and asyncio must not log it as an
    error that was never retrieved."""
    config = build_config(search_backend="fake-a", retry={"max_retries": 0})
    assert dispatch_search("warm up", config=config)["success"] is True
    fake = provider(config, "fake-a")
    fake.delay, fake.script = 0.6, [NetworkError("down")] if leader_fails else []

    async def together() -> list[dict[str, Any]]:
        leader_timeout = 5 if leader_fails else 0.4
        return await asyncio.gather(
            adispatch_search("python", config=config, timeout=leader_timeout),
            adispatch_search("python", config=config, timeout=0.2),
        )

    with caplog.at_level("ERROR", logger="asyncio"):
        leader, waiter = asyncio.run(together())
        gc.collect()
    assert leader["error_code"] == ("network_error" if leader_fails else "timeout")
    assert waiter["error_code"] == "timeout"
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


def test_a_waiter_out_of_time_says_its_own_deadline_ended_it() -> None:
    """A caller with 0.3 s joins an identical call's flight to a provider given 30 s: its
    timeout is its own deadline, not the provider hanging, nor a failure it shared."""
    config = build_config(search_backend="fake-a")
    assert dispatch_search("warm up", config=config)["success"] is True
    provider(config, "fake-a").delay = 1.0

    async def together() -> list[dict[str, Any]]:
        return await asyncio.gather(
            adispatch_search("python", config=config, timeout=5), adispatch_search("python", config=config, timeout=0.3)
        )

    leader, waiter = asyncio.run(together())
    assert leader["success"] is True
    assert waiter["error_code"] == "timeout" and waiter["detail"] == "call_deadline"
    assert [(a["outcome"], a.get("shared")) for a in waiter["meta"]["attempts"]] == [("error", None)]


def test_a_waiter_with_time_left_asks_again_when_the_leaders_deadline_cuts_it_short() -> None:
    """The leader's 0.5 s deadline is its own: the waiters with 10 s are answered, not timed out."""
    config = build_config(search_backend="fake-a")
    # Once warm, calls prepare on the loop: the first of the two below leads the flight.
    assert dispatch_search("warm up", config=config)["success"] is True
    fake = provider(config, "fake-a")
    fake.delay, fake.calls = 2.0, 0

    async def together() -> list[dict[str, Any]]:  # the first leads the flight, the others join it
        return await asyncio.gather(
            *(adispatch_search("python", config=config, timeout=timeout) for timeout in (0.5, 10, 10, 10))
        )

    started = time.monotonic()
    leader, *waiters = asyncio.run(together())
    assert leader["error_code"] == "timeout" and leader["detail"] == "call_deadline"
    assert all(waiter["success"] for waiter in waiters), waiters
    assert sorted(bool(waiter["meta"].get("cached")) for waiter in waiters) == [False, True, True]
    assert time.monotonic() - started < 5
    assert fake.calls == 2  # one of the waiters asked again, for all three


def test_a_flight_whose_leader_s_loop_was_closed_is_asked_again_past_its_deadline() -> None:
    """A caller's loop closed with the leading call's task still pending (kept referenced, as
    asyncio asks): the flight never lands, and an identical call made after that call's
    deadline asks the provider itself instead of waiting on it to its own deadline."""
    config = build_config(search_backend="fake-a")
    assert dispatch_search("warm up", config=config)["success"] is True
    fake = provider(config, "fake-a")
    fake.delay = 0.5
    loop = asyncio.new_event_loop()
    pending = loop.create_task(adispatch_search("python", config=config, timeout=0.3))
    loop.run_until_complete(asyncio.sleep(0.1))  # the leader's request is under way
    loop.close()
    fake.delay = 0.0
    time.sleep(1.5)  # past the leader's deadline and its grace
    envelope = dispatch_search("python", config=config, timeout=2)
    assert envelope["success"] is True, envelope
    assert not pending.done()


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="Ctrl-C is sent with pthread_kill")
@pytest.mark.usefixtures("ctrl_c")
def test_an_interrupted_sync_call_lets_go_of_its_flight() -> None:
    """Ctrl-C caught around a sync call: an identical call made next (on another thread) asks
    the provider itself, rather than waiting to its own deadline on the abandoned call."""
    config = build_config(search_backend="fake-a")
    assert dispatch_search("warm up", config=config)["success"] is True
    fake = provider(config, "fake-a")
    fake.delay = 1.0
    main = threading.main_thread().ident
    assert threading.get_ident() == main  # Ctrl-C reaches the main thread
    threading.Timer(0.3, signal.pthread_kill, (main, signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        dispatch_search("python", config=config, timeout=10)
    results: list[dict[str, Any]] = []
    started = time.monotonic()

    def ask() -> None:
        results.append(dispatch_search("python", config=config, timeout=10))

    other = threading.Thread(target=ask)
    other.start()
    other.join()
    assert results[0]["success"] is True, results
    assert time.monotonic() - started < 5


def _worker_command(job: dict[str, Any]) -> list[str]:
    return [sys.executable, str(WORKER), json.dumps(job)]


def _run_worker(job: dict[str, Any]) -> subprocess.Popen[str]:
    return subprocess.Popen(_worker_command(job), stdout=subprocess.PIPE, text=True)


def _result(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    return json.loads(out.strip().splitlines()[-1])


def test_sqlite_cache_survives_a_process_restart(tmp_path: Path, counting_server: Any) -> None:
    web = {
        "cache": {"backend": "sqlite", "path": str(tmp_path / "cache.sqlite3")},
        "providers": {"fake-counter": {"base_url": counting_server.url}},
    }
    job = {"web": web, "mode": "once", "query": "python", "backend": "fake-counter"}
    first = _result(_run_worker(job))
    second = _result(_run_worker(job))
    assert first == {"success": True, "cached": None, "error": None}
    assert second == {"success": True, "cached": True, "error": None}
    assert len(counting_server.requests) == 1


def test_a_cache_path_alone_selects_the_sqlite_file(tmp_path: Path) -> None:
    """A url alone selects redis; a path alone kept answers in memory and never wrote the file,
    with nothing said, so a cache meant to outlive the process did not."""
    path = tmp_path / "answers.sqlite3"
    config = build_config(search_backend="fake-a", cache={"path": str(path)})
    assert dispatch_search("python", config=config)["success"] is True
    assert path.is_file()
    assert len(SQLiteCache(path)) == 1  # the answer is in the file, for the next process


def test_a_sqlite_cache_deleted_while_in_use_is_set_up_again(tmp_path: Path) -> None:
    """Clearing the cache by hand (deleting its file) while a process used it left that
    process without a cache until it restarted: its kept connections went on with the deleted
    file, new ones found a file without tables, and every call warned ``no such table``."""
    folder = tmp_path / "cache"
    config = build_config(search_backend="fake-a", cache={"backend": "sqlite", "path": str(folder / "c.sqlite3")})
    assert dispatch_search("python", config=config)["success"] is True
    for file in folder.iterdir():
        file.unlink()
    fresh = dispatch_search("python", config=config)
    assert fresh["success"] is True and "warnings" not in fresh["meta"], fresh
    assert "cached" not in fresh["meta"]  # the cleared answer is asked for again
    hit = dispatch_search("python", config=config)
    assert hit["meta"].get("cached") is True, hit  # and cached in the new file
    assert provider(config, "fake-a").calls == 2


def test_a_damaged_sqlite_cache_is_set_up_again(tmp_path: Path) -> None:
    """A cache file with damaged pages (a crash, a full disk, a bad sector) failed every call's
    lookups and stores until someone deleted it; a file there that is no SQLite file at all
    (the path set to another file by mistake) is left as it is."""
    path = tmp_path / "c.sqlite3"
    writer = SQLiteCache(path)
    for n in range(300):
        writer.set(f"key-{n}", json.dumps({"n": n, "padding": "x" * 200}), 3600)
    del writer
    gc.collect()
    import sqlite3

    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every row in the file itself
    db.close()
    with open(path, "r+b") as file:  # pages past the header overwritten
        file.seek(3 * 4096)
        file.write(b"\xa5" * 20 * 4096)
    config = build_config(search_backend="fake-a", cache={"backend": "sqlite", "path": str(path)})
    first = dispatch_search("python", config=config)
    assert first["success"] is True and "warnings" not in first["meta"], first["meta"]
    assert dispatch_search("python", config=config)["meta"].get("cached") is True

    other = tmp_path / "notes.txt"
    other.write_text("not a cache")
    config = build_config(search_backend="fake-a", cache={"backend": "sqlite", "path": str(other)})
    answered = dispatch_search("python", config=config)
    assert answered["success"] is True and "file is not a database" in answered["meta"]["warnings"][0]
    assert other.read_text() == "not a cache"


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_two_processes_sharing_a_cache_make_one_upstream_call(
    kind: str, tmp_path: Path, counting_server: Any, request: pytest.FixtureRequest, namespace: str,
    start_together: Any,
) -> None:
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    counting_server.delay = 0.5  # both processes ask while the first answer is on its way
    web = {
        "cache": _backend_settings(kind, tmp_path, redis_url, namespace),
        "providers": {"fake-counter": {"base_url": counting_server.url}},
    }
    job = {"web": web, "mode": "once", "query": "python", "backend": "fake-counter", "together": True}
    results = [_result(w) for w in start_together([_worker_command(job)] * 2)]
    assert all(r["success"] for r in results)
    assert sorted(bool(r["cached"]) for r in results) == [False, True], results
    assert len(counting_server.requests) == 1


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_worker_killed_while_fetching_holds_identical_calls_up_for_a_moment_only(
    kind: str, tmp_path: Path, counting_server: Any, request: pytest.FixtureRequest, namespace: str
) -> None:
    """Its claim lasted its whole deadline (30 s here): every identical call in the fleet
    waited on it and failed as timeout, the provider answering fine. Now a claim is a short
    lease its holder renews while it fetches, and lapses soon after the holder is gone."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    web = {
        "cache": _backend_settings(kind, tmp_path, redis_url, namespace),
        "providers": {"fake-counter": {"base_url": counting_server.url}},
    }
    counting_server.delay = 60.0  # the first worker's request never comes back
    worker = _run_worker({"web": web, "mode": "once", "query": "python", "backend": "fake-counter"})
    try:
        for _ in range(600):
            if counting_server.requests:
                break
            time.sleep(0.05)
        assert counting_server.requests, "the worker never asked"
    finally:
        worker.kill()
        worker.communicate(timeout=60)
    counting_server.delay = 0.0

    config = build_config(**web)
    envelope = dispatch_search("python", backend="fake-counter", config=config, timeout=15)
    assert envelope["success"] is True, envelope
    assert len(counting_server.requests) == 2


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_claim_is_renewed_while_its_holder_is_still_fetching(
    kind: str, tmp_path: Path, counting_server: Any, request: pytest.FixtureRequest, namespace: str,
    start_together: Any,
) -> None:
    """A fetch that outlasts a lease keeps its claim: the other worker waits for its answer."""
    from webproviders.dependable.cache import CLAIM_LEASE

    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    counting_server.delay = 2 * CLAIM_LEASE
    web = {
        "cache": _backend_settings(kind, tmp_path, redis_url, namespace),
        "providers": {"fake-counter": {"base_url": counting_server.url}},
    }
    job = {"web": web, "mode": "once", "query": "python", "backend": "fake-counter", "together": True}
    results = [_result(w) for w in start_together([_worker_command(job)] * 2)]
    assert all(r["success"] for r in results), results
    assert sorted(bool(r["cached"]) for r in results) == [False, True], results
    assert len(counting_server.requests) == 1


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_configs_sharing_a_store_with_a_provider_set_up_differently_do_not_share_answers(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers sharing one cache file or Redis, each with its own instance of a provider
    (another ``base_url``, another vendor option), were served the first one's answers."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    cache = _backend_settings(kind, tmp_path, redis_url, namespace)
    servers = [CountingServer(), CountingServer()]
    try:

        def ask(server: CountingServer, **section: Any) -> dict[str, Any]:
            setup = {"base_url": server.url, **section}
            config = build_config(search_backend="fake-counter", cache=cache, providers={"fake-counter": setup})
            return dispatch_search("python", config=config)

        assert "cached" not in ask(servers[0])["meta"]
        assert "cached" not in ask(servers[1])["meta"]  # another instance answers for itself
        assert "cached" not in ask(servers[1], model="large")["meta"]  # so does another vendor option
        # what only changes how the request is sent shares the answer: keys, timeouts, retries
        same = ask(servers[1], model="large", api_key="sk-other", timeout=9, max_retries=0)
        assert same["meta"]["cached"] is True
        assert [len(s.requests) for s in servers] == [1, 2]
        monkeypatch.setenv("FAKE_COUNTER_URL", "http://127.0.0.1:9/other")  # a declared variable, not secret
        assert "cached" not in ask(servers[1], model="large")["meta"]
    finally:
        for server in servers:
            server.close()


class _AgentEcho(BaseHTTPRequestHandler):
    """A page that names the User-Agent it was asked with, long enough to be cut off."""

    def do_GET(self) -> None:
        paragraph = "the quick brown fox jumps over the lazy dog " * 8
        article = "".join(f"<p>Paragraph {n}: {paragraph}</p>" for n in range(40))
        agent = self.headers.get("User-Agent", "")
        body = f"<html><body><article><h1>Asked by {agent}</h1>{article}</article></body></html>".encode()
        send_answer(self, body, 200, "text/html; charset=utf-8")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_configs_sharing_a_store_with_other_extraction_limits_or_user_agent_do_not_share_answers(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, namespace: str, http_server: Any
) -> None:
    """A page read under another ``web.extraction`` limit or another ``web.user_agent`` was
    served to a worker sharing the cache: the whole page where this one cuts it short, a page
    asked for by another agent."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    cache = _backend_settings(kind, tmp_path, redis_url, namespace)
    url = f"http://127.0.0.1:{http_server(_AgentEcho).server_address[1]}/page"

    def read(**web: Any) -> tuple[bool, str]:
        config = build_config(cache=cache, allow_private_networks=True, **web)
        envelope = dispatch_extract([url], backend="http", config=config)
        assert envelope["success"], envelope
        return bool(envelope["meta"].get("cached")), envelope["data"][0]["content"]

    cached, whole = read()
    assert not cached and "Paragraph 39" in whole
    cached, cut = read(extraction={"max_html_chars": 3000})
    assert not cached and "Paragraph 39" not in cut
    cached, other = read(user_agent="OtherAgent/2.0")
    assert not cached and "Asked by OtherAgent/2.0" in other
    # how many workers extract does not change a page's text: the answer is shared
    assert read(extraction={"workers": 3}) == (True, whole)


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_page_one_config_cut_to_its_page_cap_is_not_served_whole_to_another(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, namespace: str
) -> None:
    """Every provider's pages are cut to ``web.max_response_bytes`` characters, but only a page
    read on this machine had the cap in its key: a worker keeping pages whole was served, from
    the cache they share, the page another worker had cut to 1,000 characters."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    cache = _backend_settings(kind, tmp_path, redis_url, namespace)

    def read(**web: Any) -> tuple[bool, str]:
        config = build_config(cache=cache, **web)
        provider(config, "fake-a").page = "word " * 2000
        envelope = dispatch_extract(["https://example.com/long"], backend="fake-a", config=config)
        assert envelope["success"], envelope
        return bool(envelope["meta"].get("cached")), envelope["data"][0]["content"]

    cached, cut = read(max_response_bytes=1000)
    assert not cached and len(cut) < 1000
    cached, whole = read()
    assert not cached and len(whole) == len("word " * 2000) - 1
    assert read(max_response_bytes=1000) == (True, cut)


class _ToLocalhost(BaseHTTPRequestHandler):
    """``/go`` redirects to this server under the name ``localhost``, where ``/secret`` is."""

    def do_GET(self) -> None:
        if self.path == "/go":
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{self.server.server_address[1]}/secret")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        text = "".join(f"<p>Internal figure {n}: the numbers of the quarter before it was published.</p>" for n in range(20))
        body = f"<html><body><article><h1>Internal only</h1>{text}</article></body></html>".encode()
        send_answer(self, body, 200, "text/html; charset=utf-8")

    def log_message(self, *args: Any) -> None:
        pass


def test_a_page_one_config_may_reach_is_not_served_to_a_config_whose_url_screen_refuses_it(
    tmp_path: Path, namespace: str, http_server: Any
) -> None:
    """A worker allowed private networks read a page behind a redirect to one; a worker
    sharing the cache that allows only the first host must meet its own screen's refusal,
    not the other's cached page."""
    cache = _backend_settings("sqlite", tmp_path, None, namespace)
    url = f"http://127.0.0.1:{http_server(_ToLocalhost).server_address[1]}/go"
    opened = dispatch_extract([url], backend="http", config=build_config(cache=cache, allow_private_networks=True))
    assert opened["success"] and "Internal figure 19" in opened["data"][0]["content"], opened
    narrow = build_config(cache=cache, allowed_hosts=["127.0.0.1"])
    refused = dispatch_extract([url], backend="http", config=narrow)
    assert "cached" not in refused["meta"], refused
    assert refused["error_code"] == "unsafe_url", refused
    assert "Internal figure" not in json.dumps(refused)


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_workers_waiting_on_an_answer_that_is_not_cached_share_it(
    kind: str, tmp_path: Path, counting_server: Any, request: pytest.FixtureRequest, namespace: str
) -> None:
    """An empty search is not cached; the workers waiting for it took the claim one after
    another and asked again, each waiting for the one before (past their deadlines, when
    enough of them asked)."""
    counting_server.body = b'{"hits": 0}'
    results = _four_workers_at_once(kind, tmp_path, counting_server, request, namespace)
    assert all(r["success"] for r in results), results
    assert sorted(bool(r["cached"]) for r in results) == [False, True, True, True], results
    assert len(counting_server.requests) == 1


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_workers_waiting_on_a_failing_provider_share_its_failure(
    kind: str, tmp_path: Path, counting_server: Any, request: pytest.FixtureRequest, namespace: str
) -> None:
    """As calls in one process share the provider's failure, so do workers waiting on the
    one that met it; before, each asked again in turn, and the last ones ran out of time."""
    counting_server.status = 500
    results = _four_workers_at_once(kind, tmp_path, counting_server, request, namespace)
    assert len({r["error"] for r in results}) == 1 and "HTTP Error 500" in results[0]["error"], results
    assert len(counting_server.requests) == 1


def _left_over_by_another(kind: str, tmp_path: Path, redis_url: str | None, namespace: str, payload: bytes) -> None:
    """The stored answer taken away, and in its place what a worker that held the key's claim
    a moment ago left for its waiters: ``payload`` (another version's or program's), its claim
    still standing for a moment."""
    if kind == "sqlite":
        db = sqlite3.connect(tmp_path / "cache.sqlite3", isolation_level=None)
        try:
            (key,) = db.execute("SELECT key FROM entries").fetchone()
            db.execute("DELETE FROM entries")
            db.execute("INSERT INTO entries VALUES (?, ?, ?, ?)", (f"handover:{key}", payload, time.time() + 60, time.time()))
            db.execute("INSERT INTO claims VALUES (?, 'another', ?)", (key, time.time() + 0.3))
        finally:
            db.close()
        return
    import redis

    client = redis.Redis.from_url(redis_url or "")
    try:
        (stored,) = [k.decode() for k in client.scan_iter(f"{namespace}:cache:*")]
        key = stored[len(f"{namespace}:cache:"):]
        client.delete(stored)
        client.set(f"{namespace}:cache:handover:{key}", payload, px=60000)
        client.set(f"{namespace}:cache:claim:{key}", "another", px=300)
    finally:
        client.close()


@pytest.mark.parametrize(
    "failure",
    [
        {"code": "no_such_code", "message": "x"},
        {"code": "rate_limited", "message": "slow", "retry_after": "soon"},
        {"code": "timeout", "message": "m", "detail": {"why": 1}},
        {"code": "provider_error", "message": "m", "provider": ["fake-a"]},
        {"code": "auth_error", "message": 5, "failures": [1, "a"]},
    ],
)
@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_handed_over_failure_of_another_shape_is_not_taken(
    kind: str, failure: dict[str, Any], tmp_path: Path, request: pytest.FixtureRequest, namespace: str
) -> None:
    """Such an entry failed the waiting call as provider_error, 'The provider failed: TypeError:
    must be real number, not str' (or took its code, message and failures as they were)."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    config = build_config(search_backend="fake-a", cache=_backend_settings(kind, tmp_path, redis_url, namespace))
    first = dispatch_search("python", config=config)
    _left_over_by_another(kind, tmp_path, redis_url, namespace, json.dumps({"scope": "", "failure": failure}).encode())

    envelope = dispatch_search("python", config=config, timeout=10)
    assert envelope["success"] is True and envelope["data"] == first["data"], envelope
    assert provider(config, "fake-a").calls == 2


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_failure_met_with_one_tenant_s_key_is_not_handed_to_a_tenant_with_another(
    kind: str, tmp_path: Path, namespace: str, http_server: Any, request: pytest.FixtureRequest
) -> None:
    """The cache key leaves keys out, so tenants sharing a cache wait on each other's claims;
    the tenant whose key the vendor accepts was handed the other's ``auth_error`` instead of
    asking with its own key."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    refused_arrived, release = threading.Event(), threading.Event()

    class Vendor(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.headers.get("X-Api-Key") == "fv-refused-111":
                refused_arrived.set()
                release.wait(10)
                status, body = 401, b'{"error": "Invalid API key"}'
            else:
                hit = {"title": "Python", "link": "https://www.python.org/", "snippet": "The official home."}
                status, body = 200, json.dumps({"results": [hit]}).encode()
            send_answer(self, body, status)

        def log_message(self, *args: Any) -> None:
            pass

    base = f"http://127.0.0.1:{http_server(Vendor).server_address[1]}/v1"
    cache = _backend_settings(kind, tmp_path, redis_url, namespace)
    results: dict[str, dict[str, Any]] = {}

    def tenant(label: str, key: str) -> threading.Thread:
        config = build_config(cache=cache, providers={"fake-vendor": {"api_key": key, "base_url": base}})
        def ask() -> None:
            results[label] = dispatch_search("python", backend="fake-vendor", config=config)

        thread = threading.Thread(target=ask)
        thread.start()
        return thread

    refused = tenant("refused", "fv-refused-111")
    assert refused_arrived.wait(10)  # the first tenant holds the claim
    accepted = tenant("accepted", "fv-accepted-222")
    time.sleep(0.5)  # the second tenant waits on the first one's claim
    release.set()
    refused.join(10)
    accepted.join(10)
    assert results["refused"]["error_code"] == "auth_error", results["refused"]
    assert results["accepted"]["success"] is True, results["accepted"]
    assert results["accepted"]["data"]["web"][0]["url"] == "https://www.python.org/"


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_shared_answer_is_served_no_longer_than_the_reading_config_keeps_answers(
    kind: str, tmp_path: Path, namespace: str, request: pytest.FixtureRequest
) -> None:
    """Configs sharing a store may keep answers for different times; one that keeps searches a
    minute was served the hour-old answer of one that keeps them an hour, marked cached."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    shared = _backend_settings(kind, tmp_path, redis_url, namespace)
    hourly = build_config(search_backend="fake-a", cache={**shared, "ttl": {"search": 3600}})
    minutely = build_config(search_backend="fake-a", cache={**shared, "ttl": {"search": 60}})
    clock = FakeClock(start=time.time())
    state(hourly).cache.clock = state(minutely).cache.clock = clock  # type: ignore[union-attr]
    assert "cached" not in dispatch_search("python", config=hourly)["meta"]
    clock.advance(120)
    fresh = dispatch_search("python", config=minutely)
    assert "cached" not in fresh["meta"], fresh["meta"]
    assert provider(minutely, "fake-a").calls == 1
    assert dispatch_search("python", config=minutely)["meta"]["cached"] is True  # its own answer is kept
    assert dispatch_search("python", config=hourly)["meta"]["cached"] is True


def test_a_claim_the_store_made_after_its_caller_left_does_not_hold_the_others_up(
    redis_server: str, namespace: str
) -> None:
    """A caller cancelled while its claim was on its way to Redis never answered it, yet the
    server made the claim, for the whole of the caller's time: every worker asking the same
    waited on it until its own deadline and failed ``timeout``, "another worker was answering"."""
    import redis

    config = build_config(search_backend="fake-a", cache={"url": redis_server, "namespace": namespace, "timeout": 2.0})
    client = redis.Redis.from_url(redis_server)

    async def run() -> dict[str, Any]:
        client.execute_command("CLIENT", "PAUSE", 800, "WRITE")  # the lookup is answered, the claim waits
        left = asyncio.ensure_future(adispatch_search("python", config=config, timeout=30))
        await asyncio.sleep(0.3)
        left.cancel()
        with pytest.raises(asyncio.CancelledError):
            await left
        await asyncio.sleep(1.0)  # the server has made the claim by now
        return await adispatch_search("python", config=config, timeout=3)

    try:
        envelope = asyncio.run(run())
    finally:
        client.close()
    assert envelope["success"] is True, envelope


def _four_workers_at_once(
    kind: str, tmp_path: Path, server: Any, request: pytest.FixtureRequest, namespace: str
) -> list[dict[str, Any]]:
    """Four processes sharing a cache ask ``fake-counter`` (``server``, answering in 1 s) the
    same search at the same moment."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    server.delay = 1.0
    web = {
        "cache": _backend_settings(kind, tmp_path, redis_url, namespace),
        "providers": {"fake-counter": {"base_url": server.url}},
    }
    job = {"web": web, "mode": "once", "query": "python", "backend": "fake-counter", "together": True}
    return [_result(w) for w in request.getfixturevalue("start_together")([_worker_command(job)] * 4)]


def _spoil_entries(kind: str, tmp_path: Path, redis_url: str | None, namespace: str, payload: bytes) -> int:
    """Overwrite every stored answer with ``payload`` (what a torn write or another program's
    key looks like); returns how many there were."""
    if kind == "sqlite":
        import sqlite3

        db = sqlite3.connect(tmp_path / "cache.sqlite3", isolation_level=None)
        try:
            return db.execute("UPDATE entries SET value = ?", (payload,)).rowcount
        finally:
            db.close()
    import redis

    client = redis.Redis.from_url(redis_url or "")
    try:
        keys = [k for k in client.scan_iter(f"{namespace}:cache:*") if b":claim:" not in k]
        for key in keys:
            client.set(key, payload, keepttl=True)
        return len(keys)
    finally:
        client.close()


@pytest.mark.parametrize(
    "payload",
    [
        b"\xff\x00torn", b'{"data": [1, 2', b"42", b'{"rows": []}',
        # Another program's or version's entry: JSON with data and meta, yet no answer.
        b'{"data": null, "meta": {}}', b'{"data": "python", "meta": {}}', b'{"data": {"web": "x"}, "meta": {}}',
        b'{"data": {"web": [1, 2]}, "meta": {}}', b'{"data": {"web": [{"url": 5}]}, "meta": {}}',
        b'{"data": {"web": [{"url": "https://a.example/"}]}, "meta": {"warnings": "stale"}}',
        # Nested deeper than Python's JSON reader recurses: the call failed as the provider's
        # parse_error ("The provider sent a response nested too deeply to read as JSON").
        pytest.param(b"[" * 100_000 + b"]" * 100_000, id="nested-too-deep"),
    ],
)
@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_stored_entry_that_is_not_an_answer_is_a_miss_not_a_failure(
    kind: str, payload: bytes, tmp_path: Path, request: pytest.FixtureRequest, namespace: str
) -> None:
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    config = build_config(search_backend="fake-a", cache=_backend_settings(kind, tmp_path, redis_url, namespace))
    first = dispatch_search("python", config=config)
    assert _spoil_entries(kind, tmp_path, redis_url, namespace, payload) == 1

    spoiled = dispatch_search("python", config=config)
    assert spoiled["success"] is True and spoiled["data"] == first["data"]
    assert spoiled["meta"].get("cached") is None and provider(config, "fake-a").calls == 2
    assert any(w.startswith(f"The cache ({kind}) held an entry it could not read") for w in spoiled["meta"]["warnings"])
    # The answer took the spoiled entry's place.
    assert dispatch_search("python", config=config)["meta"]["cached"] is True


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_stored_answer_whose_meta_names_the_envelope_s_own_fields_is_served_with_ours(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, namespace: str
) -> None:
    """An answer another version or program stored, its meta holding ``served_by`` (and other
    names of the envelope's own): every hit failed as provider_error, 'The provider failed:
    TypeError: Call.meta() got multiple values for argument 'served_by'', until it expired."""
    redis_url = request.getfixturevalue("redis_server") if kind == "redis" else None
    config = build_config(search_backend="fake-a", cache=_backend_settings(kind, tmp_path, redis_url, namespace))
    first = dispatch_search("python", config=config)
    answer = {**first, "meta": {"served_by": "elsewhere", "self": "x", "latency_ms": -1, "region": "eu"}}
    assert _spoil_entries(kind, tmp_path, redis_url, namespace, json.dumps(answer).encode()) == 1

    hit = dispatch_search("python", config=config)
    assert hit["success"] is True and hit["data"] == first["data"], hit
    assert hit["meta"]["served_by"] == "fake-a" and hit["meta"]["cached"] is True
    assert hit["meta"]["latency_ms"] >= 0 and hit["meta"]["region"] == "eu"
    assert provider(config, "fake-a").calls == 1


def test_a_cache_path_set_to_another_program_s_database_leaves_it_unaltered(tmp_path: Path) -> None:
    """The cache's tables were added to that database (switched to WAL mode), unsaid; one
    that had a table named as the cache's failed with 'no such column: stored'."""
    import sqlite3

    path = tmp_path / "places.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE history (url TEXT, visits INTEGER)")
    db.commit()
    db.close()
    config = build_config(search_backend="fake-a", cache={"backend": "sqlite", "path": str(path)})
    envelope = dispatch_search("python", config=config)
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == [
        f"The cache (sqlite) failed (ForeignDatabase: {path} is a SQLite database holding tables of another "
        "program (history); it is left as it is: point web.cache.path at another file); this call goes on without it."
    ]
    db = sqlite3.connect(path)
    try:
        assert [n for (n,) in db.execute("SELECT name FROM sqlite_master")] == ["history"]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        db.close()


def test_a_cache_path_naming_a_folder_says_so(tmp_path: Path) -> None:
    """SQLite said only 'unable to open database file'."""
    config = build_config(search_backend="fake-a", cache={"backend": "sqlite", "path": str(tmp_path)})
    envelope = dispatch_search("python", config=config)
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == [
        f"The cache (sqlite) failed (IsADirectoryError: {tmp_path} is a folder; web.cache.path names the file "
        "itself (one inside it will do)); this call goes on without it."
    ]


def _in_own_mounts(tmp_path: Path, setup: str, script: str) -> dict[str, Any]:
    """The envelope ``script`` prints last, run in a mount namespace of its own after ``setup``
    (the host's files and disks are untouched); skipped where no such namespace can be made."""
    file = tmp_path / "call.py"
    file.write_text(f"import json, sys\nsys.path.insert(0, {str(Path(__file__).parent.parent)!r})\n" + script)
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", setup], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace here: {probe.stderr.decode(errors='replace').strip()}")
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f"{setup} && exec {sys.executable} {file}"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_a_sqlite_cache_on_a_full_disk_names_the_file_and_what_to_do(tmp_path: Path) -> None:
    """Every warning said only "database or disk is full": neither which file nor what to do.
    A 40 KiB file system is mounted on the cache's folder."""
    folder = tmp_path / "cache"
    folder.mkdir()
    path = folder / "cache.sqlite3"
    envelope = _in_own_mounts(tmp_path, f"mount -t tmpfs -o size=40k tmpfs {folder}", (
        "from dependable.conftest import build_config\n"
        "from webproviders import dispatch_search\n"
        f"config = build_config(search_backend='fake-a', cache={{'backend': 'sqlite', 'path': {str(path)!r}}})\n"
        "for n in range(2000):\n"
        "    envelope = dispatch_search('heat pumps ' * 30 + str(n), config=config)\n"
        "    if envelope['meta'].get('warnings'):\n"
        "        break\n"
        "print(json.dumps(envelope))\n"
    ))
    assert envelope["success"] is True
    said = (
        f"database or disk is full: the disk holding {path} is full; free space there, lower web.cache.max_mb, "
        "or point web.cache.path at a file on another disk"
    )
    assert any(said in w for w in envelope["meta"]["warnings"]), envelope["meta"]


def test_a_sqlite_cache_on_a_read_only_mount_names_the_file_and_what_to_do(tmp_path: Path) -> None:
    """An existing cache file on a read-only mount: every warning said only "unable to open
    database file" (SQLite cannot make the WAL's index file beside it)."""
    folder = tmp_path / "cache"
    folder.mkdir()
    path = folder / "cache.sqlite3"
    SQLiteCache(path).set("key", b"{}", 60)
    gc.collect()
    sqlite3.connect(path).close()  # the last connection out folds the WAL in
    envelope = _in_own_mounts(tmp_path, f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder}", (
        "from dependable.conftest import build_config\n"
        "from webproviders import dispatch_search\n"
        f"config = build_config(search_backend='fake-a', cache={{'backend': 'sqlite', 'path': {str(path)!r}}})\n"
        "print(json.dumps(dispatch_search('python', config=config)))\n"
    ))
    assert envelope["success"] is True
    said = (
        f"unable to open database file: {path} may not be written (a read-only file, folder or file system); "
        "let this process write it, or point web.cache.path at a file it may write"
    )
    assert any(said in w for w in envelope["meta"]["warnings"]), envelope["meta"]


def test_a_broken_shared_store_never_fails_a_call(caplog: pytest.LogCaptureFixture) -> None:
    config = build_config(search_backend="fake-a", cache={"backend": "redis", "url": f"redis://127.0.0.1:{free_port()}/0"})
    first = dispatch_search("python", config=config)
    second = dispatch_search("python", config=config)
    assert first["success"] is True and second["success"] is True
    assert provider(config, "fake-a").calls == 2
    assert any("The cache (redis) failed (ConnectionError" in w for w in first["meta"]["warnings"])
    assert any("The cache (redis) is skipped for now" in w for w in second["meta"]["warnings"])
    assert any("The cache (redis) failed" in r.getMessage() for r in caplog.records)
    # The call looked up the cache and then stored its answer: one line says why, not two.
    for envelope in (first, second):
        assert sum(w.startswith("The cache (redis)") for w in envelope["meta"]["warnings"]) == 1, envelope["meta"]


def test_the_sqlite_cache_closes_each_thread_s_connection_when_done_with_it(tmp_path: Path) -> None:
    """Python 3.13+ warns (``ResourceWarning``) about each connection the garbage collector
    finds open: before, one for every thread that used the cache, and one for a dropped cache."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        cache = SQLiteCache(tmp_path / "cache.sqlite3")
        for n in range(3):
            worker = threading.Thread(target=cache.set, args=(f"k{n}", "v", 60))
            worker.start()
            worker.join()
        gc.collect()
        assert [cache.get(f"k{n}") for n in range(3)] == ["v", "v", "v"]
        del cache
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def _stored_bytes(config: Any, tmp_path: Path) -> int:
    store = state(config).cache.store  # type: ignore[union-attr]
    if not store.shared:
        return int(store.size)
    with sqlite3.connect(tmp_path / "cache.sqlite3") as db:
        return int(db.execute("SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM entries").fetchone()[0])


def test_a_sqlite_cache_written_by_short_lived_processes_is_trimmed(tmp_path: Path) -> None:
    """Each process counted its own writes towards the trim, so processes that store a few
    answers each (CLI calls, jobs, a config made per request; each a new ``SQLiteCache``
    here) never trimmed the file: 300 of them left 300 rows, over ``max_entries`` of 5, the
    expired ones among them never deleted."""
    path = tmp_path / "cache.sqlite3"
    clock = FakeClock()
    for n in range(300):
        SQLiteCache(path, max_entries=5, clock=clock).set(f"key-{n}", b"{}", 1.0 if n % 2 else 3600.0)
        clock.advance(0.1)
    gc.collect()
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT count(*) FROM entries").fetchone()[0]
    assert rows <= 5 + 300 % 256, rows  # trimmed at the file's 256th write, then 44 more


def test_a_sqlite_cache_s_lapsed_claims_are_pruned(tmp_path: Path) -> None:
    """A claim whose worker was killed while fetching (or whose release did not reach the file)
    was deleted only by a later claim on the same key: for a key never asked again, never."""
    clock = FakeClock()
    cache = SQLiteCache(tmp_path / "cache.sqlite3", clock=clock)
    for n in range(10):
        assert cache.claim(f"key-{n}", 3.0)
    clock.advance(4.0)
    held = cache.claim("key-held", 3.0)
    cache.prune()
    with sqlite3.connect(tmp_path / "cache.sqlite3") as db:
        assert db.execute("SELECT key FROM claims").fetchall() == [("key-held",)]
    assert held and cache.claimed("key-held")


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_the_cache_holds_no_more_than_its_size_cap(kind: str, tmp_path: Path) -> None:
    config = build_config(extract_backend="fake-a", cache={"max_mb": 1} | _backend_settings(kind, tmp_path, None, ""))
    fake = provider(config, "fake-a")
    fake.page = "x" * 400_000
    urls = [f"https://example.com/{n}" for n in range(3)]
    for url in urls:
        dispatch_extract(url, config=config)
    assert 0 < _stored_bytes(config, tmp_path) <= 2**20
    assert dispatch_extract(urls[2], config=config)["meta"]["cached"] is True
    assert dispatch_extract(urls[0], config=config)["meta"].get("cached") is None  # pushed out by the later two
    assert fake.calls == 4

    fake.page = "x" * 2_000_000  # larger than the whole cache: answered, never kept
    for _ in range(2):
        assert dispatch_extract("https://example.com/big", config=config)["meta"].get("cached") is None
    assert fake.calls == 6
    assert _stored_bytes(config, tmp_path) <= 2**20


def _kagi(http_server: Any, answer: Callable[[str], dict[str, Any]]) -> str:
    """A Kagi stand-in on loopback answering each search with ``answer(its Authorization)``;
    its base URL."""

    class Kagi(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps(answer(self.headers["Authorization"])).encode()
            send_answer(self, body)

        def log_message(self, *args: Any) -> None:
            pass

    return f"http://127.0.0.1:{http_server(Kagi).server_address[1]}/api/v0"


def _kagi_tenant(key: str, base_url: str, redis_server: str, namespace: str) -> Any:
    """A tenant's config: its own Kagi key, the cache in the Redis every tenant shares."""
    return build_config(
        cache={"url": redis_server, "namespace": namespace},
        providers={"kagi": {"api_key": key, "base_url": base_url}},
    )


def test_a_hit_never_shows_the_account_balance_of_the_request_that_was_cached(
    http_server: Any, redis_server: str, namespace: str
) -> None:
    """Kagi reports the asking account's prepaid ``api_balance`` with every answer. Cached with
    the answer, a hit showed the balance as it was then (and, before Kagi's answers were cached
    per key, a tenant sharing the Redis cache with its own key was shown another tenant's)."""
    balances = {"Bot kagi-key-tenant-a": 100.0, "Bot kagi-key-tenant-b": 7.5}

    def answer(account: str) -> dict[str, Any]:
        balances[account] -= 0.025
        return {
            "meta": {"id": "69c3f5c4", "node": "us-central1", "ms": 12, "api_balance": balances[account]},
            "data": [{"t": 0, "rank": 1, "url": "https://www.nps.gov/grca/", "title": "Grand Canyon", "snippet": "s"}],
        }

    base_url = _kagi(http_server, answer)

    def tenant(key: str) -> Any:
        return _kagi_tenant(key, base_url, redis_server, namespace)

    first = tenant("kagi-key-tenant-a")
    fresh = dispatch_search("grand canyon", backend="kagi", config=first)
    assert fresh["meta"]["api_balance"] == 99.975 and "cached" not in fresh["meta"]
    hit = dispatch_search("grand canyon", backend="kagi", config=tenant("kagi-key-tenant-a"))
    assert hit["meta"]["cached"] is True
    assert "api_balance" not in hit["meta"]
    other = dispatch_search("grand canyon", backend="kagi", config=tenant("kagi-key-tenant-b"))
    assert other["meta"]["api_balance"] == 7.475  # its own account's, asked afresh
    assert balances == {"Bot kagi-key-tenant-a": 99.975, "Bot kagi-key-tenant-b": 7.475}


def test_an_account_personalised_vendor_s_answers_are_not_shared_across_keys(
    http_server: Any, redis_server: str, namespace: str
) -> None:
    """Kagi applies each account's blocked and promoted sites to its results. Before, a tenant
    sharing the Redis cache with a key of another account was served the first tenant's
    results; configs with the same key still share them."""
    asked: list[str] = []

    def answer(authorization: str) -> dict[str, Any]:
        account = authorization.rsplit("-", 1)[-1]
        asked.append(account)
        return {
            "meta": {"id": "69c3f5c4", "node": "us-central1", "ms": 12},
            "data": [{"t": 0, "rank": 1, "url": f"https://promoted-by-{account}.example/", "title": account}],
        }

    base_url = _kagi(http_server, answer)

    def first_url(key: str) -> str:
        envelope = dispatch_search("heat pumps", backend="kagi", config=_kagi_tenant(key, base_url, redis_server, namespace))
        assert envelope["success"] is True, envelope
        return str(envelope["data"]["web"][0]["url"])

    assert first_url("kagi-key-a") == "https://promoted-by-a.example/"
    assert first_url("kagi-key-b") == "https://promoted-by-b.example/"
    assert first_url("kagi-key-a") == "https://promoted-by-a.example/"  # the same account's, cached
    assert asked == ["a", "b"]
