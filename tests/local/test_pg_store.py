"""The PostgreSQL store alone, against real servers: its schema (made once, refused when it is
someone else's or newer), its term counts, its settings, and a server that stops mid-call."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_extract, dispatch_search, index_urls
from webproviders.config import Config
from webproviders.errors import (
    InvalidInputError,
    NotConfiguredError,
    WebProviderError,
    WebTimeoutError,
)
from webproviders.index.pages import Filters, IndexedPage
from webproviders.index.pg_schema import MIGRATIONS, SCHEMA_VERSION, SHARDS, statements
from webproviders.index.sqlite_store import digest
from webproviders.index.stores import close_stores, open_store

from . import pg_server
from .conftest import NOW, POSTGRES_ONLY, counts_are_true, page, pg_run, schema_of


@POSTGRES_ONLY
def test_the_schema_is_made_on_the_first_write_and_stamped(index_config: Config) -> None:
    store = open_store(index_config)
    assert store.stats()["pages"] == 0  # reading makes nothing
    store.add([page("https://a.example.com/", "A", "alpha")])
    s = schema_of(index_config)
    assert dict(pg_run(index_config, f"SELECT key, value FROM {s}.meta")) == {
        "application": "webproviders page index", "schema_version": str(SCHEMA_VERSION)}


@POSTGRES_ONLY
@pytest.mark.parametrize(
    "meta",
    [
        "",
        # Another program's table named meta, as in a schema such as public: before, 'failed:
        # column "key" does not exist' (provider_error).
        "CREATE TABLE {s}.meta (id integer);",
    ],
)
def test_a_schema_holding_something_else_is_refused_and_left_alone(index_config: Config, meta: str) -> None:
    s = schema_of(index_config)
    pg_run(index_config, f"CREATE SCHEMA {s}; CREATE TABLE {s}.pages (id integer); INSERT INTO {s}.pages VALUES (7)")
    if meta:
        pg_run(index_config, meta.format(s=s))
    store = open_store(index_config)
    for call in (lambda: store.add([page("https://a.example.com/", "A", "alpha")]), store.stats,
                 lambda: store.search("alpha", 5, Filters())):
        with pytest.raises(NotConfiguredError, match=f"schema '{s}' .* holds something other than"):
            call()
    assert pg_run(index_config, f"SELECT * FROM {s}.pages") == [(7,)]
    tables = 2 if meta else 1
    assert pg_run(index_config, f"SELECT count(*) FROM pg_class WHERE relnamespace = '{s}'::regnamespace") == [(tables,)]


@POSTGRES_ONLY
def test_an_index_made_by_a_newer_version_is_refused(index_config: Config) -> None:
    open_store(index_config).add([page("https://a.example.com/", "A", "alpha")])
    close_stores()
    s = schema_of(index_config)
    pg_run(index_config, f"UPDATE {s}.meta SET value = '{SCHEMA_VERSION + 1}' WHERE key = 'schema_version'")
    with pytest.raises(NotConfiguredError, match=f"newer version of webproviders \\(schema {SCHEMA_VERSION + 1}\\)"):
        open_store(index_config).search("alpha", 5, Filters())


@POSTGRES_ONLY
def test_an_empty_schema_made_for_the_index_is_used(index_config: Config) -> None:
    pg_run(index_config, f"CREATE SCHEMA {schema_of(index_config)}")
    store = open_store(index_config)
    store.add([page("https://a.example.com/", "A", "alpha")])
    assert [hit.page.url for hit in store.search("alpha", 5, Filters())] == ["https://a.example.com/"]


@POSTGRES_ONLY
def test_an_index_of_schema_1_is_migrated_and_its_pages_are_still_found(index_config: Config) -> None:
    s = schema_of(index_config)
    # Schema 1 as that version made it, with pages whose tsvectors are too long for their rows.
    pg_run(index_config, f"CREATE SCHEMA {s}; " + str(MIGRATIONS[0]).replace("{s}", s).replace("{shards}", str(SHARDS)))
    pg_run(index_config, f"INSERT INTO {s}.meta VALUES ('application', 'webproviders page index'), "
                         f"('schema_version', '1'); INSERT INTO {s}.configs VALUES ('english')")
    words = " ".join(f"filler{i}" for i in range(600))
    for n, host in enumerate(["docs.example.com", "blog.example.org"]):
        pg_run(index_config, f"""
            INSERT INTO {s}.pages (url, host, title, content, digest, fetched_at, config, length, search)
            SELECT url, '{host}', 'Retries', text, 'd{n}', {NOW}, 'english', 602,
                   setweight(to_tsvector('english', 'Retries'), 'A') || to_tsvector('english', text)
            FROM (VALUES ('https://{host}/retries', 'Configure retries with backoff. {words}')) AS v (url, text)""")
    assert pg_run(index_config, f"SELECT count(*) FROM {s}.pages WHERE pg_column_size(search) > 2000") == [(2,)]

    store = open_store(index_config)
    hits = store.search("configure retries", 5, Filters(include_domains=("example.com",)))
    assert [hit.page.url for hit in hits] == ["https://docs.example.com/retries"]
    assert "**retries**" in hits[0].snippet
    assert pg_run(index_config, f"SELECT value FROM {s}.meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    store.add([page("https://api.example.com/retries", "Retries", "Retries and backoff in the API.")])
    assert {hit.page.url for hit in store.search("retries", 5, Filters(include_domains=("example.com",)))} == {
        "https://docs.example.com/retries", "https://api.example.com/retries"}
    assert counts_are_true(index_config)


@POSTGRES_ONLY
def test_an_older_index_a_read_only_role_searches_says_it_needs_one_write(
    index_config: Config, make_index_config: Any
) -> None:
    """It said "permission denied for database ...; the role needs to create and write the
    index schema", though a read-only role searches an index of the current schema."""
    from psycopg.conninfo import make_conninfo

    s = schema_of(index_config)
    pg_run(index_config, f"CREATE SCHEMA {s}; " + str(MIGRATIONS[0]).replace("{s}", s).replace("{shards}", str(SHARDS)))
    pg_run(index_config, f"INSERT INTO {s}.meta VALUES ('application', 'webproviders page index'), "
                         f"('schema_version', '1'); INSERT INTO {s}.configs VALUES ('english')")
    reader = f"reader_{uuid.uuid4().hex[:8]}"
    pg_run(index_config, f"CREATE ROLE {reader} LOGIN PASSWORD 'pw'; GRANT USAGE ON SCHEMA {s} TO {reader}; "
                         f"GRANT SELECT ON ALL TABLES IN SCHEMA {s} TO {reader}")
    dsn = make_conninfo(str(index_config.provider("local").option("dsn")), user=reader, password="pw")
    envelope = dispatch_search("retries", backend="local", config=make_index_config(store={"dsn": dsn}))
    assert envelope["error_code"] == "not_configured"
    assert "made by an older version of webproviders (schema 1)" in envelope["error"]
    assert "run one call with a role that may write the schema" in envelope["error"]


