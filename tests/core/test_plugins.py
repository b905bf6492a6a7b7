"""Plugin discovery: folders, enablement, broken plugins, duplicates and entry points.

Load order is built-in, then entry points, then user folders, and the first registration of
a provider name wins; ``plugins.disabled`` turns a built-in or installed provider off so
that a user plugin can register the name instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from webproviders import (
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
    get_registry,
    list_providers,
)
from webproviders.config import unknown_setting

GOOD = """
from webproviders import WebSearchProvider

class P(WebSearchProvider):
    name = "{name}"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        return [{{"title": "from {name}", "url": "https://{name}.example/"}}]

def register(ctx):
    ctx.register_web_search_provider(P())
"""


def _rows(config: Any) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in list_providers(config)}


def test_user_plugin_loads_only_when_enabled(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin("mine", GOOD.format(name="mine"))
    assert "mine" not in _rows(make_config(plugins={"paths": [str(root)]}))
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["mine"]}))
    assert rows["mine"]["source"] == "user"
    assert rows["mine"]["available"] is True


def test_a_user_plugin_folder_under_xdg_config_home_loads_when_enabled(
    tmp_path: Path, make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its plugin folder is beside its config file: both under ``$XDG_CONFIG_HOME``."""
    folder = tmp_path / "xdg" / "webproviders" / "plugins" / "mine"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text("name: mine\nkind: backend\nproviders: []\n", encoding="utf-8")
    (folder / "__init__.py").write_text(GOOD.format(name="mine"), encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    config = make_config(plugins={"enabled": ["mine"]})
    assert _rows(config)["mine"]["source"] == "user"
    assert dispatch_search("q", backend="mine", config=config)["provider"] == "mine"


def test_configs_loading_one_plugin_from_two_threads_at_once_both_get_it(
    write_plugin: Any, make_config: Any
) -> None:
    """Two configs (two tenants) first used at the same moment from two threads: the second
    took the module the first was still importing, found no ``register()`` in it, and recorded
    the plugin as broken, so every call of that config failed ``not_configured``."""
    import threading

    code = "import time\ntime.sleep(1.0)  # a plugin whose import takes a while (a vendor SDK)\n" + GOOD.format(
        name="slowload"
    )
    root = write_plugin("slowload", code, providers=[{"name": "slowload", "capabilities": ["search"]}])
    plugins = {"paths": [str(root)], "enabled": ["slowload"]}
    configs = [make_config(web={"cache": False}, plugins=plugins) for _ in range(2)]
    start = threading.Barrier(2)
    results: list[dict[str, Any]] = []

    def search(config: Any) -> None:
        start.wait()
        results.append(dispatch_search("q", backend="slowload", config=config))

    threads = [threading.Thread(target=search, args=(config,)) for config in configs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [envelope["success"] for envelope in results] == [True, True], results


def test_an_unknown_backend_one_typo_away_from_a_provider_names_it(make_config: Any) -> None:
    """``tavilly`` answered with the list of 25 names to search by eye; the likely one is
    named first, and the caller's mistake is ``invalid_input``. A name near none gets the list alone."""
    config = make_config()
    for given, meant in (("Tavilly", "tavily"), ("tavilly", "tavily"), ("googlecse", "google-cse")):
        envelope = dispatch_search("q", backend=given, config=config)
        assert envelope["error_code"] == "invalid_input"
        assert envelope["error"].startswith(f"Unknown backend '{given}'. Did you mean '{meant}'? Known backends: ")
    assert "Did you mean" not in dispatch_search("q", backend="altavista", config=config)["error"]


def test_a_backend_written_as_its_vendor_spells_it_is_that_provider(make_config: Any) -> None:
    """Provider names are lower case; ``backend="Stub"`` or ``search_backend: [STUB]`` was an
    "Unknown backend" that named the very provider meant."""
    for config, backend in ((make_config(), "Stub"), (make_config(), ["STUB"]), (make_config(web={"search_backend": ["Stub"]}), None)):
        envelope = dispatch_search("q", backend=backend, config=config)
        assert envelope["success"] is True and envelope["provider"] == "stub", envelope


def test_a_disabled_folder_with_a_broken_manifest_is_not_listed_as_failing(
    write_plugin: Any, make_config: Any
) -> None:
    """plugins.disabled always wins: a folder turned off was still listed (and offered to
    every unknown backend) as a plugin that failed to load, for a plugin.yaml it should not read."""
    root = write_plugin("old", GOOD.format(name="old"))
    (root / "old" / "plugin.yaml").write_text("kind: backend\n")
    assert "old" in _rows(make_config(plugins={"paths": [str(root)], "enabled": ["old"]}))
    assert "old" not in _rows(make_config(plugins={"paths": [str(root)], "enabled": ["old"], "disabled": ["old"]}))


def test_a_backend_of_a_plugin_left_off_says_how_to_turn_it_on(write_plugin: Any, make_config: Any) -> None:
    """A plugin folder written as documented but not yet in plugins.enabled, or a provider in
    plugins.disabled, answered "Unknown backend", as if it did not exist."""
    root = write_plugin("acme", GOOD.format(name="acme-search"), [{"name": "acme-search"}])
    config = make_config(plugins={"paths": [str(root)], "disabled": ["brave"]})
    idle = dispatch_search("q", backend="acme-search", config=config)
    assert (idle["error_code"], idle["error"]) == (
        "not_configured",
        f"Backend 'acme-search' is not available: its user plugin 'acme' ({root / 'acme'}) is not enabled; "
        "add 'acme' to plugins.enabled in the config.",
    )
    off = dispatch_search("q", backend="brave", config=config)
    assert (off["error_code"], off["error"]) == (
        "not_configured",
        "Backend 'brave' is not available: plugins.disabled turns it off.",
    )


def test_a_plugin_path_from_an_unset_variable_is_not_the_working_directory(
    tmp_path: Path, make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``paths: ["${PLUGIN_DIR}"]`` with the variable unset is an empty path, which read as the
    working directory: whatever folders sat there were read as plugins (and listed as broken)."""
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "plugin.yaml").write_text("kind: backend\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PLUGIN_DIR", raising=False)
    config = make_config(plugins={"paths": ["${PLUGIN_DIR}"]})
    assert config.plugins.paths == []
    assert not [row for row in list_providers(config) if row["source"] == "user"]


def test_a_plugin_path_holding_a_nul_is_a_config_error(tmp_path: Path) -> None:
    """``paths: ["plugins\\0"]`` (an escape YAML reads as a NUL) failed every call, whatever its
    backend, as ``provider_error`` "ValueError: embedded null byte"."""
    from webproviders.config import ConfigError, load_config

    file = tmp_path / "webproviders.yaml"
    file.write_text('plugins:\n  paths: ["plugins\\0"]\n')
    with pytest.raises(ConfigError, match=r"'plugins.paths' \(line 2\): a folder path cannot hold a NUL character"):
        load_config(file)


def test_plugins_paths_naming_the_plugin_folder_itself_says_to_name_its_parent(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``paths: [.../plugins/acme]`` (the plugin's own folder, not the one holding it) found
    nothing, and the warning only listed that folder as searched."""
    root = write_plugin("acme", GOOD.format(name="acme"))
    with caplog.at_level(logging.WARNING):
        list_providers(make_config(plugins={"paths": [str(root / "acme")], "enabled": ["acme"]}))
    warned = [r.getMessage() for r in caplog.records if "no plugin folder holds it" in r.getMessage()]
    assert len(warned) == 1
    assert warned[0].endswith(
        f"{root / 'acme'} is itself a plugin folder: plugins.paths names the folders that hold plugin folders, "
        f"so write {root} there."
    )


def test_an_enabled_plugin_folder_without_its_plugin_yaml_is_named(
    make_config: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder holding the plugin's ``__init__.py`` but no ``plugin.yaml`` was reported as
    no folder holding the plugin at all, while it stood in the folder the warning listed."""
    folder = tmp_path / "plugins" / "acme"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(GOOD.format(name="acme"), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        rows = list_providers(make_config(plugins={"paths": [str(folder.parent)], "enabled": ["acme", ".."]}))
    assert "acme" not in {row["name"] for row in rows}
    warned = [r.getMessage() for r in caplog.records if "no plugin folder holds it" in r.getMessage()]
    assert len(warned) == 2
    assert warned[0].startswith("Plugin 'acme' is enabled (plugins.enabled) but no plugin folder holds it")
    assert warned[0].endswith(
        f"{folder} has no plugin.yaml, so it is not read as a plugin folder: write one there "
        "(name: acme, kind: backend, and its providers)."
    )
    assert "plugin.yaml" not in warned[1]


def test_an_enabled_folder_whose_plugin_yaml_names_another_plugin_says_the_name_it_goes_by(
    make_config: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``plugins.enabled: [acme]`` for a folder ``acme`` whose plugin.yaml says ``name:
    acme-search`` was told the folder "has no plugin.yaml", which stood there."""
    folder = tmp_path / "plugins" / "acme"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text("name: acme-search\nkind: backend\nproviders: []\n", encoding="utf-8")
    (folder / "__init__.py").write_text(GOOD.format(name="acme-search"), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        list_providers(make_config(plugins={"paths": [str(folder.parent)], "enabled": ["acme"]}))
    warned = [r.getMessage() for r in caplog.records if "no plugin folder holds it" in r.getMessage()]
    assert len(warned) == 1 and warned[0].startswith("Plugin 'acme' is enabled (plugins.enabled)")
    assert warned[0].endswith(
        f"{folder / 'plugin.yaml'} names its plugin 'acme-search': plugins.enabled takes that name "
        "(or write name: acme there)."
    )


def test_a_typo_in_plugins_enabled_or_disabled_is_named(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``disabled: [brav]`` left brave running and ``enabled: [acm]`` loaded nothing, with
    nothing said; a name one typo away from a plugin's or a provider's now says which one. A
    name that did turn something off (a provider of a plugin that stays) is not named."""
    root = write_plugin("acme", GOOD.format(name="acme"))
    with caplog.at_level(logging.WARNING):
        list_providers(make_config(plugins={"paths": [str(root)], "enabled": ["acm"], "disabled": ["brav", "google-cse"]}))
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 2
    assert warned[0].startswith("Plugin 'acm' is enabled (plugins.enabled) but no plugin folder holds it")
    assert warned[0].endswith("Did you mean 'acme'?")
    assert warned[1] == (
        "plugins.disabled in <test> names 'brav', which is no plugin's or provider's name, so it turns "
        "nothing off. Did you mean 'brave'?"
    )


def test_disabled_always_wins(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin("mine", GOOD.format(name="mine"))
    config = make_config(
        plugins={"paths": [str(root)], "enabled": ["mine"], "disabled": ["mine", "ddgs"]}
    )
    rows = _rows(config)
    assert "mine" not in rows
    assert "ddgs" not in rows
    assert "stub" in rows


def test_broken_import_is_recorded_and_others_keep_working(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin("broken", "import not_a_real_module_xyz\n")
    write_plugin("mine", GOOD.format(name="mine"))
    config = make_config(plugins={"paths": [str(root)], "enabled": ["broken", "mine"]})
    rows = _rows(config)
    assert rows["broken"]["available"] is False
    assert "ModuleNotFoundError" in rows["broken"]["load_error"]
    envelope = dispatch_search("q", backend="mine", config=config)
    assert envelope["success"] is True


def test_register_that_raises_is_recorded(write_plugin: Any, make_config: Any) -> None:
    code = GOOD.format(name="half") + "\n\ndef register(ctx):\n    ctx.register_web_search_provider(P())\n    raise RuntimeError('boom')\n"
    root = write_plugin("half", code)
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["half"]}))
    assert "RuntimeError: boom" in rows["half"]["load_error"]
    assert rows["half"]["available"] is False


def test_registering_something_that_is_not_a_provider_is_recorded(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin("wrong", "def register(ctx):\n    ctx.register_web_search_provider(object())\n")
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["wrong"]}))
    assert "needs a WebSearchProvider" in rows["wrong"]["load_error"]


def test_duplicate_provider_name_keeps_the_first_and_warns(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    root = write_plugin("aaa", GOOD.format(name="twin"))
    write_plugin("bbb", GOOD.format(name="twin").replace("from twin", "from bbb"))
    write_plugin("ccc", GOOD.format(name="stub"))
    config = make_config(plugins={"paths": [str(root)], "enabled": ["aaa", "bbb", "ccc"]})
    with caplog.at_level(logging.WARNING, logger="webproviders.registry.loader"):
        rows = _rows(config)
    assert rows["twin"]["plugin"] == "aaa"
    assert rows["stub"]["source"] == "built-in"  # built-ins load first and keep their names
    assert any("Duplicate provider" in r.getMessage() for r in caplog.records)
    failed = {r["plugin"]: r for r in list_providers(config) if r["load_error"]}
    assert "already registered" in failed["bbb"]["load_error"]
    hit = dispatch_search("q", backend="twin", config=config)["data"]["web"][0]
    assert hit["title"] == "from twin"


_TRIO = """
from webproviders import WebSearchProvider

class P(WebSearchProvider):
    def __init__(self, name):
        self._name = name
    @property
    def name(self):
        return self._name
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        return [{"title": "from trio", "url": "https://trio.example/"}]

def register(ctx):
    ctx.register_web_search_provider(P("first"))
    ctx.register_web_search_provider(P("stub"))
    ctx.register_web_search_provider(P("third"))
"""


def test_a_taken_provider_name_leaves_the_plugin_s_later_providers_registered(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A plugin registering ``stub`` (a built-in's name) between two providers of its own lost
    the one after it: the refusal was raised into its ``register()``, which stopped there, and
    that provider read "its plugin 'trio' failed to load". The warning was logged twice."""
    root = write_plugin("trio", _TRIO)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["trio"]})
    with caplog.at_level(logging.WARNING, logger="webproviders.registry"):
        third = dispatch_search("q", backend="third", config=config)
    assert third["success"] is True and third["data"]["web"][0]["title"] == "from trio"
    assert dispatch_search("q", backend="stub", config=config)["data"]["web"][0]["title"] != "from trio"
    clash = "provider name 'stub' from user plugin 'trio' is already registered by built-in plugin 'stub'"
    assert [r.getMessage() for r in caplog.records if clash in r.getMessage()] == [
        f"Duplicate provider: {clash}; the first registration is kept."
    ]
    rows = {row["name"]: row for row in list_providers(config) if row["plugin"] == "trio"}
    assert rows["third"]["available"] is True and clash in rows["third"]["load_error"]


def test_an_enabled_plugin_no_folder_holds_is_named_with_where_it_was_looked_for(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    root = write_plugin("aaa", GOOD.format(name="aaa"))
    config = make_config(plugins={"paths": [str(root), "plugins-here"], "enabled": ["aaa", "missing"]})
    with caplog.at_level(logging.WARNING, logger="webproviders.registry.loader"):
        rows = _rows(config)
    assert "aaa" in rows
    warned = [r.getMessage() for r in caplog.records if "'missing' is enabled" in r.getMessage()]
    assert len(warned) == 1 and f"looked in {root}, plugins-here" in warned[0]
    assert "relative path is read from the working directory" in warned[0]
    assert not any("'aaa' is enabled" in r.getMessage() for r in caplog.records)


def test_a_working_directory_that_was_removed_does_not_stop_the_calls(
    make_config: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    config = make_config(plugins={"enabled": ["missing"]})
    assert dispatch_search("q", backend="stub", config=config)["success"] is True


def test_invalid_manifest_is_recorded(tmp_path: Path, make_config: Any) -> None:
    folder = tmp_path / "plugins" / "badyaml"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text("name: Bad Name!\nkind: backend\n")
    (folder / "__init__.py").write_text("")
    rows = list_providers(make_config(plugins={"paths": [str(tmp_path / "plugins")]}))
    bad = [r for r in rows if r["load_error"] and "plugin.yaml" in r["load_error"]]
    assert bad and bad[0]["available"] is False


def test_a_manifest_that_does_not_parse_is_said_on_one_line_with_where(tmp_path: Path, make_config: Any) -> None:
    """A plugin.yaml syntax error was PyYAML's text, three lines with 'in "<unicode string>"',
    which broke the table ``webproviders providers`` prints; a file that is not UTF-8 did not say
    where. Both now read as a config file's would."""
    root = tmp_path / "plugins"
    for name, raw in (("syntax", b"name: syntax\nproviders: [\n  - name: x\n"), ("latin", b"name: latin\ndescription: caf\xe9\n")):
        (root / name).mkdir(parents=True)
        (root / name / "plugin.yaml").write_bytes(raw)
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["syntax", "latin"]}))
    assert rows["syntax"]["load_error"] == (
        f"{root / 'syntax' / 'plugin.yaml'} is not valid YAML: while parsing a flow node (line 3, column 3); "
        "did not find expected node content (line 3, column 3)"
    )
    assert rows["latin"]["load_error"] == (
        f"{root / 'latin' / 'plugin.yaml'} is not UTF-8 text (byte 29 cannot be read); save it as UTF-8"
    )


def test_a_manifest_key_or_value_yaml_does_not_read_as_text_is_named_as_in_a_config_file(
    tmp_path: Path, make_config: Any
) -> None:
    """A ``!!binary`` description was decoded and shown as text, and a ``yes:`` key read as
    true, refused as ``'providers.0.1': Keys should be strings``; a config file refuses both."""
    root = tmp_path / "plugins"
    files = {
        "binary": "name: binary\nkind: backend\ndescription: !!binary YmluYXJ5IGRlc2NyaXB0aW9u\n",
        "yeskey": "name: yeskey\nkind: backend\nproviders:\n  - name: yeskey\n    yes: 1\n",
    }
    for name, text in files.items():
        (root / name).mkdir(parents=True)
        (root / name / "plugin.yaml").write_text(text, encoding="utf-8")
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": list(files)}))
    assert rows["binary"]["load_error"] == (
        f"{root / 'binary' / 'plugin.yaml'} is invalid: 'description' (line 3) is binary data (!!binary), "
        "not text: write it as text"
    )
    assert rows["yeskey"]["load_error"] == (
        f"{root / 'yeskey' / 'plugin.yaml'} is invalid: a key under 'providers.0' (line 5) is read by YAML as "
        "true or false, not text; every key is a name: put it in quotes"
    )


def test_a_manifest_shaped_to_exhaust_the_process_is_a_load_error(tmp_path: Path) -> None:
    """A plugin.yaml is read by every listing, CLI start and MCP server start. One nested
    50,000 levels deep crashed the process (libyaml's composer recursed in C: SIGSEGV), and
    one of 1 KB whose aliases expand into a billion values held the listing for a minute and
    ended in MemoryError. Each is now one plugin's load error, as a config file's would be."""
    root = tmp_path / "plugins"
    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for name, previous in zip("bcdefgh", "abcdefg", strict=True):
        levels.append(f"{name}: &{name} [" + ",".join(f"*{previous}" for _ in range(10)) + "]")
    files = {
        "deep": "name: deep\ndescription: " + "[" * 50_000 + "]" * 50_000 + "\n",
        # kept small (10**6 values once expanded) so that the code before the check still ends
        "laughs": "name: laughs\nproviders:\n  - name: laughs\n    price:\n"
        + "".join(f"      {line}\n" for line in levels[:6]),
    }
    for name, text in files.items():
        (root / name).mkdir(parents=True)
        (root / name / "plugin.yaml").write_text(text, encoding="utf-8")
    script = (
        "import json, sys\n"
        "from webproviders import list_providers\n"
        "from webproviders.config import config_from_dict\n"
        f"config = config_from_dict({{'plugins': {{'paths': [{str(root)!r}], 'enabled': ['deep', 'laughs']}}}})\n"
        "rows = {r['name']: r['load_error'] for r in list_providers(config)}\n"
        "print(json.dumps([rows.get('deep'), rows.get('laughs')]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    deep, laughs = json.loads(done.stdout)
    # Refused by our composer, or by libyaml's own nesting limit (PyYAML 6.0.4 and later).
    assert deep.startswith(f"{root / 'deep' / 'plugin.yaml'} ")
    assert "nested too deeply" in deep or "exceeded maximum nesting depth" in deep, deep
    assert laughs == (
        f"{root / 'laughs' / 'plugin.yaml'} uses YAML aliases that would add 1,234,550 values to what it "
        "writes (at most 10,000 are accepted); write the values out instead"
    )


def test_a_manifest_past_its_size_cap_is_a_load_error_read_no_further(tmp_path: Path, make_config: Any) -> None:
    """A 60 MB plugin.yaml (a pasted log in its description) cost every listing 3 s and 380 MB."""
    root = tmp_path / "plugins"
    for name, size in (("big", 256 * 1024), ("fits", 200 * 1024)):
        (root / name).mkdir(parents=True)
        (root / name / "plugin.yaml").write_text(
            f"name: {name}\nhooks: []\nproviders: [{{name: {name}}}]\ndescription: {'x' * size}\n", encoding="utf-8"
        )
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["big", "fits"]}))
    assert rows["big"]["load_error"] == (
        f"{root / 'big' / 'plugin.yaml'} is larger than 256 KiB; a plugin.yaml declares facts (its providers, "
        "their variables and prices), and every listing and start reads it"
    )
    assert rows["fits"]["load_error"] is None


def test_a_manifest_that_is_not_a_file_is_named_not_called_missing(tmp_path: Path, make_config: Any) -> None:
    """A plugin.yaml that is a link to a file since moved, a pipe or a folder made its plugin
    "enabled (plugins.enabled) but no plugin folder holds it", which sent the operator to
    look for a typo in the name; a pipe must still not be opened (the read would wait for a
    writer, at every listing)."""
    root = tmp_path / "plugins"
    for name in ("moved", "piped", "nested"):
        (root / name).mkdir(parents=True)
    (root / "moved" / "plugin.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    os.mkfifo(root / "piped" / "plugin.yaml")
    (root / "nested" / "plugin.yaml").mkdir()
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["moved", "piped", "nested"]}))
    assert rows["moved"]["load_error"] == f"cannot read {root / 'moved' / 'plugin.yaml'}: No such file or directory"
    for name in ("piped", "nested"):
        assert rows[name]["load_error"] == f"{root / name / 'plugin.yaml'} is not a file; a plugin.yaml is a file of text"


