"""Fixtures for the local page index: a fresh index file per test, and pages to put in it."""

from __future__ import annotations

import importlib.util
import sys
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict
from webproviders.index.pages import IndexedPage
from webproviders.index.stores import open_store

TESTS = Path(__file__).resolve().parents[1]
NOW = time.time()
DAY = 86_400.0


@pytest.fixture(autouse=True)
def _data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default index location lands in this test's folder, never the user's."""
    home = tmp_path / "data-home"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest.fixture
def index_path(tmp_path: Path) -> Path:
    return tmp_path / "index" / "pages.sqlite3"


@pytest.fixture
def make_index_config(index_path: Path) -> Callable[..., Config]:
    """``make_index_config(store={...}, **web)``: no answer cache, no retries, the index at
    ``index_path`` (``store`` adds keys to ``web.providers.local``)."""

    def build(store: dict[str, Any] | None = None, providers: dict[str, Any] | None = None, **web: Any) -> Config:
        sections = {"local": {"path": str(index_path), "busy_timeout": 0.2, **(store or {})}, **(providers or {})}
        tree = {"web": {"cache": False, "retry": {"max_retries": 0}, "providers": sections, **web}}
        return config_from_dict(tree, source="<test>")

    return build


@pytest.fixture
def index_config(make_index_config: Callable[..., Config]) -> Config:
    return make_index_config()


def page(url: str, title: str, content: str, *, age_days: float = 0.0, provider: str = "http",
         published_at: str | None = None) -> IndexedPage:
    return IndexedPage(url, title, content, NOW - age_days * DAY, provider, published_at)


#: A small documentation corpus: what an agent would have read while working.
DOCS = [
    page("https://docs.example.com/guide/retries", "Configuring retries",
         "# Configuring retries\n\nSet `max_retries` and `backoff` to configure retries. Each retry waits "
         "twice as long as the one before, with jitter.", published_at="2026-01-10"),
    page("https://docs.example.com/guide/cache", "Caching answers",
         "# Caching answers\n\nAnswers are cached for an hour. A cache hit never retries anything."),
    page("https://blog.example.org/posts/outages", "Why outages happen",
         "Outages start small. Aggressive client behaviour turns a blip into an outage; bounded "
         "retries with backoff keep it small.", age_days=40, provider="tavily"),
    page("https://api.example.net/reference", "API reference",
         "The reference lists every endpoint, parameter and error code.", age_days=400),
]


@pytest.fixture
def filled(index_config: Config) -> Config:
    """``index_config`` with :data:`DOCS` in its index."""
    open_store(index_config).add(DOCS)
    return index_config


def sibling(relative: str) -> types.ModuleType:
    """A helper module of another test folder (``fetch/fetch_site.py``), loaded by its path.

    The test folders are separate top-level packages, so this is how one reuses another's
    fixtures site or vendor bodies instead of copying them.
    """
    name = "_local_tests_" + relative.replace("/", "_").removesuffix(".py")
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, TESTS / relative)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def site() -> Iterator[Any]:
    """The fetch tests' site (real HTML on 127.0.0.1); reset before each test that uses it."""
    fetch_site = sibling("fetch/fetch_site.py")
    server = fetch_site.SiteServer()
    fetch_site.serve(server)
    yield server
    server.stopping.set()
    server.shutdown()
    server.server_close()
