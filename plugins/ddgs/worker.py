"""The loop inside a ddgs worker process: one search per line on stdin, one answer per line out.

Run as a script by :mod:`.workers` (never imported by the library): it needs only the
standard library and ``ddgs``. ddgs starts threads of its own for every search and waits for
them before it returns; here they live and die with this process, which the library kills
when a call's deadline passes.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import sys
import threading
from typing import Any

#: Hosts of engines ddgs searches. When none of their names resolves, no engine can be
#: reached, and ddgs's HTTP client (its own resolver) finds that out only after its timeout,
#: engine after engine: on a machine whose resolver refuses, a search then waits out the
#: whole call, where the system's lookup fails in milliseconds.
ENGINE_HOSTS = ("duckduckgo.com", "www.bing.com", "search.brave.com")
#: Seconds to wait for those lookups: a resolver that has not answered by then is left to ddgs.
LOOKUP_WAIT = 3.0
#: Whether an engine's name resolved in this process (then it is not asked again).
_names_resolved = False


def unresolvable(hosts: tuple[str, ...], wait: float = LOOKUP_WAIT) -> str | None:
    """Why none of ``hosts`` resolves, or None once one does (or the lookups are still going).

    The lookups run at once, on daemon threads: the first name that resolves ends the wait.
    """
    answers: queue.SimpleQueue[str | None] = queue.SimpleQueue()

    def look_up(host: str) -> None:
        try:
            socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
            answers.put(None)
        except (OSError, UnicodeError) as exc:
            answers.put(f"{host}: {getattr(exc, 'strerror', None) or exc}")

    for host in hosts:
        threading.Thread(target=look_up, args=(host,), daemon=True).start()
    failures = []
    for _ in hosts:
        try:
            failure = answers.get(timeout=wait)
        except queue.Empty:
            return None
        if failure is None:
            return None
        failures.append(failure)
    return "; ".join(failures)


def limit_memory(megabytes: int) -> None:
    """Cap this process's address space: a search whose answers grow past it fails instead of
    taking the machine's memory (ddgs's Python raises ``MemoryError``; its HTTP client,
    written in Rust, ends the process with ``SIGABRT``). Where the kernel offers no such
    limit, the process runs without one."""
    try:
        import resource
    except ImportError:
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = megabytes * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    except (ValueError, OSError):
        pass


def unknown_engines(backend: str) -> list[str]:
    """The names in ``backend`` that are none of ddgs's text engines. ddgs passes them by with
    a log line (one that names none leaves it searching every engine): Bing and Google, say,
    which this version of ddgs has turned off."""
    from ddgs.engines import ENGINES

    names = [name.strip() for name in backend.split(",") if name.strip()]
    return [name for name in names if name not in ("auto", "all") and name not in ENGINES["text"]]


def search(request: dict[str, Any]) -> dict[str, Any]:
    """One search as the provider asked for it, with the engine names ddgs does not have
    (``unknown_engines``, with ``engines``: those it has)."""
    from ddgs.engines import ENGINES

    answer = _search(request)
    unknown = unknown_engines(request["backend"])
    if unknown:
        answer.update(unknown_engines=unknown, engines=sorted(ENGINES["text"]))
    return answer


def _search(request: dict[str, Any]) -> dict[str, Any]:
    """The search itself; failures become ``{"error": kind, "message"}``."""
    from ddgs import DDGS
    from ddgs.exceptions import DDGSException, TimeoutException

    limit_memory(request["memory_mb"])

    global _names_resolved
    proxy = request["proxy"]  # the library's choice; this process has no proxy variables
    # A socks5:// proxy is given addresses, looked up here (socks5h:// leaves names to the proxy).
    via_socks5 = proxy is not None and proxy.lower().startswith("socks5://")
    if not _names_resolved and (proxy is None or via_socks5):
        why = unresolvable(ENGINE_HOSTS)
        if why is not None:
            return {"error": "dns", "message": why, "via_socks5": via_socks5}
        _names_resolved = True
    try:
        client = DDGS(proxy=proxy, timeout=request["timeout"], verify=request["verify"])
        results = client.text(
            request["query"],
            region=request["region"],
            safesearch=request["safesearch"],
            timelimit=request["timelimit"],
            max_results=request["max_results"],
            backend=request["backend"],
        )
    except MemoryError:
        return {"error": "memory", "message": f"the results grew past {request['memory_mb']} MiB"}
    except TimeoutException as exc:
        return {"error": "timeout", "message": str(exc)}
    except DDGSException as exc:
        return {"error": "ddgs", "message": str(exc)}
    except Exception as exc:  # noqa: BLE001 - the library decides what a crash means
        return {"error": "crash", "message": f"{type(exc).__name__}: {exc}"}
    return {"results": [{k: r.get(k, "") for k in ("title", "href", "body")} for r in results or []]}


def ready() -> dict[str, Any]:
    """ddgs loaded, before the first search asks for it (see the provider's ``set_up``): the
    first ``DDGS()`` loads its implementation, about 0.1 s."""
    from ddgs import DDGS

    DDGS()
    return {"ready": True}


def main() -> None:
    # The protocol owns the real stdout; anything ddgs or its HTTP client prints goes to stderr.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    for line in sys.stdin:
        request = json.loads(line)
        answers.write(json.dumps(ready() if request.get("ready") else search(request)) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
