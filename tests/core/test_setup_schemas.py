"""Every built-in provider's setup schema is the one its ``plugin.yaml`` declares.

A setup wizard prompts for exactly these variables, so a schema that drifts from the
manifest would ask for a key the provider never reads (or miss one it needs).
"""

from __future__ import annotations

from typing import Any

import pytest

import webproviders

#: Providers every install ships; guards against the listing silently coming back short.
_SOME_BUILT_INS = {"brave", "brave-free", "tavily", "searxng", "http", "ddg_html", "crawl4ai"}


def _built_ins(config: Any) -> list[dict[str, Any]]:
    return [row for row in webproviders.list_providers(config) if row["source"] == "built-in"]


def test_every_built_in_is_listed(make_config: Any) -> None:
    names = {row["name"] for row in _built_ins(make_config())}
    assert _SOME_BUILT_INS <= names


@pytest.mark.parametrize("with_keys", [False, True], ids=["no-keys", "keys-set"])
def test_setup_schema_matches_the_manifest(
    make_config: Any, monkeypatch: pytest.MonkeyPatch, with_keys: bool
) -> None:
    config = make_config()
    registry = webproviders.get_registry(config)
    rows = _built_ins(config)
    if with_keys:  # a schema must not change shape once the provider is configured
        for row in rows:
            for var in registry.get(row["name"]).manifest.env:
                if var.required:
                    url = var.config_key == "base_url"
                    monkeypatch.setenv(var.key, "http://127.0.0.1:9" if url else "k-test-1")
        config = make_config()
        registry = webproviders.get_registry(config)
        rows = _built_ins(config)
    for row in rows:
        entry = registry.get(row["name"])
        schema = entry.provider.get_setup_schema()
        assert set(schema) == {"name", "badge", "tag", "env_vars"}, row["name"]
        assert schema["name"] == row["display_name"] == entry.provider.display_name
        assert schema["name"] == entry.manifest.display_name, row["name"]
        assert isinstance(schema["badge"], str) and isinstance(schema["tag"], str)
        assert [var["key"] for var in schema["env_vars"]] == [
            var.key for var in entry.manifest.env
        ], row["name"]


def test_plan_variants_carry_their_own_badges(make_config: Any) -> None:
    registry = webproviders.get_registry(make_config())
    paid = registry.get("brave").provider.get_setup_schema()
    free = registry.get("brave-free").provider.get_setup_schema()
    assert paid["badge"] != free["badge"]
    assert paid["env_vars"][0]["prompt"] != free["env_vars"][0]["prompt"]
