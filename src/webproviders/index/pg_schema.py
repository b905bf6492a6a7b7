"""The PostgreSQL page index's tables, and bringing a database to the schema this version uses.

Everything lives in one PostgreSQL schema (``webproviders`` by default), so an index shares
a database with anything else. ``meta`` says whose the schema is and its version; the
numbered steps of :data:`MIGRATIONS` (SQL, or Python where a page's text must be
re-stored with :mod:`.text`) take it from one version to the next (a new schema runs them
all), under an advisory lock, so many workers starting at once set it up once. A
schema that holds other things, or a newer version, is refused and left as it is.

Beside the pages, ``terms`` keeps how many pages hold each lexeme and ``totals`` how many
pages there are and how long they are, for BM25's inverse document frequency. Triggers keep
them in step with every insert, update and delete, in the same transaction. Each writer adds
to the rows of its own shard (its backend process id modulo :data:`SHARDS`), in lexeme
order, so concurrent writers seldom wait on one another; a reader sums the shards. (An upsert
that both adds and changes pages counts in two passes, so two writers of one shard can still
deadlock now and then: the store runs such a write again.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .text import CJK_CHARS, shown, stored, token_count

APPLICATION = "webproviders page index"
SHARDS = 16
#: Characters of a page given to ``to_tsvector`` (a ``tsvector`` holds at most 1 MB); the
#: page is stored whole.
INDEXED_CHARS = 300_000
#: Pages re-stored per statement when a migration rewrites them (each statement is bounded
#: by the store's timeout).
_BATCH = 500


#: Printable ASCII other than letters, digits and ``_``: around it PostgreSQL's parser keeps
#: an email, a path, a version number, a host or a URL as one token (``a@b.com``).
_JOINERS = r"[\x21-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7e]+"


def words(text: str) -> str:
    """SQL of the text ``text`` with :data:`.text.SEGMENT` around each run of ASCII
    punctuation, so that PostgreSQL's parser splits it into the words questions and the
    SQLite store split it into; :func:`.text.shown` takes the separators out again."""
    return f"regexp_replace({text}, '{_JOINERS}', E'\\x1f\\\\&\\x1f', 'g')"


def search_vector(config: str, title: str, content: str) -> str:
    """SQL of a page's ``tsvector`` from SQL expressions of its configuration, title and
    content: one definition for writing pages and for migrating them; title words weigh A."""
    return (f"setweight(to_tsvector({config}, {words(title)}), 'A') "
            f"|| to_tsvector({config}, {words(f'left({content}, {INDEXED_CHARS})')})")


_PAGES = """
CREATE TABLE {s}.meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE {s}.pages (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url text NOT NULL UNIQUE,
    host text NOT NULL,
    title text NOT NULL,
    content text NOT NULL,
    digest text NOT NULL,
    fetched_at double precision NOT NULL,
    provider text,
    published_at text,
    language text,
    config regconfig NOT NULL,
    length integer NOT NULL,
    search tsvector NOT NULL
);
CREATE INDEX pages_search ON {s}.pages USING gin (search);
CREATE INDEX pages_fetched_at ON {s}.pages (fetched_at);
CREATE TABLE {s}.configs (config regconfig PRIMARY KEY);
CREATE TABLE {s}.terms (
    term text NOT NULL, shard smallint NOT NULL, pages bigint NOT NULL, PRIMARY KEY (term, shard)
);
CREATE TABLE {s}.totals (shard smallint PRIMARY KEY, pages bigint NOT NULL, length bigint NOT NULL);
CREATE FUNCTION {s}.count(searches tsvector[], lengths integer[], signs integer[]) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO {s}.terms AS t (term, shard, pages)
        SELECT lexeme, pg_backend_pid() % {shards}, sum(c.sign)
        FROM unnest(searches, signs) AS c (search, sign), unnest(tsvector_to_array(c.search)) AS lexeme
        GROUP BY lexeme HAVING sum(c.sign) <> 0 ORDER BY lexeme
        ON CONFLICT (term, shard) DO UPDATE SET pages = t.pages + excluded.pages;
    INSERT INTO {s}.totals AS t (shard, pages, length)
        SELECT pg_backend_pid() % {shards}, sum(c.sign), sum(c.sign * c.length)
        FROM unnest(lengths, signs) AS c (length, sign) HAVING count(*) > 0
        ON CONFLICT (shard) DO UPDATE SET pages = t.pages + excluded.pages, length = t.length + excluded.length;
$$;
CREATE FUNCTION {s}.count_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    PERFORM {s}.count(array_agg(search), array_agg(length), array_agg(1)) FROM new_rows;
    RETURN NULL;
END $$;
CREATE FUNCTION {s}.count_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    PERFORM {s}.count(array_agg(search), array_agg(length), array_agg(-1)) FROM old_rows;
    RETURN NULL;
END $$;
CREATE FUNCTION {s}.count_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    PERFORM {s}.count(array_agg(c.search), array_agg(c.length), array_agg(c.sign)) FROM (
        SELECT n.search, n.length, 1 AS sign FROM new_rows n JOIN old_rows o USING (id)
        WHERE (o.digest, o.config) IS DISTINCT FROM (n.digest, n.config)
        UNION ALL
        SELECT o.search, o.length, -1 FROM new_rows n JOIN old_rows o USING (id)
        WHERE (o.digest, o.config) IS DISTINCT FROM (n.digest, n.config)
    ) AS c;
    RETURN NULL;
