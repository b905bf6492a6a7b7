"""The resolver: call argument, per-capability key, shared key, auto-detect, errors, chains."""

from __future__ import annotations

import importlib.machinery
import sys
import types
from typing import Any

import pytest

from webproviders import dispatch_extract, dispatch_search
from webproviders.dispatch.plan import resolve
from webproviders.errors import WebProviderError
from webproviders.registry.loader import builtin_plugin_dir
from webproviders.registry.providers import get_registry

CODE = """
import os
from webproviders import WebSearchProvider
from webproviders.errors import NetworkError

class P(WebSearchProvider):
    def __init__(self, name, caps, env=None):
        self._name, self._caps, self._env = name, caps, env
    @property
    def name(self):
        return self._name
    def is_available(self):
        return self._env is None or bool(os.environ.get(self._env))
    def supports_search(self):
        return "search" in self._caps
    def supports_extract(self):
        return "extract" in self._caps
    def search(self, query, limit=5, **options):
        if self._name == "failing":
            raise NetworkError("failing could not connect")
        return [{"title": self._name, "url": "https://" + self._name + ".example/"}]
    def extract(self, urls, **kwargs):
        return [{"url": u, "title": self._name, "content": "x"} for u in urls]

def register(ctx):
    ctx.register_web_search_provider(P("keyed-a", ["search"], "KEY_A"))
    ctx.register_web_search_provider(P("keyed-b", ["search", "extract"], "KEY_B"))
    ctx.register_web_search_provider(P("hosted", ["search"], "HOSTED_URL"))
    ctx.register_web_search_provider(P("free", ["search"]))
    ctx.register_web_search_provider(P("failing", ["search"]))
    ctx.register_web_search_provider(P("extractor", ["extract"]))
"""

MANIFEST = [
    {"name": "keyed-a", "priority": 20, "env": [{"key": "KEY_A"}]},
    {"name": "keyed-b", "priority": 30, "capabilities": ["search", "extract"], "env": [{"key": "KEY_B"}]},
    {"name": "hosted", "priority": 50, "env": [{"key": "HOSTED_URL", "config_key": "base_url", "secret": False}]},
    {"name": "free", "priority": 80},
    {"name": "failing", "priority": 99, "auto_detect": False},
    {"name": "extractor", "priority": 85, "capabilities": ["extract"]},
]


@pytest.fixture
def build(write_plugin: Any, make_config: Any) -> Any:
    root = write_plugin("fleet", CODE, MANIFEST)
    builtins = [p.name for p in builtin_plugin_dir().iterdir() if (p / "plugin.yaml").is_file()]

    def make(web: dict[str, Any] | None = None) -> Any:
        return make_config(
            web=web or {}, plugins={"paths": [str(root)], "enabled": ["fleet"], "disabled": builtins}
        )

    return make