def test_a_misspelt_manifest_key_is_named_with_the_key_it_was_likely_meant_for(
    tmp_path: Path, make_config: Any
) -> None:
    """pydantic's "Extra inputs are not permitted" named the key but not what to write instead."""
    folder = tmp_path / "plugins" / "typo"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        "name: typo\nhook: []\nproviders:\n  - name: typo\n    capabilites: [search]\n    colour: blue\n"
    )
    rows = _rows(make_config(plugins={"paths": [str(tmp_path / "plugins")], "enabled": ["typo"]}))
    assert rows["typo"]["load_error"] == (
        f"{folder / 'plugin.yaml'} is invalid: "
        "'providers.0.capabilites': is not a key this takes (did you mean 'capabilities'?); "
        "'providers.0.colour': is not a key this takes; "
        "'hook': is not a key this takes (did you mean 'hooks'?)"
    )


def test_a_manifest_value_of_the_wrong_kind_says_which_kinds_the_key_takes(tmp_path: Path, make_config: Any) -> None:
    folder = tmp_path / "plugins" / "oddfetch"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        "name: oddfetch\nkind: backend\nproviders:\n  - name: oddfetch\n    capabilities: [extract]\n    fetch: [local]\n"
    )
    (folder / "__init__.py").write_text("")
    rows = list_providers(make_config(plugins={"paths": [str(tmp_path / "plugins")]}))
    error = next(r["load_error"] for r in rows if r["load_error"] and "oddfetch" in r["load_error"])
    assert "'providers.0.fetch': should be one of 'local', 'vendor', 'none' or a mapping" in error
    assert "[" not in error.split("is invalid:")[1]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("fetch: {search: vendor}", "'providers.0.fetch': 'search' is not a key this takes: a place is said for "
         "extract and crawl"),
        ("fetch: {extract: cloud}", "'providers.0.fetch': the place for extract should be 'local', 'vendor' or "
         "'none', not 'cloud'"),
    ],
)
def test_a_fetch_mapping_with_a_wrong_key_or_place_names_it(
    tmp_path: Path, make_config: Any, written: str, said: str
) -> None:
    """A mapping with one wrong key was told it "should be one of 'local', 'vendor', 'none' or
    a mapping": a mapping is what it was."""
    folder = tmp_path / "plugins" / "mapfetch"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        f"name: mapfetch\nkind: backend\nproviders:\n  - name: mapfetch\n    capabilities: [extract]\n    {written}\n"
    )
    (folder / "__init__.py").write_text("")
    rows = _rows(make_config(plugins={"paths": [str(tmp_path / "plugins")], "enabled": ["mapfetch"]}))
    assert rows["mapfetch"]["load_error"] == f"{folder / 'plugin.yaml'} is invalid: {said}"


