"""Filling the index from every successful extract and crawl (``web.local.index: true``).

The ``local`` plugin's ``after_dispatch`` hook hands each envelope here. The pages are
picked out at once (cheap) and written by one background thread, so a call never waits for
the index, and writes from one process never contend with each other. A failed write is
logged, never raised: the index is a by-product of the call. Queued writes still run when
the interpreter exits, for up to :data:`EXIT_WAIT` seconds: an index that stopped answering
(a frozen server accepts a query and never replies, and no client-side timeout covers that
wait) neither holds the process open nor, past :data:`MAX_PENDING` queued writes, the pages
of every later call in memory; what is dropped is logged.
"""

from __future__ import annotations

import atexit
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


def index_envelope(config: Config, capability: str, envelope: dict[str, Any]) -> int:
    """Queue the pages of a successful, freshly fetched extract or crawl; returns how many.

    Left out: failures, cached answers (nothing new was read), failed items, pages the index
    itself served, and pages whose URL carries a credential (``?api_key=``, ``user:password@``,
    a configured key): every caller searches the index, and its hits would hand them the
    credential along with a page that needed it.
    """
    if not config.web.local.index or capability not in ("extract", "crawl") or not envelope.get("success"):
        return 0
    if (envelope.get("meta") or {}).get("cached"):
        return 0
    data = envelope.get("data")
    pages = pages_from_items(data if isinstance(data, list) else [], envelope.get("provider"), INDEX_PROVIDER, time.time())
    pages = [page for page in pages if not holds_secret(page.url)]
    if pages:
        submit(config, pages)
    return len(pages)


def submit(config: Config, pages: list[IndexedPage]) -> None:
    """Write ``pages`` to the config's index in the background."""
    with _pending_lock:
        if len(_pending) >= MAX_PENDING:
            log.warning(
                "Could not add %d page(s) to the local index: %d earlier writes are still waiting "
                "(the index is not answering).", len(pages), len(_pending),
            )
            return
        future = _writer.executor().submit(_write, config, pages)
        _pending.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future[None]) -> None:
    with _pending_lock:
        _pending.discard(future)


def _write(config: Config, pages: list[IndexedPage]) -> None:
    try:
        open_store(config).add(pages)
    except Exception as exc:  # noqa: BLE001 - the index must never fail a call
        log.warning("Could not add %d page(s) to the local index: %s", len(pages), scrub(str(exc)))


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


atexit.register(_finish_before_exit)