# (id, capability, backend argument, web config, env, expected candidates / mode / source, or error)
CASES: list[tuple[str, str, Any, dict[str, Any], dict[str, str], Any]] = [
    ("argument", "search", "free", {}, {}, (["free"], "single", "argument")),
    ("argument beats config", "search", "free", {"search_backend": "keyed-a", "backend": "hosted"}, {"KEY_A": "k"}, (["free"], "single", "argument")),
    ("per-capability key", "search", None, {"search_backend": "free"}, {}, (["free"], "single", "web.search_backend")),
    ("per-capability beats shared", "search", None, {"search_backend": "free", "backend": "keyed-b"}, {"KEY_B": "k"}, (["free"], "single", "web.search_backend")),
    ("shared key", "search", None, {"backend": "keyed-b"}, {"KEY_B": "k"}, (["keyed-b"], "single", "web.backend")),
    ("shared key used for extract too", "extract", None, {"backend": "keyed-b"}, {"KEY_B": "k"}, (["keyed-b"], "single", "web.backend")),
    ("shared key lacking the capability falls to auto-detect", "extract", None, {"backend": "free"}, {}, (["extractor"], "single", "auto-detect")),
    ("auto-detect prefers keyed vendors", "search", None, {}, {"KEY_A": "k", "KEY_B": "k", "HOSTED_URL": "http://localhost:8080"}, (["keyed-a"], "single", "auto-detect")),
    ("auto-detect by priority among keyed", "search", None, {}, {"KEY_B": "k", "HOSTED_URL": "http://h"}, (["keyed-b"], "single", "auto-detect")),
    ("auto-detect then self-hosted", "search", None, {}, {"HOSTED_URL": "http://localhost:8080"}, (["hosted"], "single", "auto-detect")),
    ("auto-detect then keyless", "search", None, {}, {}, (["free"], "single", "auto-detect")),
    ("single available extract provider is chosen", "extract", None, {}, {}, (["extractor"], "single", "auto-detect")),
    ("list is a chain", "search", ["keyed-a", "free"], {}, {}, (["keyed-a", "free"], "chain", "argument")),
    ("comma string is a chain", "search", "hosted,free", {}, {}, (["hosted", "free"], "chain", "argument")),
    ("config chain", "search", None, {"search_backend": ["failing", "free"]}, {}, (["failing", "free"], "chain", "web.search_backend")),
    ("chain drops members without the capability", "extract", ["free", "extractor"], {}, {}, (["extractor"], "chain", "argument")),
    ("fuse mapping", "search", {"fuse": ["free", "hosted"]}, {}, {}, (["free", "hosted"], "fuse", "argument")),
    ("explicit but unavailable names the variable", "search", "keyed-a", {}, {}, ("not_configured", "Backend 'keyed-a' is not available: KEY_A is not set")),
    ("config key unavailable is an error, not a switch", "search", None, {"search_backend": "keyed-b"}, {}, ("not_configured", "KEY_B is not set")),
    ("unknown backend in the call is the caller's mistake", "search", "nope", {}, {}, ("invalid_input", "Unknown backend 'nope'")),
    ("unknown backend in a chain of the call", "search", ["free", "nope"], {}, {}, ("invalid_input", "Unknown backend 'nope'")),
    ("unknown backend in the config is a set-up to fix", "search", None, {"search_backend": "nope"}, {}, ("not_configured", "Unknown backend 'nope'")),
    ("unknown shared backend in the config", "search", None, {"backend": "nope"}, {}, ("not_configured", "Unknown backend 'nope'")),
    ("a name in capitals is the provider's", "search", "FREE", {}, {}, (["free"], "single", "argument")),
    ("a chain written as vendors spell themselves", "search", "Hosted,free,FREE", {}, {}, (["hosted", "free"], "chain", "argument")),
    ("a config name in capitals", "search", None, {"search_backend": ["Failing", "Free"]}, {}, (["failing", "free"], "chain", "web.search_backend")),
    ("capability mismatch", "extract", "free", {}, {}, ("unsupported", "Backend 'free' cannot extract")),
    ("per-capability mismatch", "extract", None, {"extract_backend": "free"}, {}, ("unsupported", "cannot extract")),
    ("chain where nothing can", "extract", ["free", "hosted"], {}, {}, ("unsupported", "can extract")),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_resolution_table(case: Any, build: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _, capability, backend, web, env, expected = case
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    registry = get_registry(build(web))
    if isinstance(expected[0], list):
        plan = resolve(capability, backend, registry)
        assert (plan.candidates, plan.mode, plan.source) == expected
    else:
        with pytest.raises(WebProviderError) as caught:
            resolve(capability, backend, registry)
        assert caught.value.code == expected[0]
        assert expected[1] in caught.value.message


def test_nothing_available_says_so(write_plugin: Any, make_config: Any) -> None:
    builtins = [p.name for p in builtin_plugin_dir().iterdir() if (p / "plugin.yaml").is_file()]
    config = make_config(plugins={"disabled": builtins})
    envelope = dispatch_search("q", config=config)
    assert envelope["error_code"] == "not_configured"
    assert "No search backend is available" in envelope["error"]


def test_env_override_sets_the_search_backend(build: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "hosted,free")
    plan = resolve("search", None, get_registry(build()))
    assert (plan.candidates, plan.mode, plan.source) == (["hosted", "free"], "chain", "web.search_backend")


def test_chain_fails_over_from_a_failing_provider(build: Any) -> None:
    envelope = dispatch_search("q", backend=["failing", "keyed-a", "free"], config=build())
    assert envelope["success"] is True
    assert envelope["provider"] == "free"
    assert envelope["meta"]["served_by"] == "free"
    outcomes = [(a["provider"], a["outcome"], a.get("error_code")) for a in envelope["meta"]["attempts"]]
    assert outcomes[0] == ("failing", "error", "network_error")
    assert ("keyed-a", "skipped", "not_configured") in outcomes
    assert outcomes[-1] == ("free", "ok", None)


def test_chain_stops_on_invalid_input(write_plugin: Any, make_config: Any) -> None:
    code = """
from webproviders import WebSearchProvider
from webproviders.errors import InvalidInputError

class Picky(WebSearchProvider):
    name = "picky"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        raise InvalidInputError("picky rejects this query")

class Other(WebSearchProvider):
    name = "other"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        return [{"title": "o", "url": "https://o.example/"}]

def register(ctx):
    ctx.register_web_search_provider(Picky())
    ctx.register_web_search_provider(Other())
"""
    root = write_plugin("picky", code)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["picky"]})
    envelope = dispatch_search("q", backend=["picky", "other"], config=config)
    assert envelope["error_code"] == "invalid_input"
    assert [a["provider"] for a in envelope["meta"]["attempts"]] == ["picky"]