def test_a_hooks_when_that_is_no_setting_path_says_what_to_write(tmp_path: Path, make_config: Any) -> None:
    """The refusal quoted the regular expression it failed (``String should match pattern
    '^[a-z_]+(\\.[A-Za-z0-9_-]+)+$'``)."""
    folder = tmp_path / "plugins" / "pathless"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text("name: pathless\nkind: backend\nhooks_when: web..index\nproviders: []\n")
    (folder / "__init__.py").write_text("")
    rows = _rows(make_config(plugins={"paths": [str(tmp_path / "plugins")], "enabled": ["pathless"]}))
    assert rows["pathless"]["load_error"] == (
        f"{folder / 'plugin.yaml'} is invalid: 'hooks_when': should be a setting's dotted path, such as "
        "web.local.index or web.providers.acme.index, not 'web..index'"
    )


def test_a_manifest_rate_limit_that_does_not_parse_fails_the_registration_naming_it(
    write_plugin: Any, make_config: Any
) -> None:
    """A ``rate_limit: "5 per second"`` in a plugin.yaml listed its provider as ready, and every
    call to it failed with "The provider failed: ValueError: the rate limit is not
    understood ...", naming neither the provider nor the key, as ``provider: null``."""
    root = write_plugin(
        "paced", GOOD.format(name="paced"), providers=[{"name": "paced", "capabilities": ["search"], "rate_limit": "5 per second"}]
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["paced"]})
    envelope = dispatch_search("q", backend="paced", config=config)
    assert (envelope["error_code"], envelope["provider"]) == ("not_configured", "paced")
    assert envelope["error"].startswith(
        "Backend 'paced' is not available: its plugin 'paced' failed to load (register() failed: ManifestError: "
        "the rate_limit of provider 'paced' is invalid: the rate limit is not understood; write it as requests/period"
    )
    assert dispatch_search("q", backend="stub", config=config)["success"] is True


def test_a_manifest_package_written_as_pip_names_it_says_to_write_the_module(
    write_plugin: Any, make_config: Any
) -> None:
    """``packages: [{module: acme-sdk, pip: acme-sdk}]`` listed the provider as unavailable
    until ``pip install 'acme-sdk'``, and so it stayed once that was done: no module is named
    ``acme-sdk``, so it is never found."""
    root = write_plugin(
        "pk", GOOD.format(name="pk"),
        providers=[{"name": "pk", "capabilities": ["search"], "packages": [{"module": "acme-sdk", "pip": "acme-sdk"}]}],
    )
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["pk"]}))
    assert rows["pk"]["load_error"] == (
        f"{root / 'pk' / 'plugin.yaml'} is invalid: 'providers.0.packages.0.module': should be the name Python "
        "imports, as in `import acme_sdk` (dotted names, letters, digits and '_'), not the name pip installs"
    )


@pytest.mark.parametrize(
    ("provider", "said"),
    [
        ({"env": [{"key": "ODD_KEY", "config_key": "not a key"}]},
         "'providers.0.env.0.config_key': should be a key of web.providers.<name> as a config file writes it: "
         "letters, digits, '_' and '-', starting with a letter or '_' (such as api_key or base_url), not 'not a key'"),
        ({"env": [{"key": "ODD KEY"}]},
         "'providers.0.env.0.key': should be an environment variable's name: letters, digits and '_', not "
         "starting with a digit (such as ACME_API_KEY), not the value it holds"),
        ({"env": [{"key": "sk-live-4f3c9a2b"}]},  # the key itself, where its variable's name goes: not quoted
         "'providers.0.env.0.key': should be an environment variable's name: letters, digits and '_', not "
         "starting with a digit (such as ACME_API_KEY), not the value it holds"),
        ({"env": [{"key": "ODD_KEY", "aliases": ["ODD=KEY"]}]},
         "'providers.0.env.0.aliases.0': should be an environment variable's name: letters, digits and '_', not "
         "starting with a digit (such as ACME_API_KEY), not the value it holds"),
        ({"options": ["max chars"]},
         "'providers.0.options.0': should be a key of web.providers.<name> as a config file writes it: "
         "letters, digits, '_' and '-', starting with a letter or '_' (such as api_key or base_url), not 'max chars'"),
        ({"env": [{"key": "ODD_KEY", "required": False, "needed_for": ["crawl"]}]},
         "'providers.0.env': ODD_KEY is needed_for crawl, which the provider does not serve: list only "
         "capabilities it has (search)"),
        ({"capabilities": []},
         "'providers.0.capabilities': should list what the provider serves: one or more of search, extract and crawl"),
        ({"priority": -5},
         "'providers.0.priority': should be 0 or more, lower tried first: 20-49 for a keyed vendor, 50-79 "
         "self-hosted, 80-99 keyless; not -5"),
    ],
    ids=["config_key", "key", "key_itself", "alias", "options", "needed_for", "capabilities", "priority"],
)
def test_a_manifest_value_no_user_could_act_on_is_a_load_error_saying_what_to_write(
    write_plugin: Any, make_config: Any, provider: dict[str, Any], said: str
) -> None:
    """A ``config_key`` no config file writes, a variable no shell can set, a provider serving
    nothing or ranked below every band loaded without a word: the provider was listed as
    needing ``web.providers.odd.not a key``, or as available for nothing."""
    root = write_plugin("odd", GOOD.format(name="odd"), providers=[{"name": "odd", **provider}])
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["odd"]}))
    assert rows["odd"]["load_error"] == f"{root / 'odd' / 'plugin.yaml'} is invalid: {said}"


def test_a_declared_provider_the_code_registers_under_another_name_says_which(
    write_plugin: Any, make_config: Any
) -> None:
    """A plugin.yaml declaring ``acme`` whose code registered ``acme-search`` left ``acme``
    "not available: its plugin 'acme' did not register it", the other name unsaid."""
    root = write_plugin("acme", GOOD.format(name="acme-search"), providers=[{"name": "acme"}])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["acme"]})
    envelope = dispatch_search("q", backend="acme", config=config)
    assert (envelope["error_code"], envelope["error"]) == (
        "not_configured",
        "Backend 'acme' is not available: its plugin 'acme' did not register it (it registered 'acme-search', "
        "which its plugin.yaml does not list: the names there and in the code should match).",
    )


def test_a_provider_a_manifest_lists_twice_is_named_not_called_a_duplicate_of_itself(
    write_plugin: Any, make_config: Any
) -> None:
    """The second entry was recorded as "provider name 'twice' from user plugin 'twice' is
    already registered by user plugin 'twice'", the plugin clashing with itself."""
    root = write_plugin("twice", GOOD.format(name="twice"), providers=[{"name": "twice"}, {"name": "twice"}])
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["twice"]}))
    assert rows["twice"]["load_error"] == (
        f"{root / 'twice' / 'plugin.yaml'} is invalid: 'providers': lists provider 'twice' twice: list each "
        "provider once, by a name of its own"
    )


def test_manifest_explains_missing_key_and_package(write_plugin: Any, make_config: Any) -> None:
    code = """
    import os
    from webproviders import WebSearchProvider

    class Keyed(WebSearchProvider):
        name = "keyed"
        def is_available(self):
            return bool(os.environ.get("KEYED_API_KEY"))

    class NeedsPkg(WebSearchProvider):
        name = "needs-pkg"
        def is_available(self):
            return False

    def register(ctx):
        ctx.register_web_search_provider(Keyed())
        ctx.register_web_search_provider(NeedsPkg())
    """
    providers = [
        {"name": "keyed", "env": [{"key": "KEYED_API_KEY", "prompt": "key"}]},
        {"name": "needs-pkg", "packages": [{"module": "surely_missing_pkg", "pip": "webproviders[missing]"}]},
    ]
    root = write_plugin("reasons", code, providers)
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["reasons"]}))
    assert rows["keyed"]["reason"] == "KEYED_API_KEY is not set (or web.providers.keyed.api_key)"
    assert "pip install 'webproviders[missing]'" in rows["needs-pkg"]["reason"]


