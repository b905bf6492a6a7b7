"""The PostgreSQL page index's tables, and bringing a database to the schema this version uses.

Everything lives in one PostgreSQL schema (``webproviders`` by default), so an index shares
a database with anything else. ``meta`` says whose the schema is and its version; the
numbered steps of :data:`MIGRATIONS` take it from one version to the next (a new schema runs
them all), under an advisory lock, so many workers starting at once set it up once. A
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

from typing import Any

APPLICATION = "webproviders page index"
SHARDS = 16

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

#: Step i takes a schema from version i to i + 1; a new schema runs them all.
MIGRATIONS: list[str] = [_PAGES, _ROWS_AND_DOMAINS]
SCHEMA_VERSION = len(MIGRATIONS)


def statements(template: str, schema: str) -> Any:
    """``template`` with the schema name quoted in (``{s}``) as a composed SQL statement."""
    from psycopg import sql

    return sql.SQL(template.replace("{shards}", str(SHARDS))).format(s=sql.Identifier(schema))


def migrate(conn: Any, schema: str, version: int) -> None:
    """Run the steps from ``version`` on, and stamp the schema; inside the caller's transaction."""
    for step in MIGRATIONS[version:]:
        conn.execute(statements(step, schema))
    conn.execute(
        statements(
            "INSERT INTO {s}.meta (key, value) VALUES ('application', %(app)s), ('schema_version', %(version)s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            schema,
        ),
        {"app": APPLICATION, "version": str(SCHEMA_VERSION)},
    )
