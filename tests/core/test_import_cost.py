"""``import webproviders`` and listing providers stay light: the contract, the config and the
plugins' manifests, nothing more. Provider modules, vendor SDKs, parsers, the HTTP stack and
the features a call may use load with the call that uses them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: Packages that must never load to import the library or list its providers.
HEAVY = [
    # vendor SDKs and the agent frameworks we plug into
    "ddgs", "tavily", "exa_py", "firecrawl", "parallel", "crawl4ai", "openai", "primp",
    "mcp", "langchain_core", "langchain", "hermes_cli", "agent",
    # parsers, the HTTP stack, stores, tracing
    "trafilatura", "lxml", "pypdf", "chardetng_py", "ijson", "httpx", "httpcore", "h2", "redis", "psycopg",
    "psycopg_pool", "sqlite3", "opentelemetry", "asyncio",
    # every provider module, built-in or user plugin
    "_webproviders_plugins",
]
#: What listing providers may load of the library itself: the contract and the registry.
ALLOWED = {
    "webproviders", "webproviders._lazy", "webproviders._version", "webproviders.config", "webproviders.homedir",
    "webproviders.context", "webproviders.manifest", "webproviders.provider", "webproviders.redact",
    "webproviders.registry", "webproviders.registry.hookspecs", "webproviders.registry.loader",
    "webproviders.registry.providers", "webproviders.registry.registration",
    "webproviders.pydanticplugins",  # pydantic's plugin lookup, made before the first model
    "webproviders.surrogates",  # what context.warn repairs a vendor's sentence with: re only
    "webproviders.useryaml",  # the guards every user-written YAML file is read through: yaml only
}


def _modules_after(code: str) -> set[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _heavy(loaded: set[str], heavy: list[str]) -> set[str]:
    return {m for m in loaded for h in heavy if m == h or m.startswith(h + ".")}


def test_import_loads_only_the_package() -> None:
    loaded = _modules_after("import webproviders")
    assert not _heavy(loaded, HEAVY)
    assert {m for m in loaded if m.startswith("webproviders")} == {"webproviders", "webproviders._lazy", "webproviders._version"}


def test_listing_providers_reads_manifests_only() -> None:
    loaded = _modules_after("import webproviders; rows = webproviders.list_providers(); assert rows")
    assert not _heavy(loaded, HEAVY)
    ours = {m for m in loaded if m.startswith("webproviders")}
    assert ours <= ALLOWED, sorted(ours - ALLOWED)


def test_listing_providers_imports_no_enabled_plugin_folder(tmp_path: Path) -> None:
    """The user's plugin folders are read as the built-in ones are, by their manifests: one
    that declares no hooks and one that may have some (they load before the first call, not
    the first listing). Their code exits the process when imported."""
    for name, hooks in (("quiet", "hooks: []\n"), ("maybe", "")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "plugin.yaml").write_text(
            f"name: {name}\nkind: backend\n{hooks}providers:\n  - name: {name}\n    capabilities: [search]\n"
        )
        (folder / "__init__.py").write_text("raise SystemExit('imported')\n")
    loaded = _modules_after(
        "import webproviders\n"
        "from webproviders.config import config_from_dict\n"
        f"config = config_from_dict({{'plugins': {{'paths': [{str(tmp_path)!r}], 'enabled': ['quiet', 'maybe']}}}})\n"
        "rows = {row['name']: row for row in webproviders.list_providers(config)}\n"
        "assert rows['quiet']['available'] and rows['maybe']['available']"
    )
    assert not _heavy(loaded, HEAVY)
    ours = {m for m in loaded if m.startswith("webproviders")}
    assert ours <= ALLOWED, sorted(ours - ALLOWED)


def test_config_sections_load_when_given_or_read() -> None:
    """A feature's section model (the cache's, the budget's) loads when a config gives the
    section or the section is first read, not when the defaults are loaded."""
    loaded = _modules_after(
        "from webproviders.config import load_config\n"
        "config = load_config()\n"
        "config.secrets()\n"
        "assert 'webproviders.sections' not in sys.modules\n"
        "assert config.web.budget.daily_usd is None\n"
        "assert 'webproviders.sections' in sys.modules"
    )
    assert "webproviders.sections" in loaded
    given = _modules_after(
        "from webproviders.config import config_from_dict\n"
        "config_from_dict({'web': {'cache': {'enabled': False}}})"
    )
    assert "webproviders.sections" in given
    assert "webproviders.price" not in given


def test_a_call_loads_the_code_of_the_provider_it_uses_only() -> None:
    """The first search through ``stub`` imports stub's plugin and no other provider's (not
    ``local``'s either: its dispatch hook serves ``web.local.index``, which is off)."""
    loaded = _modules_after(
        "import webproviders\n"
        "assert webproviders.dispatch_search('q', backend='stub', cache=False)['success']"
    )
    plugins = {m for m in loaded if m.startswith("_webproviders_plugins.builtin.")}
    assert {m.split(".")[2] for m in plugins} == {"stub"}
    assert not _heavy(loaded, ["ddgs", "trafilatura", "lxml", "httpx", "redis", "psycopg", "mcp", "langchain_core"])


def test_features_that_are_off_load_nothing_on_a_call() -> None:
    """No budget, no index, no price tables, no tracing work for a free call with defaults."""
    loaded = _modules_after(
        "import webproviders\n"
        "assert webproviders.dispatch_search('q', backend='stub', cache=False)['success']"
    )
    assert not loaded & {
        "webproviders.accounting.budget", "webproviders.index", "webproviders.agents",
        "webproviders.fetching.extractpool", "webproviders.dependable.cache.redis_backend",
    }


def test_the_first_extraction_worker_starts_before_the_heavy_imports() -> None:
    """The command line starts a worker as soon as it knows the command (the worker's
    interpreter and trafilatura take longer than anything else of a first extract). What
    the pool's module imports runs before that start, so it holds no more than spawning
    a process needs: no pydantic, no HTTP stack, no dataclasses (they bring ``inspect``),
    no ``multiprocessing`` (imported once the worker is on its way), no ``email``. On Python
    3.14, ``logging`` itself imports ``dataclasses`` and ``inspect`` (for its tracebacks'
    colours): what it loads on the Python running the test is not counted against the pool."""
    loaded = _modules_after("from webproviders.fetching.extractpool import extraction_pool")
    loaded -= _modules_after("import logging")
    early = ["pydantic", "yaml", "httpx", "asyncio", "dataclasses", "inspect", "multiprocessing", "email"]
    assert not _heavy(loaded, [*HEAVY, *early]), sorted(_heavy(loaded, [*HEAVY, *early]))
