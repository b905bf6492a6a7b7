"""What a value read from a shared cache store must look like to be served: the stores are
shared with other processes, other versions and, in Redis, other programs."""

from __future__ import annotations

import math
from typing import Any

from ...errors import ERROR_CODES


def an_answer(value: Any) -> bool:
    """Whether a stored value has an answer's shape: ``data`` a search's ``{"web": [...]}`` or
    an extract's or crawl's pages, each item a mapping with its URL as text, and ``meta`` a
    mapping whose ``warnings`` are sentences. Another program's or version's entry in a shared
    store was served as it was: a success whose ``data`` was null or a string, or whose
    warnings came out one character each."""
    if not isinstance(value, dict) or not isinstance(value.get("meta"), dict):
        return False
    warnings = value["meta"].get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        return False
    data = value.get("data")
    items = data.get("web") if isinstance(data, dict) else data
    return isinstance(items, list) and all(isinstance(i, dict) and isinstance(i.get("url"), str) for i in items)


def a_failure(given: Any) -> bool:
    """Whether a handed-over failure has the fields :func:`.handover.failure` writes, each of
    its type: another's entry raised ``TypeError`` inside the call ('The provider failed')."""
    if not isinstance(given, dict) or given.get("code") not in ERROR_CODES or not isinstance(given.get("message"), str):
        return False
    wait, status, failures = given.get("retry_after"), given.get("status_code"), given.get("failures")
    return (
        all(isinstance(given.get(name), (str, type(None))) for name in ("provider", "detail"))
        and (wait is None or (type(wait) in (int, float) and 0 <= wait < math.inf))
        and (status is None or type(status) is int)
        and (failures is None or (isinstance(failures, list) and all(isinstance(f, dict) for f in failures)))
    )
