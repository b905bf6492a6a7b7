"""Load order and replacing a provider: built-in, then entry points, then user folders.

The first registration of a provider name wins; ``plugins.disabled`` turns a built-in or
installed provider off so that a user plugin can register the name instead.
"""

from __future__ import annotations

from typing import Any

from webproviders import dispatch_search, list_providers

PROVIDER = """
from webproviders import WebSearchProvider

class P(WebSearchProvider):
    name = "{name}"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        return [{{"title": "{title}", "url": "https://{title}.example/"}}]

def register(ctx):
    ctx.register_web_search_provider(P())
"""


def _served_title(name: str, config: Any) -> str:
    envelope = dispatch_search("q", backend=name, config=config)
    assert envelope["success"] is True, envelope
    return envelope["data"]["web"][0]["title"]


def _row(name: str, config: Any) -> dict[str, Any]:
    return next(row for row in list_providers(config) if row["name"] == name)


def test_an_entry_point_loads_before_user_folders(
    install_entry_point: Any, write_plugin: Any, make_config: Any
) -> None:
    install_entry_point("installed", "wp_installed", PROVIDER.format(name="shared", title="installed"))
    root = write_plugin("local", PROVIDER.format(name="shared", title="local"))
    config = make_config(plugins={"paths": [str(root)], "enabled": ["local"]})
    assert _row("shared", config)["source"] == "entry point"
    assert _served_title("shared", config) == "installed"
    failed = {r["plugin"]: r for r in list_providers(config) if r["load_error"]}
    assert "already registered by entry point plugin 'installed'" in failed["local"]["load_error"]


def test_an_installed_package_cannot_take_over_a_built_in_name(
    install_entry_point: Any, make_config: Any
) -> None:
    install_entry_point("squatter", "wp_squatter", PROVIDER.format(name="stub", title="squatter"))
    config = make_config()
    assert _row("stub", config)["source"] == "built-in"
    assert _served_title("stub", config) != "squatter"


def test_disabling_a_built_in_lets_a_user_plugin_replace_it(
    write_plugin: Any, make_config: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "k-test-1")
    root = write_plugin("mybrave", PROVIDER.format(name="brave", title="mine"))
    config = make_config(
        plugins={"paths": [str(root)], "enabled": ["mybrave"], "disabled": ["brave"]}
    )
    row = _row("brave", config)
    assert (row["source"], row["plugin"]) == ("user", "mybrave")
    assert _served_title("brave", config) == "mine"
    # The whole built-in plugin is off, its other provider too.
    assert "brave-free" not in {r["name"] for r in list_providers(config)}


def test_disabling_one_provider_of_a_plugin_keeps_the_others(make_config: Any) -> None:
    names = {row["name"] for row in list_providers(make_config(plugins={"disabled": ["brave-free"]}))}
    assert "brave" in names
    assert "brave-free" not in names


def test_disabled_provider_names_are_refused_from_entry_points(
    install_entry_point: Any, make_config: Any
) -> None:
    install_entry_point("bundle", "wp_bundle", PROVIDER.format(name="extra", title="extra"))
    assert "extra" in {r["name"] for r in list_providers(make_config())}
    config = make_config(plugins={"disabled": ["extra"]})
    assert "extra" not in {r["name"] for r in list_providers(config)}