def _schema_2(index_config: Config, configs: str) -> str:
    """An empty index as schema 2 made it, with the text search ``configs`` it knew; its schema name."""
    s = schema_of(index_config)
    steps = "".join(str(step) for step in MIGRATIONS[:2]).replace("{s}", s).replace("{shards}", str(SHARDS))
    pg_run(index_config, f"CREATE SCHEMA {s}; {steps}")
    pg_run(index_config, f"INSERT INTO {s}.meta VALUES ('application', 'webproviders page index'), "
                         f"('schema_version', '2'); INSERT INTO {s}.configs VALUES {configs}")
    return s


@POSTGRES_ONLY
def test_an_index_of_schema_2_gets_words_touching_cjk_text_set_apart(index_config: Config) -> None:
    s = _schema_2(index_config, "('simple'), ('english')")
    # Pages as schema 2 kept them: only CJK pairs set apart.
    for n, (title, text) in enumerate([("Python入\x1f門", "2024年\x1fに\x1f更\x1f新。人々"), ("Retries", "Configure retries.")]):
        pg_run(index_config, f"""
            INSERT INTO {s}.pages (url, host, title, content, digest, fetched_at, config, length, search)
            SELECT 'https://a.example.com/{n}', 'a.example.com', t, c, 'd{n}', {NOW}, 'simple', 9,
                   setweight(to_tsvector('simple', t), 'A') || to_tsvector('simple', c)
            FROM (VALUES (E'{title}', E'{text}')) AS v (t, c)""")

    store = open_store(index_config)
    for question in ["Python", "2024", "人", "Python入門"]:
        assert [hit.page.url for hit in store.search(question, 5, Filters())] == ["https://a.example.com/0"], question
    assert [hit.page.url for hit in store.search("retries", 5, Filters())] == ["https://a.example.com/1"]
    [kept] = store.get(["https://a.example.com/0"]).values()
    assert (kept.title, kept.content) == ("Python入門", "2024年に更新。人々")
    assert pg_run(index_config, f"SELECT value FROM {s}.meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert pg_run(index_config, f"SELECT length FROM {s}.pages ORDER BY url") == [(10,), (9,)]
    assert counts_are_true(index_config)


@POSTGRES_ONLY
def test_a_page_indexed_before_schema_4_gets_its_emails_split_when_written_again(index_config: Config) -> None:
    s = _schema_2(index_config, "('english')")
    old = page("https://a.example.com/help", "Help", "Write to support@acmewidgets.com for help.")
    pg_run(index_config, f"""
        INSERT INTO {s}.pages (url, host, title, content, digest, fetched_at, config, length, search)
        VALUES ('{old.url}', 'a.example.com', '{old.title}', '{old.content}', '{digest(old)}', {NOW}, 'english', 7,
                setweight(to_tsvector('english', '{old.title}'), 'A') || to_tsvector('english', '{old.content}'))""")
    store = open_store(index_config)
    assert [hit.page.url for hit in store.search("help", 5, Filters())] == [old.url]  # found as before
    store.add([old])  # the same text written again
    assert [hit.page.url for hit in store.search("acmewidgets", 5, Filters())] == [old.url]
    assert counts_are_true(index_config)


@POSTGRES_ONLY
def test_an_index_of_schema_4_gets_thai_text_set_apart(index_config: Config) -> None:
    import psycopg

    s = schema_of(index_config)
    with psycopg.connect(index_config.provider("local").option("dsn"), autocommit=True) as conn:
        conn.execute(statements("CREATE SCHEMA {s}", s))
        for step in MIGRATIONS[:4]:  # an empty index as schema 4 made it
            step(conn, s) if callable(step) else conn.execute(statements(step, s))
    pg_run(index_config, f"INSERT INTO {s}.meta VALUES ('application', 'webproviders page index'), "
                         f"('schema_version', '4'); INSERT INTO {s}.configs VALUES ('simple')")
    # Pages as schema 4 kept them: Thai text as given.
    for n, (title, text) in enumerate([("ไทย", "เมืองหลวงของประเทศไทย"), ("Retries", "Configure retries.")]):
        pg_run(index_config, f"""
            INSERT INTO {s}.pages (url, host, title, content, digest, fetched_at, config, length, search)
            SELECT 'https://a.example.com/{n}', 'a.example.com', t, c, 'd{n}', {NOW}, 'simple', 9,
                   setweight(to_tsvector('simple', t), 'A') || to_tsvector('simple', c)
            FROM (VALUES ('{title}', '{text}')) AS v (t, c)""")

    store = open_store(index_config)
    assert [hit.page.url for hit in store.search("ประเทศไทย", 5, Filters())] == ["https://a.example.com/0"]
    assert [hit.page.url for hit in store.search("retries", 5, Filters())] == ["https://a.example.com/1"]
    [kept] = store.get(["https://a.example.com/0"]).values()
    assert (kept.title, kept.content) == ("ไทย", "เมืองหลวงของประเทศไทย")
    assert pg_run(index_config, f"SELECT value FROM {s}.meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert counts_are_true(index_config)


@POSTGRES_ONLY
def test_term_counts_follow_every_change(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page(f"https://a.example.com/{i}", f"Page {i}", f"alpha beta word{i}", age_days=i) for i in range(10)])
    store.add([page("https://a.example.com/1", "Page 1", "gamma delta"),       # changed text
               page("https://a.example.com/2", "Page 2", "alpha beta word2"),  # same text, fetched again
               page("https://a.example.com/new", "New", "alpha epsilon")])
    assert counts_are_true(index_config)
    assert store.remove(["https://a.example.com/3", "https://a.example.com/4"]) == 2
    assert store.prune(NOW - 6.5 * 86_400) == 3  # pages 7, 8 and 9
    assert counts_are_true(index_config)
    assert store.stats()["pages"] == 6


@POSTGRES_ONLY
def test_the_dsn_can_come_from_the_environment(make_config: Any, index_section: dict[str, Any],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBPROVIDERS_INDEX_DSN", index_section["dsn"])
    config = make_config(web={"providers": {"local": {"schema": index_section["schema"]}}})
    store = open_store(config)
    store.add([page("https://a.example.com/", "A", "alpha")])
    assert store.location.startswith("postgresql://postgres@127.0.0.1:")
    assert store.location.endswith(f"/postgres (schema {index_section['schema']})")


@POSTGRES_ONLY
def test_the_password_never_shows(make_index_config: Any, postgres_server: Any) -> None:
    secret = "s3cret-pass"  # the test server trusts loopback, so any password is let in
    dsn = f"postgresql://postgres:{secret}@127.0.0.1:{postgres_server.port}/postgres"
    config = make_index_config(store={"dsn": dsn})
    store = open_store(config)
    assert secret not in store.location and secret not in repr(store)
    pg_run(make_index_config(), f"CREATE SCHEMA {schema_of(config)}; CREATE TABLE {schema_of(config)}.x (id int)")
    envelope = dispatch_search("alpha", backend="local", config=config)
    assert envelope["error_code"] == "not_configured" and secret not in json.dumps(envelope)


@pytest.mark.parametrize("secret", ["hunter2@home-42", "Tr0ub4dor/3xyz-9", "S3cr3t-P@ss:w/rd"])
def test_a_url_password_holding_an_at_or_slash_as_it_is_is_refused_without_showing_it(
    make_config: Any, secret: str
) -> None:
    """libpq ends such a password at its ``@`` or ``/`` and reads the rest as the host or the
    database, which the messages about the index name: no piece of it may show anywhere, and
    the sentence says how to write it."""
    dsn = f"postgresql://pages:{secret}@127.0.0.1:1/pages"
    envelope = _refused_setting(make_config, dsn)
    assert "percent-encoded (%40 for '@', %2F for '/')" in envelope["error"]
    text = json.dumps(envelope)
    pieces = [piece for piece in re.split(r"[@/:]", secret) if len(piece) >= 3]
    assert [piece for piece in pieces if piece in text] == []


#: The role :func:`password_login` makes, and its password.
LOGIN_ROLE, LOGIN_PASSWORD = "pages", "right-pass-7f3a"


@pytest.fixture(scope="module")
def password_login(postgres_server: pg_server.PostgresServer) -> pg_server.PostgresServer:
    """The session's server, asking :data:`LOGIN_ROLE` (only) for its password over loopback
    (``scram-sha-256``): the server trusts every other login, as the other tests expect."""
    import psycopg

    with psycopg.connect(postgres_server.dsn, autocommit=True) as conn:
        conn.execute("SET password_encryption = 'scram-sha-256'")
        conn.execute(f"DROP ROLE IF EXISTS {LOGIN_ROLE}")
        conn.execute(f"CREATE ROLE {LOGIN_ROLE} LOGIN PASSWORD '{LOGIN_PASSWORD}'")
        hba = postgres_server.data / "pg_hba.conf"
        hba.write_text(f"host all {LOGIN_ROLE} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        conn.execute("SELECT pg_reload_conf()")
    deadline = time.monotonic() + 10
    while True:  # the postmaster reads pg_hba.conf again on its own time
        try:
            psycopg.connect(f"{postgres_server.dsn} user={LOGIN_ROLE} passfile=/nonexistent").close()
        except psycopg.OperationalError:
            return postgres_server
        assert time.monotonic() < deadline, "the server kept trusting the role after pg_hba.conf changed"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("login", "said"),
    [
        ("postgresql://pages:{secret}@127.0.0.1:{port}/postgres", 'password authentication failed for user "pages"'),
        ("host=127.0.0.1 port={port} user=pages password={secret} dbname=postgres", "password authentication failed"),
        ("host=127.0.0.1 port={port} user=pages dbname=postgres", "no password supplied"),
        ("host=127.0.0.1 port={port} user=nobody_here password={secret} dbname=postgres", 'role "nobody_here" does not exist'),
    ],
    ids=["wrong-password-url", "wrong-password-key-value", "no-password", "no-such-role"],
)
def test_refused_credentials_are_an_auth_error_tried_once(
    make_config: Any, password_login: pg_server.PostgresServer, monkeypatch: pytest.MonkeyPatch, login: str, said: str
) -> None:
    """A server that answers and refuses the login is told apart from one that cannot be
    reached: ``auth_error``, not retried (it would be refused again), the DSN named without
    its password, which shows nowhere in the envelope."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", "/nonexistent/.pgpass")
    secret = "wrong-secret-51c9"
    dsn = login.format(port=password_login.port, secret=secret)
    web = {"cache": False, "retry": {"max_retries": 2, "backoff": 0.01}, "providers": {"local": {"dsn": dsn}}}
    try:
        envelope = dispatch_search("anything", backend="local", config=make_config(web=web))
    finally:
        close_stores()
    assert envelope["success"] is False and envelope["error_code"] == "auth_error", envelope
    assert envelope["retryable"] is False
    assert [(a["provider"], a["error_code"]) for a in envelope["meta"]["attempts"]] == [("local", "auth_error")]
    assert f"postgresql://***@127.0.0.1:{password_login.port}/postgres" in envelope["error"]  # no userinfo shows
    assert "refused the credentials in web.providers.local.dsn" in envelope["error"] and said in envelope["error"]
    assert secret not in json.dumps(envelope)


def _refused_setting(make_config: Any, dsn: str) -> dict[str, Any]:
    """A search of the index at ``dsn`` (retries allowed), checked to be a ``not_configured``
    failure that was tried once."""
    web = {"cache": False, "retry": {"max_retries": 2, "backoff": 0.01}, "providers": {"local": {"dsn": dsn}}}
    try:
        envelope = dispatch_search("anything", backend="local", config=make_config(web=web))
    finally:
        close_stores()
    assert envelope["error_code"] == "not_configured" and envelope["retryable"] is False, envelope
    assert [a["error_code"] for a in envelope["meta"]["attempts"]] == ["not_configured"]
    return envelope


@pytest.mark.parametrize(
    ("option", "said"),
    [("port=notaport", 'invalid integer value "notaport"'), ("port=5432 sslmode=bogus", 'invalid sslmode value: "bogus"')],
)
def test_a_connection_option_libpq_cannot_read_is_not_configured(make_config: Any, option: str, said: str) -> None:
    """Not a server that cannot be reached: a setting to fix, tried once, naming it."""
    envelope = _refused_setting(make_config, f"host=127.0.0.1 {option} user=postgres password=s3cret-pass dbname=postgres")
    assert said in envelope["error"] and "web.providers.local.dsn" in envelope["error"]
    assert "s3cret-pass" not in json.dumps(envelope)


def test_a_database_the_server_does_not_have_is_not_configured(
    make_config: Any, postgres_server: pg_server.PostgresServer
) -> None:
    """The login was let in, but the database it names is not there: a setting to fix, tried once."""
    envelope = _refused_setting(make_config, f"host=127.0.0.1 port={postgres_server.port} user=postgres dbname=no_such_db")
    assert 'database "no_such_db" does not exist' in envelope["error"] and "web.providers.local.dsn" in envelope["error"]


def test_the_right_password_is_let_in(make_config: Any, password_login: pg_server.PostgresServer) -> None:
    """The login the refusals above get wrong works when right (the refusals are the password's)."""
    dsn = f"postgresql://{LOGIN_ROLE}:{LOGIN_PASSWORD}@127.0.0.1:{password_login.port}/postgres"
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": {"local": {"dsn": dsn}}}
    try:
        envelope = dispatch_search("anything", backend="local", config=make_config(web=web))
    finally:
        close_stores()
    assert envelope["success"] is True, envelope


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"dsn": "host=127.0.0.1 port=notaport ="}, "dsn is not a PostgreSQL connection string"),
        # Before, each was "is not a PostgreSQL connection string", though it was one.
        ({"dsn": "postgresql://u:Pw0rd@127.0.0.1/x?sslmod=require"}, r"dsn has an option PostgreSQL does not know \(sslmod\)"),
        ({"dsn": "host=127.0.0.1 password=Pw0rd sslmod=require"}, r"dsn has an option PostgreSQL does not know \(sslmod\)"),
        ({"dsn": "postgresql://u:Pw0rd%zz@127.0.0.1/x"}, "dsn holds a '%' that two hexadecimal digits do not follow"),
        ({"dsn": "postgresql://127.0.0.1/x", "schema": "Bad-Name"}, "schema may hold only lower-case letters"),
        ({"dsn": "postgresql://127.0.0.1/x", "pool_size": "many"}, "pool_size must be a whole number above 0"),
        ({"dsn": "postgresql://127.0.0.1/x", "pool_size": 0.5}, "pool_size must be a whole number above 0"),
    ],
)
def test_bad_settings_are_named(make_config: Any, settings: dict[str, Any], message: str) -> None:
    with pytest.raises(NotConfiguredError, match=message) as refused:
        open_store(make_config(web={"providers": {"local": settings}}))
    assert "Pw0rd" not in str(refused.value)


