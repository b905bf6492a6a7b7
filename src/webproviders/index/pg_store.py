"""The page index in PostgreSQL: one database that a whole fleet of workers fills and searches.

Pages are rows keyed by canonical URL, each with a ``tsvector`` built with the text search
configuration of the page's language (:mod:`.language`; ``simple`` when unknown) and a GIN
index over it. A question is asked in every configuration the index holds pages in, so an
English question finds the stemmed English pages and the ``simple`` ones alike.

Ranking is BM25 over a bounded set of candidates (measured against ``ts_rank``, ``ts_rank_cd``
and the ``rum`` extension in ``bench/bench_local.py``; see docs/providers/local.md):

1. Each term's page count comes from ``terms`` (:mod:`.pg_schema`). The rarest terms (of
   those in any page), as long as together they match at most :data:`CANDIDATE_BUDGET`
   pages, pick the candidates: any page holding one of them. The common words of the
   question still count in the score.
2. When even the rarest term is too common, the candidates are the pages holding every term
   (at most the budget of them). Either way, when the candidates are fewer than asked for,
   up to the budget of the pages holding any term join them.
3. Candidates are scored by BM25 (k1 1.2, b 0.75; a title occurrence counts as
   :data:`TITLE_WEIGHT`), and the best get a snippet (``ts_headline``, every match marked,
   cut by :mod:`.snippets`).

Connections come from a small ``psycopg_pool`` pool per store, checked before each use, so a
restarted server costs no failed call once it is back. Every statement is bounded by the
store's ``timeout``, by the server and, for a server that never answers, on this side too
(:mod:`.pg_watch`); waiting for a connection by half of it, and by half of what is left of the
call. A store's first connection is made directly (the pool opens once the server has
answered), so a server that refuses is reported at once, not after the pool's wait.
"""

from __future__ import annotations

import contextvars
import math
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..context import remaining_time
from ..errors import (
    AuthError,
    InvalidInputError,
    NetworkError,
    NotConfiguredError,
    ProviderError,
    WebProviderError,
    WebTimeoutError,
)
from ..redact import scrub
from ..urls import shorten
from .language import CONFIGS, page_language
from .pages import (
    BATCH_PAGES,
    Filters,
    Hit,
    IndexedPage,
    batches,
    held,
    never_filled,
    no_words,
    page_keys,
    still_searching,
    words_left_out,
)
from .pg_schema import (
    APPLICATION,
    INDEXED_CHARS,
    SCHEMA_VERSION,
    migrate,
    search_vector,
    statements,
    words,
)
from .question import question_terms
from .snippets import END, START, snippet
from .sqlite_store import digest
from .text import shown, stored, token_count

PROVIDER = "local"
#: Pages scored at most, roughly, per search (see the module docstring).
CANDIDATE_BUDGET = 400
#: BM25 parameters, and how much more a word of the title counts than one of the text.
K1, B, TITLE_WEIGHT = 1.2, 0.75, 4
#: Times a write is tried when PostgreSQL picks it to end a deadlock.
_WRITE_TRIES = 5
#: Seconds past its ``statement_timeout`` a wait for the server's answer lasts before the
#: connection is cut (:mod:`.pg_watch`): a server that answers cancels the statement first.
_GRACE = 1.0
_HEADLINE = f"HighlightAll=true, StartSel={START}, StopSel={END}"
#: What a server that answered says when it refuses the login (``28000``/``28P01``), and what
#: libpq says when it has no password to give; :data:`_NO_DATABASE` when the login names a
#: database it does not have or may not connect to (``3D000``, ``42501``). Told by the words
#: because psycopg gives a failed connection no SQLSTATE (``sqlstate``, ``diag`` and
#: ``pgresult`` are None: libpq keeps the fields of the startup's error to itself); the one
#: structured sign, ``pgconn.needs_password``, covers a missing password only. These are the
#: server's English messages: a server whose ``lc_messages`` is another language refuses a
#: login as ``network_error``, as every connect-time failure was before.
_REFUSED_LOGIN = re.compile(
    r"authentication failed for user|no password supplied|no pg_hba\.conf entry|pg_hba\.conf rejects"
    r'|role "[^"]*" does not exist|is not permitted to log in'
)
_NO_DATABASE = re.compile(r'database "[^"]*" does not exist|permission denied for database')
#: What libpq says of a connection option it cannot read (``port=notaport``, ``sslmode=bogus``)
#: before it connects, and the server of a setting in ``options`` it refuses.
_BAD_OPTION = re.compile(r"invalid [\w ]*value[ :]|invalid port number|invalid value for parameter")
#: What the server says when it is running but takes no more connections (its
#: ``max_connections``, or a role's or database's ``CONNECTION LIMIT``).
#: The pool's check of a connection, in this call, that the server never answered.
_UNANSWERED_CHECK: contextvars.ContextVar[Exception | None] = contextvars.ContextVar(
    "webproviders_index_unanswered_check", default=None
)
_NO_SLOT = re.compile(r"too many clients already|too many connections for (role|database)|connection slots are reserved")

