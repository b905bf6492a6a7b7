"""Meilisearch responses shaped as its API reference documents them (values invented)."""

from __future__ import annotations

from typing import Any

from webproviders.index.meili_store import document_id

MEILI_URL = "http://127.0.0.1:7700"
MEILI_KEY = "meili-test-key-0123456789abcdef"
INDEX = "webproviders_pages"
BASE = f"{MEILI_URL}/indexes/{INDEX}"
RETRIES = "https://docs.example.com/guide/retries"
FETCHED = 1_790_000_000.5


def document(url: str, title: str, content: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": document_id(url),
        "url": url,
        "domains": [url.split("/")[2], *url.split("/")[2].split(".", 1)[1:]],
        "title": title,
        "content": content,
        "fetched_at": FETCHED,
        "provider": "http",
        "published_at": None,
        **extra,
    }


RETRIES_DOC = document(
    RETRIES, "Configuring retries",
    "# Configuring retries\n\nSet `max_retries` and `backoff` to configure retries. Each retry waits twice as long.",
    published_at="2026-01-10",
)

SEARCH = {
    "hits": [
        {
            **RETRIES_DOC,
            "_formatted": {
                **{k: str(v) if isinstance(v, float) else v for k, v in RETRIES_DOC.items()},
                "content": "…Set `max_retries` and `backoff` to **configure** **retries**. Each retry waits…",
            },
            "_rankingScore": 0.9138,
        },
        {
            **document("https://blog.example.org/posts/outages", "Why outages happen", "Bounded retries keep it small."),
            "_formatted": {"content": "Bounded **retries** keep it\nsmall."},
            "_rankingScore": 0.5123,
        },
    ],
    "query": "configure retries",
    "processingTimeMs": 1,
    "limit": 5,
    "offset": 0,
    "estimatedTotalHits": 2,
}

FETCH = {"results": [RETRIES_DOC], "offset": 0, "limit": 2, "total": 1}

STATS = {
    "numberOfDocuments": 2,
    "indexSize": 1572864,
    "usedIndexSize": 524288,
    "rawDocumentDbSize": 4096,
    "avgDocumentSize": 2048,
    "isIndexing": False,
    "numberOfEmbeddings": 0,
    "numberOfEmbeddedDocuments": 0,
    "fieldDistribution": {"id": 2, "url": 2, "title": 2, "content": 2},
}

FACETS = {
    "hits": [],
    "query": "",
    "processingTimeMs": 0,
    "limit": 0,
    "offset": 0,
    "estimatedTotalHits": 2,
    "facetDistribution": {"fetched_at": {"1790000000.5": 2}, "provider": {"http": 2}},
    "facetStats": {"fetched_at": {"min": 1_780_000_000.0, "max": 1_790_000_000.5}},
}


def task(kind: str, uid: int = 147) -> dict[str, Any]:
    """What every write answers with (HTTP 202): the enqueued task."""
    return {"taskUid": uid, "indexUid": INDEX, "status": "enqueued", "type": kind,
            "enqueuedAt": "2026-11-20T17:05:55.791772Z"}


def error(message: str, code: str, kind: str = "invalid_request") -> dict[str, Any]:
    return {"message": message, "code": code, "type": kind, "link": f"https://docs.meilisearch.com/errors#{code}"}


INDEX_NOT_FOUND = error(f"Index `{INDEX}` not found.", "index_not_found")
INVALID_KEY = error("The provided API key is invalid.", "invalid_api_key", "auth")
NOT_FILTERABLE = error(
    "Attribute `domains` is not filterable. This index does not have configured filterable attributes.\n"
    '1:8 domains IN ["example.com"]',
    "invalid_search_filter",
)
INTERNAL = error("An internal error has occurred. `Resource temporarily unavailable (os error 11)`.", "internal",
                 "internal")
