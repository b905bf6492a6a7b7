"""Built-in providers are listed, and each plan variant has its own setup schema."""

from __future__ import annotations

from typing import Any

import webproviders

#: Providers every install ships; guards against the listing silently coming back short.
_SOME_BUILT_INS = {"brave", "brave-free", "tavily", "searxng", "http", "ddg_html", "crawl4ai"}


def _built_ins(config: Any) -> list[dict[str, Any]]:
    return [row for row in webproviders.list_providers(config) if row["source"] == "built-in"]


def test_every_built_in_is_listed(make_config: Any) -> None:
    names = {row["name"] for row in _built_ins(make_config())}
    assert _SOME_BUILT_INS <= names


def test_plan_variants_carry_their_own_badges(make_config: Any) -> None:
    registry = webproviders.get_registry(make_config())
    paid = registry.get("brave").provider.get_setup_schema()
    free = registry.get("brave-free").provider.get_setup_schema()
    assert paid["badge"] != free["badge"]
    assert paid["env_vars"][0]["prompt"] != free["env_vars"][0]["prompt"]
