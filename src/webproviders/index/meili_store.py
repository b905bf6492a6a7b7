"""The page index in a Meilisearch server, for a fleet that shares one index.

Set ``web.providers.local.url`` to the server (``http://search.internal:7700``) and the
``local`` provider, ``webproviders index`` and the filling hook use its index
``web.providers.local.index_name`` (default ``webproviders_pages``) instead of a file.
Pages are documents keyed by a digest of their canonical URL; ``domains`` (the host and its
parent domains) and ``fetched_at`` are filterable, so domain and time filters run on the
server. Meilisearch applies writes as background tasks: a page is searchable once its task
has run (usually well under a second), and removals report no count.

API used: ``PATCH /indexes/{uid}/settings``, ``POST /indexes/{uid}/documents``,
``POST /indexes/{uid}/documents/fetch``, ``POST /indexes/{uid}/search`` (``_formatted``
cropped and highlighted content, ``_rankingScore``), ``POST /indexes/{uid}/documents/delete-batch``,
``POST /indexes/{uid}/documents/delete`` (by filter) and ``GET /indexes/{uid}/stats``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import (
    AuthError,
    NotConfiguredError,
    NotFoundError,
    WebProviderError,
    error_for_status,
    to_provider_error,
)
from ..responses import read_response
from ..urls import canonicalize
from .pages import Filters, Hit, IndexedPage, parent_domains

if TYPE_CHECKING:
    import httpx

PROVIDER = "local"
VENDOR = "Meilisearch"
#: Words of content around the match in a search snippet.
CROP_WORDS = 32
SETTINGS = {
    "searchableAttributes": ["title", "content"],
    "filterableAttributes": ["domains", "fetched_at", "provider"],
    "sortableAttributes": ["fetched_at"],
}
_RETRIEVE = ["url", "title", "content", "fetched_at", "provider", "published_at"]
_AUTH_CODES = frozenset({"missing_authorization_header", "invalid_api_key"})


def document_id(url: str) -> str:
    """A Meilisearch document id (letters, digits, ``-``, ``_``) for a canonical URL."""
    return hashlib.sha256(url.encode("utf-8")).hexdigest()


def _document(page: IndexedPage) -> dict[str, Any]:
    return {
        "id": document_id(page.url),
        "url": page.url,
        "domains": parent_domains(page.host),
        "title": page.title,
        "content": page.content,
        "fetched_at": page.fetched_at,
        "provider": page.provider,
        "published_at": page.published_at,
    }


def _page(doc: dict[str, Any]) -> IndexedPage:
    def text(key: str) -> str:
        value = doc.get(key)
        return value if isinstance(value, str) else ""

    fetched = doc.get("fetched_at")
    return IndexedPage(
        text("url"),
        text("title"),
        text("content"),
        float(fetched) if isinstance(fetched, (int, float)) and not isinstance(fetched, bool) else 0.0,
        text("provider") or None,
        text("published_at") or None,
    )


def _list(values: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def filter_expression(filters: Filters) -> list[str]:
    """Meilisearch ``filter`` clauses (all must hold) for our search filters."""
    clauses = []
    if filters.include_domains:
        clauses.append(f"domains IN {_list(filters.include_domains)}")
    if filters.exclude_domains:
        clauses.append(f"domains NOT IN {_list(filters.exclude_domains)}")
    if filters.fetched_after is not None:
        clauses.append(f"fetched_at >= {filters.fetched_after:.3f}")
    return clauses


class MeiliStore:
    """The :class:`~webproviders.index.pages.PageStore` over Meilisearch's HTTP API."""

    def __init__(self, url: str, index: str, api_key: str | None = None, timeout: float = 10.0,
                 highlight: tuple[str, str] = ("**", "**")) -> None:
        self.url = url.rstrip("/")
        self.index = index
        self.location = f"{self.url}/indexes/{index}"
        self.api_key = api_key
        self.timeout = timeout
        self.highlight = highlight
        self._client: httpx.Client | None = None
        self._settings_sent = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # the key stays out of reprs
        return f"<MeiliStore {self.location}>"

    def _http(self) -> httpx.Client:
        if self._client is None:
            import httpx

            with self._lock:
                if self._client is None:
                    headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
                    self._client = httpx.Client(base_url=self.url, headers=headers, timeout=self.timeout)
        return self._client

    def _classify(self, response: httpx.Response, body: Any) -> WebProviderError | None:
        if response.status_code < 400:
            return None
        error = body if isinstance(body, dict) else {}
        code, message = str(error.get("code") or ""), str(error.get("message") or "").strip()
        said = f"{message} ({code})" if code else message or f"HTTP {response.status_code}"
        if code in _AUTH_CODES or response.status_code in (401, 403):
            return AuthError(
                f"{VENDOR} at {self.url} refused the request: {said}. Check MEILISEARCH_API_KEY "
                f"(or web.providers.{PROVIDER}.api_key).",
                provider=PROVIDER,
            )
        if code in ("index_not_found", "document_not_found"):
            return NotFoundError(f"{VENDOR} at {self.url}: {said}.", provider=PROVIDER)
        if code.startswith("invalid_search_filter") or code == "invalid_document_filter":
            return NotConfiguredError(
                f"{VENDOR} index {self.index} cannot filter as asked: {said}. Its filterableAttributes "
                f"must include {', '.join(SETTINGS['filterableAttributes'])} (set on the first write "
                "through webproviders).",
                provider=PROVIDER,
            )
        if not code:
            return None  # the generic status mapping
        return error_for_status(
            response.status_code, PROVIDER, response.headers, vendor=VENDOR, message=said
        )

    def _call(self, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        try:
            response = self._http().request(method, f"/indexes/{self.index}{path}", json=body, params=params)
        except Exception as exc:  # noqa: BLE001 - transport errors become ours
            raise to_provider_error(exc, PROVIDER) from None
        result, error = read_response(response, PROVIDER, self._classify)
        if error is not None:
            raise error
        return result

    def _ensure_settings(self) -> None:
        """Make the fields we filter on filterable; once per store, before the first write."""
        if not self._settings_sent:
            self._call("PATCH", "/settings", SETTINGS)
            self._settings_sent = True

    def add(self, pages: Sequence[IndexedPage]) -> int:
        if not pages:
            return 0
        self._ensure_settings()
        self._call("POST", "/documents", [_document(p) for p in pages], {"primaryKey": "id"})
        return len(pages)

    def get(self, urls: Sequence[str]) -> dict[str, IndexedPage]:
        ids = list(dict.fromkeys(document_id(canonicalize(url)) for url in urls))
        try:
            body = self._call("POST", "/documents/fetch", {"ids": ids, "limit": len(ids), "fields": _RETRIEVE})
        except NotFoundError:  # no index yet: nothing indexed
            return {}
        pages = [_page(doc) for doc in (body or {}).get("results") or [] if isinstance(doc, dict)]
        return {page.url: page for page in pages if page.url}

    def search(self, query: str, limit: int, filters: Filters) -> list[Hit]:
        request: dict[str, Any] = {
            "q": query,
            "limit": limit,
            "attributesToRetrieve": _RETRIEVE,
            "attributesToCrop": ["content"],
            "cropLength": CROP_WORDS,
            "attributesToHighlight": ["content"],
            "highlightPreTag": self.highlight[0],
            "highlightPostTag": self.highlight[1],
            "showRankingScore": True,
        }
        clauses = filter_expression(filters)
        if clauses:
            request["filter"] = clauses
        try:
            body = self._call("POST", "/search", request)
        except NotFoundError:
            return []
        hits = []
        for doc in (body or {}).get("hits") or []:
            if not isinstance(doc, dict):
                continue
            formatted = doc.get("_formatted") if isinstance(doc.get("_formatted"), dict) else {}
            snippet = formatted.get("content") if isinstance(formatted.get("content"), str) else ""
            score = doc.get("_rankingScore")
            page = _page(doc)
            if page.url:
                hits.append(Hit(page, " ".join(snippet.split()), float(score) if isinstance(score, (int, float)) else 0.0))
        return hits

    def remove(self, urls: Sequence[str]) -> None:
        ids = list(dict.fromkeys(document_id(canonicalize(url)) for url in urls))
        try:
            self._call("POST", "/documents/delete-batch", ids)
        except NotFoundError:
            pass

    def prune(self, before: float) -> None:
        try:
            self._call("POST", "/documents/delete", {"filter": f"fetched_at < {before:.3f}"})
        except NotFoundError:
            pass

    def stats(self) -> dict[str, Any]:
        """Documents and index size from ``/stats``; oldest, newest and per provider from facets."""
        empty = {"location": self.location, "pages": 0, "bytes": 0, "oldest": None, "newest": None, "providers": {}}
        try:
            stats = self._call("GET", "/stats") or {}
            facets = self._call("POST", "/search", {"q": "", "limit": 0, "facets": ["fetched_at", "provider"]}) or {}
        except NotFoundError:
            return empty
        span = (facets.get("facetStats") or {}).get("fetched_at") or {}
        providers = (facets.get("facetDistribution") or {}).get("provider") or {}
        return {
            **empty,
            "pages": stats.get("numberOfDocuments", 0),
            "bytes": stats.get("indexSize") or stats.get("rawDocumentDbSize") or 0,
            "oldest": span.get("min"),
            "newest": span.get("max"),
            "providers": dict(providers),
            "indexing": bool(stats.get("isIndexing")),
        }
