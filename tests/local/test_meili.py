"""``web.providers.local.url``: the index in a Meilisearch server, over its documented HTTP API.

No Meilisearch server installs from the registries this project may use, so the mapping is
tested against responses shaped as Meilisearch's API reference documents them.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_extract, dispatch_search, index_urls
from webproviders.cli import EXIT_OK, main
from webproviders.config import Config
from webproviders.index.meili_store import SETTINGS, document_id
from webproviders.index.stores import open_store

from .meili_bodies import (
    BASE,
    FACETS,
    FETCH,
    INDEX_NOT_FOUND,
    INTERNAL,
    INVALID_KEY,
    MEILI_KEY,
    MEILI_URL,
    NOT_FILTERABLE,
    RETRIES,
    SEARCH,
    STATS,
    task,
)


@pytest.fixture
def config(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Config:
    monkeypatch.setenv("MEILISEARCH_API_KEY", MEILI_KEY)
    return make_config(web={"cache": False, "retry": {"max_retries": 0},
                            "providers": {"local": {"url": MEILI_URL + "/"}}})


def body(route: respx.Route, call: int = -1) -> Any:
    return json.loads(route.calls[call].request.content)


def assert_no_key(envelope: dict[str, Any]) -> None:
    assert MEILI_KEY not in json.dumps(envelope) and MEILI_KEY[-10:] not in json.dumps(envelope)


def test_search_maps_hits_and_sends_filters(config: Config) -> None:
    with respx.mock(assert_all_called=True) as mock:
        route = mock.post(f"{BASE}/search").respond(200, json=SEARCH)
        envelope = dispatch_search("configure retries", 5, backend="local", config=config,
                                   include_domains=["example.com"], exclude_domains=["old.example.com"],
                                   time_range="week")
    assert envelope["success"] is True, envelope
    first, second = envelope["data"]["web"]
    assert first == {
        "title": "Configuring retries",
        "url": RETRIES,
        "description": "…Set `max_retries` and `backoff` to **configure** **retries**. Each retry waits…",
        "position": 1,
        "score": 0.9138,
        "fetched_at": "2026-09-21T14:13:20Z",
        "published_at": "2026-01-10",
        "source_provider": "http",
    }
    assert second["description"] == "Bounded **retries** keep it small." and second["score"] == 0.5123
    request = route.calls.last.request
    assert request.headers["Authorization"] == f"Bearer {MEILI_KEY}"
    sent = body(route)
    assert sent["q"] == "configure retries" and sent["limit"] == 5
    assert sent["attributesToCrop"] == ["content"] and sent["attributesToHighlight"] == ["content"]
    assert (sent["highlightPreTag"], sent["highlightPostTag"]) == ("**", "**")
    assert sent["showRankingScore"] is True
    domains, excluded, since = sent["filter"]
    assert domains == 'domains IN ["example.com"]' and excluded == 'domains NOT IN ["old.example.com"]'
    assert since.startswith("fetched_at >= ")
    assert_no_key(envelope)


def test_search_before_anything_was_indexed_is_empty(config: Config) -> None:
    with respx.mock() as mock:
        mock.post(f"{BASE}/search").respond(404, json=INDEX_NOT_FOUND)
        envelope = dispatch_search("anything", backend="local", config=config)
    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize(
    ("status", "answer", "code", "words"),
    [
        (403, INVALID_KEY, "auth_error", "MEILISEARCH_API_KEY"),
        (400, NOT_FILTERABLE, "not_configured", "filterableAttributes must include domains"),
        (500, INTERNAL, "bad_gateway", "internal"),
        (502, None, "bad_gateway", "HTTP 502"),
    ],
)
def test_search_errors(config: Config, status: int, answer: Any, code: str, words: str) -> None:
    with respx.mock() as mock:
        if answer is None:
            mock.post(f"{BASE}/search").respond(status, text="<html>Bad Gateway</html>")
        else:
            mock.post(f"{BASE}/search").respond(status, json=answer)
        envelope = dispatch_search("retries", backend="local", config=config, include_domains=["example.com"])
    assert envelope["success"] is False and envelope["error_code"] == code, envelope
    assert words in envelope["error"]
    assert_no_key(envelope)


def test_an_unreachable_server_is_a_network_error(config: Config) -> None:
    with respx.mock() as mock:
        mock.post(f"{BASE}/search").mock(side_effect=httpx.ConnectError("Connection refused"))
        envelope = dispatch_search("retries", backend="local", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "network_error"
    assert envelope["retryable"] is True


def test_extract_fetches_documents_by_id(config: Config) -> None:
    missing = "https://docs.example.com/guide/unknown"
    with respx.mock(assert_all_called=True) as mock:
        route = mock.post(f"{BASE}/documents/fetch").respond(200, json=FETCH)
        envelope = dispatch_extract([RETRIES + "#top", missing], backend="local", config=config)
    hit, miss = envelope["data"]
    assert hit["url"] == RETRIES + "#top" and hit["title"] == "Configuring retries"
    assert hit["content"].startswith("# Configuring retries")
    assert miss["error_code"] == "not_found"
    sent = body(route)
    assert sent["ids"] == [document_id(RETRIES), document_id(missing)] and sent["limit"] == 2


def test_extract_before_anything_was_indexed_is_not_found(config: Config) -> None:
    with respx.mock() as mock:
        mock.post(f"{BASE}/documents/fetch").respond(404, json=INDEX_NOT_FOUND)
        envelope = dispatch_extract(RETRIES, backend="local", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "not_found"
    assert envelope["meta"]["failures"][0]["error_code"] == "not_found"


def test_indexing_sets_the_filterable_fields_once_then_adds_documents(config: Config) -> None:
    with respx.mock(assert_all_called=True) as mock:
        settings = mock.patch(f"{BASE}/settings").respond(202, json=task("settingsUpdate", 146))
        documents = mock.post(f"{BASE}/documents").respond(202, json=task("documentAdditionOrUpdate"))
        first = index_urls("https://a.example.com/x", backend="stub", config=config)
        second = index_urls("https://docs.a.example.com/y?utm_source=z", backend="stub", config=config)
    assert first["success"] and second["success"], (first, second)
    assert first["data"]["index"] == BASE
    assert settings.call_count == 1 and body(settings) == SETTINGS
    assert documents.call_count == 2
    assert documents.calls[0].request.url.params["primaryKey"] == "id"
    [doc] = body(documents, 1)
    assert doc["url"] == "https://docs.a.example.com/y"
    assert doc["id"] == document_id("https://docs.a.example.com/y")
    assert doc["domains"] == ["docs.a.example.com", "a.example.com", "example.com", "com"]
    assert doc["provider"] == "stub" and doc["content"] and isinstance(doc["fetched_at"], float)


def test_cli_stats_remove_and_prune(config: Config, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(f"web:\n  providers:\n    local:\n      url: {MEILI_URL}\n", encoding="utf-8")
    with respx.mock(assert_all_called=True) as mock:
        mock.get(f"{BASE}/stats").respond(200, json=STATS)
        facets = mock.post(f"{BASE}/search").respond(200, json=FACETS)
        removed = mock.post(f"{BASE}/documents/delete-batch").respond(202, json=task("documentDeletion"))
        pruned = mock.post(f"{BASE}/documents/delete").respond(202, json=task("documentDeletion"))
        assert main(["--config", str(path), "index", "--stats", "--json"]) == EXIT_OK
        stats = json.loads(capsys.readouterr().out)
        assert main(["--config", str(path), "index", "--remove", RETRIES]) == EXIT_OK
        assert capsys.readouterr().out.startswith(f"removal queued from {BASE}")
        assert main(["--config", str(path), "index", "--prune", "--older-than", "30d"]) == EXIT_OK
        assert capsys.readouterr().out.startswith("pruning queued fetched more than 30d ago")
    assert stats["pages"] == 2 and stats["bytes"] == 1572864
    assert stats["oldest"] == 1_780_000_000.0 and stats["newest"] == 1_790_000_000.5
    assert stats["providers"] == {"http": 2}
    assert body(facets)["facets"] == ["fetched_at", "provider"]
    assert body(removed) == [document_id(RETRIES)]
    assert body(pruned)["filter"].startswith("fetched_at < ")


def test_the_key_in_the_config_wins_and_stays_out_of_reprs(make_config: Any) -> None:
    config = make_config(web={"providers": {"local": {"url": MEILI_URL, "api_key": "cfg-key-123456789",
                                                      "index_name": "team_docs"}}})
    store = open_store(config)
    assert store.location == f"{MEILI_URL}/indexes/team_docs"
    assert "cfg-key" not in repr(store)
    with respx.mock() as mock:
        route = mock.post(f"{MEILI_URL}/indexes/team_docs/search").respond(200, json={**SEARCH, "hits": []})
        dispatch_search("x", backend="local", config=config)
    assert route.calls.last.request.headers["Authorization"] == "Bearer cfg-key-123456789"