@pytest.mark.parametrize(
    ("entry_points_txt", "found"),
    [
        ("[webproviders]\nspaced = wp_spaced\n", True),
        ("  [webproviders]\t\nspaced = wp_spaced\n", True),
        ("[[webproviders]]\nspaced = wp_spaced\n", True),
        ("[console_scripts]\nwebproviders = wp_spaced:main\n", False),
    ],
)
def test_entry_points_are_the_ones_importlib_metadata_reads(
    entry_points_txt: str, found: bool, install_entry_point: Any, make_config: Any, tmp_path: Path
) -> None:
    """A distribution's plugins are found however its group line is written, and the group's
    name elsewhere in the file (a console script) makes no plugin."""
    install_entry_point("spaced", "wp_spaced", GOOD.format(name="spaced"))
    (tmp_path / "site" / "wp_spaced-1.0.dist-info" / "entry_points.txt").write_text(entry_points_txt)
    assert ("spaced" in {ep.name for ep in entry_points(group="webproviders")}) is found
    config = make_config()
    assert ("spaced" in _rows(config)) is found
    assert any(record.name == "spaced" for record in get_registry(config).plugins) is found


#: The ``entry_points.txt`` of an unrelated installed package that no parser reads: a line
#: without ``=``, and a file that is not UTF-8.
UNREADABLE_ENTRY_POINTS = [b"[console_scripts]\nthis line has no equals sign\n", b"[console_scripts]\ncaf\xe9 = x:y\n"]


def _install_unreadable(site: Path, content: bytes) -> None:
    dist = site / "broken_pkg-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_bytes(content)


@pytest.mark.parametrize("content", UNREADABLE_ENTRY_POINTS, ids=["no-equals-sign", "not-utf-8"])
def test_another_packages_unreadable_entry_points_leave_ours_found(
    content: bytes, install_entry_point: Any, make_config: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The standard lookup raises for every group when one package's file does not parse: a
    registry was not built, and every call raised its TypeError. The plugins of the other
    packages are found, and the broken one is named."""
    install_entry_point("sturdy", "wp_sturdy", GOOD.format(name="sturdy"))
    _install_unreadable(tmp_path / "site", content)
    with caplog.at_level(logging.WARNING):
        envelope = dispatch_search("q", backend="sturdy", config=make_config())
    assert envelope["success"] is True and envelope["provider"] == "sturdy", envelope
    assert any("entry_points.txt of the installed package broken-pkg" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("content", UNREADABLE_ENTRY_POINTS, ids=["no-equals-sign", "not-utf-8"])
def test_another_packages_unreadable_entry_points_do_not_stop_the_import(content: bytes, tmp_path: Path) -> None:
    """pydantic reads every package's entry points as it builds its first validator, looking for
    its own plugins, and raised from there: ``list_providers()`` raised a TypeError from
    importlib's internals, and so did every ``dispatch_*`` call and the CLI. The library loads,
    and a warning names the package to repair."""
    _install_unreadable(tmp_path / "site", content)
    stderr = _search_with_site_on_path(tmp_path / "site")
    assert "pydantic could not look for its plugins" in stderr
    assert "the entry_points.txt of the installed package 'broken-pkg 1.0' cannot be read" in stderr


def _search_with_site_on_path(site: Path) -> str:
    """Import the library in a fresh process with ``site`` first on its path (pydantic's plugins
    looked for, as they are by default), list the providers and search through ``stub``, which
    must succeed; returns what the process wrote to stderr."""
    script = (
        f"import sys; sys.path.insert(0, {str(site)!r})\n"
        "import webproviders\n"
        "assert webproviders.list_providers()\n"
        "print(webproviders.dispatch_search('q', backend='stub')['success'])\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYDANTIC_DISABLE_PLUGINS"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0 and result.stdout.strip() == "True", result.stderr
    return result.stderr


def test_a_pydantic_plugin_that_raises_as_it_loads_does_not_stop_the_import(tmp_path: Path) -> None:
    """pydantic lets only an ImportError or an AttributeError of a plugin pass: another package's
    pydantic plugin that raised anything else as it loaded made the library fail to import."""
    site = tmp_path / "site"
    dist = site / "pyd_boom-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pyd-boom\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pydantic]\nboom = pyd_boom_plugin\n")
    (site / "pyd_boom_plugin.py").write_text("raise RuntimeError('not configured')\n")
    assert "a pydantic plugin raised as it loaded (installed: 'boom' of pyd-boom 1.0)" in _search_with_site_on_path(site)


def test_an_entry_point_that_names_no_module_says_what_to_write(
    install_entry_point: Any, make_config: Any, tmp_path: Path
) -> None:
    """A value such as ``acme = acme webproviders`` made the plugin's load error
    "AttributeError: 'NoneType' object has no attribute 'group'", which says nothing to fix."""
    install_entry_point("typo", "wp_typo", GOOD.format(name="typo"))
    (tmp_path / "site" / "wp_typo-1.0.dist-info" / "entry_points.txt").write_text("[webproviders]\ntypo = wp typo\n")
    config = make_config()
    envelope = dispatch_search("q", backend="typo", config=config)
    assert envelope["error_code"] == "not_configured"
    assert "its entry point reads 'wp typo', which is not a 'module' or 'module:attribute' reference" in (
        envelope["error"]
    )
    assert dispatch_search("q", backend="stub", config=config)["success"] is True


def test_entry_point_plugin_is_found(install_entry_point: Any, make_config: Any) -> None:
    install_entry_point(
        "third",
        "wp_thirdparty",
        """
        from webproviders import WebSearchProvider, hookimpl

        class Third(WebSearchProvider):
            name = "third"
            def is_available(self):
                return True
            def get_setup_schema(self):
                return {"name": "Third", "badge": "", "tag": "", "env_vars": [{"key": "THIRD_KEY", "prompt": "k", "url": ""}]}
            def search(self, query, limit=5, **options):
                return [{"title": "third", "url": "https://third.example/"}]

        @hookimpl
        def register(ctx):
            ctx.register_web_search_provider(Third())
        """,
    )
    config = make_config()
    rows = _rows(config)
    assert rows["third"]["source"] == "entry point"
    assert rows["third"]["capabilities"] == ["search"]
    envelope = dispatch_search("q", backend="third", config=config)
    assert envelope["data"]["web"][0]["url"] == "https://third.example/"
    # Disabling by entry-point name removes it.
    assert "third" not in _rows(make_config(plugins={"disabled": ["third"]}))


def test_a_backend_of_a_package_that_failed_to_import_names_the_error(
    install_entry_point: Any, write_plugin: Any, make_config: Any
) -> None:
    """An installed plugin that raises on import registers nothing, so its provider's name is
    unknown; the call says that the plugin failed and why, not only which names exist."""
    install_entry_point("acmefail", "wp_acmefail", "raise ImportError('acme-sdk 3 is needed, 2.1 is installed')\n")
    root = write_plugin("garbled", GOOD.format(name="garbled"))
    (root / "garbled" / "plugin.yaml").write_text("name: garbled\nproviders: [\n")
    config = make_config(plugins={"paths": [str(root)], "enabled": ["garbled"]})
    named = dispatch_search("q", backend="acmefail", config=config)
    assert named["error_code"] == "not_configured"
    assert named["error"] == (
        "Backend 'acmefail' is not available: its entry point plugin 'acmefail' failed to load "
        "(import failed: ImportError: acme-sdk 3 is needed, 2.1 is installed (in the installed package wp-acmefail 1.0))."
    )
    other = dispatch_search("q", backend="acme", config=config)
    assert other["error"].startswith("Unknown backend 'acme'. Known backends: ")
    assert "Plugins that failed to load, and may provide it: 'acmefail' (import failed: ImportError" in other["error"]
    assert "'garbled' (" in other["error"] and "plugin.yaml is not valid YAML" in other["error"]


def test_code_that_fails_to_import_is_named_by_its_file_or_its_installed_package(
    install_entry_point: Any, write_plugin: Any, make_config: Any, tmp_path: Path
) -> None:
    """A syntax error named only ``(__init__.py, line 1)``, which every plugin folder holds, and
    an entry point naming a module that is not there only the module: neither said which
    folder or which installed package to repair."""
    root = write_plugin("typed", "from .parse import hits\n")
    (root / "typed" / "parse.py").write_text("def hits(\n")
    install_entry_point("gone", "wp_gone", GOOD.format(name="gone"))
    (tmp_path / "site" / "wp_gone-1.0.dist-info" / "entry_points.txt").write_text("[webproviders]\ngone = wp_gone_moved\n")
    failed = {
        row["plugin"]: row["load_error"]
        for row in list_providers(make_config(plugins={"paths": [str(root)], "enabled": ["typed"]}), load=True)
        if row["load_error"]
    }
    assert failed["typed"] == f"import failed: SyntaxError: '(' was never closed ({root / 'typed' / 'parse.py'}, line 1)"
    assert failed["gone"] == (
        "import failed: ModuleNotFoundError: No module named 'wp_gone_moved' (in the installed package wp-gone 1.0)"
    )


def test_a_hook_that_raises_is_named_by_its_plugin_not_blamed_on_the_backend(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A policy plugin's hook failing (not refusing with an error class) read as "stub failed:
    KeyError: 'tenant'", and an observer's as "An after_dispatch hook failed": neither said
    which plugin's code to fix. A refusal in the library's error classes keeps its words."""
    write_plugin("quiet", GOOD.format(name="quiet"))
    root = write_plugin(
        "policy",
        GOOD.format(name="policed")
        + """
from webproviders import BlockedError
from .rules import check

def before_dispatch(backend, arguments):
    check(arguments["query"])

def after_dispatch(envelope):
    raise RuntimeError("the spend collector is down")
""",
    )
    (root / "policy" / "rules.py").write_text(
        "from webproviders import BlockedError\n\n"
        "def check(query):\n"
        "    if query == 'refused':\n"
        "        raise BlockedError('queries about that are not allowed here')\n"
        "    if query == 'broken':\n"
        "        raise KeyError('tenant')\n"
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["quiet", "policy"]})
    with caplog.at_level(logging.WARNING):
        broken = dispatch_search("broken", backend="quiet", config=config)
    assert (broken["error_code"], broken["error"]) == (
        "provider_error",
        "The before_dispatch hook of user plugin 'policy' failed: KeyError: 'tenant'.",
    )
    assert "The after_dispatch hook of user plugin 'policy' failed: RuntimeError: the spend collector is down." in [
        record.getMessage() for record in caplog.records
    ]
    refused = dispatch_search("refused", backend="quiet", config=config)
    assert (refused["error_code"], refused["error"]) == ("blocked", "queries about that are not allowed here")
    assert dispatch_search("fine", backend="quiet", config=config)["success"] is True


