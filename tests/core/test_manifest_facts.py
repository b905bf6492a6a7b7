"""Provider facts are written once, in ``plugin.yaml``, and read from there.

A provider class states only its behaviour; its display name, capabilities, key variables
and optional packages come from the manifest. ``manifest=`` at registration overlays the
declared entry, and a provider registered without a manifest keeps its class attributes.
"""

from __future__ import annotations

from typing import Any

import respx

from webproviders import dispatch_extract, dispatch_search, get_registry, list_providers

PLAIN = """
from webproviders import WebSearchProvider

class Plain(WebSearchProvider):
    name = "plain"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        return [{"title": "t", "url": "https://plain.example/"}]
    def extract(self, urls, **kwargs):
        return [{"url": u, "title": "t", "content": "c"} for u in urls]

def register(ctx):
    ctx.register_web_search_provider(Plain(), manifest={MANIFEST})
"""

DECLARED = {
    "name": "plain",
    "display_name": "Plain Search",
    "capabilities": ["search", "extract"],
    "fetch": "none",
    "env": [{"key": "PLAIN_API_KEY", "required": False}],
    "priority": 60,
}

KEYED = """
from webproviders import VendorProvider

class Keyed(VendorProvider):
    provider_name = "keyed"
    default_base_url = "https://keyed.example"

    async def search(self, query, limit=5, **options):
        body = await self.call_api("GET", "/search", params={"q": query})
        return body["results"]

def register(ctx):
    ctx.register_web_search_provider(Keyed(ctx.config))
"""


def _row(name: str, config: Any, load: bool = False) -> dict[str, Any]:
    return next(row for row in list_providers(config, load=load) if row["name"] == name)


def test_display_name_and_capabilities_come_from_the_manifest(
    write_plugin: Any, make_config: Any
) -> None:
    root = write_plugin("plain", PLAIN.replace("{MANIFEST}", "None"), [DECLARED])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["plain"]})
    row = _row("plain", config)
    assert row["display_name"] == "Plain Search"
    assert row["capabilities"] == ["search", "extract"]
    envelope = dispatch_extract(["https://plain.example/a"], backend="plain", config=config)
    assert envelope["success"] is True


def test_manifest_given_at_registration_overlays_the_declared_one(
    write_plugin: Any, make_config: Any
) -> None:
    overlay = '{"priority": 33, "capabilities": ["search"]}'
    root = write_plugin("plain", PLAIN.replace("{MANIFEST}", overlay), [DECLARED])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["plain"]})
    declared = _row("plain", config)  # the code has not run: plugin.yaml describes it
    assert (declared["priority"], declared["capabilities"]) == (60, ["search", "extract"])
    row = _row("plain", config, load=True)
    assert row["priority"] == 33
    assert row["capabilities"] == ["search"]
    assert row["display_name"] == "Plain Search"  # kept from plugin.yaml
    entry = get_registry(config).get("plain")
    assert [var.key for var in entry.manifest.env] == ["PLAIN_API_KEY"]


def test_key_variables_come_from_the_manifest(
    write_plugin: Any, make_config: Any, monkeypatch: Any
) -> None:
    declared = [{"name": "keyed", "env": [{"key": "KEYED_TOKEN", "aliases": ["KEYED_KEY"]}]}]
    root = write_plugin("keyed", KEYED, declared)
    plugins = {"paths": [str(root)], "enabled": ["keyed"]}
    row = _row("keyed", make_config(plugins=plugins))
    assert row["available"] is False
    assert row["reason"] == "KEYED_TOKEN or KEYED_KEY is not set (or web.providers.keyed.api_key)"

    monkeypatch.setenv("KEYED_KEY", "k-alias-1")
    config = make_config(plugins=plugins)
    assert _row("keyed", config)["available"] is True
    with respx.mock() as mock:
        route = mock.get("https://keyed.example/search").respond(
            200, json={"results": [{"title": "k", "url": "https://k.example/"}]}
        )
        envelope = dispatch_search("q", backend="keyed", config=config)
    assert envelope["success"] is True
    assert route.calls.last.request.headers["Authorization"] == "Bearer k-alias-1"


def test_without_a_manifest_class_attributes_still_count(
    install_entry_point: Any, make_config: Any, monkeypatch: Any
) -> None:
    code = KEYED.replace(
        'default_base_url = "https://keyed.example"',
        'default_base_url = "https://keyed.example"\n    key_env = ("OLDSTYLE_KEY",)',
    ).replace('provider_name = "keyed"', 'provider_name = "oldstyle"')
    install_entry_point("oldstyle", "wp_oldstyle", code)
    row = _row("oldstyle", make_config())
    assert (row["source"], row["available"]) == ("entry point", False)
    assert row["reason"] == "OLDSTYLE_KEY is not set (or web.providers.oldstyle.api_key)"
    monkeypatch.setenv("OLDSTYLE_KEY", "k-old-1")
    assert _row("oldstyle", make_config())["available"] is True


def test_an_sdk_named_by_class_attributes_is_checked(
    install_entry_point: Any, make_config: Any, monkeypatch: Any
) -> None:
    install_entry_point(
        "withsdk",
        "wp_withsdk",
        """
        from webproviders.kit import SDKProvider

        class WithSDK(SDKProvider):
            provider_name = "withsdk"
            default_base_url = "https://withsdk.example"
            needs_key = False
            sdk_module = "surely_missing_sdk_xyz"
            sdk_pip = "withsdk[sdk]"

        def register(ctx):
            ctx.register_web_search_provider(WithSDK(ctx.config))
        """,
    )
    row = _row("withsdk", make_config())
    assert row["available"] is False
    assert row["reason"] == (
        "the 'surely_missing_sdk_xyz' package is not installed (pip install 'withsdk[sdk]')"
    )
