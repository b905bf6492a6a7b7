"""Filling the index from every successful extract and crawl (``web.local.index: true``).

The ``local`` plugin's ``after_dispatch`` hook hands each envelope here. The pages are
picked out at once (cheap) and written by one background thread, so a call never waits for
the index, and writes from one process never contend with each other. A failed write is
logged, never raised: the index is a by-product of the call. Queued writes still run when
the interpreter exits, for up to :data:`EXIT_WAIT` seconds: an index that stopped answering
(a frozen server accepts a query and never replies; a write gives up on it within the store's
``timeout`` and a second, while the later ones queue) neither holds the process open nor, past :data:`MAX_PENDING` queued writes, the pages
of every later call in memory; what is dropped is logged.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from concurrent.futures import Future, wait
from typing import Any

from ..config import Config
from ..pools import LazyPool
from ..redact import get_logger, holds_secret, scrub
from .pages import IndexedPage, pages_from_items
from .stores import INDEX_PROVIDER, open_store

log = get_logger("webproviders.index")

#: Daemon: a write stuck on an index that never answers must not keep the interpreter alive.
_writer = LazyPool(1, "webproviders-index")
_pending: set[Future[None]] = set()
_pending_lock = threading.Lock()
#: Seconds the interpreter's exit waits for queued writes (milliseconds on an index that answers).
EXIT_WAIT = 3.0
#: Writes that may wait for the writer; a later one is dropped (and logged) until they drain.
MAX_PENDING = 256


def index_envelope(
    config: Config, capability: str, envelope: dict[str, Any], options: dict[str, Any] | None = None
) -> int:
    """Queue the pages of a successful, freshly fetched extract or crawl; returns how many.

    Left out: failures, cached answers (nothing new was read), failed items, pages the index
    itself served, pages cut to the call's ``max_chars``, pages read in another format than
    markdown (``options``, the call's: the index keeps and serves markdown, and a plain-text
    reading would replace the markdown copy an extract is served), and pages whose URL carries a
    credential (``?api_key=``, ``user:password@``, a configured key): every caller searches the
    index, and its hits would hand them the credential along with a page that needed it. A page read as ``not_found`` (HTTP 404 or
    410) is removed, in a failed call too: the index would go on serving its old copy.
    """
    if not config.web.local.index or capability not in ("extract", "crawl"):
        return 0
    meta = envelope.get("meta") or {}
    if meta.get("cached"):
        return 0
    data = envelope.get("data")
    items = data if envelope.get("success") and isinstance(data, list) else meta.get("failures") or []
    gone = [
        item["url"] for item in items
        if isinstance(item, dict) and item.get("error_code") == "not_found" and isinstance(item.get("url"), str)
        and item.get("provider", envelope.get("provider")) != INDEX_PROVIDER  # "not in the index"
    ]
    if gone:
        _queue(config, "remove", gone, f"remove {len(gone)} page(s) the source no longer has from")
    if not envelope.get("success") or (options or {}).get("format", "markdown") not in (None, "markdown"):
        return 0
    pages = pages_from_items(data if isinstance(data, list) else [], envelope.get("provider"), INDEX_PROVIDER, time.time())
    pages = [page for page in pages if not holds_secret(page.url)]
    if pages:
        submit(config, pages)
    return len(pages)


def submit(config: Config, pages: list[IndexedPage]) -> None:
    """Write ``pages`` to the config's index in the background."""
    _queue(config, "add", pages, f"add {len(pages)} page(s) to")


def _queue(config: Config, method: str, argument: list[Any], what: str) -> None:
    """Call the store's ``method`` with ``argument`` on the writer thread; ``what`` names the
    write in a warning when it cannot be made ("add 3 page(s) to")."""
    with _pending_lock:
        if len(_pending) >= MAX_PENDING:
            log.warning(
                "Could not %s the local index: %d earlier writes are still waiting "
                "(the index is not answering).", what, len(_pending),
            )
            return
        future = _writer.executor().submit(_write, config, method, argument, what)
        _pending.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future[None]) -> None:
    with _pending_lock:
        _pending.discard(future)


def _write(config: Config, method: str, argument: list[Any], what: str) -> None:
    try:
        getattr(open_store(config), method)(argument)
    except Exception as exc:  # noqa: BLE001 - the index must never fail a call
        log.warning("Could not %s the local index: %s", what, scrub(str(exc)))


def wait_for_writes(timeout: float | None = None) -> bool:
    """Block until the queued writes are done (tests, or a script about to search); True if so."""
    with _pending_lock:
        pending = list(_pending)
    done, not_done = wait(pending, timeout)
    return not not_done


def _finish_before_exit() -> None:
    if not wait_for_writes(EXIT_WAIT):
        with _pending_lock:
            left = len(_pending)
        log.warning(
            "%d write(s) to the local index were dropped at exit: the index did not answer within %.0f s.",
            left, EXIT_WAIT,
        )


def _forget_pending() -> None:
    """In a forked child, the writes queued before the fork are the parent's, on its writer
    thread: none ends here, and the child's exit waited for them and said they were dropped."""
    global _pending_lock
    _pending.clear()
    _pending_lock = threading.Lock()


atexit.register(_finish_before_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pending)
