"""What an extraction worker process runs: one page at a time, each under a CPU-time limit.

Only worker processes (and the forkserver, which preloads this module so that a new worker
starts with trafilatura already imported and warm) import this module; the process that
dispatches calls never does. The CPU limit is the kernel's (``RLIMIT_CPU``): when a page
uses it up the kernel ends the worker with ``SIGXCPU``, even inside a C parser that never
returns to Python, and the pool reports ``timeout`` for that page and starts a new worker.
"""

from __future__ import annotations

import math
import os
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any

from ..errors import ProviderError, WebProviderError
from .extraction import html_document
from .pdf import pypdf_installed

try:
    import resource
except ImportError:  # Windows: the pool's wall-clock limit is the only one
    resource = None  # type: ignore[assignment]

#: A job: ``(function, args, kwargs, cpu_seconds, heavy)``; ``None`` asks the worker to exit.
Job = tuple[Any, tuple[Any, ...], dict[str, Any], float, bool]
#: How much a heavy page steps back for other work on a busy machine (the pool replaces the
#: worker afterwards, as a process cannot raise its priority again).
HEAVY_NICENESS = 10


def _warm() -> None:
    """Import trafilatura (and pypdf) and load what trafilatura loads on first use (a long page
    and a short one take different paths), so that forked workers start warm."""
    for words in (40, 3):
        page = "<html><head><title>Warm</title></head><body><article><p>" + "Warm up. " * words
        html_document(page + "</p></article></body></html>", "https://localhost/warm")
    if pypdf_installed():
        import pypdf  # noqa: F401


def _limit_cpu(seconds: float | None) -> None:
    """Let this process use ``seconds`` more CPU time (None: no limit) before SIGXCPU ends it."""
    if resource is None:
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if seconds is None:
        soft = hard
    else:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _run(job: Job) -> tuple[bool, Any]:
    function, args, kwargs, cpu_seconds, heavy = job
    if heavy and hasattr(os, "nice"):
        os.nice(HEAVY_NICENESS)
    _limit_cpu(cpu_seconds)
    try:
        return True, function(*args, **kwargs)
    except WebProviderError as exc:
        return False, exc
    except Exception as exc:  # noqa: BLE001 - reported to the caller as this page's failure
        return False, ProviderError(f"Extraction failed: {type(exc).__name__}: {exc}")
    finally:
        _limit_cpu(None)


def serve(conn: Connection) -> None:
    """Answer jobs from ``conn`` until it closes (the pool, or the whole parent, went away)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which stops us
    # Stray prints go to stderr: the parent's stdout may carry a protocol (MCP over stdio).
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    if resource is not None:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU must not leave core files
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        conn.send(_run(job))


_warm()