def test_without_psycopg_a_dsn_says_what_to_install(make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from webproviders.index import stores

    real = importlib.util.find_spec
    monkeypatch.setattr(stores.importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name, *a))
    with pytest.raises(NotConfiguredError, match=r"pip install 'webproviders\[postgres\]'"):
        open_store(make_config(web={"providers": {"local": {"dsn": "postgresql://127.0.0.1/x"}}}))


def test_without_psycopg_a_dsn_makes_the_index_listed_unavailable(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``webproviders providers`` listed the index as ready with a ``dsn`` set and psycopg
    missing, and only a call found out; the listing and the call now agree, naming the extra."""
    import importlib.util

    from webproviders import list_providers

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name, *a))
    with_dsn = make_config(web={"providers": {"local": {"dsn": "postgresql://127.0.0.1/x"}}})
    row = next(row for row in list_providers(with_dsn, load=True) if row["name"] == "local")
    reason = (
        "the 'psycopg' package is not installed, which WEBPROVIDERS_INDEX_DSN or web.providers.local.dsn "
        "needs (pip install 'webproviders[postgres]')"
    )
    assert (row["available"], row["reason"]) == (False, reason)
    envelope = dispatch_search("q", backend="local", config=with_dsn)
    assert envelope["error_code"] == "not_configured"
    assert envelope["error"] == f"Backend 'local' is not available: {reason}."
    sqlite = next(row for row in list_providers(make_config()) if row["name"] == "local")
    assert sqlite["available"] is True


def test_psycopg_loads_only_for_a_postgres_index(tmp_path: Any) -> None:
    script = (
        "import sys, json, webproviders\n"
        "webproviders.list_providers()\n"
        "from webproviders.config import config_from_dict\n"
        "from webproviders.index.stores import open_store\n"
        f"config = config_from_dict({{'web': {{'providers': {{'local': {{'path': '{tmp_path}/i.sqlite3'}}}}}}}})\n"
        "webproviders.dispatch_search('anything', backend='local', config=config)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_pool'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


@pytest.fixture
def own_server() -> Iterator[pg_server.PostgresServer]:
    """A server of this test's own, which it may stop and start."""
    problem = pg_server.missing()
    if problem:
        pytest.skip(problem)
    server = pg_server.PostgresServer(max_connections=20)
    try:
        server.start()
        yield server
    finally:
        close_stores()
        server.remove()


def test_a_server_that_is_not_there_is_a_network_error(make_config: Any) -> None:
    dsn = f"postgresql://postgres@127.0.0.1:{pg_server.free_port()}/postgres"
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}, "providers": {"local": {"dsn": dsn, "timeout": 1}}})
    started = time.monotonic()
    envelope = dispatch_search("anything", backend="local", config=config)
    assert time.monotonic() - started < 1 + 0.5  # within the index's timeout
    assert envelope["success"] is False and envelope["error_code"] == "network_error" and envelope["retryable"]
    assert "cannot be reached" in envelope["error"] and "Connection refused" in envelope["error"]
    close_stores()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_refusing_server_is_reported_within_a_short_deadline(
    make_config: Any, own_server: pg_server.PostgresServer, mode: str
) -> None:
    """With the index's default timeout (10 s), a call given 3 s is told the server refused
    it, not that the call ran out of time: when the store starts, and when the server went
    down after the store's pool had connections."""
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": {"local": {"dsn": own_server.dsn}}}
    config = make_config(web=web)

    def search() -> dict[str, Any]:
        if mode == "sync":
            return dispatch_search("anything", backend="local", config=config, timeout=3)
        return asyncio.run(adispatch_search("anything", backend="local", config=config, timeout=3))

    own_server.stop("immediate")
    envelope = search()
    assert envelope["success"] is False and envelope["error_code"] == "network_error", envelope
    assert "cannot be reached" in envelope["error"] and "web.providers.local.dsn" in envelope["error"]

    own_server.start()
    open_store(config).add([page("https://r.example.com/", "Refused", "text of a page")])
    assert search()["success"] is True  # the pool holds connections now
    own_server.stop("immediate")
    envelope = search()
    assert envelope["success"] is False and envelope["error_code"] == "network_error", envelope
    own_server.start()
    assert search()["success"] is True


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_server_that_went_down_once_the_pool_was_full_is_said_down_not_busy(
    make_config: Any, own_server: pg_server.PostgresServer, mode: str
) -> None:
    """The pool counts the connections it is still trying to make again: a server that went
    down after the pool had grown to ``pool_size`` was reported as every connection "in use by
    other calls", with the advice to raise ``pool_size``, at every call."""
    web = {"cache": False, "retry": {"max_retries": 0}, "health": {"failures": 100},
           "providers": {"local": {"dsn": own_server.dsn, "pool_size": 2}}}
    config = make_config(web=web)
    store = open_store(config)
    store.add([page("https://d.example.com/", "Down", "text of a page")])
    with store._pool.connection():  # one lent elsewhere: the search makes the pool's second
        assert dispatch_search("down", backend="local", config=config)["success"] is True
    own_server.stop("immediate")
    for _ in range(2):
        if mode == "sync":
            envelope = dispatch_search("down", backend="local", config=config, timeout=3)
        else:
            envelope = asyncio.run(adispatch_search("down", backend="local", config=config, timeout=3))
        assert envelope["error_code"] == "network_error", envelope
        assert "cannot be reached" in envelope["error"] and "pool_size" not in envelope["error"]


