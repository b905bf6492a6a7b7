"""One background thread that writes ledger rows and settles shared budgets off the hot path.

A call only appends work to a list (a microsecond or two). The thread wakes at most every
``LINGER`` seconds, takes what has piled up, writes the rows of each ledger in one batch and
runs the other jobs in order; waking once per batch rather than once per row keeps it from
competing with the callers for the interpreter. Writers and jobs meet a failing store
through its :class:`~webproviders.dependable.offload.StoreGuard` (a row that cannot be
written is dropped, and said so); nothing here ever fails a call.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from ...redact import get_logger, scrub

log = get_logger("webproviders.accounting.usage")

#: Seconds the thread lets work pile up before writing it (a flush cuts the wait short).
LINGER = 0.05
#: Items waiting beyond which new ones are dropped (a store that is down must not eat memory).
_MAX_PENDING = 100_000
#: Seconds the interpreter waits at exit for queued rows to be written.
EXIT_WAIT = 2.0


class BatchWriter(Protocol):
    def write(self, rows: list[Any]) -> None: ...


class Spool:
    """A list of rows (per writer) and jobs, emptied by one daemon thread started on first use."""

    def __init__(self) -> None:
        self._items: list[tuple[Any, Any]] = []
        self._pending = 0
        self._cond = threading.Condition()
        self._wake = threading.Event()
        self._hurry = threading.Event()
        self._thread: threading.Thread | None = None
        self.dropped = 0

    def put_row(self, writer: BatchWriter, row: Any) -> bool:
        """Queue ``row`` for ``writer.write([...])``; False when the spool was full and dropped it."""
        return self._put(writer, row)

    def submit(self, job: Callable[[], None]) -> None:
        """Queue a job to run on the spool thread."""
        self._put(None, job)

    def _put(self, target: Any, item: Any) -> bool:
        with self._cond:
            if self._pending >= _MAX_PENDING:
                self.dropped += 1
                return False
            self._items.append((target, item))
            self._pending += 1
            first = len(self._items) == 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="webproviders-usage", daemon=True)
                self._thread.start()
        if first:
            self._wake.set()
        return True

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued so far is written; False if ``timeout`` ran out."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._pending:
                self._hurry.set()
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._hurry.wait(LINGER)
            with self._cond:
                items, self._items = self._items, []
                self._wake.clear()
                self._hurry.clear()
            self._process(items)
            with self._cond:
                self._pending -= len(items)
                self._cond.notify_all()

    def _process(self, items: list[tuple[Any, Any]]) -> None:
        batches: dict[int, tuple[BatchWriter, list[Any]]] = {}
        jobs: list[Callable[[], None]] = []
        for target, item in items:
            if target is None:
                jobs.append(item)
            else:
                batches.setdefault(id(target), (target, []))[1].append(item)
        for writer, rows in batches.values():
            self._guard(writer.write, rows)
        for job in jobs:
            self._guard(job)

    @staticmethod
    def _guard(fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - a bug in accounting must not stop the thread
            log.error("A usage job failed: %s: %s", type(exc).__name__, scrub(str(exc)))


spool = Spool()
atexit.register(spool.flush, EXIT_WAIT)