def test_a_plugin_of_hooks_alone_is_not_listed_as_failed_and_one_of_nothing_is(
    write_plugin: Any, make_config: Any, install_entry_point: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A plugin that only watches calls (an ``after_dispatch`` hook, no ``register``) ran its
    hook on every call while ``webproviders providers`` listed it as failed to load: "the
    plugin defines no register(ctx) function". One that defines no hook at all (``regster``)
    is a load error, said in the log as other load errors are."""
    root = write_plugin("audit", "SEEN = []\n\ndef after_dispatch(envelope):\n    SEEN.append(envelope['success'])\n")
    write_plugin("typo", "def regster(ctx):\n    pass\n")
    install_entry_point("spend", "spend_hooks", "def after_dispatch(cost):\n    pass\n")
    config = make_config(plugins={"paths": [str(root)], "enabled": ["audit", "typo"]})
    assert dispatch_search("q", backend="stub", config=config)["success"] is True
    with caplog.at_level(logging.WARNING, logger="webproviders.registry.loader"):
        failed = {row["plugin"]: row["load_error"] for row in list_providers(config, load=True) if row["load_error"]}
    assert failed == {"typo": "the plugin defines no register(ctx) function, nor any other hook"}
    assert "Plugin 'typo' failed to register: the plugin defines no register(ctx) function, nor any other hook" in [
        record.getMessage() for record in caplog.records
    ]
    module = next(m for name, m in sys.modules.items() if name.startswith("_webproviders_plugins.user.audit"))
    assert module.SEEN == [True]


def test_a_hook_a_plugin_yaml_leaves_out_of_hooks_is_named_when_the_code_loads(
    make_config: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``hooks: []`` with a ``before_dispatch`` in the code: the policy ran only once the
    plugin's provider had been used, the calls before passed it, and nothing said why."""
    folder = tmp_path / "plugins" / "guard"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        "name: guard\nkind: backend\nhooks: []\nproviders:\n  - name: guard\n", encoding="utf-8"
    )
    code = GOOD.format(name="guard") + """
from webproviders import InvalidInputError

def before_dispatch(arguments):
    raise InvalidInputError("refused by policy")
"""
    (folder / "__init__.py").write_text(code, encoding="utf-8")
    config = make_config(plugins={"paths": [str(folder.parent)], "enabled": ["guard"]})
    with caplog.at_level(logging.WARNING, logger="webproviders"):
        assert dispatch_search("q", backend="stub", config=config)["success"] is True
        assert dispatch_search("q", backend="guard", config=config)["error"] == "refused by policy"
    assert [r.getMessage() for r in caplog.records if "leaves out of hooks" in r.getMessage()] == [
        "Plugin 'guard' implements before_dispatch, which its plugin.yaml leaves out of hooks: it is imported "
        "when one of its providers is first used, and calls before that run without it; write "
        "hooks: [before_dispatch] there."
    ]


def test_dispatch_hooks_see_every_call(write_plugin: Any, make_config: Any) -> None:
    code = GOOD.format(name="hooked") + """
SEEN = []

def before_dispatch(capability, backend, arguments):
    SEEN.append(("before", capability, backend, arguments["query"]))

def after_dispatch(capability, arguments, envelope):
    SEEN.append(("after", capability, envelope["success"]))
"""
    root = write_plugin("hooked", code)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["hooked"]})
    dispatch_search("hello", backend="stub", config=config)
    module = next(
        m for name, m in __import__("sys").modules.items() if name.startswith("_webproviders_plugins.user.hooked")
    )
    assert module.SEEN == [("before", "search", "stub", "hello"), ("after", "search", True)]


def test_an_after_dispatch_hook_sees_the_call_s_urls_masked_as_its_envelope_shows_them(
    write_plugin: Any, make_config: Any
) -> None:
    """The observer was handed the URLs as the caller gave them (a password, an ``api_key``)
    beside an envelope, a ledger and log lines that mask them: a log-shipping hook sent them on."""
    root = write_plugin("shipper", "SEEN = []\n\ndef after_dispatch(arguments):\n    SEEN.append(arguments)\n")
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["shipper"]})
    asked = "https://alice:hunter2@docs.example/guide?api_key=sk-live-123&page=2"
    read = dispatch_extract([asked], backend="stub", config=config)
    crawled = dispatch_crawl("https://docs.example/?token=tok-789", backend="stub", config=config, max_pages=1)
    assert read["success"] is True and crawled["success"] is True
    seen = _hook_module("shipper").SEEN
    assert seen[0]["urls"] == [read["data"][0]["url"]] == ["https://***@docs.example/guide?api_key=***&page=2"]
    assert seen[1]["url"] == "https://docs.example/?token=***"


def test_policy_hook_can_refuse_a_call(write_plugin: Any, make_config: Any) -> None:
    code = GOOD.format(name="policy") + """
from webproviders.errors import InvalidInputError

def before_dispatch(capability, backend, arguments):
    if "forbidden" in arguments.get("query", ""):
        raise InvalidInputError("This query is not allowed by policy.")
"""
    root = write_plugin("policy", code)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["policy"]})
    refused = dispatch_search("forbidden words", backend="stub", config=config)
    assert refused["error_code"] == "invalid_input"
    assert refused["error"] == "This query is not allowed by policy."
    assert dispatch_search("fine", backend="stub", config=config)["success"] is True


def test_a_policy_refusing_a_member_with_auth_error_is_not_logged_as_its_credentials(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A ``before_dispatch`` hook refusing the first member of a chain with ``AuthError`` (this
    tenant may not use it) was logged as "Provider 'stub' rejected its credentials": the
    operator went to check a key no one had sent."""
    code = GOOD.format(name="second") + """
from webproviders import AuthError

def before_dispatch(backend):
    if backend == "stub":
        raise AuthError("This tenant may not use stub.")
"""
    root = write_plugin("tenancy", code)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["tenancy"]})
    with caplog.at_level(logging.WARNING, logger="webproviders.dispatch"):
        envelope = dispatch_search("q", backend=["stub", "second"], config=config)
    assert envelope["success"] is True and envelope["provider"] == "second", envelope
    said = [r.getMessage() for r in caplog.records if r.name == "webproviders.dispatch"]
    assert said == [
        "The before_dispatch hook refused provider 'stub' (This tenant may not use stub.); trying the next backend."
    ]


def test_arguments_a_hook_left_invalid_fail_the_call_naming_it_and_cool_no_provider_down(
    write_plugin: Any, make_config: Any
) -> None:
    """A hook may edit the arguments; one that wrote a limit of the wrong kind made the stub
    fail with ``stub failed: TypeError: ...``, counted against the stub's health until it
    cooled down for every caller. What a hook wrote is checked as the caller's input is."""
    code = GOOD.format(name="rewriter") + """
def before_dispatch(capability, backend, arguments):
    if arguments.get("query") == "cap it":
        arguments["limit"] = "five"
    elif arguments.get("query") == "fine":
        arguments["limit"] = 2  # an edit that is valid is kept
"""
    root = write_plugin("rewriter", code)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["rewriter"]})
    for _ in range(6):  # more than health.failures
        envelope = dispatch_search("cap it", backend="stub", config=config)
        assert (envelope["error_code"], envelope["error"]) == (
            "provider_error",
            "The before_dispatch hook of user plugin 'rewriter' left the call's arguments invalid: "
            "limit must be a whole number from 1 to 50, not 'five'.",
        )
    fine = dispatch_search("fine", backend="stub", config=config)
    assert fine["success"] is True and len(fine["data"]["web"]) == 2


def test_an_error_class_of_a_plugin_with_a_code_of_its_own_is_a_provider_error(
    write_plugin: Any, make_config: Any
) -> None:
    """``error_code`` is a closed set callers switch on (and the envelope models' ``Literal``):
    a plugin's ``class AcmeDown(WebProviderError): code = "acme_down"`` reached the envelope as
    ``acme_down``, which ``FailureEnvelope`` itself refused to read."""
    from webproviders.models import FailureEnvelope

    code = GOOD.format(name="coded") + """
from webproviders.errors import WebProviderError

class AcmeDown(WebProviderError):
    code = "acme_down"

P.search = lambda self, query, limit=5, **options: (_ for _ in ()).throw(AcmeDown("the index is rebuilding"))
"""
    root = write_plugin("coded", code)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["coded"]})
    envelope = dispatch_search("q", backend="coded", config=config)
    assert (envelope["error_code"], envelope["error"]) == (
        "provider_error",
        "coded failed: AcmeDown (error code 'acme_down', which is not one of the library's): the index is rebuilding",
    )
    FailureEnvelope.model_validate(envelope)


def test_a_hook_refusing_with_an_error_the_envelope_cannot_carry_as_raised_is_named_as_the_hook_s(
    write_plugin: Any, make_config: Any
) -> None:
    """A ``before_dispatch`` refusal raising a plugin's own error class (a code of its own) or
    one without words read "stub failed: TenantRefused ...": a provider never called was
    named as failing, where the hook had refused the call."""
    code = GOOD.format(name="tenancy") + """
from webproviders import AuthError
from webproviders.errors import WebProviderError

class TenantRefused(WebProviderError):
    code = "tenant_refused"

def before_dispatch(arguments):
    if arguments["query"] == "own":
        raise TenantRefused("this tenant may not search")
    if arguments["query"] == "wordless":
        raise AuthError("")
"""
    root = write_plugin("tenancy", code)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["tenancy"]})
    own = dispatch_search("own", backend="stub", config=config)
    assert (own["error_code"], own["error"]) == (
        "provider_error",
        "The before_dispatch hook of user plugin 'tenancy' refused the call with TenantRefused (error code "
        "'tenant_refused', which is not one of the library's): this tenant may not search",
    )
    wordless = dispatch_search("wordless", backend="stub", config=config)
    assert (wordless["error_code"], wordless["error"]) == (
        "auth_error",
        "The before_dispatch hook of user plugin 'tenancy' refused the call (auth_error): it raised AuthError "
        "without a message.",
    )


def test_setup_schema_comes_from_the_manifest(write_plugin: Any, make_config: Any) -> None:
    providers = [
        {
            "name": "schema",
            "badge": "free tier",
            "tag": "api key",
            "env": [{"key": "SCHEMA_API_KEY", "prompt": "Schema key", "url": "https://schema.example/keys"}],
        }
    ]
    root = write_plugin("schema", GOOD.format(name="schema"), providers)
    registry = __import__("webproviders").get_registry(
        make_config(plugins={"paths": [str(root)], "enabled": ["schema"]})
    )
    entry = registry.get("schema")
    assert entry is not None
    assert entry.provider.get_setup_schema() == {
        "name": "schema",
        "badge": "free tier",
        "tag": "api key",
        "env_vars": [{"key": "SCHEMA_API_KEY", "prompt": "Schema key", "url": "https://schema.example/keys"}],
    }


# -- load order and replacing a provider ------------------------------------------------


def _served_title(name: str, config: Any) -> str:
    envelope = dispatch_search("q", backend=name, config=config)
    assert envelope["success"] is True, envelope
    return envelope["data"]["web"][0]["title"]


def test_an_entry_point_loads_before_user_folders(
    install_entry_point: Any, write_plugin: Any, make_config: Any
) -> None:
    install_entry_point("installed", "wp_installed", GOOD.format(name="shared").replace("from shared", "installed"))
    root = write_plugin("nearby", GOOD.format(name="shared").replace("from shared", "nearby"))
    config = make_config(plugins={"paths": [str(root)], "enabled": ["nearby"]})
    assert _rows(config)["shared"]["source"] == "entry point"
    assert _served_title("shared", config) == "installed"
    failed = {r["plugin"]: r for r in list_providers(config) if r["load_error"]}
    assert "already registered by entry point plugin 'installed'" in failed["nearby"]["load_error"]