def test_a_server_stopped_mid_call_fails_cleanly_and_keeps_what_it_acknowledged(
    make_config: Any, own_server: pg_server.PostgresServer
) -> None:
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": {"local": {"dsn": own_server.dsn, "timeout": 2}}}
    config = make_config(web=web)
    store = open_store(config)
    acknowledged: list[str] = []
    failures: list[str] = []
    stop = threading.Event()

    def write() -> None:
        batch_number = 0
        while not stop.is_set():
            batch = [page(f"https://w.example.com/{batch_number}/{j}", "Written", f"text {batch_number} {j}")
                     for j in range(5)]
            try:
                store.add(batch)
            except WebProviderError as exc:
                failures.append(exc.code)
            else:
                acknowledged.extend(p.url for p in batch)
            batch_number += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        deadline = time.monotonic() + 60
        while len(acknowledged) < 100 and time.monotonic() < deadline:
            time.sleep(0.01)
        own_server.stop("immediate")  # as a crash: no goodbye to the sessions
        while not failures and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        stop.set()
        writer.join(30)
    assert failures and set(failures) == {"network_error"}

    for envelope in (dispatch_search("text", backend="local", config=config),
                     dispatch_extract(acknowledged[0], backend="local", config=config),
                     index_urls("https://x.example.com/", backend="stub", config=config)):
        assert envelope["success"] is False and envelope["error_code"] == "network_error", envelope
        assert envelope["retryable"] is True and "local index at postgresql://" in envelope["error"]

    own_server.start()
    found = store.get(acknowledged)  # no failed call first, though the pool was backing off
    assert len(found) == len(acknowledged) >= 100
    assert counts_are_true(config)