def test_keyless_defaults_are_ddgs_for_search_and_http_first_for_extract_and_crawl(make_config: Any) -> None:
    registry = get_registry(make_config())
    assert resolve("search", None, registry).candidates == ["ddgs"]
    extract = resolve("extract", None, registry)
    assert (extract.candidates, extract.mode, extract.standby) == (["http", "jina"], "chain", True)
    assert resolve("crawl", None, registry).candidates == ["http"]


def test_an_installed_browser_backend_is_used_only_when_named(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the crawl4ai package importable (no browser can be seen), auto-detect passes it by."""
    module = types.ModuleType("crawl4ai")
    module.__spec__ = importlib.machinery.ModuleSpec("crawl4ai", None)
    monkeypatch.setitem(sys.modules, "crawl4ai", module)
    registry = get_registry(make_config())
    entry = registry.get("crawl4ai")
    assert entry is not None and registry.availability(entry) == (True, None)
    for capability in ("extract", "crawl"):
        assert "crawl4ai" not in resolve(capability, None, registry).candidates  # type: ignore[arg-type]
        assert resolve(capability, "crawl4ai", registry).candidates == ["crawl4ai"]  # type: ignore[arg-type]


LATE = """
import os
from webproviders import WebSearchProvider
from webproviders.errors import NotConfiguredError

class Reader(WebSearchProvider):
    def __init__(self, name, works, key=None):
        self._name, self._works, self._key = name, works, key
    @property
    def name(self):
        return self._name
    def is_available(self):
        return self._key is None or bool(os.environ.get(self._key))
    def supports_search(self):
        return False
    def supports_extract(self):
        return True
    def extract(self, urls, **kwargs):
        if not self._works:
            raise NotConfiguredError(self._name + " has no browser installed.")
        return [{"url": u, "title": self._name, "content": "read"} for u in urls]

def register(ctx):
    ctx.register_web_search_provider(Reader("first-reader", False))
    ctx.register_web_search_provider(Reader("second-reader", True))
    ctx.register_web_search_provider(Reader("keyed-reader", True, "READER_KEY"))
"""


def test_a_keyless_extract_fails_over_when_a_backend_turns_out_not_configured(
    write_plugin: Any, make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_plugin(
        "late",
        LATE,
        [
            {"name": "first-reader", "priority": 81, "capabilities": ["extract"], "fetch": "none"},
            {"name": "second-reader", "priority": 82, "capabilities": ["extract"], "fetch": "none"},
            {"name": "keyed-reader", "priority": 20, "capabilities": ["extract"], "fetch": "none", "env": [{"key": "READER_KEY"}]},
        ],
    )
    builtins = [p.name for p in builtin_plugin_dir().iterdir() if (p / "plugin.yaml").is_file()]
    config = make_config(plugins={"paths": [str(root)], "enabled": ["late"], "disabled": builtins})
    envelope = dispatch_extract("https://a.example/", config=config)
    assert envelope["success"] is True and envelope["provider"] == "second-reader"
    assert [(a["provider"], a.get("error_code")) for a in envelope["meta"]["attempts"]] == [
        ("first-reader", "not_configured"),
        ("second-reader", None),
    ]

    monkeypatch.setenv("READER_KEY", "k")  # a keyed backend is chosen alone
    plan = resolve("extract", None, get_registry(make_config(plugins=config.plugins.model_dump())))
    assert (plan.candidates, plan.mode) == (["keyed-reader"], "single")
