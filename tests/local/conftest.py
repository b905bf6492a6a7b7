"""Fixtures for the local page index: a fresh index per test in each store (a SQLite file, a
schema of a real PostgreSQL server started for the session), and pages to put in it.

``make_index_config`` and the fixtures built on it are parametrized by ``store_kind``, so a
test written once runs against both stores; a test about one store only says so with
``@pytest.mark.parametrize("store_kind", ["sqlite"])``.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import types
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict
from webproviders.index.pages import IndexedPage
from webproviders.index.stores import close_stores, open_store

from . import pg_server

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


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[pg_server.PostgresServer]:
    """A real PostgreSQL server for the session (skips where the binaries are missing)."""
    problem = pg_server.missing()
    if problem:
        pytest.skip(problem)
    server = pg_server.PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.remove()


#: For a test about the SQLite store alone.
SQLITE_ONLY = pytest.mark.parametrize("store_kind", ["sqlite"])
#: For a test about the PostgreSQL store alone.
POSTGRES_ONLY = pytest.mark.parametrize("store_kind", ["postgres"])


@pytest.fixture(params=["sqlite", "postgres"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def index_section(store_kind: str, index_path: Path, request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """``web.providers.local`` for a fresh, empty index of ``store_kind``; its connections
    are closed after the test."""
    if store_kind == "sqlite":
        section: dict[str, Any] = {"path": str(index_path), "busy_timeout": 0.2}
    else:
        server = request.getfixturevalue("postgres_server")
        section = {"dsn": server.dsn, "schema": f"test_{uuid.uuid4().hex[:16]}", "timeout": 10}
    yield section
    close_stores()


@pytest.fixture
def make_index_config(index_section: dict[str, Any]) -> Callable[..., Config]:
    """``make_index_config(store={...}, **web)``: no answer cache, no retries, a fresh index
    (``store`` adds keys to ``web.providers.local``)."""

    def build(store: dict[str, Any] | None = None, providers: dict[str, Any] | None = None, **web: Any) -> Config:
        sections = {"local": {**index_section, **(store or {})}, **(providers or {})}
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


def pg_run(config: Config, statement: str) -> list[tuple[Any, ...]]:
    """Run one SQL statement on the PostgreSQL database ``config``'s index is in."""
    import psycopg

    with psycopg.connect(config.provider("local").option("dsn"), autocommit=True) as conn:
        cursor = conn.execute(statement)
        return cursor.fetchall() if cursor.description else []


def schema_of(config: Config) -> str:
    return str(config.provider("local").option("schema") or "webproviders")


def counts_are_true(config: Config) -> bool:
    """The term and page counts kept beside the index agree with the pages themselves."""
    s = schema_of(config)
    [(mismatched,)] = pg_run(config, f"""
        SELECT count(*) FROM (
            SELECT term, sum(pages) AS pages FROM {s}.terms GROUP BY term HAVING sum(pages) <> 0
        ) kept FULL JOIN (
            SELECT word AS term, ndoc AS pages FROM ts_stat('SELECT search FROM {s}.pages')
        ) real USING (term)
        WHERE kept.pages IS DISTINCT FROM real.pages""")
    [(pages, length)] = pg_run(config, f"SELECT sum(pages), sum(length) FROM {s}.totals")
    [(real_pages, real_length)] = pg_run(config, f"SELECT count(*), sum(length) FROM {s}.pages")
    return mismatched == 0 and (pages or 0) == real_pages and (length or 0) == (real_length or 0)


def created(config: Config) -> bool:
    """Whether ``config``'s index exists at all (the file, or the schema)."""
    settings = config.provider("local")
    if settings.option("dsn") is None:
        return Path(open_store(config).location).exists()
    schema = settings.option("schema")
    return bool(pg_run(config, f"SELECT 1 FROM pg_namespace WHERE nspname = '{schema}'"))


def spoil(config: Config) -> str:
    """Put something that is not an index where ``config``'s index should be: a damaged
    file, or a schema of some other application. Returns words the refusal must say."""
    settings = config.provider("local")
    if settings.option("dsn") is None:
        path = Path(open_store(config).location)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"this is not an SQLite file at all" * 200)
        return "damaged"
    schema = settings.option("schema")
    pg_run(config, f"CREATE SCHEMA {schema}; CREATE TABLE {schema}.orders (id integer)")
    return "holds something other than a webproviders page index"


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
