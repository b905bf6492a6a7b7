"""Filling the index on purpose: :func:`index_urls` (and ``webproviders index URL...``).

Pages are read through the configured extract or crawl backend, fresh (the answer cache is
bypassed), and written before the function returns. The index cannot fill itself, so the
``local`` provider is left out of the backend chain it would otherwise read from.
"""

from __future__ import annotations

import re
import time
from typing import Any

from ..config import BackendSpec, Config, default_config
from ..envelope import failure
from ..errors import InvalidInputError, WebProviderError, to_provider_error
from ..manifest import Capability
from ..redact import holds_secret, scrub
from ..validate import MAX_URLS, check_url
from .pages import IndexedPage, PageStore, pages_from_items
from .stores import INDEX_PROVIDER, open_store

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}


def parse_age(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``45s``, ``2w`` as seconds."""
    match = _AGE.match(text or "")
    if not match:
        raise InvalidInputError(
            f"An age is a number and a unit (s, m, h, d or w), such as 30d or 12h; got {text!r}."
        )
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def _fetchers(capability: Capability, backend: BackendSpec | None, config: Config) -> BackendSpec | None:
    """The backend to read with: the one that would be used, without the index itself."""
    from ..dispatch.plan import resolve
    from ..registry.providers import get_registry

    try:
        plan = resolve(capability, backend, get_registry(config))
    except WebProviderError:
        return backend  # dispatch reports the problem in its envelope
    names = [name for name in plan.candidates if name != INDEX_PROVIDER]
    if names == plan.candidates:
        return backend
    if not names and backend is not None:  # asked for: auto-detection could pick a paid vendor
        raise InvalidInputError(
            f"The index cannot read pages into itself: name the backend to {capability} them with "
            "(such as http), or leave the backend out to use the configured one."
        )
    return names or None  # None: auto-detection, which never picks the index


def _read(
    urls: list[str], crawl: bool, max_pages: int | None, backend: BackendSpec | None, config: Config,
    timeout: float | None,
) -> tuple[list[IndexedPage], list[dict[str, Any]], dict[str, Any] | None, list[str]]:
    """Pages read, per-URL failures, a failure envelope when every call failed whole, and the
    warnings of the calls that read pages (a crawl stopped by its deadline, with pages left)."""
    from ..dispatch.api import dispatch_crawl, dispatch_extract

    capability: Capability = "crawl" if crawl else "extract"
    fetchers = _fetchers(capability, backend, config)
    if crawl:
        options = {} if max_pages is None else {"max_pages": max_pages}
        calls = [([url], dispatch_crawl(url, backend=fetchers, config=config, timeout=timeout, cache=False, **options))
                 for url in urls]
    else:
        batches = [urls[i:i + MAX_URLS] for i in range(0, len(urls), MAX_URLS)]
        calls = [(batch, dispatch_extract(batch, backend=fetchers, config=config, timeout=timeout, cache=False))
                 for batch in batches]
    pages: dict[str, IndexedPage] = {}
    failed: list[dict[str, Any]] = []
    warnings: dict[str, None] = {}
    for asked, envelope in calls:
        if not envelope.get("success"):
            per_url = envelope.get("meta", {}).get("failures")  # an extract or crawl that read no page
            failed += per_url or [{"url": url, "error": envelope.get("error"), "error_code": envelope.get("error_code")}
                                  for url in asked]
            continue
        warnings.update(dict.fromkeys(envelope.get("meta", {}).get("warnings") or []))
        items = envelope.get("data") or []
        failed += [{"url": item["url"], "error": item["error"], "error_code": item.get("error_code")}
                   for item in items if item.get("error")]
        for page in pages_from_items(items, envelope.get("provider"), INDEX_PROVIDER, time.time()):
            pages[page.url] = page
    whole = [envelope for _, envelope in calls if not envelope.get("success")]
    return list(pages.values()), failed, whole[-1] if len(whole) == len(calls) else None, list(warnings)


def index_urls(
    urls: str | list[str],
    *,
    crawl: bool = False,
    max_pages: int | None = None,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Read ``urls`` (or crawl from each with ``crawl=True``) and add the pages to the index.

    Returns ``{"success": True, "data": {"indexed": [url, ...], "failed": [{url, error,
    error_code}, ...], "index": location}}``; a failure envelope when the index cannot be
    opened or written, when the arguments are wrong, or when no URL could be read at all.
    ``timeout`` is each read's deadline; the write waits for a busy index as the store's
    ``busy_timeout`` allows.
    """
    started = time.perf_counter()

    def meta() -> dict[str, Any]:
        return {"latency_ms": round((time.perf_counter() - started) * 1000, 3)}

    try:
        cfg = config if config is not None else default_config()
        items = [urls] if isinstance(urls, str) else list(urls) if isinstance(urls, (list, tuple)) else None
        if not items:
            raise InvalidInputError("index_urls needs one URL or a list of URLs.")
        checked = list(dict.fromkeys(check_url(url) for url in items))
        if max_pages is not None and (isinstance(max_pages, bool) or not isinstance(max_pages, int) or max_pages < 1):
            raise InvalidInputError(f"max_pages must be a whole number above 0, not {max_pages!r}.")
        store = open_store(cfg)
        pages, failed, whole, warnings = _read(checked, crawl, max_pages, backend, cfg, timeout)
        pages, refused = _without_credentials(pages)
        failed += refused
        removed = _remove_gone(store, failed)
        if whole is not None:
            return _said(whole, removed)
        store.add(pages)
    except Exception as exc:  # noqa: BLE001 - like dispatch, a failure is an envelope
        return failure(to_provider_error(exc, INDEX_PROVIDER), INDEX_PROVIDER, meta())
    data = {
        "indexed": [page.url for page in pages],
        "failed": failed,
        "removed": removed,
        "index": store.location,
    }
    said = {**meta(), "warnings": warnings} if warnings else meta()
    return _said({"success": True, "data": data, "provider": INDEX_PROVIDER, "meta": said}, removed)


def _without_credentials(pages: list[IndexedPage]) -> tuple[list[IndexedPage], list[dict[str, Any]]]:
    """The pages whose URL carries no credential (``?api_key=``, a configured key), and a
    failure for each other: as the filling from every call does, since whoever searches the
    index would be handed the credential with the page's URL."""
    kept = [page for page in pages if not holds_secret(page.url)]
    refused = [
        {"url": scrub(page.url), "error_code": "invalid_input", "error": (
            f"Not indexed: {scrub(page.url)} carries a credential, which every search of the index "
            "would show with the page; index the page under a URL without it."
        )}
        for page in pages if holds_secret(page.url)
    ]
    return kept, refused


def _remove_gone(store: PageStore, failed: list[dict[str, Any]]) -> list[str]:
    """Remove the pages the source no longer has (read as ``not_found``: HTTP 404 or 410):
    indexing a URL again replaces its page, and a page that is gone is replaced by none,
    where the index would go on serving its old copy. Returns the URLs it held."""
    gone = list(dict.fromkeys(item["url"] for item in failed if item.get("error_code") == "not_found"))
    held = list(store.get(gone)) if gone else []
    if held:
        store.remove(held)
    return held


def _said(envelope: dict[str, Any], removed: list[str]) -> dict[str, Any]:
    """``envelope`` with a warning naming the pages removed as gone, if any."""
    if removed:
        warnings = envelope.setdefault("meta", {}).setdefault("warnings", [])
        names = ", ".join(removed)
        warnings.append(f"Removed from the local index, as the source no longer has them: {names}.")
    return envelope
