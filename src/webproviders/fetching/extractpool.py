"""Page extraction in a bounded pool of worker processes, each page under a CPU-time limit.

trafilatura and lxml corrupt the heap when run from several threads, and one hostile page
(150,000 links, a PDF whose pages share one huge content stream) can keep a parser busy for
minutes. So pages are extracted in ``web.extraction.workers`` worker processes, one page per
worker at a time, shared by every caller and event loop in the process. A page that uses more
than ``web.extraction.cpu_timeout`` CPU seconds is stopped by the kernel; a page still running
when its call runs out of time is stopped by the pool. Either way that URL gets ``timeout``,
the worker is replaced, and the other workers carry on. Pages known in advance to be costly
(PDFs, very large HTML) take at most all workers but one, so that ordinary pages always
have a worker while such pages are being read, and run at a lower CPU priority; their
worker is replaced afterwards, which gives back the memory they made it grow by (and the
priority).

Workers start on first use, never on import, each as a fresh interpreter
(``python -c`` running :func:`webproviders.fetching.extractworker.main`): never by ``fork``,
which would copy this process's threads, event loops and secrets mid-flight, and never through
``multiprocessing``'s start methods, which import the caller's ``__main__`` again in every
child. A worker's environment holds only the variables on :data:`WORKER_ENVIRONMENT` (no API
keys), its address space is capped at ``web.extraction.max_memory_mb``, and it leaves when its
socket to this process closes.
"""

from __future__ import annotations

import atexit
import functools
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from ..context import note_repeating, remaining_time
from ..errors import (
    NotConfiguredError,
    ProviderError,
    TooLargeError,
    WebProviderError,
    WebTimeoutError,
)

if TYPE_CHECKING:  # none is needed to start a worker: the command line starts one first thing
    import asyncio
    from multiprocessing.connection import Connection

    from ..config import ExtractionSettings

T = TypeVar("T")

#: What a worker runs: its entry point, with the working directory left off ``sys.path`` (a
#: module named like one of trafilatura's there must not be imported in its place).
WORKER_CODE = (
    "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
    "from webproviders.fetching.extractworker import main; main()"
)
#: The environment variables a worker inherits: what Python and its libraries need to start
#: and find their packages, never the keys and tokens the calling process holds.
WORKER_ENVIRONMENT = frozenset({
    "PATH", "HOME", "TMPDIR", "TEMP", "TMP", "TZ", "LANG", "LANGUAGE", "PYTHONPATH", "PYTHONHOME",
    "PYTHONNOUSERSITE", "PYTHONUTF8",
    "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONHASHSEED", "LD_LIBRARY_PATH",
})
#: Where this package was imported from: workers import the same copy.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
#: Without a call deadline, a page may take this many times its CPU limit (plus the second
#: the kernel may round it up by) in wall-clock time: a worker that waits uses no CPU, and a
#: busy machine stretches CPU seconds.
WALL_FACTOR = 4.0
_STOPPED_WAITING = "The call stopped waiting for this page."
#: ``detail`` of the timeout of a page that used up its CPU time (the dispatcher does not retry it).
CPU_LIMIT = "cpu_limit"
#: How a worker ends when the kernel stops it for using up its CPU time.
_CPU_LIMIT_EXIT = -getattr(signal, "SIGXCPU", 24)