def test_a_user_folder_whose_plugin_name_an_installed_package_has_says_so(
    install_entry_point: Any, write_plugin: Any, make_config: Any
) -> None:
    """Plugin names collide as provider names do: the folder was dropped with a log line, and
    its own provider was an "Unknown backend" with no word of why."""
    install_entry_point("acme", "wp_acme", GOOD.format(name="acme-installed"))
    root = write_plugin("acme", GOOD.format(name="acme-mine"), [{"name": "acme-mine"}])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["acme"]})
    reason = (
        "plugin name 'acme' is taken by the entry point plugin at wp_acme, found first; give this one "
        "another name in its plugin.yaml"
    )
    assert [(r["source"], r["load_error"]) for r in list_providers(config) if r["plugin"] == "acme"] == [
        ("entry point", None),
        ("user", reason),
    ]
    envelope = dispatch_search("q", backend="acme-mine", config=config)
    assert envelope["error"] == f"Backend 'acme-mine' is not available: its user plugin 'acme' failed to load ({reason})."


def test_an_installed_package_cannot_take_over_a_built_in_name(
    install_entry_point: Any, make_config: Any
) -> None:
    install_entry_point("squatter", "wp_squatter", GOOD.format(name="stub").replace("from stub", "squatter"))
    config = make_config()
    assert _rows(config)["stub"]["source"] == "built-in"
    assert _served_title("stub", config) != "squatter"


def test_two_entry_points_naming_one_module_say_so_in_a_sentence(
    install_entry_point: Any, make_config: Any, tmp_path: Path
) -> None:
    """The second was recorded with pluggy's refusal: "invalid plugin: ValueError: Plugin
    already registered under a different name: entry point:twin-alias=<module 'wp_twin'
    from '...'> {'entry point:twin': <module ...>}"."""
    install_entry_point("twin", "wp_twin", GOOD.format(name="twin"))
    with (tmp_path / "site" / "wp_twin-1.0.dist-info" / "entry_points.txt").open("a") as points:
        points.write("twin-alias = wp_twin\n")
    config = make_config()
    rows = {r["plugin"]: r for r in list_providers(config) if r["source"] == "entry point"}
    assert rows["twin"]["load_error"] is None
    assert rows["twin-alias"]["load_error"] == (
        "its code (wp_twin) is loaded already as the entry point plugin 'twin', and one module is one plugin: "
        "remove one of the two, or point it at a module of its own"
    )
    assert _served_title("twin", config) == "from twin"


def test_an_installed_package_whose_plugin_name_a_built_in_has_says_so(
    install_entry_point: Any, make_config: Any
) -> None:
    """A plugin name is taken by the first plugin found, a built-in's too: an entry point
    named ``stub`` loaded beside the built-in ``stub`` plugin, two plugins one name, which
    ``plugins.disabled: [stub]`` turned off together."""
    install_entry_point("stub", "wp_stubby", GOOD.format(name="stubby"))
    config = make_config()
    rows = [r for r in list_providers(config) if r["plugin"] == "stub"]
    assert [(r["source"], r["name"]) for r in rows] == [("built-in", "stub"), ("entry point", "stub")]
    assert rows[1]["load_error"].startswith(
        "plugin name 'stub' is taken by the built-in plugin at "
    )
    assert rows[1]["load_error"].endswith(
        ", found first; the entry point needs another name in its package's [project.entry-points.webproviders] "
        "table (in the installed package wp-stubby 1.0)"
    )
    assert "wp_stubby" not in sys.modules
    assert dispatch_search("q", backend="stub", config=config)["success"] is True


def test_disabling_a_built_in_lets_a_user_plugin_replace_it(
    write_plugin: Any, make_config: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "k-test-1")
    root = write_plugin("mybrave", GOOD.format(name="brave").replace("from brave", "mine"))
    config = make_config(
        plugins={"paths": [str(root)], "enabled": ["mybrave"], "disabled": ["brave"]}
    )
    row = _rows(config)["brave"]
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
    install_entry_point("bundle", "wp_bundle", GOOD.format(name="extra"))
    assert "extra" in {r["name"] for r in list_providers(make_config())}
    config = make_config(plugins={"disabled": ["extra"]})
    assert "extra" not in {r["name"] for r in list_providers(config)}


_BROKEN_STR = """
from webproviders import WebSearchProvider


class Unprintable(Exception):
    def __str__(self):
        raise ValueError("cannot say")


class P(WebSearchProvider):
    name = "unprintable"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        raise Unprintable()


def register(ctx):
    if ctx.config.web.timeout == 7:
        raise Unprintable()
    ctx.register_web_search_provider(P())
"""


def test_an_exception_that_cannot_be_printed_is_still_named(write_plugin: Any, make_config: Any) -> None:
    """A plugin's exception class whose ``__str__`` fails is named by its class: describing it
    once failed in turn, losing the provider's name or ``webproviders providers`` altogether."""
    root = write_plugin("unprintable", _BROKEN_STR)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["unprintable"]})
    envelope = dispatch_search("q", backend="unprintable", config=config)
    assert (envelope["error"], envelope["provider"]) == ("unprintable failed: Unprintable", "unprintable")
    failing = make_config(web={"timeout": 7}, plugins={"paths": [str(root)], "enabled": ["unprintable"]})
    assert _rows(failing)["unprintable"]["load_error"] == "register() failed: Unprintable"


_WORDLESS = """
from webproviders import AuthError, WebProviderError, WebSearchProvider

class P(WebSearchProvider):
    name = "wordless"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        raise AuthError("") if query == "auth" else WebProviderError("   ")

def register(ctx):
    ctx.register_web_search_provider(P())
"""


def test_a_register_that_returns_its_provider_says_how_to_register_it(write_plugin: Any, make_config: Any) -> None:
    """``def register(ctx): return AcmeProvider()`` registered nothing, and the backend was
    only "not available: its plugin 'returner' did not register it"."""
    code = GOOD.format(name="returner").replace("ctx.register_web_search_provider(P())", "return P()")
    root = write_plugin("returner", code, providers=[{"name": "returner", "capabilities": ["search"]}])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["returner"]})
    envelope = dispatch_search("q", backend="returner", config=config)
    assert envelope["error"] == (
        "Backend 'returner' is not available: its plugin 'returner' failed to load (register() returned P "
        "instead of registering it: call ctx.register_web_search_provider(provider) for each provider inside "
        "register())."
    )


def test_an_error_raised_without_words_is_still_a_sentence(write_plugin: Any, make_config: Any) -> None:
    """``raise AuthError("")`` answered ``"error": ""``: a failure envelope with nothing for a
    person, or a model, to read."""
    root = write_plugin("wordless", _WORDLESS)
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}}, plugins={"paths": [str(root)], "enabled": ["wordless"]})
    refused = dispatch_search("auth", backend="wordless", config=config)
    assert (refused["error_code"], refused["error"]) == (
        "auth_error", "wordless failed (auth_error): it raised AuthError without a message."
    )
    blank = dispatch_search("blank", backend="wordless", config=config)
    assert blank["error"] == "wordless failed (provider_error): it raised WebProviderError without a message."


def test_a_provider_registered_under_a_name_config_cannot_write_says_so_on_one_line(
    write_plugin: Any, make_config: Any
) -> None:
    """The refusal was pydantic's dump: four lines (which broke ``webproviders providers``'s
    table), the internal model's name, a regular expression and a link to pydantic's site."""
    root = write_plugin("spaced", GOOD.format(name="Acme Search"))
    error = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["spaced"]}))["spaced"]["load_error"]
    assert error == (
        "register() failed: ManifestError: the manifest of provider 'Acme Search' is invalid: 'name': should be "
        "1 to 64 lowercase letters, digits, '-' or '_', starting with a letter or a digit (such as 'acme-search')"
    )


@pytest.mark.parametrize(("written", "said"), [("42", "42 (int)"), ("None", "None (NoneType)"), ("['acme']", "['acme'] (list)")])
def test_a_provider_whose_name_is_not_text_says_so_of_its_code(
    write_plugin: Any, make_config: Any, written: str, said: str
) -> None:
    """A ``name`` property answering a number was told that YAML read it as a number and to put
    it in quotes, of "provider registered" (its code has no YAML); a list failed as
    ``TypeError: unhashable type: 'list'``."""
    root = write_plugin("numbered", GOOD.replace('name = "{name}"', f"name = {written}").format(name="x"))
    error = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["numbered"]}))["numbered"]["load_error"]
    assert error == (
        "register() failed: TypeError: register_web_search_provider() needs a provider whose name is text "
        f"(such as 'acme-search'); P.name is {said}"
    )


def test_a_provider_name_longer_than_a_backend_name_may_be_is_refused_in_a_short_line(
    write_plugin: Any, make_config: Any
) -> None:
    """A name of 100,000 letters was registered, answered auto-detected calls and went whole
    into every envelope, log line, span and metric label, while no ``backend=`` could name it."""
    root = write_plugin("lengthy", GOOD.format(name="a" * 100_000))
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["lengthy"]}))
    assert not [name for name in rows if len(name) > 64]
    error = rows["lengthy"]["load_error"]
    assert "should be 1 to 64 lowercase letters" in error
    assert len(error) < 300


def test_an_is_available_that_raises_says_what_it_said(write_plugin: Any, make_config: Any) -> None:
    """The reason was only the exception's class (``is_available() failed: ValueError``), which
    leaves the operator nothing to fix; it now carries the plugin's sentence, scrubbed."""
    root = write_plugin(
        "regional",
        """
        from webproviders import WebSearchProvider

        class Regional(WebSearchProvider):
            name = "regional"
            def __init__(self, settings):
                self.settings = settings
            def is_available(self):
                key = self.settings.api_keys()[0]
                raise ValueError(f"ACME_REGION must be one of eu, us for key {key}")
            def search(self, query, limit=5, **options):
                return []

        def register(ctx):
            ctx.register_web_search_provider(Regional(ctx.settings("regional")))
        """,
    )
    config = make_config(
        plugins={"paths": [str(root)], "enabled": ["regional"]},
        web={"providers": {"regional": {"api_key": "k-region-7d3f9a1c"}}},
    )
    reason = "is_available() failed: ValueError: ACME_REGION must be one of eu, us for key ***"
    envelope = dispatch_search("q", backend="regional", config=config)
    assert (envelope["error_code"], envelope["error"]) == ("not_configured", f"Backend 'regional' is not available: {reason}.")
    assert _rows(config)["regional"]["reason"] == reason


def test_an_async_is_available_is_not_taken_as_a_yes(
    write_plugin: Any, make_config: Any, recwarn: pytest.WarningsRecorder
) -> None:
    """``async def is_available(self): return False`` gave a coroutine, which is true: the
    provider counted as available (and the coroutine warned, never awaited)."""
    import gc

    root = write_plugin(
        "eager",
        """
        from webproviders import WebSearchProvider

        class Eager(WebSearchProvider):
            name = "eager"
            async def is_available(self):
                return False
            def search(self, query, limit=5, **options):
                return [{"title": "t", "url": "https://t.example/"}]

        def register(ctx):
            ctx.register_web_search_provider(Eager())
        """,
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["eager"]})
    reason = "is_available() is an async def; write it as a plain def answering at once (offline)"
    envelope = dispatch_search("q", backend="eager", config=config)
    assert (envelope["error_code"], envelope["error"]) == ("not_configured", f"Backend 'eager' is not available: {reason}.")
    gc.collect()
    assert not [w for w in recwarn if "was never awaited" in str(w.message)]


