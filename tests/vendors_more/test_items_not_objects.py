"""A vendor's list of results whose items are not objects (strings, numbers, nulls).

Each mapping skipped such items, one by one, so a list made only of them became an empty
success: the caller, a model, was told the web had nothing for its query, and a chain did
not move on to its next provider. Such a list is now ``parse_error`` naming the vendor and
the field, while one stray item beside real results still costs only itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import respx

from webproviders import dispatch_search
from webproviders.config import Config
from webproviders.registry.providers import get_registry

URL = "https://a.example/page"
KEY = "items-test-key-0123456789abcdef"
SETTING_VALUES = {"api_key": KEY, "base_url": "http://127.0.0.1:8888", "cx": "0175766625:omuauf_lfve"}
JUNK = [7, None, ["nested"], False, 2.5]

#: Each vendor: where its answer holds the results, and one result as it documents it.
BRAVE = (lambda items: {"type": "search", "web": {"results": items}}, {"url": URL, "title": "A", "description": "a"})
VENDORS: dict[str, tuple[Callable[[list[Any]], dict[str, Any]], dict[str, Any]]] = {
    "brave": BRAVE,
    "brave-free": BRAVE,
    "bocha": (lambda items: {"code": 200, "data": {"webPages": {"value": items}}}, {"name": "A", "url": URL, "snippet": "a"}),
    "google-cse": (lambda items: {"items": items}, {"title": "A", "link": URL, "snippet": "a"}),
    "serpapi": (
        lambda items: {"search_metadata": {"status": "Success"}, "organic_results": items},
        {"title": "A", "link": URL, "snippet": "a"},
    ),
    "serper": (lambda items: {"organic": items}, {"title": "A", "link": URL, "snippet": "a"}),
    "jina": (lambda items: {"code": 200, "data": items}, {"title": "A", "url": URL, "description": "a"}),
    "kagi": (lambda items: {"meta": {}, "data": items}, {"t": 0, "url": URL, "title": "A", "snippet": "a"}),
    "linkup": (lambda items: {"results": items}, {"type": "text", "name": "A", "url": URL, "content": "a"}),
    "mojeek": (lambda items: {"response": {"status": "OK", "results": items}}, {"title": "A", "url": URL, "desc": "a"}),
    "perplexity": (lambda items: {"results": items}, {"title": "A", "url": URL, "snippet": "a"}),
    "searxng": (lambda items: {"query": "q", "results": items}, {"url": URL, "title": "A", "content": "a"}),
    "you": (lambda items: {"results": {"web": items}}, {"url": URL, "title": "A", "description": "a"}),
    "tavily": (lambda items: {"query": "q", "results": items}, {"url": URL, "title": "A", "content": "a"}),
    "firecrawl": (lambda items: {"success": True, "data": {"web": items}}, {"url": URL, "title": "A", "description": "a"}),
    "parallel": (lambda items: {"search_id": "s", "results": items}, {"url": URL, "title": "A", "excerpts": ["a"]}),
    "exa": (lambda items: {"requestId": "r", "results": items}, {"id": URL, "url": URL, "title": "A"}),
}


def _config(name: str) -> Config:
    entry = get_registry(Config()).get(name)
    assert entry is not None
    settings = {var.config_key: SETTING_VALUES[var.config_key] for var in entry.manifest.env if var.config_key in SETTING_VALUES}
    if "base_url" not in settings:
        settings["base_url"] = SETTING_VALUES["base_url"]
    return Config.model_validate({"web": {"retry": {"max_retries": 0}, "cache": False, "providers": {name: settings}}})


def _search(name: str, items: list[Any]) -> dict[str, Any]:
    wrap, _ = VENDORS[name]
    with respx.mock(assert_all_called=False) as router:
        route = router.route().respond(200, json=wrap(items))
        envelope = dispatch_search("q", backend=name, config=_config(name))
    assert route.called, envelope
    return envelope


def test_every_raw_and_sdk_search_vendor_is_covered() -> None:
    keyed = {
        entry.manifest.name
        for entry in get_registry(Config()).entries()
        if entry.manifest.tag != "offline" and "search" in entry.manifest.capabilities
        and any(var.config_key in ("api_key", "base_url") for var in entry.manifest.env)
    }
    # xAI answers with a model's output, read by item type, not a list of results.
    assert keyed - {"xai"} <= set(VENDORS)


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_results_none_of_which_is_an_object_are_a_parse_error(name: str) -> None:
    envelope = _search(name, JUNK)
    assert envelope["success"] is False, envelope
    assert envelope["error_code"] == "parse_error", envelope
    assert envelope["provider"] == name
    assert "none of them an object" in envelope["error"] or "Exa" in envelope["error"], envelope
    assert KEY not in str(envelope)


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_a_stray_item_beside_a_result_costs_only_itself(name: str) -> None:
    _, hit = VENDORS[name]
    envelope = _search(name, [*JUNK[1:], hit])
    if name == "exa":  # its SDK builds a model of every item, and refuses the answer
        assert envelope["error_code"] == "parse_error", envelope
        return
    assert envelope["success"] is True, envelope
    assert [(h["url"], h["title"]) for h in envelope["data"]["web"]] == [(URL, "A")]



@pytest.mark.parametrize("name", sorted(VENDORS))
def test_results_none_of_which_has_a_url_are_a_parse_error(name: str) -> None:
    """Objects without a URL are not results either: every vendor says so, SearXNG included,
    which drops a result whose URL is not http(s) before its hits are read."""
    _, hit = VENDORS[name]
    without_url = {key: value for key, value in hit.items() if key not in ("url", "link", "id")}
    envelope = _search(name, [without_url, dict(without_url)])
    assert envelope["success"] is False, envelope
    assert envelope["error_code"] == "parse_error", envelope