_UPSERT = f"""
INSERT INTO {{s}}.pages AS p (url, host, title, content, digest, fetched_at, provider, published_at,
                              language, config, length, search)
SELECT r.url, r.host, r.title, r.content, r.digest, r.fetched_at, r.provider, r.published_at,
       r.language, r.config::regconfig, r.length, {search_vector("r.config::regconfig", "r.title", "r.content")}
FROM unnest(%(url)s::text[], %(host)s::text[], %(title)s::text[], %(content)s::text[], %(digest)s::text[],
            %(fetched_at)s::float8[], %(provider)s::text[], %(published_at)s::text[], %(language)s::text[],
            %(config)s::text[], %(length)s::int[])
     AS r (url, host, title, content, digest, fetched_at, provider, published_at, language, config, length)
ORDER BY r.url
ON CONFLICT (url) DO UPDATE SET
    host = excluded.host, title = excluded.title, content = excluded.content, digest = excluded.digest,
    fetched_at = excluded.fetched_at, provider = excluded.provider,
    published_at = coalesce(excluded.published_at, p.published_at),
    language = coalesce(excluded.language, p.language), config = excluded.config,
    length = excluded.length, search = excluded.search
WHERE excluded.fetched_at >= p.fetched_at
"""
#: Per term and configuration: the term as a query, its lexemes and how many pages hold each.
_TERMS = """
SELECT t.i, phraseto_tsquery(c.config, t.term)::text, l.lexemes,
       ARRAY(SELECT coalesce((SELECT sum(pages) FROM {s}.terms WHERE term = x), 0)::bigint FROM unnest(l.lexemes) x),
       (SELECT sum(pages)::bigint FROM {s}.totals), (SELECT sum(length)::bigint FROM {s}.totals)
FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t (term, i)
CROSS JOIN {s}.configs c
CROSS JOIN LATERAL (SELECT tsvector_to_array(to_tsvector(c.config, t.term)) AS lexemes) l
"""
#: How often a lexeme occurs in a page, from ``ts_rank`` of it alone. With every weight 1,
#: ``ts_rank`` of one lexeme is (1 + 1/4 + ... + 1/tf²) / (π²/6), and the tail of that sum,
#: π²/6 - (1 + ... + 1/tf²), is close to 1 / (tf + 0.5): so tf comes back exactly (to well
#: past the 256 positions a tsvector keeps), without unpacking the tsvector row by row.
#: Title words carry weight A, so the same with only A counted gives the title's share.
_TF = "round(1 / (1.64493406685 * (1 - ts_rank({weights}, c.search, q.lexeme))) - 0.5)"
#: One statement from candidates to snippets. A snippet is cut from the indexed part of a page
#: (the part its matches are in): ``ts_headline`` over all of a 16 MB page took 10 s. The second set is read only when the first
#: holds fewer pages than asked for (each of those is a hit: it holds a term of the question).
#: A candidate's tsvector is put in an array and taken out again: an array holds its elements
#: whole, so one kept out of line (written before schema 2) is read from TOAST once, not at
#: every ``ts_rank``; ``search || ''`` did the same but rebuilt each (about 2 ms for 400).
_SEARCH = f"""
WITH first AS MATERIALIZED (
    SELECT p.id, p.search, p.length FROM {{s}}.pages p
    WHERE p.search @@ %(first)s::tsquery {{filters}} LIMIT %(budget)s
), candidates AS MATERIALIZED (
    SELECT id, (ARRAY[search])[1] AS search, length FROM first
    UNION ALL
    SELECT id, (ARRAY[search])[1], length FROM (
        SELECT p.id, p.search, p.length FROM {{s}}.pages p
        WHERE p.search @@ %(then)s::tsquery {{filters}} AND (SELECT count(*) FROM first) < %(limit)s
        LIMIT %(then_budget)s
    ) AS more WHERE id NOT IN (SELECT id FROM first)
), frequencies AS MATERIALIZED (
    SELECT c.id, c.length, q.idf,
           {_TF.format(weights="'{{1,1,1,1}}'")} + %(title_extra)s * {_TF.format(weights="'{{0,0,0,1}}'")} AS tf
    FROM candidates c CROSS JOIN unnest(%(lexemes)s::tsquery[], %(idfs)s::float8[]) AS q (lexeme, idf)
), scored AS (
    SELECT id, sum(idf * tf * %(k1_1)s / (tf + %(k1)s * (1 - %(b)s + %(b)s * length / %(average)s))) AS score
    FROM frequencies WHERE tf > 0
    GROUP BY id ORDER BY score DESC, id LIMIT %(limit)s
)
SELECT p.url, p.title, p.fetched_at, p.provider, p.published_at, p.language,
       ts_headline(p.config, {words(f"left(p.content, {INDEXED_CHARS})")}, %(every)s::tsquery, %(headline)s), s.score
FROM scored s JOIN {{s}}.pages p ON p.id = s.id
ORDER BY s.score DESC, p.id
"""
#: The key ``pages_domain`` indexes (:mod:`.pg_schema`): the host reversed, then a dot.
_DOMAIN_KEY = "(reverse(p.host) || '.') COLLATE \"C\""
_COLUMNS = "url, title, content, fetched_at, provider, published_at, language"


