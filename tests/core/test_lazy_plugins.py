"""Plugins that declare their providers in plugin.yaml are listed from it, and their code loads
on first use; availability is one verdict, the same whether the code has loaded or not."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from webproviders import dispatch_search, list_providers
from webproviders.registry.loader import builtin_plugin_dir
from webproviders.registry.providers import get_registry

BUILTINS = sorted(folder.name for folder in builtin_plugin_dir().iterdir() if (folder / "plugin.yaml").is_file())


def _value(config_key: str | None, key: str) -> Any:
    if (config_key or "").endswith("url") or key.endswith("_URL"):
        return "http://127.0.0.1:9"
    return 5 if config_key == "timeout" or key.endswith("_MS") else "k-test-123456"


def _settings_for(entry: Any) -> dict[str, Any]:
    """Values for every key a provider's manifest lets the config stand in for."""
    return {var.config_key: _value(var.config_key, var.key) for var in entry.manifest.env if var.config_key}


def _set_every_variable(entry: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in entry.manifest.env:
        monkeypatch.setenv(var.key, str(_value(var.config_key, var.key)))


@pytest.mark.parametrize("scenario", ["nothing set", "environment", "config"])
def test_a_builtin_provider_is_listed_as_its_code_would_say(
    scenario: str, make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing reads manifests only; loading the provider's code and asking its
    ``is_available()`` gives the same answer and the same reason, for every built-in."""
    plain = get_registry(make_config())  # for the manifests: a registry per name only built them again
    names = [e.manifest.name for e in plain.entries() if e.source == "built-in"]
    assert len(names) >= 24
    for name in names:
        probe = plain.get(name)
        assert probe is not None
        sections: dict[str, Any] = {}
        with monkeypatch.context() as env:
            if scenario == "environment":
                _set_every_variable(probe, env)
            elif scenario == "config":
                sections = {"web": {"providers": {name: _settings_for(probe)}}}
            listed = get_registry(make_config(**sections))
            loaded = get_registry(make_config(**sections))
            entry = loaded.get(name)
            asked = loaded.availability(entry, load=True)
            if asked[0]:
                assert entry.loaded is not None, name  # its code ran, and is_available() agreed
            assert listed.availability(listed.get(name)) == asked, (name, asked)


@pytest.mark.parametrize("where", ["config", "environment"])
def test_a_key_or_base_url_no_request_can_use_is_listed_as_the_code_finds_it(
    where: str, make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key holding a typographic quote, or a base URL that is not http(s), makes a provider
    unavailable once its code loads; the listing from manifests (what ``list_providers()`` and
    MCP's ``web_providers`` show a model) called it ready until then."""
    plain = get_registry(make_config())  # for the manifests: a registry per name only built them again
    names = [e.manifest.name for e in plain.entries() if e.source == "built-in"]
    checked = 0
    for name in names:
        probe = plain.get(name)
        declared = {var.config_key: var for var in probe.manifest.env if var.config_key in ("api_key", "base_url")}
        for key, value in (("api_key", "k-test\u2019123456"), ("base_url", "ftp:/nohost")):
            if key not in declared:
                continue
            with monkeypatch.context() as env:
                for var in probe.manifest.env:  # everything else it needs is there
                    env.setenv(var.key, "http://127.0.0.1:9" if var.config_key == "base_url" else "k-test-123456")
                section = {"api_key": "k-test-123456"} if "api_key" in declared else {}
                if where == "config":
                    section[key] = value
                else:
                    env.setenv(declared[key].key, value)
                    section.pop(key, None)
                listed = get_registry(make_config(web={"providers": {name: section}}))
                loaded = get_registry(make_config(web={"providers": {name: section}}))
                asked = loaded.availability(loaded.get(name), load=True)
                assert asked[0] is False, (name, key)
                assert listed.availability(listed.get(name)) == asked, (name, key)
                checked += 1
    assert checked >= 20


def test_listing_then_using_a_provider_loads_only_its_plugin(make_config: Any) -> None:
    config = make_config()
    rows = {row["name"]: row for row in list_providers(config)}
    assert rows["brave"]["available"] is False and "BRAVE_SEARCH_API_KEY" in rows["brave"]["reason"]
    registry = get_registry(config)
    assert not any(record.loaded for record in registry.plugins if record.name in ("brave", "stub"))
    assert dispatch_search("q", backend="stub", config=config)["success"] is True
    loaded = {record.name for record in registry.plugins if record.loaded}
    assert "stub" in loaded and "brave" not in loaded and "tavily" not in loaded


DECLARED = """
from webproviders import WebSearchProvider

class Lazy(WebSearchProvider):
    name = "lazy"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        return [{"title": "lazy", "url": "https://lazy.example/", "description": ""}]

def register(ctx):
    ctx.register_web_search_provider(Lazy())
"""


def _module(root: Any, name: str) -> Any:
    """The plugin module imported from ``root/name``, if it has been."""
    folder = str(root / name)
    return next((m for m in list(sys.modules.values()) if (getattr(m, "__file__", None) or "").startswith(folder)), None)


def _declared(write_plugin: Any, name: str, code: str, **manifest: Any) -> Any:
    root = write_plugin(name, code, [{"name": "lazy", "priority": 60}])
    if manifest:
        import yaml

        path = root / name / "plugin.yaml"
        path.write_text(yaml.safe_dump({**yaml.safe_load(path.read_text()), **manifest}), encoding="utf-8")
    return root


def test_a_declared_plugin_that_fails_to_import_fails_its_provider_with_the_reason(
    write_plugin: Any, make_config: Any
) -> None:
    root = _declared(write_plugin, "lazyplug", "import not_a_real_module_lazy\n", hooks=[])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["lazyplug"]})
    row = next(r for r in list_providers(config) if r["name"] == "lazy")
    assert row["available"] is True and row["load_error"] is None  # its code has not run
    envelope = dispatch_search("q", backend="lazy", config=config)
    assert envelope["error_code"] == "not_configured"
    assert "not_a_real_module_lazy" in envelope["error"]
    row = next(r for r in list_providers(config, load=True) if r["name"] == "lazy")
    assert row["available"] is False and "ModuleNotFoundError" in row["load_error"]


