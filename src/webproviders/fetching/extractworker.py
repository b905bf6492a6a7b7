"""What an extraction worker process runs: one page at a time, each under a CPU-time limit,
and an address-space limit.

The pool (:mod:`webproviders.fetching.extractpool`) starts each worker as a fresh interpreter
running :func:`main`, with an environment reduced to an allow-list (no API keys) and one end
of a socket pair; the process that dispatches calls never imports this module. The CPU limit
is the kernel's (``RLIMIT_CPU``): when a page uses it up the kernel ends the worker with
``SIGXCPU``, even inside a C parser that never returns to Python, and the pool reports
``timeout`` for that page and starts a new worker. The memory limit is ``RLIMIT_AS``: an
allocation past it fails, the page gets ``too_large`` and the worker leaves after answering.
"""

from __future__ import annotations

import math
import os
import pickle
import resource
import signal
import socket
import sys
from multiprocessing.connection import Connection
from typing import Any

from ..errors import ProviderError, TooLargeError, WebProviderError
from .htmltree import MAX_HTML_DEPTH

#: A job: ``(function, args, kwargs, cpu_seconds, memory_mb, heavy)``; ``None`` asks the worker to exit.
Job = tuple[Any, tuple[Any, ...], dict[str, Any], float, int, bool]
#: How much a heavy page steps back for other work on a busy machine (the pool replaces the
#: worker afterwards, as a process cannot raise its priority again).
HEAVY_NICENESS = 10
#: Room for the readers that walk a page's tree level by level (its text, trafilatura's):
#: a page may nest :data:`.htmltree.MAX_HTML_DEPTH` levels deep, a few frames each.
RECURSION_LIMIT = 5 * MAX_HTML_DEPTH + 1_000
_MIB = 1024 * 1024


def _warm(conn: Connection) -> None:
    """Import trafilatura and run a small page through it, so that the first page does not
    wait for either; then, unless a page is already waiting, load the public-suffix list as
    well. trafilatura reads most host names without that list, but an address with a port,
    a name without a dot or a short one (``bbc.co.uk``) needs it, and loading it takes
    40-80 ms: done while the worker would be idle, it costs no page anything."""
    from .extraction import html_document

    page = "<html><head><title>Warm</title></head><body><article><p>" + "Warm up. " * 40
    page += "</p></article></body></html>"
    html_document(page, "https://warm-up.example/")
    if not conn.poll(0):
        html_document(page, "https://localhost/")


def _limit_cpu(seconds: float | None) -> None:
    """Let this process use ``seconds`` more CPU time (None: no limit) before SIGXCPU ends it."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if seconds is None:
        soft = hard
    else:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _limit_memory(megabytes: int) -> None:
    """Cap this process's address space (per job, as the CPU time)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = megabytes * _MIB if hard == resource.RLIM_INFINITY else min(megabytes * _MIB, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _lift_memory_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _run(job: Job) -> tuple[bool, Any]:
    function, args, kwargs, cpu_seconds, memory_mb, heavy = job
    if heavy and hasattr(os, "nice"):
        os.nice(HEAVY_NICENESS)
    _limit_memory(memory_mb)
    _limit_cpu(cpu_seconds)
    try:
        return True, function(*args, **kwargs)
    except WebProviderError as exc:
        return False, exc
    except MemoryError:
        _lift_memory_limit()  # the reply needs a little memory; the worker leaves once it is sent
        return False, TooLargeError(
            f"Extracting the page needed more than the {memory_mb:,} MB of memory an extraction "
            "worker may use; it was stopped (web.extraction.max_memory_mb sets the limit)."
        )
    except Exception as exc:  # noqa: BLE001 - reported to the caller as this page's failure
        return False, ProviderError(f"Extraction failed: {type(exc).__name__}: {exc}")
    finally:
        _limit_cpu(None)


def serve(conn: Connection) -> None:
    """Answer jobs from ``conn`` until it closes (the pool, or the whole parent, went away).

    After a page that ran out of memory the worker answers and leaves: what is left of its
    heap is not worth keeping, and the pool starts a fresh worker for the next page.
    """
    while True:
        try:
            job = pickle.loads(conn.recv_bytes())  # whole bytes each way, as the pool sends them
        except (EOFError, OSError):
            return
        if job is None:
            return
        reply = _run(job)
        try:
            conn.send_bytes(pickle.dumps(reply, pickle.HIGHEST_PROTOCOL))
        except OSError:  # it went away while the page was read (a process ending mid-call)
            return
        if isinstance(reply[1], TooLargeError):
            return


def main() -> None:
    """The worker's entry point: ``argv[1]`` is the descriptor of its inherited socket."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which stops us
    sys.stdout = sys.stderr  # where the pool sent our stdout too; unbuffered, so nothing is lost
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU must not leave core files
    sys.setrecursionlimit(RECURSION_LIMIT)
    conn = Connection(socket.socket(fileno=int(sys.argv[1])).detach())
    from .extraction import quiet_libraries

    quiet_libraries()
    _warm(conn)
    serve(conn)