def _lexeme_query(lexeme: str) -> str:
    """One lexeme as ``tsquery`` text, quoted so that no character of it is query syntax."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _or(queries: Sequence[str]) -> str:
    return " | ".join(f"( {q} )" for q in dict.fromkeys(queries))


def _and(queries: Sequence[str]) -> str:
    return " & ".join(f"( {q} )" for q in dict.fromkeys(queries))


class _Question:
    """A question's terms as ``tsquery`` text, with the page counts the ranking needs."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        by_term: dict[int, list[str]] = {}
        self.counts: dict[int, int] = {}
        self.idf: dict[str, float] = {}
        pages = length = 0
        for i, query, lexemes, counts, pages, length in rows:
            pages, length = int(pages or 0), int(length or 0)
            if query:
                by_term.setdefault(i, []).append(query)
                # A phrase is in no more pages than its rarest word; each configuration adds its own.
                self.counts[i] = self.counts.get(i, 0) + min(counts, default=0)
            for lexeme, count in zip(lexemes, counts, strict=True):
                self.idf[lexeme] = math.log(1 + (pages - count + 0.5) / (count + 0.5))
        self.terms = {i: _or(queries) for i, queries in by_term.items()}
        self.average = max(length / pages, 1.0) if pages else 1.0

    def candidates(self) -> tuple[str, str]:
        """The ``tsquery`` texts to draw candidates with: the pages matching the first are
        scored; when they are fewer than asked for, so are up to the budget of the second's."""
        order = sorted(self.terms, key=lambda i: self.counts[i])
        found = [i for i in order if self.counts[i]]  # a term in no page picks nothing
        rare: list[int] = []
        matched = 0
        for i in found:
            if matched + self.counts[i] > CANDIDATE_BUDGET:
                break
            rare.append(i)
            matched += self.counts[i]
        every = _or([self.terms[i] for i in order])
        if len(rare) == len(found):  # few enough pages hold any term: score them all
            return every, every
        return _or([self.terms[i] for i in rare]) if rare else _and([self.terms[i] for i in found]), every

    @property
    def every(self) -> str:
        return _or(list(self.terms.values()))


