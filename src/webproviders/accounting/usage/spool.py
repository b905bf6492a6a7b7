"""One background thread that writes ledger rows and settles shared budgets off the hot path.

A call only puts work on a queue (a few microseconds). The thread takes what has piled up,
writes the rows of each ledger in one batch and runs the other jobs in order. A store that
fails is logged (now and then) and its rows are dropped; nothing here ever fails a call.
"""

from __future__ import annotations

import atexit
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from ...redact import get_logger, scrub

log = get_logger("webproviders.accounting.usage")

#: Most items taken off the queue for one round of writes.
_BATCH = 512
#: Items waiting beyond which new ones are dropped (a store that is down must not eat memory).
_MAX_PENDING = 100_000
#: Seconds between two warnings about failing writes.
_WARN_EVERY = 60.0
#: Seconds the interpreter waits at exit for queued rows to be written.
EXIT_WAIT = 2.0


class BatchWriter(Protocol):
    def write(self, rows: list[Any]) -> None: ...


class Spool:
    """A queue of rows (per writer) and jobs, emptied by one daemon thread started on first use."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Any, Any]] = queue.SimpleQueue()
        self._pending = 0
        self._done = threading.Condition()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        self._warned = 0.0
        self.dropped = 0

    def put_row(self, writer: BatchWriter, row: Any) -> None:
        """Queue ``row`` for ``writer.write([...])``."""
        self._put(writer, row)

    def submit(self, job: Callable[[], None]) -> None:
        """Queue a job to run on the spool thread."""
        self._put(None, job)

    def _put(self, target: Any, item: Any) -> None:
        with self._done:
            if self._pending >= _MAX_PENDING:
                self.dropped += 1
                return
            self._pending += 1
        if self._thread is None:
            self._ensure_thread()
        self._queue.put((target, item))

    def _ensure_thread(self) -> None:
        with self._start:
            if self._thread is None:
                thread = threading.Thread(target=self._run, name="webproviders-usage", daemon=True)
                thread.start()
                self._thread = thread

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued so far is written; False if ``timeout`` ran out."""
        end = time.monotonic() + timeout
        with self._done:
            while self._pending:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._done.wait(left)
        return True

    def _run(self) -> None:
        while True:
            items = [self._queue.get()]
            while len(items) < _BATCH:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._process(items)
            with self._done:
                self._pending -= len(items)
                self._done.notify_all()

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

    def _guard(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - accounting must never fail a call
            now = time.monotonic()
            if now - self._warned > _WARN_EVERY:
                self._warned = now
                log.warning("Writing usage failed (%s: %s); those rows are lost.", type(exc).__name__, scrub(str(exc)))


spool = Spool()
atexit.register(spool.flush, EXIT_WAIT)
