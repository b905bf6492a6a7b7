"""A searchable index of pages already read: one SQLite FTS5 file, or a PostgreSQL database.

The ``local`` provider searches and extracts from it; ``webproviders index`` and
:func:`webproviders.index_urls` fill it on purpose; with ``web.local.index: true`` every
successful extract and crawl fills it too (:mod:`.autofill`). Any plugin may use the same
store through :func:`webproviders.index.stores.open_store`. Nothing here loads with
``import webproviders``: sqlite3 and psycopg are imported on first use.
"""
