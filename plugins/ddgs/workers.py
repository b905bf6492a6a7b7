"""ddgs searches in worker processes that are killed when a call's deadline passes.

ddgs runs every search on threads of its own and waits for all of them before it answers;
a hanging engine keeps them (and, in this process, the interpreter's exit) waiting until its
own timeout. So each search runs in a separate process: at the deadline the process is
killed, its threads with it, and the call has already answered ``timeout``. A worker that
answered is kept for the next search (at most :data:`MAX_IDLE` wait, at most
:data:`MAX_WORKERS` run at once). Workers get an environment without secrets (only the
variables every worker interpreter gets and those on :data:`PASSED_ENV`) and leave when
this process closes their pipe.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

WORKER_SCRIPT = Path(__file__).with_name("worker.py")
#: Searches that may run at once (each in its own process).
MAX_WORKERS = 4
#: Workers kept waiting for the next search.
MAX_IDLE = 2
#: Environment variables a worker sees besides those of every worker interpreter
#: (``kit.worker_environment``: what Python needs to start, no keys): TLS. No proxy variable:
#: each search names its proxy, chosen by the library, which ddgs's client would otherwise
#: choose from the environment by a rule of its own.
PASSED_ENV = ("SYSTEMROOT", "VIRTUAL_ENV", "SSL_CERT_FILE", "SSL_CERT_DIR")


def passed_now() -> tuple[str | None, ...]:
    """The values of :data:`PASSED_ENV` now: a CA file set at run time is used from the next search."""
    return tuple(os.environ.get(name) for name in PASSED_ENV)


class Busy(Exception):
    """Every worker was taken until the call's deadline."""


class AnswerTooLarge(Exception):
    """A worker's answer ran past the provider's cap; the rest of it was never read."""


class WorkerEnded(Exception):
    """A worker ended without answering; ``signal`` is the signal that ended it, if one did
    (``SIGABRT`` is what its HTTP client does when an allocation fails at the memory limit)."""

    def __init__(self, signal: int | None) -> None:
        super().__init__("the ddgs worker ended without answering")
        self.signal = signal


class Worker:
    """One worker process and the pipes to it."""

    def __init__(self) -> None:
        from webproviders.kit import worker_environment

        env = worker_environment(PASSED_ENV)
        #: What it was started with of the variables it is passed (a CA file, say): a worker
        #: whose are no longer the process's is not asked again.
        self.passed = passed_now()
        self.process = subprocess.Popen(
            [sys.executable, "-u", str(WORKER_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
            encoding="utf-8",
        )

    def ask(self, request: dict[str, Any], cap: int) -> dict[str, Any]:
        """Send one search and wait for its answer, of at most ``cap`` characters (blocking;
        :meth:`kill` ends the wait). The answer is one line of ASCII JSON, so characters are bytes."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(json.dumps(request) + "\n")
            stdin.flush()
            line = stdout.readline(cap + 1)
        finally:
            if self.process.poll() is not None:  # killed meanwhile: this thread owns the output
                stdout.close()
        if not line:
            try:
                code = self.process.wait(1.0)
            except subprocess.TimeoutExpired:
                code = None
            raise WorkerEnded(-code if code is not None and code < 0 else None)
        if not line.endswith("\n"):
            raise AnswerTooLarge()
        answer: dict[str, Any] = json.loads(line)
        return answer

    def kill(self) -> None:
        """End it now (a search under way ends with it, and its reader sees the output end)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        _close(self.process.stdin)

    def close(self) -> None:
        """Let an idle worker leave on its own (its input ends)."""
        _close(self.process.stdin)
        try:
            self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        _close(self.process.stdout)


def _close(pipe: Any) -> None:
    try:
        if pipe is not None:
            pipe.close()
    except OSError:  # a broken pipe to a worker that is gone
        pass


class Search:
    """One search on a worker, which the caller may abandon at any moment (its deadline)."""

    def __init__(self, pool: WorkerPool, request: dict[str, Any], wait: float, cap: int) -> None:
        self._pool = pool
        self._request = request
        self._wait = wait
        self._cap = cap
        self._worker: Worker | None = None
        self._abandoned = False
        self._lock = threading.Lock()

    def run(self) -> dict[str, Any]:
        """Take a worker and wait for its answer (on a thread of its own)."""
        worker = self._pool.take(self._wait)
        with self._lock:
            if self._abandoned:
                self._pool.discard(worker)
                raise Busy()
            self._worker = worker
        try:
            answer = worker.ask(self._request, self._cap)
        except BaseException:
            self._release(self._pool.discard)
            raise
        self._release(self._pool.give_back)
        return answer

    def abandon(self) -> None:
        """The caller stopped waiting: the worker is killed, whatever it is doing."""
        with self._lock:
            self._abandoned = True
        self._release(self._pool.discard)

    def _release(self, how: Any) -> None:
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            how(worker)


class WorkerPool:
    """Workers shared by every call in the process."""

    def __init__(self) -> None:
        self._slots = threading.BoundedSemaphore(MAX_WORKERS)
        self._idle: list[Worker] = []
        self._lock = threading.Lock()

    def take(self, wait: float) -> Worker:
        """An idle worker or a new one; raises :class:`Busy` if none is free within ``wait`` s."""
        if not self._slots.acquire(timeout=max(0.0, wait)):
            raise Busy()
        passed = passed_now()
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.poll() is None and worker.passed == passed:
                    return worker
                worker.kill()
        try:
            return Worker()
        except BaseException:
            self._slots.release()
            raise

    def give_back(self, worker: Worker) -> None:
        """A worker that answered waits for the next search (or leaves when enough wait)."""
        with self._lock:
            keep = len(self._idle) < MAX_IDLE and worker.process.poll() is None
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.close()
        self._slots.release()

    def discard(self, worker: Worker) -> None:
        """A worker whose search was abandoned (deadline) or broke: killed."""
        worker.kill()
        self._slots.release()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()


pool = WorkerPool()
atexit.register(pool.close)
