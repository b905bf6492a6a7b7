"""One background thread that writes ledger rows and settles shared budgets off the hot path.

A call only appends its row to a deque (a fraction of a microsecond: ``deque.append`` is
atomic, so the call path takes no lock); the first row after a quiet spell wakes the thread.
It then writes every ``LINGER`` seconds what has piled up, the rows of each ledger in one
batch and the other jobs in order, sleeping on a timer in between rather than being woken by
each row, so it does not compete with the callers for the interpreter. A caller that never
waits (a tight loop of cache hits, or of sync calls, whose event loop lets go of the
interpreter for an instant on each turn and takes it straight back) would keep the thread
from ever getting the interpreter back, and rows would pile up until dropped; so once a batch
is late, the next caller waits for it to be written (at most ``_HANDOFF``, once per
``LINGER``, and never past the call's deadline). Writers and jobs meet a failing store
through its :class:`~webproviders.dependable.offload.StoreGuard` (a row that cannot be
written is dropped, and said so); nothing here ever fails a call.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from ...context import remaining_time
from ...redact import get_logger, scrub

log = get_logger("webproviders.accounting.usage")

#: Seconds the thread lets work pile up before writing it (a flush cuts the wait short).
LINGER = 0.05
#: Items waiting beyond which new ones are dropped (a store that is down must not eat memory).
_MAX_PENDING = 100_000
#: Seconds past its linger after which a batch counts as late: its thread is kept from the
#: interpreter by a caller that never waits.
_LATE = 0.005
#: Longest a caller waits for a late batch, at most once per ``LINGER``: the writer gets at
#: least this share of the interpreter, and a call at most this much added time.
_HANDOFF = 0.01
#: Seconds the interpreter waits at exit for queued rows to be written.
EXIT_WAIT = 2.0


class BatchWriter(Protocol):
    def write(self, rows: list[Any]) -> None: ...


class _Batch:
    """One wake of the thread: when its linger ends, and the event set once it is written."""

    __slots__ = ("due", "written")

    def __init__(self) -> None:
        self.due = time.monotonic() + LINGER
        self.written = threading.Event()


class Spool:
    """A deque of rows (each with its writer) and jobs, emptied by one daemon thread started on first use."""

    def __init__(self) -> None:
        self._reset()
        #: Rows refused because the spool was full (counted without a lock: a figure for people).
        self.dropped = 0

    def _reset(self) -> None:
        """Start empty and idle; in a forked child too, where the thread stayed in the parent
        and the rows queued there are the parent's to write (written twice, they would count twice)."""
        self._items: deque[tuple[Any, Any]] = deque()
        #: Set by the row that finds the thread idle.
        self._wake = threading.Event()
        self._hurry = threading.Event()
        self._thread: threading.Thread | None = None
        #: True while the thread has nothing to write (or was never started): the next row wakes it.
        self._asleep = True
        #: The batch being gathered or written: one starts when a row wakes the idle thread,
        #: and each time the thread finds rows waiting after a write.
        self._batch = _Batch()
        self._batch.written.set()
        #: When a caller may next wait for a late batch (so a slow store costs callers one
        #: short wait per linger at most).
        self._next_handoff = 0.0
        self._start_lock = threading.Lock()

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
        if self._asleep:  # the first row since the thread went idle starts a batch
            self._asleep = False
            self._batch = _Batch()
            if self._thread is None:
                self._start()
            self._wake.set()
            return
        batch = self._batch
        now = time.monotonic()
        if now > batch.due + _LATE and now > self._next_handoff and not batch.written.is_set():
            self._hand_off(batch, now)

    def _hand_off(self, batch: _Batch, now: float) -> None:
        """Wait, without the interpreter, for a late batch to be written: the only way its
        thread gets the interpreter from a caller that never waits (each turn of a sync
        call's event loop lets go of it for an instant and takes it straight back)."""
        if threading.current_thread() is self._thread:
            return  # a job queueing more work from the thread itself
        self._next_handoff = now + LINGER
        left = remaining_time()  # never past the call's deadline
        batch.written.wait(_HANDOFF if left is None else min(_HANDOFF, left))

    def _start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="webproviders-usage", daemon=True)
                self._thread.start()
                _flush_as_child_ends()

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
            # Asleep until the batch is due: on a timer, not woken by each row, so it does not
            # ask for the interpreter while callers run; a late batch is then handed the
            # interpreter by the next caller (see _put).
            batch = self._batch
            self._hurry.wait(batch.due - time.monotonic())
            self._hurry.clear()
            if items:
                self._process([items.popleft() for _ in range(len(items))])
                batch.written.set()
                self._batch = _Batch()  # rows from now on are written when it is due
                continue
            batch.written.set()
            self._asleep = True  # a whole linger without a row: the next one wakes it
            if not items:
                self._wake.wait()
            self._wake.clear()
            if self._asleep:  # a row came before it slept, and woke nothing
                self._asleep = False
                self._batch = _Batch()

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
#: The process whose exit flush has run.
_exit_flushed: int | None = None


def _flush_as_child_ends() -> None:
    """In a ``multiprocessing`` child: one started by ``fork`` or ``forkserver`` leaves through
    ``os._exit``, which skips ``atexit``, after running ``multiprocessing``'s exit finalizers;
    the flush is one of them. Registered when the child first queues work (its start clears
    the parent's finalizers), whether the parent had loaded the library or the child's own
    work was the first to: a pool's workers often import it themselves."""
    process, util = sys.modules.get("multiprocessing.process"), sys.modules.get("multiprocessing.util")
    if process is not None and util is not None and process.parent_process() is not None:
        util.Finalize(None, _flush_at_exit, exitpriority=0)


def _flush_at_exit() -> None:
    """Write what is queued before the interpreter goes; say so when a store that stopped
    answering keeps some of it (its rows are then lost: nothing waits longer). Once: a
    forked child may reach both ``atexit`` and ``multiprocessing``'s finalizers."""
    global _exit_flushed
    if _exit_flushed == os.getpid():
        return
    _exit_flushed = os.getpid()
    if not spool.flush(EXIT_WAIT):
        log.warning(
            "Usage rows or budget updates still queued at exit were not written: the store did not "
            "answer within %.0f s.", EXIT_WAIT,
        )


atexit.register(_flush_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=spool._reset)