def worker_environment(extra: Iterable[str] = ()) -> dict[str, str]:
    """The allow-listed part of this process's environment (locale variables included), and
    the variables named in ``extra``, with this package's location on ``PYTHONPATH``: what a
    worker process that is a fresh Python interpreter needs, and no secret."""
    wanted = WORKER_ENVIRONMENT.union(extra)
    env = {k: v for k, v in os.environ.items() if k in wanted or k.startswith("LC_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (_PACKAGE_ROOT, env.get("PYTHONPATH"))))
    return env


class _Worker:
    """One worker process and this end of its pipe."""

    def __init__(self, process: subprocess.Popen[bytes], conn: Connection, interpreter: str) -> None:
        self.process = process
        self.conn = conn
        self.interpreter = interpreter
        #: Whether it has answered a page: one that ends before ever answering may not start at all.
        self.answered = False

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """Stop it now; whoever waits on its socket sees it close."""
        if self.process.poll() is None:
            self.process.kill()

    def exit_status(self) -> int | None:
        """Its exit status once it has ended (waits briefly for the kernel to report it)."""
        try:
            return self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """End it (asking nicely when it is idle) and release its resources."""
        if self.process.poll() is None:
            try:
                _send(self.conn, None)
            except OSError:
                pass
            try:
                self.process.wait(0.5)
            except subprocess.TimeoutExpired:
                self.kill()
                self.exit_status()
        self.conn.close()


class _Job:
    """One page's extraction: what to run, until when, and the worker running it.

    A plain class, not a dataclass: this module is imported before a worker can start, so
    what it imports delays every first page (``dataclasses`` brings ``inspect``)."""

    __slots__ = ("abandoned", "deadline", "deadline_reason", "heavy", "lock", "message", "placed", "settings",
                 "woken", "worker")

    def __init__(
        self,
        message: tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any], float, int, bool],
        settings: ExtractionSettings,
        deadline: float,
        deadline_reason: str,
        heavy: bool,
    ) -> None:
        self.message = message
        self.settings = settings
        self.deadline = deadline
        #: Why the deadline is what it is, for the timeout message.
        self.deadline_reason = deadline_reason
        #: Known to be costly: may not take the last free worker.
        self.heavy = heavy
        self.lock = threading.Lock()
        self.worker: _Worker | None = None
        #: The caller stopped waiting (its call was cancelled or ran out of time).
        self.abandoned = False
        #: Set when the job got one of the pool's places, or was abandoned while waiting for one.
        self.woken = threading.Event()
        self.placed = False

    def assign(self, worker: _Worker) -> bool:
        with self.lock:
            if not self.abandoned:
                self.worker = worker
            return not self.abandoned

    def abandon(self) -> None:
        with self.lock:
            self.abandoned = True
            worker = self.worker
        self.woken.set()
        if worker is not None:
            worker.kill()

    def finish(self) -> bool:
        """Take the worker back from the job; False if the job was abandoned (it was killed)."""
        with self.lock:
            self.worker = None
            return not self.abandoned


def _send(conn: Connection, message: Any) -> None:
    """``message`` pickled to bytes and sent whole. Not ``Connection.send``: it sends a view of
    a ``BytesIO``, which a send that fails (a worker killed meanwhile) leaves in a reference
    cycle, and CPython 3.12.0-3.12.1 crash collecting one (gh-111049)."""
    import pickle  # loaded with multiprocessing.connection, once a worker has started

    conn.send_bytes(pickle.dumps(message, pickle.HIGHEST_PROTOCOL))


def _receive(conn: Connection) -> Any:
    import pickle

    return pickle.loads(conn.recv_bytes())


class _Gone(Exception):
    """The worker's pipe closed: the process ended."""


def _runs(worker: _Worker) -> str:
    """What a worker runs and what to check, by setting (never a path: the sentence may reach a model)."""
    if worker.interpreter != sys.executable:
        return "web.extraction.python must name a Python interpreter that can import webproviders."
    return (
        "it runs this process's own executable, which must be a Python interpreter that can import "
        "webproviders; set web.extraction.python to one when this process is a frozen application or a "
        "server that embeds Python (uWSGI)."
    )