def freeze(server: pg_server.PostgresServer) -> Callable[[], None]:
    """Stop the server and every process it started (its sessions among them) as a host that
    hangs: connections stay open, nothing answers. Returns what thaws them."""
    postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    stopped = [postmaster]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == postmaster:
                stopped.append(int(entry.name))
    for pid in stopped:
        with contextlib.suppress(ProcessLookupError):  # a session that was ending
            os.kill(pid, signal.SIGSTOP)

    def thaw() -> None:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    return thaw


@contextlib.contextmanager
def frozen(server: pg_server.PostgresServer) -> Iterator[None]:
    thaw = freeze(server)
    try:
        yield
    finally:
        thaw()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_frozen_server_ends_the_call_by_its_deadline(
    make_config: Any, own_server: pg_server.PostgresServer, mode: str
) -> None:
    """A server that takes connections and never answers (stopped by the kernel, as a host
    that hangs) holds a search of the index no longer than the call's deadline."""
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": {"local": {"dsn": own_server.dsn, "timeout": 10}}}
    config = make_config(web=web)
    open_store(config).add([page("https://f.example.com/", "Frozen", "text of a frozen page")])
    assert dispatch_search("frozen", backend="local", config=config)["success"] is True  # sessions open
    with frozen(own_server):
        started = time.monotonic()
        if mode == "sync":
            envelope = dispatch_search("frozen", backend="local", config=config, timeout=1.5)
        else:
            envelope = asyncio.run(adispatch_search("frozen", backend="local", config=config, timeout=1.5))
        took = time.monotonic() - started
    assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope
    assert took < 1.5 + 0.5, took