def test_an_is_available_answering_other_than_true_or_false_is_unavailable_saying_so(
    write_plugin: Any, make_config: Any
) -> None:
    """``return "ACME_KEY is not set"`` (a reason, where True or False is asked) is true: the
    provider counted as available and was called without its key."""
    root = write_plugin(
        "reasoned",
        """
        from webproviders import WebSearchProvider

        class Reasoned(WebSearchProvider):
            name = "reasoned"
            def is_available(self):
                return "ACME_KEY is not set"
            def search(self, query, limit=5, **options):
                return [{"title": "t", "url": "https://t.example/"}]

        def register(ctx):
            ctx.register_web_search_provider(Reasoned())
        """,
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["reasoned"]})
    reason = (
        "is_available() gave a str, not True or False; it should answer True or False "
        "(a reason goes in unavailable_reason())"
    )
    envelope = dispatch_search("q", backend="reasoned", config=config)
    assert (envelope["error_code"], envelope["error"]) == (
        "not_configured", f"Backend 'reasoned' is not available: {reason}."
    )
    assert _rows(config)["reasoned"]["reason"] == reason


def test_an_async_register_is_a_load_error_not_a_plugin_with_nothing_in_it(
    write_plugin: Any, make_config: Any, recwarn: pytest.WarningsRecorder
) -> None:
    """``async def register(ctx)`` made a coroutine nobody awaited: no provider, no load
    error, and its backend an "Unknown backend" with no word of the plugin."""
    import gc

    code = GOOD.format(name="eagerreg").replace("def register(ctx):", "async def register(ctx):")
    root = write_plugin("eagerreg", code)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["eagerreg"]})
    reason = "register() is an async def, which registers nothing when called; write it as a plain def"
    assert _rows(config)["eagerreg"]["load_error"] == reason
    envelope = dispatch_search("q", backend="eagerreg", config=config)
    assert envelope["error"] == f"Backend 'eagerreg' is not available: its user plugin 'eagerreg' failed to load ({reason})."
    gc.collect()
    assert not [w for w in recwarn if "was never awaited" in str(w.message)]


@pytest.mark.parametrize("hook", ["before_dispatch", "after_dispatch"])
def test_an_async_dispatch_hook_is_a_load_error_not_a_hook_that_never_runs(
    hook: str, write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture, recwarn: pytest.WarningsRecorder
) -> None:
    """Hooks are called, not awaited: a policy's ``async def before_dispatch`` that refuses
    every call made a coroutine nobody awaited, and every call went through as if it had
    allowed it, with no word of the plugin anywhere."""
    import gc

    code = f"""
from webproviders import BlockedError

def register(ctx):
    pass

async def {hook}(capability):
    raise BlockedError("nothing is allowed here")
"""
    root = write_plugin("asyncpolicy", code)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["asyncpolicy"]})
    reason = f"{hook}() is an async def, which does nothing when called; write it as a plain def"
    with caplog.at_level(logging.WARNING):
        dispatch_search("q", backend="stub", config=config)
    assert f"Plugin 'asyncpolicy' failed to register: {reason}" in [r.getMessage() for r in caplog.records]
    assert _rows(config)["asyncpolicy"]["load_error"] == reason
    gc.collect()
    assert not [w for w in recwarn if "was never awaited" in str(w.message)]


def test_a_dispatch_hook_that_yields_is_a_load_error_not_a_hook_that_never_runs(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A ``before_dispatch`` written with ``yield`` (a pytest hookwrapper's habit) but not
    marked as a wrapper made a generator nobody iterated: the policy it held refused no call,
    with no word of the plugin anywhere."""
    code = """
from webproviders import BlockedError

def register(ctx):
    pass

def before_dispatch(capability):
    raise BlockedError("nothing is allowed here")
    yield
"""
    root = write_plugin("yieldpolicy", code)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["yieldpolicy"]})
    reason = "before_dispatch() yields, which does nothing when called; write it as a plain def that returns"
    with caplog.at_level(logging.WARNING):
        dispatch_search("q", backend="stub", config=config)
    assert f"Plugin 'yieldpolicy' failed to register: {reason}" in [r.getMessage() for r in caplog.records]
    assert _rows(config)["yieldpolicy"]["load_error"] == reason


def test_what_an_after_dispatch_hook_changes_in_the_envelope_never_reaches_the_caller(
    write_plugin: Any, make_config: Any
) -> None:
    """``after_dispatch`` observes (logging, spend, indexing), but it was handed the very
    envelope returned: a hook that set ``success`` on a failure made it a success with an
    ``error``, one that cleared it returned ``{}`` (the CLI printed ``error [None]: None``),
    and one that stored a datetime in ``meta`` made the envelope something JSON cannot hold."""
    code = """
import datetime

SEEN = []

def register(ctx):
    pass

def after_dispatch(envelope):
    SEEN.append(envelope["success"])
    envelope["success"] = not envelope["success"]
    envelope["meta"]["when"] = datetime.datetime(2026, 1, 1)
    envelope.pop("error", None)
    if isinstance(envelope.get("data"), dict):
        envelope["data"]["web"].clear()
"""
    root = write_plugin("meddler", code)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["meddler"]})
    found = dispatch_search("q", backend="stub", config=config)
    failed = dispatch_search("q", backend="not-a-backend", config=config)
    assert found["success"] is True and found["data"]["web"]
    assert failed["success"] is False and failed["error"].startswith("Unknown backend 'not-a-backend'")
    assert "when" not in found["meta"] and "when" not in failed["meta"]
    json.dumps([found, failed])
    module = next(m for name, m in sys.modules.items() if name.startswith("_webproviders_plugins.user.meddler"))
    assert module.SEEN == [True, False]


def test_an_unavailable_reason_that_is_not_text_or_fails_keeps_the_listing_usable(
    write_plugin: Any, make_config: Any
) -> None:
    """``unavailable_reason()`` answering a dict made ``webproviders providers`` and
    ``list_providers()`` fail for every provider (``unhashable type: 'dict'``, exit 1); one
    that raised was reported as ``is_available()`` failing."""
    code = """
from webproviders import WebSearchProvider

class Odd(WebSearchProvider):
    name = "odd-reason"
    def is_available(self):
        return False
    def unavailable_reason(self):
        return {"missing": "ODD_KEY"}

class Failing(WebSearchProvider):
    name = "failing-reason"
    def is_available(self):
        return False
    def unavailable_reason(self):
        raise LookupError("no region table")

def register(ctx):
    ctx.register_web_search_provider(Odd())
    ctx.register_web_search_provider(Failing())
"""
    root = write_plugin("reasons", code)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["reasons"]})
    rows = _rows(config)
    assert rows["odd-reason"]["reason"] == (
        "the provider reports it is not available (its unavailable_reason() gave a dict, not text)"
    )
    assert rows["failing-reason"]["reason"] == "unavailable_reason() failed: LookupError: no region table"
    assert rows["stub"]["available"] is True
    envelope = dispatch_search("q", backend="odd-reason", config=config)
    assert envelope["error_code"] == "not_configured" and "gave a dict, not text" in envelope["error"]


def test_arguments_a_hook_removed_or_reshaped_are_named_with_its_plugin(write_plugin: Any, make_config: Any) -> None:
    """A hook that removed the query or made ``options`` a list failed the call as "The
    before_dispatch hook failed: KeyError: 'query'." or "ValueError: dictionary update
    sequence element #0 ...": the library's own code raised, so no plugin was named, and
    nothing said what the hook had done."""
    code = """
def register(ctx):
    pass

def before_dispatch(arguments):
    if arguments.get("query") == "drop it":
        del arguments["query"]
    elif arguments.get("query") == "reshape":
        arguments["options"] = ["time_range", "week"]
"""
    root = write_plugin("reshaper", code)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["reshaper"]})
    prefix = "The before_dispatch hook of user plugin 'reshaper' left the call's arguments invalid: "
    dropped = dispatch_search("drop it", backend="stub", config=config)
    assert (dropped["error_code"], dropped["error"]) == ("provider_error", prefix + "it removed 'query'.")
    reshaped = dispatch_search("reshape", backend="stub", config=config)
    assert reshaped["error"] == prefix + "'options' is a list, not a mapping of option names to values."
    assert dispatch_search("fine", backend="stub", config=config)["success"] is True


def test_an_enabled_plugin_whose_manifest_is_invalid_is_said_in_the_log(
    tmp_path: Path, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A policy plugin of hooks alone, enabled, whose plugin.yaml had a wrong value was left
    out without a line in the log: every call went through unpoliced, and only
    ``webproviders providers`` said why. A folder that is not enabled stays quiet."""
    root = tmp_path / "plugins"
    for name in ("policy", "idle"):
        (root / name).mkdir(parents=True)
        (root / name / "plugin.yaml").write_text(f"name: {name}\nkind: hooks\nproviders: []\n")
        (root / name / "__init__.py").write_text("def register(ctx):\n    pass\n")
    config = make_config(plugins={"paths": [str(root)], "enabled": ["policy"]})
    with caplog.at_level(logging.WARNING, logger="webproviders.registry.loader"):
        assert dispatch_search("q", backend="stub", config=config)["success"] is True
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == [
        f"Plugin 'policy' is not loaded: {root / 'policy' / 'plugin.yaml'} is invalid: 'kind': Input should be 'backend'."
    ]


def test_capabilities_declared_and_methods_written_that_disagree_are_named(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A plugin.yaml listing extract for a class without ``extract()`` answered every extract
    with "half does not support this operation.", and a ``crawl()`` it did not list was never
    asked for: nothing said the manifest and the code disagree."""
    code = """
from webproviders import WebSearchProvider

class Half(WebSearchProvider):
    name = "half"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        return []
    def crawl(self, url, **kwargs):
        return []

def register(ctx):
    ctx.register_web_search_provider(Half())
"""
    root = write_plugin("half", code, providers=[{"name": "half", "capabilities": ["search", "extract"]}])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["half"]})
    with caplog.at_level(logging.WARNING, logger="webproviders.registry.registration"):
        list_providers(config, load=True)
    assert [r.getMessage() for r in caplog.records] == [
        "Provider 'half' of plugin 'half' declares extract but has no extract() method of its own: calls to it "
        "for extract fail as unsupported; write extract() or take it out of its manifest's capabilities.",
        "Provider 'half' of plugin 'half' has a crawl() method but does not declare crawl: it is never asked to "
        "crawl; add crawl to its manifest's capabilities.",
    ]


def test_an_extract_method_not_declared_is_named_in_plain_english(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The warning read "has a extract() method"."""
    code = GOOD.format(name="reader") + "\nP.extract = lambda self, urls, **kwargs: []\n"
    root = write_plugin("reader", code, providers=[{"name": "reader", "capabilities": ["search"]}])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["reader"]})
    with caplog.at_level(logging.WARNING, logger="webproviders.registry.registration"):
        list_providers(config, load=True)
    assert [r.getMessage() for r in caplog.records] == [
        "Provider 'reader' of plugin 'reader' has an extract() method but does not declare extract: it is never "
        "asked to extract; add extract to its manifest's capabilities.",
    ]


def test_a_hook_that_names_an_argument_its_hook_does_not_pass_is_said_on_one_line(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``def before_dispatch(args)`` was recorded as pluggy's three-line message (naming the
    plugin ``user:renamed``), which broke the table ``webproviders providers`` prints, and
    the plugin was left out without a line in the log."""
    root = write_plugin("renamed", "def register(ctx):\n    pass\n\ndef before_dispatch(args):\n    pass\n")
    config = make_config(plugins={"paths": [str(root)], "enabled": ["renamed"]})
    reason = (
        "before_dispatch() takes 'args', which the hook does not pass; "
        "it may take any of capability, backend, arguments, by those names"
    )
    with caplog.at_level(logging.WARNING, logger="webproviders.registry.loader"):
        assert _rows(config)["renamed"]["load_error"] == reason
    assert f"Plugin 'renamed' failed to register: {reason}" in [r.getMessage() for r in caplog.records]


def test_a_manifest_given_as_text_says_what_manifest_takes(write_plugin: Any, make_config: Any) -> None:
    """``manifest="fetch: none"`` (the plugin.yaml line pasted as it reads) failed the
    registration with ``TypeError: 'str' object is not a mapping``: no word of which argument."""
    code = GOOD.format(name="pasted").replace(
        "ctx.register_web_search_provider(P())", "ctx.register_web_search_provider(P(), manifest='fetch: none')"
    )
    root = write_plugin("pasted", code)
    rows = _rows(make_config(plugins={"paths": [str(root)], "enabled": ["pasted"]}))
    assert rows["pasted"]["load_error"] == (
        "register() failed: TypeError: register_web_search_provider()'s manifest= takes a mapping of "
        "plugin.yaml's provider keys (such as {'fetch': 'none'}), not a str"
    )


def test_a_hooks_when_that_names_no_setting_is_said(
    tmp_path: Path, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``hooks_when: web.local.indx`` (a typo) is never true, so the plugin's hooks never ran
    and nothing said why; a setting of a provider's own section is any key its author likes."""
    root = tmp_path / "plugins"
    for name, when in (("typo", "web.local.indx"), ("own", "web.providers.own.audit")):
        (root / name).mkdir(parents=True)
        (root / name / "plugin.yaml").write_text(
            f"name: {name}\nkind: backend\nhooks: [after_dispatch]\nhooks_when: {when}\nproviders: []\n"
        )
        (root / name / "__init__.py").write_text("def register(ctx):\n    pass\n\ndef after_dispatch(envelope):\n    pass\n")
    with caplog.at_level(logging.WARNING, logger="webproviders.registry.loader"):
        list_providers(make_config(plugins={"paths": [str(root)], "enabled": ["typo", "own"]}))
    assert [r.getMessage() for r in caplog.records] == [
        "Plugin 'typo' runs its hooks only while web.local.indx is true (hooks_when in its plugin.yaml), which "
        "names no setting, so they never run: web.local has no key 'indx'. Did you mean 'index'?"
    ]
    # Built-in manifests are not checked at load (listing stays light): here instead.
    built_in = [r.manifest for r in get_registry(make_config()).plugins if r.source == "built-in" and r.manifest]
    whens = [m.hooks_when for m in built_in if m.hooks_when]
    assert whens and all(unknown_setting(when) is None for when in whens)


#: Hooks that wait on a gate the test opens at its end: a policy server that never answers.
_BLOCKING_HOOKS = GOOD.format(name="slowhooks") + """
import threading

GATE = threading.Event()
SEEN = []

def before_dispatch(capability, backend, arguments):
    if arguments.get("query") == "ask the policy server":
        GATE.wait(30)

def after_dispatch(capability, arguments, envelope):
    if arguments.get("query") == "ship the log":
        GATE.wait(30)
        SEEN.append(envelope["success"])
"""


def _hook_module(name: str) -> Any:
    return next(m for key, m in sys.modules.items() if key.startswith(f"_webproviders_plugins.user.{name}"))


def test_an_async_call_refused_before_it_ran_waits_for_its_observer_off_the_loop(
    write_plugin: Any, make_config: Any, ticking: Any
) -> None:
    """An async call refused as it was prepared (a caller's bad input, an unknown backend)
    waited for its ``after_dispatch`` hooks on the caller's event loop: one that hung held
    the loop, every other call on it, for a second a call."""
    root = write_plugin("refusedhooks", _BLOCKING_HOOKS.replace("slowhooks", "refusedhooks"))
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["refusedhooks"]})
    assert dispatch_search("warm up", backend="stub", config=config)["success"] is True
    module = _hook_module("refusedhooks")
    try:
        envelope, _, ticks = asyncio.run(
            ticking(adispatch_search("ship the log", backend="stub", config=config, limit=0, timeout=20))
        )
    finally:
        module.GATE.set()
    assert envelope["error_code"] == "invalid_input", envelope
    assert ticks >= 5  # the loop ran on while the observer was waited for