def _gone_error(job: _Job, worker: _Worker, status: int | None) -> WebProviderError:
    """What a page whose worker ended under it gets."""
    if status == _CPU_LIMIT_EXIT:
        return WebTimeoutError(
            f"Extracting the page used more than {job.settings.cpu_timeout:g} s of CPU time; "
            "it was stopped (web.extraction.cpu_timeout sets the limit).",
            detail=CPU_LIMIT,
        )
    if job.abandoned:
        return WebTimeoutError(_STOPPED_WAITING)
    if not worker.answered and status is not None and status > 0:
        return ProviderError(
            f"The extraction worker ended (exit status {status}) before it answered a page. If every page "
            f"ends so, it cannot start: {_runs(worker)}"
        )
    return ProviderError(
        f"The extraction worker ended unexpectedly (exit status {status}) while reading the page."
    )


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.done():  # the caller was cancelled meanwhile
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class _WaitingThreads:
    """Daemon threads that do the blocking side of jobs (waiting for a place, talking to a
    worker), started when none is free and then kept: starting a thread per page stalls the
    caller's event loop on a busy machine. Daemon threads, so that interpreter exit never
    waits for a page in progress (a thread pool executor's threads would be waited for)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._free = 0

    def submit(self, task: Callable[[], None]) -> None:
        with self._lock:
            start = self._free == 0
            if not start:
                self._free -= 1
        if start:
            try:
                threading.Thread(target=self._serve, name="webproviders-extract-wait", daemon=True).start()
            except RuntimeError as exc:  # the task is not queued: no thread would take it on time
                # here: pools brings asyncio, which the start of a first worker need not wait for
                from ..pools import NoThread

                raise NoThread(f"no worker thread could be started ({exc})") from None
        self._jobs.put(task)

    def _serve(self) -> None:
        while True:
            self._jobs.get()()
            with self._lock:
                self._free += 1


class ExtractionPool:
    """Worker processes shared by every caller in this process; see the module docstring."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        #: Jobs waiting for a place, first come first served (a heavy job may be passed over).
        self._waiting: list[_Job] = []
        #: Jobs holding one of the ``_size`` places (about to run or running on a worker).
        self._claimed = 0
        self._heavy_claimed = 0
        self._threads = _WaitingThreads()
        self._size = 1  # each page sets it from its web.extraction.workers
        #: The interpreter new workers run (each page sets it from its web.extraction.python).
        self._python: str | None = None
        #: Workers told to stop by ``close(wait=False)``, reaped by the next ``close()``.
        self._stopped: list[_Worker] = []

    # -- the caller's side --------------------------------------------------------------
    async def run(
        self, settings: ExtractionSettings, function: Callable[..., T], *args: Any, heavy: bool = False, **kwargs: Any
    ) -> T:
        """``function(*args, **kwargs)`` in a worker process (``function`` and its arguments
        must pickle); raises ``timeout`` when the page outlives its CPU time or the call.
        A ``heavy`` page never takes the last free worker (unless there is only one)."""
        left = remaining_time()
        wall = (settings.cpu_timeout + 1) * WALL_FACTOR
        if left is not None and left < wall:
            deadline, reason = left, "before the call's time limit"
        else:
            deadline, reason = wall, f"within {wall:g} s"
        message = (function, args, kwargs, settings.cpu_timeout, settings.max_memory_mb, heavy)
        job = _Job(message, settings, time.monotonic() + deadline, reason, heavy)
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._threads.submit(functools.partial(self._serve, job, loop, future))
        try:
            return await future
        except asyncio.CancelledError:
            job.abandon()
            raise
        except WebTimeoutError as exc:
            if exc.detail == CPU_LIMIT:
                note_repeating(CPU_LIMIT)  # the page would use it up again: not retried
            raise

    def start_early(self) -> None:
        """Start a worker now when none is running, so that its start-up (an interpreter and
        trafilatura, a few hundred ms) overlaps the download of the first page. Never raises:
        a worker that cannot start is reported by the page that needs it. It runs the
        interpreter the last page asked for (this process's before the first); a page that
        asks for another leaves it and starts its own."""
        with self._lock:
            if self._idle or self._busy:
                return
            try:
                worker = self._spawn()
            except WebProviderError:
                return
            self._idle.append(worker)

    def pids(self) -> list[int]:
        """Process ids of the live workers (for monitoring; empty before the first page)."""
        with self._lock:
            workers = [*self._idle, *self._busy]
        return [w.pid for w in workers if w.alive()]

    def close(self, wait: bool = True) -> None:
        """Stop every worker (at interpreter exit; a later page starts new ones).

        With ``wait=False`` they are only killed, not waited for: the command line does that
        as soon as its command is done, so that the kernel takes them down while the rest of
        the exit runs (the usage ledger is written meanwhile), and this handler, at exit,
        reaps them.
        """
        with self._lock:
            workers = [*self._idle, *self._busy, *self._stopped]
            self._idle.clear()
            self._stopped = [] if wait else workers
        for worker in workers:
            worker.kill()
        if wait:
            for worker in workers:
                worker.exit_status()

    # -- the waiting thread's side ------------------------------------------------------
    def _serve(self, job: _Job, loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any]) -> None:
        try:
            ok, value = True, self._run_job(job)
        except Exception as exc:  # noqa: BLE001 - handed to the caller's event loop
            ok, value = False, exc
        try:
            loop.call_soon_threadsafe(_settle, future, ok, value)
        except RuntimeError:
            pass  # the caller's event loop is closed: nobody is waiting

    def _run_job(self, job: _Job) -> Any:
        self._claim(job)
        try:
            ok, value = self._exchange(job)
        finally:
            self._unclaim(job)
        if not ok:
            raise value
        return value

    def _claim(self, job: _Job) -> None:
        """Wait for one of the pool's places (raises ``timeout`` when none comes in time)."""
        with self._lock:
            self._size = job.settings.workers
            self._python = job.settings.python
            self._waiting.append(job)
            self._hand_out_places()
        job.woken.wait(max(0.0, job.deadline - time.monotonic()))
        with self._lock:
            if not job.placed:
                self._waiting.remove(job)
        in_time = time.monotonic() < job.deadline
        if job.placed and (job.abandoned or not in_time):
            self._unclaim(job)  # the place came too late to be of use
        if job.abandoned:
            raise WebTimeoutError(_STOPPED_WAITING)
        if not (job.placed and in_time):
            raise WebTimeoutError(
                f"No extraction worker became free {job.deadline_reason}; "
                "other pages were being extracted (see web.extraction.workers)."
            )

    def _hand_out_places(self) -> None:
        """Give free places to waiting jobs in order; a heavy job never takes the last one."""
        for job in list(self._waiting):
            if self._claimed >= self._size:
                return
            if job.heavy and self._heavy_claimed >= max(1, self._size - 1):
                continue
            self._waiting.remove(job)
            self._claimed += 1
            self._heavy_claimed += job.heavy
            job.placed = True
            job.woken.set()

    def _unclaim(self, job: _Job) -> None:
        with self._lock:
            self._claimed -= 1
            self._heavy_claimed -= job.heavy
            self._hand_out_places()

    def _exchange(self, job: _Job) -> tuple[bool, Any]:
        """The worker's reply to ``job``: ``(True, result)`` or ``(False, exception)``."""
        retried = False
        while True:
            # A retry gets a new worker: an idle one may have died with the one before.
            worker = (None if retried else self._take_idle()) or self._start()
            if not job.assign(worker):
                self._keep(worker)
                raise WebTimeoutError(_STOPPED_WAITING)
            try:
                reply = self._ask(worker, job)
            except _Gone:
                status = worker.exit_status()
                self._retire(worker)
                if status != _CPU_LIMIT_EXIT and not job.abandoned and not retried:
                    retried = True
                    continue  # killed from outside, or crashed: once more, on a new worker
                raise _gone_error(job, worker, status) from None
            except BaseException:
                self._retire(worker)  # out of time, or a reply that does not unpickle
                raise
            worker.answered = True
            if job.finish() and not job.heavy and not isinstance(reply[1], TooLargeError):
                self._keep(worker)
            else:
                # Abandoned just now (so killed), out of memory (so leaving), or grown and
                # lowered in priority by a heavy page: a fresh worker gives the memory back.
                self._retire(worker)
            return reply

    @staticmethod
    def _ask(worker: _Worker, job: _Job) -> tuple[bool, Any]:
        try:
            _send(worker.conn, job.message)
            if worker.conn.poll(max(0.0, job.deadline - time.monotonic())):
                return _receive(worker.conn)  # type: ignore[no-any-return]
        except (EOFError, OSError):
            raise _Gone() from None
        worker.kill()
        raise WebTimeoutError(f"Extracting the page did not finish {job.deadline_reason}; it was stopped.")

    # -- workers --------------------------------------------------------------------------
    def _take_idle(self) -> _Worker | None:
        dead: list[_Worker] = []
        found: _Worker | None = None
        with self._lock:
            wanted = self._python or sys.executable
            while self._idle and found is None:
                worker = self._idle.pop()
                if worker.alive() and worker.interpreter == wanted:
                    found = worker
                    self._busy.add(worker)
                else:
                    dead.append(worker)
        for worker in dead:
            worker.stop()
        return found

    def _keep(self, worker: _Worker) -> None:
        """Back to the idle workers, unless the pool has been made smaller meanwhile."""
        with self._lock:
            self._busy.discard(worker)
            if len(self._idle) + len(self._busy) >= self._size:
                surplus = worker
            else:
                self._idle.append(worker)
                return
        surplus.stop()

    def _retire(self, worker: _Worker) -> None:
        with self._lock:
            self._busy.discard(worker)
        worker.stop()

    def _start(self) -> _Worker:
        worker = self._spawn()
        with self._lock:
            self._busy.add(worker)
        return worker

    def _interpreter(self) -> str:
        """What a new worker runs: ``web.extraction.python``, else this process's executable,
        unless that is a frozen application (which would start itself again, not a worker)."""
        if self._python:
            return self._python
        if getattr(sys, "frozen", False):
            raise NotConfiguredError(
                "This program is a frozen application, whose executable is not a Python interpreter: "
                "set web.extraction.python to one that can import webproviders, for the extraction workers."
            )
        return sys.executable

    def _spawn(self) -> _Worker:
        interpreter = self._interpreter()
        ours, theirs = socket.socketpair()
        try:
            with theirs:
                process = subprocess.Popen(
                    [interpreter, "-c", WORKER_CODE, str(theirs.fileno())],
                    pass_fds=(theirs.fileno(),), env=worker_environment(), stdin=subprocess.DEVNULL,
                    stdout=2,  # stray output goes to stderr: stdout may carry a protocol (MCP on stdio)
                )
        except (OSError, ValueError) as exc:
            ours.close()
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            if self._python:  # the config names a program that is not there, or not one to run
                raise NotConfiguredError(
                    f"Could not start an extraction worker process ({why}): web.extraction.python must name "
                    "a Python interpreter that can import webproviders."
                ) from None
            raise ProviderError(f"Could not start an extraction worker process ({why}).") from None
        # Imported once the worker is starting (it brings pickle and tempfile along).
        from multiprocessing.connection import Connection

        return _Worker(process, Connection(ours.detach()), interpreter)


extraction_pool = ExtractionPool()
atexit.register(extraction_pool.close)
#: In a forked child, the parent's worker processes: kept, never waited for. Freed, each would
#: warn that a process is still running (a ResourceWarning at every fork under ``-X dev``),
#: though it is the parent's to stop and to reap.
_inherited: list[subprocess.Popen[bytes]] = []


def _leave_to_parent() -> None:
    """In a forked child: let go of the parent's workers (their sockets closed here, so that
    each still leaves when the parent does) and start its own."""
    pool = extraction_pool
    for worker in [*pool._idle, *pool._busy, *pool._stopped]:
        worker.conn.close()
        _inherited.append(worker.process)
    pool._reset()


if hasattr(os, "register_at_fork"):
    # A process forked from this one must not share these workers' pipes: it starts its own.
    os.register_at_fork(after_in_child=_leave_to_parent)

__all__ = ["ExtractionPool", "extraction_pool"]