def _ends(call: Callable[[], Any], within: float) -> tuple[bool, Any]:
    """Whether ``call``, run in a thread, ended within ``within`` seconds, and what it gave."""
    said: list[Any] = []
    runner = threading.Thread(target=lambda: said.append(call()), daemon=True)
    runner.start()
    runner.join(within)
    return not runner.is_alive(), said[0] if said else None


def test_indexing_into_a_frozen_server_fails_within_its_timeout_and_the_next_call_works(
    make_config: Any, own_server: pg_server.PostgresServer
) -> None:
    """``index_urls`` writes with no deadline of its own but the store's ``timeout``, which
    only the server applies: a frozen server held it for ever."""
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": {"local": {"dsn": own_server.dsn, "timeout": 2}}}
    config = make_config(web=web)
    open_store(config).add([page("https://f.example.com/", "Frozen", "text of a frozen page")])
    assert dispatch_search("frozen", backend="local", config=config)["success"] is True  # pooled sessions
    with frozen(own_server):
        ended, envelope = _ends(lambda: index_urls("https://stub.example.com/a", backend="stub", config=config), 30)
        assert ended, "index_urls still waits for a frozen server"
    assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope
    assert envelope["retryable"] is True and "local index at postgresql://" in envelope["error"]
    assert "gave no answer within 1.0 s" in envelope["error"] and "may be hung" in envelope["error"]
    assert index_urls("https://stub.example.com/a", backend="stub", config=config)["success"] is True
    assert open_store(config).get(["https://stub.example.com/a"])


#: Words of the statement each store call sends first once its connection is lent (the
#: pool's check, an empty query, is answered): the proxy stops answering there.
FIRST_STATEMENT = {"add": b"INSERT INTO", "get": b"WHERE url = ANY", "search": b"phraseto_tsquery",
                   "stats": b"pg_total_relation_size", "remove": b"DELETE FROM", "prune": b"ORDER BY fetched_at"}


@pytest.mark.parametrize("operation", sorted(FIRST_STATEMENT))
def test_a_statement_a_server_never_answers_ends_as_a_timeout_that_says_why(
    make_config: Any, postgres_server: pg_server.PostgresServer, operation: str
) -> None:
    """A statement sent to a server that then stops answering (a host that hangs, replies a
    firewall drops) gets no answer, and ``statement_timeout`` is the server's to apply: the
    connection is cut once the store's ``timeout`` (and a second) has passed."""
    proxy = pg_server.FreezingProxy(postgres_server.port)
    section = {"dsn": proxy.dsn(postgres_server), "schema": f"test_{uuid.uuid4().hex[:16]}", "timeout": 2}
    store = open_store(make_config(web={"cache": False, "providers": {"local": section}}))
    store.add([page("https://f.example.com/", "Frozen", "text of a frozen page")])
    calls: dict[str, Callable[[], Any]] = {
        "add": lambda: store.add([page("https://f.example.com/2", "Frozen", "more text")]),
        "get": lambda: store.get(["https://f.example.com/"]),
        "search": lambda: store.search("frozen", 5, Filters()),
        "stats": store.stats,
        "remove": lambda: store.remove(["https://f.example.com/"]),
        "prune": lambda: store.prune(NOW),
    }
    failed: list[WebProviderError] = []

    def call() -> None:
        try:
            calls[operation]()
        except WebProviderError as exc:
            failed.append(exc)

    proxy.trigger = FIRST_STATEMENT[operation]
    try:
        ended, _ = _ends(call, 30)
        assert ended and proxy.frozen == 1, "the call still waits for a server that stopped answering"
        assert failed and failed[0].code == "timeout" and failed[0].retryable, failed
        assert "gave no answer within 3.0 s" in str(failed[0]) and "may be hung" in str(failed[0])
        proxy.trigger = None
        assert store.get(["https://f.example.com/"]) or operation in {"remove", "prune"}  # a sound connection
    finally:
        close_stores()
        proxy.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_frozen_server_is_said_hung_within_the_call_s_deadline(
    make_config: Any, own_server: pg_server.PostgresServer, mode: str
) -> None:
    """The pool's check of a connection gets no answer from a frozen server: the call says so
    then, where it went on to connect anew (which waits for a login no one answers) and the
    caller was told only that ``local`` did not answer in time."""
    web = {"cache": False, "retry": {"max_retries": 0}, "providers": {"local": {"dsn": own_server.dsn, "timeout": 10}}}
    config = make_config(web=web)
    open_store(config).add([page("https://f.example.com/", "Frozen", "text of a frozen page")])
    assert dispatch_search("frozen", backend="local", config=config)["success"] is True  # sessions open
    with frozen(own_server):
        if mode == "sync":
            envelope = dispatch_search("frozen", backend="local", config=config, timeout=3)
        else:
            envelope = asyncio.run(adispatch_search("frozen", backend="local", config=config, timeout=3))
    assert envelope["success"] is False and envelope["error_code"] == "timeout", envelope
    assert "gave no answer within" in envelope["error"] and "may be hung" in envelope["error"], envelope


def test_the_first_call_after_a_frozen_server_wakes_up_is_answered(
    make_config: Any, own_server: pg_server.PostgresServer
) -> None:
    """Calls given up on while the server was frozen still wait for a connection of their own;
    one that gets it lets the pool go, which a call waiting on that pool was failed with
    (``network_error``, "the pool 'webproviders-index' is closed")."""
    web = {"cache": False, "retry": {"max_retries": 0}, "health": {"failures": 100},
           "providers": {"local": {"dsn": own_server.dsn, "timeout": 3}}}
    config = make_config(web=web)
    open_store(config).add([page("https://f.example.com/", "Frozen", "text of a frozen page")])
    assert dispatch_search("frozen", backend="local", config=config)["success"] is True  # sessions open
    with frozen(own_server):
        for _ in range(5):
            assert dispatch_search("frozen", backend="local", config=config, timeout=1)["success"] is False
    envelope = dispatch_search("frozen", backend="local", config=config, timeout=10)
    assert envelope["success"] is True, envelope