_CALLING_OBSERVER = """
ANSWERS = []

def after_dispatch(envelope, config):
    if envelope.get("error_code") == "invalid_input":
        from webproviders import dispatch_search
        ANSWERS.append(dispatch_search("inner", backend="latecomer", config=config).get("error", "ok"))
"""


def test_an_observer_of_an_async_call_refused_on_its_loop_may_call_the_library(
    write_plugin: Any, make_config: Any
) -> None:
    """The hook ran in a copy of the context the call was refused in, which said it was on the
    caller's event loop: a call it made to a provider whose plugin was not loaded yet failed
    the hook as ``RunsPluginCode``, an exception of the library's internals."""
    root = write_plugin("caller", _CALLING_OBSERVER)
    write_plugin("latecomer", GOOD.format(name="latecomer"), providers=[{"name": "latecomer", "capabilities": ["search"]}])
    manifest = root / "latecomer" / "plugin.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "hooks: []\n", encoding="utf-8")
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["caller", "latecomer"]})
    assert dispatch_search("warm up", backend="stub", config=config)["success"] is True
    refused = asyncio.run(adispatch_search("q", backend="stub", config=config, limit=0))
    assert refused["error_code"] == "invalid_input"
    module = _hook_module("caller")
    for _ in range(600):  # the observer goes on on its own thread past the call's wait
        if module.ANSWERS:
            break
        time.sleep(0.05)
    assert module.ANSWERS == ["ok"]


_HUNG_OBSERVER = GOOD.format(name="hungobserver") + """
import threading

GATE = threading.Event()
POLICED = []

def before_dispatch(capability, backend, arguments):
    POLICED.append(arguments["query"])

def after_dispatch(capability, arguments, envelope):
    if arguments.get("query") == "ship the log":
        GATE.wait(60)
"""


def test_after_dispatch_hooks_that_hang_hold_up_no_policy_hook(write_plugin: Any, make_config: Any) -> None:
    """The hooks shared one pool of 16 threads: once 16 ``after_dispatch`` runs hung (a log
    server that stopped answering), every later call's ``before_dispatch`` queued behind them,
    and each call failed as ``timeout``, blaming the policy hook that never got to run."""
    root = write_plugin("hungobserver", _HUNG_OBSERVER)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["hungobserver"]})
    assert dispatch_search("warm up", backend="stub", config=config)["success"] is True
    module = _hook_module("hungobserver")
    try:
        shipped = [dispatch_search("ship the log", backend="stub", config=config, timeout=0.2) for _ in range(20)]
        fine = dispatch_search("fine", backend="stub", config=config, timeout=20)
    finally:
        module.GATE.set()
    assert [e["success"] for e in shipped].count(True) >= 16, shipped
    assert fine["success"] is True, fine
    assert module.POLICED[-1] == "fine"


def test_after_dispatch_runs_waiting_for_hung_ones_are_bounded(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """With the observers hung, each later call's ``after_dispatch`` run waited for a thread
    without bound, holding its envelope: a gigabyte in 300 calls of 4 MB pages. Past
    ``AFTER_BACKLOG`` runs not returned, an answer goes out without them, said in a warning."""
    from webproviders.dispatch.hooks import AFTER_BACKLOG

    root = write_plugin("backlogged", _HUNG_OBSERVER)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["backlogged"]})
    assert dispatch_search("warm up", backend="stub", config=config)["success"] is True
    module = _hook_module("backlogged")
    try:
        with caplog.at_level(logging.WARNING, logger="webproviders.dispatch"):
            for _ in range(AFTER_BACKLOG + 4):
                dispatch_search("ship the log", backend="stub", config=config, timeout=0.1)
    finally:
        module.GATE.set()
    skipped = [r.getMessage() for r in caplog.records if "was not called for this answer" in r.getMessage()]
    assert skipped, "every run was left waiting for a thread"
    assert skipped[0] == (
        "The after_dispatch hook of user plugin 'backlogged' was not called for this answer: "
        f"{AFTER_BACKLOG} runs of after_dispatch hooks (of any plugin) have not returned yet."
    )


def test_a_hook_that_blocks_ends_its_call_by_the_deadline_and_leaves_the_loop_free(
    write_plugin: Any, make_config: Any, ticking: Any
) -> None:
    """A hook ran on the caller's thread: one asking a policy server that never answered held
    the call past its deadline, and an async caller's loop (every call on it) with it."""
    root = write_plugin("slowhooks", _BLOCKING_HOOKS)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["slowhooks"]})
    assert dispatch_search("warm up", backend="stub", config=config)["success"] is True
    module = _hook_module("slowhooks")
    try:
        started = time.monotonic()
        refused = dispatch_search("ask the policy server", backend="stub", config=config, timeout=0.5)
        assert time.monotonic() - started < 10  # the gate holds the hook 30 s
        assert (refused["error_code"], refused["error"]) == (
            "timeout", "The before_dispatch hook of user plugin 'slowhooks' had not returned by the call's deadline."
        )
        assert refused["meta"]["attempts"][0]["error_code"] == "timeout"

        envelope, _, ticks = asyncio.run(
            ticking(adispatch_search("ask the policy server", backend="stub", config=config, timeout=0.5))
        )
        assert envelope["error_code"] == "timeout"
        assert ticks >= 5  # the loop ran on while the hook waited

        shipped = dispatch_search("ship the log", backend="stub", config=config, timeout=0.5)
        assert shipped["success"] is True and module.SEEN == []  # answered without waiting for the observer
        observed = time.monotonic()
        shipped = dispatch_search("ship the log", backend="stub", config=config, timeout=20)
        assert shipped["success"] is True and module.SEEN == []
        assert time.monotonic() - observed < 10  # an observer is waited for a second, not the call's 20 s
        assert time.monotonic() - started < 30
    finally:
        module.GATE.set()
    for _ in range(200):  # the observers go on to their end on their own threads
        if len(module.SEEN) == 2:
            break
        time.sleep(0.05)
    assert module.SEEN == [True, True]
    assert dispatch_search("fine", backend="stub", config=config)["success"] is True  # the provider is not held to blame
