"""One background thread that writes ledger rows and settles shared budgets off the hot path.

A call only appends its row to a deque (a fraction of a microsecond: ``deque.append`` is
atomic, so the call path takes no lock) and wakes the thread if it is asleep. The thread
wakes at most every ``LINGER`` seconds, takes what has piled up, writes the rows of each
ledger in one batch and runs the other jobs in order; waking once per batch rather than once
per row keeps it from competing with the callers for the interpreter. Writers and jobs meet
a failing store through its :class:`~webproviders.dependable.offload.StoreGuard` (a row that
cannot be written is dropped, and said so); nothing here ever fails a call.
"""

from __future__ import annotations

import atexit
import threading
from collections import deque
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
    """A deque of rows (each with its writer) and jobs, emptied by one daemon thread started on first use."""

    def __init__(self) -> None:
        self._items: deque[tuple[Any, Any]] = deque()
        #: Set while the thread has work to take; a put sets it only when it is clear.
        self._wake = threading.Event()
        self._hurry = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        #: Rows refused because the spool was full (counted without a lock: a figure for people).
        self.dropped = 0

    def put_row(self, writer: BatchWriter, row: Any) -> bool:
        """Queue ``row`` for ``writer.write([...])``; False when the spool was full and dropped it."""
        if len(self._items) >= _MAX_PENDING:
            self.dropped += 1
            return False
        self._put(writer, row)
        return True

    def submit(self, job: Callable[[], None]) -> None:
        """Queue a job to run on the spool thread, after the rows queued before it are written."""
        self._put(None, job)

    def _put(self, target: Any, item: Any) -> None:
        self._items.append((target, item))
        if not self._wake.is_set():  # the thread clears it before it takes the items
            if self._thread is None:
                self._start()
            self._wake.set()

    def _start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="webproviders-usage", daemon=True)
                self._thread.start()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued so far is written; False if ``timeout`` ran out."""
        thread = self._thread
        if thread is None:
            return True  # nothing was ever queued
        if thread is threading.current_thread():
            return False  # a job waiting on its own thread would only time out
        idle = threading.Event()
        self._mark(idle)
        return idle.wait(timeout)

    def _mark(self, idle: threading.Event) -> None:
        """Queue a flush's marker: a job (jobs run after the rows taken with them) that sets
        ``idle`` once nothing is left, or queues itself again behind what came meanwhile
        (a row's write may queue a job of its own)."""
        self._put(None, lambda: idle.set() if not self._items else self._mark(idle))
        self._hurry.set()

    def _run(self) -> None:
        items = self._items
        while True:
            self._wake.wait()
            self._hurry.wait(LINGER)
            self._wake.clear()  # before taking: a row put from now on sets it again
            self._hurry.clear()
            self._process([items.popleft() for _ in range(len(items))])

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