def test_filling_a_frozen_index_does_not_hold_an_extract_past_its_deadline(
    make_config: Any, own_server: pg_server.PostgresServer
) -> None:
    """With ``web.local.index`` on, every extract's pages go to the index; a frozen server
    there must not keep the extract, which has its pages, from answering in time."""
    web = {"cache": False, "retry": {"max_retries": 0}, "local": {"index": True},
           "providers": {"local": {"dsn": own_server.dsn, "timeout": 10}}}
    config = make_config(web=web)
    open_store(config).add([page("https://f.example.com/", "Frozen", "text of a frozen page")])
    with frozen(own_server):
        started = time.monotonic()
        envelope = dispatch_extract("https://stub.example.com/page", backend="stub", config=config, timeout=1.5)
        took = time.monotonic() - started
    assert took < 1.5 + 0.5, (took, envelope)
    assert envelope["success"] is True, envelope
    from webproviders.index.autofill import wait_for_writes

    assert wait_for_writes(30)  # the queued pages are written once the server answers again
    assert open_store(config).get(["https://stub.example.com/page"]), "the page was never queued"


CHILD = """
import sys
from webproviders import dispatch_extract
from webproviders.config import config_from_dict
from webproviders.index.autofill import wait_for_writes
web = {"cache": False, "local": {"index": True}, "providers": {"local": {"dsn": sys.argv[1], "timeout": 10}}}
config = config_from_dict({"web": web}, source="<test>")
assert dispatch_extract("https://stub.example.com/first", backend="stub", config=config)["success"]
assert wait_for_writes(30)
print("ready", flush=True)
sys.stdin.readline()  # the server is frozen now
print(dispatch_extract("https://stub.example.com/second", backend="stub", config=config)["success"], flush=True)
"""


def test_a_process_whose_index_froze_exits_soon_and_says_what_it_dropped(
    own_server: pg_server.PostgresServer, exit_after_a_freeze: Callable[..., tuple[float, str]]
) -> None:
    """A write queued for an index that never answers is waited for a few seconds at exit,
    then dropped with a log line: the process does not hang on it (it did, for ever)."""
    from webproviders.index.autofill import EXIT_WAIT

    took, errors = exit_after_a_freeze(CHILD, own_server.dsn, lambda: freeze(own_server), EXIT_WAIT + 20)
    assert took < EXIT_WAIT + 3, took
    assert "1 write(s) to the local index were dropped at exit" in errors, errors


