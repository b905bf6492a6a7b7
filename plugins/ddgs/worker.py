"""The loop inside a ddgs worker process: one search per line on stdin, one answer per line out.

Run as a script by :mod:`.workers` (never imported by the library): it needs only the
standard library and ``ddgs``. ddgs starts threads of its own for every search and waits for
them before it returns; here they live and die with this process, which the library kills
when a call's deadline passes.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def search(request: dict[str, Any]) -> dict[str, Any]:
    """One search as the provider asked for it; failures become ``{"error": kind, "message"}``."""
    from ddgs import DDGS
    from ddgs.exceptions import DDGSException, TimeoutException

    try:
        client = DDGS(proxy=request["proxy"], timeout=request["timeout"], verify=request["verify"])
        results = client.text(
            request["query"],
            region=request["region"],
            safesearch=request["safesearch"],
            timelimit=request["timelimit"],
            max_results=request["max_results"],
            backend=request["backend"],
        )
    except TimeoutException as exc:
        return {"error": "timeout", "message": str(exc)}
    except DDGSException as exc:
        return {"error": "ddgs", "message": str(exc)}
    except Exception as exc:  # noqa: BLE001 - the library decides what a crash means
        return {"error": "crash", "message": f"{type(exc).__name__}: {exc}"}
    return {"results": [{k: r.get(k, "") for k in ("title", "href", "body")} for r in results or []]}


def main() -> None:
    # The protocol owns the real stdout; anything ddgs or its HTTP client prints goes to stderr.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    for line in sys.stdin:
        answers.write(json.dumps(search(json.loads(line))) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