class PostgresStore:
    """The :class:`~webproviders.index.pages.PageStore` in a PostgreSQL database (``dsn``)."""

    def __init__(self, dsn: str, location: str, schema: str = "webproviders", timeout: float = 10.0,
                 pool_size: int = 4) -> None:
        self.dsn = dsn
        self.location = location
        self.schema = schema
        self.timeout = timeout
        self.pool_size = pool_size
        #: How long to wait for a connection: half the time a call has, so that a server that
        #: is down is reported as such (``network_error``) before the call's own deadline.
        self._wait = timeout / 2
        self._connect_timeout = max(2, math.ceil(self._wait))  # libpq's least is 2 s
        self._pool: Any = None
        self._ready = False
        self._server_configs: frozenset[str] = frozenset()
        self._known_configs: set[str] = set()
        self._lock = threading.Lock()
        #: Pooled connections lent to calls under way (the pool's own count holds those it is
        #: still trying to make, as after the server went down).
        self._lent = 0

    def __repr__(self) -> str:
        return f"PostgresStore({self.location!r})"

    # -- connections -------------------------------------------------------------------

    def _limit(self) -> float:
        """Seconds a wait for the server may take: the statement's own bound (the store's
        ``timeout``, or what is left of the call when that is shorter), and a little more."""
        left = remaining_time()
        return (self.timeout if left is None else max(0.0, min(self.timeout, left))) + _GRACE

    def _configure(self, conn: Any) -> None:
        conn.limit = self._limit  # before its first statement: a server that hangs then is left too
        conn.execute("SET client_min_messages = warning")
        # Small lookups with large cost estimates: compiling them takes far longer than running them.
        conn.execute("SET jit = off")
        # A sequential scan that stops at a LIMIT looks cheap to the planner, which does not
        # count unpacking every row's tsvector to test it; the GIN index is always the way in.
        conn.execute("SET enable_seqscan = off")
        conn.execute(f"SET statement_timeout = {int(self.timeout * 1000)}")

    def _open_pool(self) -> Any:
        from psycopg_pool import ConnectionPool

        from .pg_watch import WatchedConnection

        with self._lock:
            if self._pool is None:
                pool = ConnectionPool(
                    self.dsn, min_size=1, max_size=self.pool_size, open=False, timeout=self._wait,
                    kwargs={"autocommit": True, "connect_timeout": self._connect_timeout},
                    connection_class=WatchedConnection, configure=self._configure, check=self._check,
                    name="webproviders-index",
                )
                pool.open(wait=False)
                self._pool = pool
        return self._pool

    def _check(self, conn: Any) -> None:
        """The pool's check of a connection before lending it (an empty query), given no
        longer than a connection is waited for: a server that hangs fails it in that time, and
        the call says so then (a new connection to it would only wait for its login)."""
        from psycopg_pool import ConnectionPool

        from .pg_watch import Unanswered

        wait = self._pool_wait()
        limit, conn.limit = conn.limit, lambda: wait
        try:
            ConnectionPool.check_connection(conn)
        except Unanswered as exc:
            _UNANSWERED_CHECK.set(exc)  # the call then says so, rather than wait to connect anew
            raise
        finally:
            conn.limit = limit

    def close(self) -> None:
        """Close the pool's connections (a later call opens a new pool)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    @contextmanager
    def _connection(self, create: bool) -> Iterator[Any | None]:
        """A connection to a database holding the index; None when there is no index yet and
        ``create`` is False. Errors come out as ours (:meth:`_mapped`)."""
        import psycopg

        try:
            with self._borrowed() as conn:
                yield conn if self._prepare(conn, create) else None
        except WebProviderError:
            raise
        except psycopg.Error as exc:
            raise self._mapped(exc) from None

    @contextmanager
    def _borrowed(self) -> Iterator[Any]:
        """A pooled connection; or one made directly: while there is no pool (the first call,
        or the last pool could not fill), so that a server that refuses is reported at once
        rather than after the pool's wait, and when the pool has none in time for want of
        connections (it may still be waiting out its back-off after the server was down). When
        it has none because all ``pool_size`` of them are in use, the call fails as ``timeout``:
        ``pool_size`` bounds the connections a process opens, also in a burst of calls.
        Otherwise the reason there is none."""
        pool = self._pool
        if pool is not None:
            from psycopg_pool import PoolClosed, PoolTimeout

            wait = self._pool_wait()
            checked = _UNANSWERED_CHECK.set(None)
            try:
                with pool.connection(timeout=wait) as conn, self._lending():
                    yield conn
                return
            except PoolTimeout:
                unanswered = _UNANSWERED_CHECK.get()
                if unanswered is not None:  # a server that hangs: a connection made anew would wait too
                    raise self._mapped(unanswered) from None
                if self._lent >= self.pool_size:
                    raise WebTimeoutError(
                        f"The local index at {self.location} had none of its {self.pool_size} connections "
                        f"free within {wait:.1f} s (all were in use by other calls); try again, or raise "
                        "web.providers.local.pool_size.",
                        provider=PROVIDER,
                    ) from None
            except PoolClosed:
                pass  # another call let it go as it waited (it could not fill): as with no pool
            finally:
                _UNANSWERED_CHECK.reset(checked)
        direct = self._connect()
        if pool is None or pool.closed:
            self._open_pool()  # the server answers: later calls share the pool's connections
        elif pool.get_stats().get("pool_size", 0) < self.pool_size:
            self._discard(pool)  # connections it could not make: a new pool starts afresh
        with direct:
            self._configure(direct)
            yield direct

    @contextmanager
    def _lending(self) -> Iterator[None]:
        with self._lock:
            self._lent += 1
        try:
            yield
        finally:
            with self._lock:
                self._lent -= 1

    def _pool_wait(self) -> float:
        """Seconds to wait for a pooled connection: half the store's timeout, and no more than
        half of what is left of the call, so a server that went down is reported in time."""
        left = remaining_time()
        return self._wait if left is None else max(0.01, min(self._wait, left / 2))

    def _connect(self) -> Any:
        import psycopg

        from .pg_watch import WatchedConnection

        try:
            return WatchedConnection.connect(self.dsn, autocommit=True, connect_timeout=self._connect_timeout)
        except psycopg.Error as exc:
            raise self._misconfigured(exc) or self._refused(exc) or self._unreachable(exc) from None

    def _discard(self, pool: Any) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.close(timeout=0)

    def _prepare(self, conn: Any, create: bool) -> bool:
        """Whether the index exists (made when ``create``); refuses a schema that is not ours."""
        if self._ready:
            return True
        version = self._version(conn)
        if version is None and not create:
            return False
        if version != SCHEMA_VERSION:
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"webproviders:{self.schema}",))
                    version = self._version(conn)
                    conn.execute(statements("CREATE SCHEMA IF NOT EXISTS {s}", self.schema))
                    migrate(conn, self.schema, version or 0)
            except self._denied() as exc:
                if not version:
                    raise
                raise NotConfiguredError(  # a read-only role could search it once it is brought up to date
                    f"The page index in {self.location} was made by an older "
                    f"version of webproviders (schema {version}) and is brought up to date on first use, "
                    f"which the role in web.providers.local.dsn may not do ({scrub(str(exc).strip().splitlines()[0])}); "
                    "run one call with a role that may write the schema.",
                    provider=PROVIDER,
                ) from None
        self._server_configs = frozenset(row[0] for row in conn.execute("SELECT cfgname FROM pg_ts_config"))
        self._ready = True
        return True

    @staticmethod
    def _denied() -> tuple[type[Exception], ...]:
        """The errors of a role that may not change the schema."""
        from psycopg import errors

        return (errors.InsufficientPrivilege, errors.ReadOnlySqlTransaction)

    def _version(self, conn: Any) -> int | None:
        """The schema version of the index; None when the schema is missing or empty; raises
        ``not_configured`` for a schema that holds something else or a newer index."""
        row = conn.execute(
            "SELECT n.oid IS NOT NULL, to_regclass(%(meta)s) IS NOT NULL, "
            "EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid) "
            "OR EXISTS (SELECT 1 FROM pg_proc f WHERE f.pronamespace = n.oid) "
            "FROM (SELECT 1) AS one LEFT JOIN pg_namespace n ON n.nspname = %(schema)s",
            {"schema": self.schema, "meta": statements("{s}.meta", self.schema).as_string(conn)},
        ).fetchone()
        exists, has_meta, has_objects = row
        if not exists or not (has_meta or has_objects):
            return None
        marks = self._marks(conn) if has_meta else {}
        version = marks.get("schema_version", "")
        if marks.get("application") != APPLICATION or not version.isdigit():
            raise NotConfiguredError(
                f"The schema {self.schema!r} in {self.location} holds something other than a webproviders "
                "page index; set web.providers.local.schema to another name.",
                provider=PROVIDER,
            )
        if int(version) > SCHEMA_VERSION:
            raise NotConfiguredError(
                f"The page index in {self.location} was made by a newer version of webproviders (schema "
                f"{version}); upgrade webproviders, or set web.providers.local.schema to another name.",
                provider=PROVIDER,
            )
        return int(version)

    def _marks(self, conn: Any) -> dict[Any, Any]:
        """What the schema's ``meta`` table says; nothing when it is another program's table
        of that name, without the ``key`` and ``value`` columns an index's has."""
        from psycopg import errors

        try:
            with conn.transaction():  # inside a transaction already, only this savepoint fails
                return dict(conn.execute(statements("SELECT key, value FROM {s}.meta", self.schema)).fetchall())
        except errors.UndefinedColumn:
            return {}

    def _misconfigured(self, exc: Exception) -> WebProviderError | None:
        """A connection option that cannot be used (:data:`_BAD_OPTION`), or None: a setting
        to fix, which no retry and no wait for the server mends."""
        text = str(exc)
        if not _BAD_OPTION.search(text):
            return None
        reason = scrub(text.strip().splitlines()[0])
        return NotConfiguredError(
            f"The local index at {self.location} cannot be used ({reason}); correct web.providers.local.dsn.",
            provider=PROVIDER,
        )

    def _refused(self, exc: Exception) -> WebProviderError | None:
        """The server answered and would not let the login in (see :data:`_REFUSED_LOGIN`), or
        None. Not retryable: the same login is refused again. Refused credentials are
        ``auth_error``, like a vendor's 401: they count against ``local``'s health the same way
        (every caller shares them) and a chain moves on; a database the server does not have is
        ``not_configured``, like a vendor's malformed ``base_url``."""
        text = str(exc)
        reason = scrub(text.strip().splitlines()[0] if text.strip() else type(exc).__name__)
        if getattr(getattr(exc, "pgconn", None), "needs_password", False) or _REFUSED_LOGIN.search(text):
            return AuthError(
                f"The local index at {self.location} refused the credentials in web.providers.local.dsn "
                f"({reason}); check the user and password there (or PGPASSWORD, ~/.pgpass) and the "
                "server's pg_hba.conf.",
                provider=PROVIDER,
            )
        if _NO_DATABASE.search(text):
            return NotConfiguredError(
                f"The local index at {self.location} cannot be used ({reason}); name a database the role "
                "in web.providers.local.dsn may connect to.",
                provider=PROVIDER,
            )
        return None

    def _unreachable(self, exc: Exception) -> WebProviderError:
        reason = scrub(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
        if _NO_SLOT.search(reason):  # running, and full: "check that it is running" would mislead
            return NetworkError(
                f"The local index at {self.location} took no more connections ({reason}); lower "
                "web.providers.local.pool_size on the processes that share it, or raise the server's "
                "max_connections (or the role's or database's CONNECTION LIMIT).",
                provider=PROVIDER,
            )
        return NetworkError(
            f"The local index at {self.location} cannot be reached ({reason}); check that PostgreSQL is "
            "running there and web.providers.local.dsn.",
            provider=PROVIDER,
        )

    def _mapped(self, exc: Exception) -> WebProviderError:
        import psycopg
        from psycopg import errors

        from .pg_watch import Unanswered

        text = scrub(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
        if isinstance(exc, Unanswered):
            return WebTimeoutError(
                f"The local index at {self.location} gave no answer within {exc.seconds:.1f} s, and the "
                "connection was closed: the server (or its host) may be hung or overloaded, or a firewall "
                "between drops its replies; check that PostgreSQL there answers, then try again.",
                provider=PROVIDER,
            )
        if isinstance(exc, errors.QueryCanceled):
            return WebTimeoutError(
                f"The local index at {self.location} took longer than {self.timeout:g} s ({text}); try again, "
                "or raise web.providers.local.timeout.",
                provider=PROVIDER,
            )
        if isinstance(exc, (*self._denied(), errors.InvalidSchemaName)):
            return NotConfiguredError(
                f"The local index at {self.location} cannot be used ({text}); the role in "
                "web.providers.local.dsn needs to create and write the index schema.",
                provider=PROVIDER,
            )
        if isinstance(exc, psycopg.OperationalError):
            return NetworkError(
                f"The local index at {self.location} stopped answering ({text}); try again.", provider=PROVIDER
            )
        return ProviderError(f"The local index at {self.location} failed: {text}.", provider=PROVIDER)

    def _sql(self, template: str) -> Any:
        return statements(template, self.schema)

    # -- the store ---------------------------------------------------------------------

    def _config(self, page: IndexedPage) -> str:
        config = CONFIGS.get(page_language(page) or "")
        return config if config in self._server_configs else "simple"

    def add(self, pages: Sequence[IndexedPage]) -> int:
        """Write ``pages`` in batches (:func:`.pages.batches`), each one statement and one
        transaction within ``timeout``: a failure leaves the batches before it written.
        A page past one of PostgreSQL's limits (a long URL that does not fit the index of
        URLs) is left out, the others are written, then the call fails as ``invalid_input``."""
        from psycopg import errors

        unique = sorted({page.url: page for page in pages}.values(), key=lambda page: page.url)
        if not unique:
            return 0
        refused: list[tuple[str, str]] = []
        with self._connection(create=True) as conn:
            assert conn is not None
            for batch in batches(unique, INDEXED_CHARS):
                try:
                    self._write(conn, batch)
                except errors.ProgramLimitExceeded as exc:
                    if len(batch) == 1:
                        refused.append((batch[0].url, str(exc)))
                        continue
                    for one in batch:  # which of them it was
                        try:
                            self._write(conn, [one])
                        except errors.ProgramLimitExceeded as again:
                            refused.append((one.url, str(again)))
        if refused:
            url, reason = refused[0]
            raise InvalidInputError(
                f"{len(refused)} page(s) could not be added to the local index at {self.location}, "
                f"past a limit of PostgreSQL (such as {shorten(scrub(url))}, {len(url):,} characters "
                f"as kept: {scrub(reason.strip().splitlines()[0])}); the other "
                f"{len(unique) - len(refused)} were added.",
                provider=PROVIDER,
            )
        return len(unique)

    def _write(self, conn: Any, pages: list[IndexedPage]) -> None:
        from psycopg import errors

        configs = [self._config(page) for page in pages]
        rows = {
            "url": [p.url for p in pages], "host": [p.host for p in pages],
            "title": [stored(p.title) for p in pages], "content": [stored(p.content) for p in pages],
            "digest": [digest(p) for p in pages], "fetched_at": [p.fetched_at for p in pages],
            "provider": [p.provider for p in pages], "published_at": [p.published_at for p in pages],
            "language": [p.language for p in pages], "config": configs,
            "length": [token_count(p.title) + token_count(p.content) for p in pages],
        }
        new_configs = sorted(set(configs) - self._known_configs)
        for attempt in range(_WRITE_TRIES):
            try:
                with conn.transaction():
                    if new_configs:
                        conn.execute(
                            self._sql("INSERT INTO {s}.configs SELECT unnest(%s::regconfig[]) ON CONFLICT DO NOTHING"),
                            (new_configs,),
                        )
                    conn.execute(self._sql(_UPSERT), rows)
                break
            except errors.DeadlockDetected:
                if attempt == _WRITE_TRIES - 1:
                    raise
                time.sleep(0.01 * (attempt + 1))
        self._known_configs.update(new_configs)

    def get(self, urls: Sequence[str]) -> dict[str, IndexedPage]:
        wanted = list(dict.fromkeys(key for url in urls for key in page_keys(url)))
        if not wanted:
            return {}
        with self._connection(create=False) as conn:
            if conn is None:
                return {}
            rows = conn.execute(self._sql(f"SELECT {_COLUMNS} FROM {{s}}.pages WHERE url = ANY(%s)"), (wanted,)).fetchall()
        return held(urls, {row[0]: IndexedPage(row[0], shown(row[1]), shown(row[2]), *row[3:]) for row in rows})

    @staticmethod
    def _filters(filters: Filters) -> tuple[str, dict[str, Any]]:
        """The filters as ``AND ...`` conditions on ``p``, and their values by name."""
        where: list[str] = []
        values: dict[str, Any] = {}
        if filters.fetched_after is not None:
            where.append("p.fetched_at >= %(after)s")
            values["after"] = filters.fetched_after

        def domain_match(name: str, domain: str) -> str:
            # The host or a subdomain of it: its key (pg_schema's ``pages_domain``) starts with
            # the domain's; '/' is the byte after '.'.
            values[name] = domain
            return (f"({_DOMAIN_KEY} >= reverse(%({name})s) || '.' "
                    f"AND {_DOMAIN_KEY} < reverse(%({name})s) || '/')")

        if filters.include_domains:
            where.append("(" + " OR ".join(
                domain_match(f"in{n}", domain) for n, domain in enumerate(filters.include_domains)) + ")")
        where += [f"NOT {domain_match(f'out{n}', domain)}" for n, domain in enumerate(filters.exclude_domains)]
        return "".join(f" AND {condition}" for condition in where), values

    def search(self, query: str, limit: int, filters: Filters) -> list[Hit]:
        terms = question_terms(query)
        if not terms:
            return no_words(query)
        with self._connection(create=False) as conn:
            if conn is None:
                return never_filled(self.location)
            with self._until_deadline(conn):
                hits = self._ranked(conn, terms, limit, filters)
                if not hits and conn.execute(self._sql("SELECT 1 FROM {s}.pages LIMIT 1")).fetchone() is None:
                    return never_filled(self.location, emptied=True)
                return words_left_out(query) if hits is None else hits

    @contextmanager
    def _until_deadline(self, conn: Any) -> Iterator[None]:
        """The search's statements cancelled by the server at the current call's deadline when
        that comes before the store's own ``timeout``: a search the dispatcher gave up on ends
        then, rather than holding its worker thread and a pooled connection."""
        left = remaining_time()
        if left is None or left >= self.timeout:
            yield
            return
        from psycopg import errors

        try:
            with conn.transaction():  # SET LOCAL: the pooled connection keeps its own timeout
                conn.execute(f"SET LOCAL statement_timeout = {max(1, int(left * 1000))}")
                yield
        except errors.QueryCanceled:
            raise still_searching(self.location) from None

    def _ranked(self, conn: Any, terms: list[str], limit: int, filters: Filters) -> list[Hit] | None:
        """The best hits; None when every term is a word no configuration in use keeps."""
        from psycopg import sql

        question = _Question(conn.execute(self._sql(_TERMS), {"terms": terms}).fetchall())
        if not question.terms:
            return None
        where, names = self._filters(filters)
        statement = sql.SQL(_SEARCH.replace("{filters}", where)).format(s=sql.Identifier(self.schema))
        lexemes = list(question.idf)
        values = {
            "budget": CANDIDATE_BUDGET, "k1": K1, "k1_1": K1 + 1, "b": B, "average": question.average,
            "title_extra": TITLE_WEIGHT - 1, "lexemes": [_lexeme_query(x) for x in lexemes],
            "idfs": [question.idf[x] for x in lexemes],
            "limit": limit, "every": question.every, "headline": _HEADLINE, **names,
        }
        first, then = question.candidates()
        then_budget = CANDIDATE_BUDGET if then != first else 0
        # A filtered search is planned for its own values: a small site's pages are read
        # through the domain index, a domain holding most pages through the word index
        # (a prepared, generic plan takes the domain index for every domain).
        rows = conn.execute(statement, {**values, "first": first, "then": then, "then_budget": then_budget},
                            prepare=False if names else None).fetchall()
        return [
            Hit(IndexedPage(row[0], shown(row[1]), "", row[2], row[3], row[4], row[5]), snippet(row[6], terms=terms),
                float(row[7]))
            for row in rows
        ]

    def remove(self, urls: Sequence[str]) -> int:
        wanted = list(dict.fromkeys(key for url in urls for key in page_keys(url)))
        with self._connection(create=False) as conn:
            if conn is None or not wanted:
                return 0
            return int(conn.execute(self._sql("DELETE FROM {s}.pages WHERE url = ANY(%s)"), (wanted,)).rowcount)

    def prune(self, before: float) -> int:
        """Delete the pages fetched before ``before``, oldest first, :data:`BATCH_PAGES` per
        statement, each its own transaction within ``timeout``: one statement deleting 100,000
        pages (and counting their words out) outlasted it, every time it was tried."""
        with self._connection(create=False) as conn:
            if conn is None:
                return 0
            ids = [row[0] for row in conn.execute(
                self._sql("SELECT id FROM {s}.pages WHERE fetched_at < %s ORDER BY fetched_at, id"), (before,)
            )]
            # A page read again meanwhile keeps its id and is newer: it stays.
            delete = self._sql("DELETE FROM {s}.pages WHERE id = ANY(%s) AND fetched_at < %s")
            return sum(int(conn.execute(delete, (ids[start:start + BATCH_PAGES], before)).rowcount)
                       for start in range(0, len(ids), BATCH_PAGES))

    def stats(self) -> dict[str, Any]:
        """Pages, bytes on disk (pages, their index and the term counts), oldest and newest
        fetch, pages per provider."""
        empty = {"location": self.location, "pages": 0, "bytes": 0, "oldest": None, "newest": None, "providers": {}}
        with self._connection(create=False) as conn:
            if conn is None:
                return empty
            count, oldest, newest, size = conn.execute(self._sql(
                "SELECT count(*), min(fetched_at), max(fetched_at), pg_total_relation_size('{s}.pages'::regclass::oid) "
                "+ pg_total_relation_size('{s}.terms'::regclass::oid) FROM {s}.pages"
            )).fetchone()
            providers = dict(conn.execute(self._sql(
                "SELECT coalesce(provider, '?'), count(*) FROM {s}.pages GROUP BY 1 ORDER BY 2 DESC, 1"
            )).fetchall())
        return {**empty, "pages": count, "bytes": int(size), "oldest": oldest, "newest": newest, "providers": providers}