def test_writes_past_the_queue_s_bound_are_dropped_and_logged_while_the_index_is_frozen(
    make_config: Any, own_server: pg_server.PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    """An index that stopped answering does not make the process hold the pages of every
    later call: past ``MAX_PENDING`` waiting writes, a write is dropped and logged."""
    from webproviders.index.autofill import MAX_PENDING, submit, wait_for_writes

    web = {"cache": False, "local": {"index": True}, "providers": {"local": {"dsn": own_server.dsn, "timeout": 10}}}
    config = make_config(web=web)
    open_store(config).add([page("https://q.example.com/", "Queued", "text")])
    with frozen(own_server), caplog.at_level("WARNING", logger="webproviders.index"):
        for n in range(MAX_PENDING + 3):
            submit(config, [page(f"https://q.example.com/{n}", "Queued", "text")])
    dropped = [r for r in caplog.records if "earlier writes are still waiting" in r.getMessage()]
    assert len(dropped) >= 2, [r.getMessage() for r in caplog.records]
    assert wait_for_writes(60)  # the queued ones are written once the server answers again
    assert open_store(config).get([f"https://q.example.com/{MAX_PENDING - 1}"])


@POSTGRES_ONLY
def test_a_page_whose_url_is_too_long_to_key_leaves_the_others_written(index_config: Config) -> None:
    # A URL of 6,000 characters that do not compress well (a signed token, a state blob) is past
    # what PostgreSQL's index of URLs holds (2,704 bytes). The whole batch failed with it, as a
    # network_error ("stopped answering; try again"), which no retry could change.
    blob = b"".join(hashlib.sha256(str(n).encode()).digest() for n in range(150))
    long_url = "https://ru.example.com/?state=" + base64.urlsafe_b64encode(blob).decode()
    store = open_store(index_config)
    with pytest.raises(InvalidInputError) as caught:
        store.add([page(long_url, "Long", "zebra crossing"), page("https://ru.example.com/short", "Short", "zebra")])
    message = caught.value.message
    assert "1 page(s) could not be added" in message and "index row size" in message and "the other 1 were added" in message
    assert list(store.get(["https://ru.example.com/short"])) == ["https://ru.example.com/short"]


@POSTGRES_ONLY
def test_a_search_matching_a_very_long_page_ends_within_the_store_timeout(make_index_config: Any) -> None:
    # ts_headline read all of a page to mark it, about 0.6 s a megabyte: a page of 6 MB made
    # every search matching it fail with a timeout. Only its indexed part is marked now.
    text = "lorem ipsum dolor sit amet consectetur " * 150_000
    open_store(make_index_config(store={"timeout": 60})).add([page("https://big.example.com/dump", "Dump", text)])
    envelope = dispatch_search("lorem", backend="local", config=make_index_config(store={"timeout": 2}), timeout=30)
    assert envelope["success"] is True, envelope
    [hit] = envelope["data"]["web"]
    assert hit["description"].startswith("**lorem** ipsum dolor sit amet consectetur **lorem**")


@POSTGRES_ONLY
def test_a_crawl_s_thousands_of_pages_are_written_within_the_store_timeout(make_index_config: Any) -> None:
    # One statement wrote every page: a crawl's 5,000 pages of 4 KB took longer than the 10 s
    # timeout, and not one was written; "try again" failed the same way.
    config = make_index_config(store={"timeout": 4})
    vocabulary = [f"term{n}" for n in range(20_000)]
    pages = [page(f"https://docs.example.com/p/{n}", f"Page {n}",
                  " ".join(vocabulary[(n * 7919 + k * 104_729) % 20_000] for k in range(450)))
             for n in range(3_000)]
    store = open_store(config)
    assert store.add(pages) == 3_000
    assert store.stats()["pages"] == 3_000 and counts_are_true(config)


@POSTGRES_ONLY
def test_pool_size_bounds_the_connections_a_process_opens(make_index_config: Any) -> None:
    # A call that found every pooled connection in use opened one of its own: a burst of
    # calls from one process with pool_size 2 held 47 connections to the server.
    app = f"pool_{uuid.uuid4().hex[:12]}"
    section = make_index_config().provider("local")
    config = make_index_config(store={"dsn": f"{section.option('dsn')} application_name={app}", "pool_size": 1})
    open_store(config).add([page("https://a.example.com/x", "Zebra", "zebra stripes")])
    schema = schema_of(config)

    def connections(waiting: bool = False) -> int:
        extra = " AND wait_event_type = 'Lock'" if waiting else ""
        return int(pg_run(config, "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                                  f"AND application_name = '{app}'{extra}")[0][0])

    import psycopg

    with psycopg.connect(section.option("dsn")) as locker:
        locker.execute(f"LOCK TABLE {schema}.pages IN ACCESS EXCLUSIVE MODE")  # searches wait on it
        first = threading.Thread(target=dispatch_search, args=("zebra",), kwargs={"backend": "local", "config": config, "timeout": 20})
        first.start()
        deadline = time.monotonic() + 10
        while connections(waiting=True) < 1:  # the pool's one connection waits on the lock
            assert time.monotonic() < deadline
            time.sleep(0.05)
        envelope = dispatch_search("zebra", backend="local", config=config, timeout=4)
        held = connections()
        locker.rollback()
    first.join(30)
    assert envelope["error_code"] == "timeout", envelope
    assert held == 1


@POSTGRES_ONLY
def test_a_search_its_store_timed_out_well_before_the_call_s_deadline_is_not_said_cut_short_by_the_call(
    make_index_config: Any
) -> None:
    """The index's statement timeout (10 s, web.providers.local.timeout left unset) ended the
    search with more than half the call's time left: the envelope said detail call_deadline,
    as if the caller's timeout had been too short."""
    config = make_index_config(store={"timeout": None})
    open_store(config).add([page("https://a.example.com/x", "Zebra", "zebra stripes")])
    import psycopg

    with psycopg.connect(config.provider("local").option("dsn")) as locker:
        locker.execute(f"LOCK TABLE {schema_of(config)}.pages IN ACCESS EXCLUSIVE MODE")  # searches wait on it
        envelope = dispatch_search("zebra", backend="local", config=config, timeout=25)
        locker.rollback()
    assert envelope["error_code"] == "timeout" and "took longer than 10 s" in envelope["error"], envelope
    assert "detail" not in envelope, envelope


def test_a_server_that_takes_no_more_connections_says_so_not_that_it_is_down(
    make_config: Any, postgres_server: pg_server.PostgresServer
) -> None:
    """Before, a server at its connection limit was reported as one to check is running."""
    import psycopg

    role = "index_one_connection"
    with psycopg.connect(postgres_server.dsn, autocommit=True) as conn:
        conn.execute(f"DROP ROLE IF EXISTS {role}")
        conn.execute(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 1")
    dsn = f"{postgres_server.dsn} user={role}"
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}, "providers": {"local": {"dsn": dsn}}})
    with psycopg.connect(dsn):
        envelope = dispatch_search("anything", backend="local", config=config)
    close_stores()
    assert envelope["error_code"] == "network_error" and envelope["retryable"]
    assert "took no more connections" in envelope["error"] and "too many connections for role" in envelope["error"]
    assert "web.providers.local.pool_size" in envelope["error"] and "is running" not in envelope["error"]


@POSTGRES_ONLY
def test_pruning_deletes_in_batches_each_within_the_store_timeout(make_index_config: Any) -> None:
    # One statement deleted every old page: at 100,000 pages that outlasted the 10 s timeout, and
    # "try again" failed the same way, so a large index could not be pruned. The newest old page
    # is held by another transaction here, so only the statement deleting it waits out the
    # timeout: the batches before it are deleted, oldest first, and the next prune ends the work.
    import psycopg

    config = make_index_config(store={"timeout": 1})
    store = open_store(config)
    store.add([page(f"https://old.example.com/{n}", "Old", f"old page {n}", age_days=30 + (1_200 - n) / 100)
               for n in range(1_200)])
    store.add([page("https://new.example.com/", "New", "new page")])
    newest_old = "https://old.example.com/1199"
    with psycopg.connect(config.provider("local").option("dsn")) as holder:
        holder.execute(f"SELECT 1 FROM {schema_of(config)}.pages WHERE url = %s FOR UPDATE", (newest_old,))
        with pytest.raises(WebTimeoutError):
            store.prune(NOW - 7 * 86_400)
        left = {url for (url,) in pg_run(config, f"SELECT url FROM {schema_of(config)}.pages")}
        assert "https://old.example.com/0" not in left and newest_old in left
    assert store.prune(NOW - 7 * 86_400) == len(left) - 1
    assert {hit.page.url for hit in store.search("page", 10, Filters())} == {"https://new.example.com/"}
    assert counts_are_true(config)


@POSTGRES_ONLY
def test_a_question_of_words_the_pages_languages_leave_out_says_so(index_config: Config) -> None:
    # PostgreSQL's english configuration keeps no stop word, so "the who" matched no page of an
    # English index that holds "The Who", and the empty answer said nothing: it read as "no page
    # mentions them", where the SQLite file finds the page.
    open_store(index_config).add([IndexedPage("https://music.example.com/who", "The Who", "The Who is a band.",
                                              NOW, "http", None, "en")])
    envelope = dispatch_search('"the who"', backend="local", config=index_config)
    assert envelope["success"] is True and envelope["data"]["web"] == []
    [warning] = envelope["meta"]["warnings"]
    assert "'\"the who\"'" in warning and "common words" in warning
    found = dispatch_search("who band", backend="local", config=index_config)
    assert [hit["url"] for hit in found["data"]["web"]] == ["https://music.example.com/who"]
    assert "warnings" not in found["meta"]