def test_a_price_is_checked_when_the_code_loads(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin("priced", DECLARED, [{"name": "lazy", "price": {"search": {"usd": -1}}}])
    import yaml

    path = root / "priced" / "plugin.yaml"
    path.write_text(yaml.safe_dump({**yaml.safe_load(path.read_text()), "hooks": []}), encoding="utf-8")
    config = make_config(plugins={"paths": [str(root)], "enabled": ["priced"]})
    assert next(r for r in list_providers(config) if r["name"] == "lazy")["load_error"] is None
    envelope = dispatch_search("q", backend="lazy", config=config)
    assert envelope["error_code"] == "not_configured"
    assert "'price.search.usd'" in envelope["error"]


HOOKED = DECLARED + """
SEEN = []

def after_dispatch(capability, envelope):
    SEEN.append(envelope["provider"])
"""


@pytest.mark.parametrize("hooks", [None, ["after_dispatch"]])
def test_a_plugin_that_may_have_hooks_loads_before_the_first_call(
    hooks: Any, write_plugin: Any, make_config: Any
) -> None:
    """Its hook sees a call to another provider; left out, ``hooks`` means "maybe"."""
    root = _declared(write_plugin, "declaredhooks", HOOKED, **({"hooks": hooks} if hooks else {}))
    config = make_config(plugins={"paths": [str(root)], "enabled": ["declaredhooks"]})
    list_providers(config)
    assert _module(root, "declaredhooks") is None
    assert dispatch_search("q", backend="stub", config=config)["success"] is True
    assert _module(root, "declaredhooks").SEEN == ["stub"]


def test_hooks_for_a_setting_that_is_off_neither_load_the_plugin_nor_run(write_plugin: Any, make_config: Any) -> None:
    """``hooks_when``: hooks that serve a feature run only while its setting is true; while
    it is off, the plugin waits for its provider and its hooks see no call, even once loaded."""
    root = _declared(write_plugin, "watcher", HOOKED, hooks=["after_dispatch"], hooks_when="web.providers.lazy.watch")
    plugins = {"paths": [str(root)], "enabled": ["watcher"]}
    off = make_config(plugins=plugins)
    assert dispatch_search("q", backend="stub", config=off)["success"] is True
    assert _module(root, "watcher") is None
    assert dispatch_search("q", backend="lazy", config=off)["success"] is True
    assert dispatch_search("q", backend="stub", config=off)["success"] is True
    assert _module(root, "watcher").SEEN == []

    on = make_config(plugins=plugins, web={"providers": {"lazy": {"watch": True}}})
    assert dispatch_search("q", backend="stub", config=on)["success"] is True
    assert _module(root, "watcher").SEEN == ["stub"]


def test_a_hook_for_a_setting_that_is_off_is_not_named_for_what_other_hooks_did(
    write_plugin: Any, make_config: Any
) -> None:
    """A loaded plugin whose hooks are off (``hooks_when``) was named beside the plugin whose
    hook did the harm (``user plugin 'watcher' or user plugin 'policy'``), sending the
    operator to code that never ran; the built-in ``local`` plugin was named so in every
    after_dispatch warning of a process that had searched its index."""
    watcher = HOOKED.replace("def after_dispatch", "def before_dispatch(arguments):\n    pass\n\ndef after_dispatch")
    root = _declared(write_plugin, "watcher", watcher, hooks=["before_dispatch"], hooks_when="web.providers.lazy.watch")
    write_plugin("policy", "def before_dispatch(arguments):\n    arguments['limit'] = 'five'\n")
    config = make_config(plugins={"paths": [str(root)], "enabled": ["watcher", "policy"]})
    assert dispatch_search("q", backend="lazy", config=config)["error_code"] == "provider_error"  # loads watcher
    assert _module(root, "watcher") is not None
    refused = dispatch_search("q", backend="stub", config=config)
    assert refused["error"].startswith(
        "The before_dispatch hook of user plugin 'policy' left the call's arguments invalid: "
    ), refused


def test_the_local_index_hook_costs_nothing_while_indexing_is_off(make_config: Any) -> None:
    """The built-in ``local`` plugin fills its index from an ``after_dispatch`` hook: with
    ``web.local.index`` off, no call runs it and no call loads the plugin."""
    config = make_config()
    assert dispatch_search("q", backend="stub", config=config)["success"] is True
    registry = get_registry(config)
    assert not next(record for record in registry.plugins if record.name == "local").loaded
    assert registry.hook("after_dispatch") is None
    on = make_config(web={"local": {"index": True}})
    assert dispatch_search("q", backend="stub", config=on)["success"] is True
    assert get_registry(on).hook("after_dispatch") is not None


def test_a_plugin_declaring_no_hooks_waits_for_its_provider(write_plugin: Any, make_config: Any) -> None:
    root = _declared(write_plugin, "quiet", DECLARED, hooks=[])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["quiet"]})
    assert dispatch_search("q", backend="stub", config=config)["success"] is True
    assert _module(root, "quiet") is None
    assert dispatch_search("q", backend="lazy", config=config)["data"]["web"][0]["title"] == "lazy"
    assert _module(root, "quiet") is not None