END $$;
CREATE TRIGGER pages_added AFTER INSERT ON {s}.pages
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {s}.count_added();
CREATE TRIGGER pages_changed AFTER UPDATE ON {s}.pages
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {s}.count_changed();
CREATE TRIGGER pages_removed AFTER DELETE ON {s}.pages
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {s}.count_removed();
"""

#: Version 2: each page's tsvector is kept in its row (read for every candidate scored, it
#: cost an index lookup and two more pages in TOAST; pages written before keep theirs out of
#: line until rewritten), and the domain filter gets an index: the host reversed, with a dot
#: after it, so a domain and its subdomains are one range of keys (byte order, whatever the
#: database's collation).
_ROWS_AND_DOMAINS = """
ALTER TABLE {s}.pages ALTER COLUMN search SET STORAGE MAIN;
CREATE INDEX pages_domain ON {s}.pages ((reverse(host) || '.') COLLATE "C");
"""

#: Pages given new text (``%(id)s`` ... as arrays), their words indexed again.
_RESTORE = f"""
UPDATE {{s}}.pages p SET title = r.title, content = r.content, length = r.length,
    search = {search_vector("p.config", "r.title", "r.content")}
FROM unnest(%(id)s::bigint[], %(title)s::text[], %(content)s::text[], %(length)s::int[]) AS r (id, title, content, length)
WHERE p.id = r.id
"""
#: The words of the pages ``%(id)s`` taken out of the counts (``%(sign)s`` -1) or put in (1):
#: the triggers count only a change of text (``digest``), which a re-stored page is not.
_COUNT = "SELECT {s}.count(array_agg(search), array_agg(length), array_agg(%(sign)s)) FROM {s}.pages WHERE id = ANY(%(id)s)"


def _set_apart(conn: Any, schema: str, count: bool = True) -> None:
    """Version 3: pages holding CJK characters kept as this version sets them apart
    (:func:`.text.stored`: also from the Latin words and digits they touch), indexed and
    counted so (by hand: ``count``; this version's trigger counts only a change of ``digest``);
    the others are not touched."""
    rows = conn.execute(
        statements("SELECT id, title, content FROM {s}.pages WHERE title ~ %(cjk)s OR content ~ %(cjk)s", schema),
        {"cjk": f"[{CJK_CHARS}]"},
    ).fetchall()
    changed = [
        (row_id, stored(title), stored(content), token_count(shown(title)) + token_count(shown(content)))
        for row_id, title, content in rows
        if (stored(title), stored(content)) != (title, content)
    ]
    for start in range(0, len(changed), _BATCH):
        ids, titles, contents, lengths = (list(column) for column in zip(*changed[start:start + _BATCH], strict=True))
        if count:
            conn.execute(statements(_COUNT, schema), {"id": ids, "sign": -1})
        conn.execute(statements(_RESTORE, schema), {"id": ids, "title": titles, "content": contents, "length": lengths})
        if count:
            conn.execute(statements(_COUNT, schema), {"id": ids, "sign": 1})


def _thai_set_apart(conn: Any, schema: str) -> None:
    """Version 5: Thai, Lao, Myanmar and Khmer text set apart as CJK text is; counted by the
    trigger of version 4, which counts a page whose words changed."""
    _set_apart(conn, schema, count=False)


#: Version 4: a page written again with the same text is counted again when its words were
#: indexed differently (pages written before this version split emails, paths, versions and
#: URLs as PostgreSQL's parser does, see :func:`words`, until they are written again).
_RECOUNT_REINDEXED = """
CREATE OR REPLACE FUNCTION {s}.count_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    PERFORM {s}.count(array_agg(c.search), array_agg(c.length), array_agg(c.sign)) FROM (
        SELECT n.search, n.length, 1 AS sign FROM new_rows n JOIN old_rows o USING (id)
        WHERE (o.digest, o.config, o.search) IS DISTINCT FROM (n.digest, n.config, n.search)
        UNION ALL
        SELECT o.search, o.length, -1 FROM new_rows n JOIN old_rows o USING (id)
        WHERE (o.digest, o.config, o.search) IS DISTINCT FROM (n.digest, n.config, n.search)
    ) AS c;
    RETURN NULL;
END $$;
"""

#: Step i takes a schema from version i to i + 1 (SQL, or a function of the connection and
#: the schema's name); a new schema runs them all.
MIGRATIONS: list[str | Callable[[Any, str], None]] = [
    _PAGES, _ROWS_AND_DOMAINS, _set_apart, _RECOUNT_REINDEXED, _thai_set_apart,
]
SCHEMA_VERSION = len(MIGRATIONS)


def statements(template: str, schema: str) -> Any:
    """``template`` with the schema name quoted in (``{s}``) as a composed SQL statement."""
    from psycopg import sql

    return sql.SQL(template.replace("{shards}", str(SHARDS))).format(s=sql.Identifier(schema))


def migrate(conn: Any, schema: str, version: int) -> None:
    """Run the steps from ``version`` on, and stamp the schema; inside the caller's transaction."""
    for step in MIGRATIONS[version:]:
        if callable(step):
            step(conn, schema)
        else:
            conn.execute(statements(step, schema))
    conn.execute(
        statements(
            "INSERT INTO {s}.meta (key, value) VALUES ('application', %(app)s), ('schema_version', %(version)s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            schema,
        ),
        {"app": APPLICATION, "version": str(SCHEMA_VERSION)},
    )
