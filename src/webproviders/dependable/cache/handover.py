"""Handing what a worker got to the workers of other processes that waited on its claim,
when it is not cached: an answer (an empty search, an extract where a URL failed) or the
provider's failure. It is left beside the key for a moment, and only waiting workers read it,
so they share it as calls in one process share a flight, instead of each taking the claim in
turn and asking again. A failure is taken only by workers whose provider holds the same keys
(``scope``): the cache key leaves keys out, and one tenant's refused or exhausted key says
nothing of another's."""

from __future__ import annotations

from typing import Any

from ...errors import WebProviderError, error_for_code
from .shape import a_failure, an_answer

#: Where it is left: beside the key's own entry.
PREFIX = "handover:"
#: Seconds it stays: longer than a waiting worker's poll, too short to serve later calls.
TTL = 2.0


def failure(error: WebProviderError, scope: str = "") -> dict[str, Any]:
    """A provider's failure met with the keys ``scope`` names, in a form a store keeps."""
    return {
        "scope": scope,
        "failure": {
            "code": error.code,
            "message": error.message,
            "provider": error.provider,
            "detail": error.detail,
            "retry_after": error.retry_after,
            "status_code": error.status_code,
            "failures": error.failures,
        }
    }


def taken(value: Any, scope: str = "") -> Any:
    """The answer left, or None when what is there is neither an answer nor a failure met with
    the keys ``scope`` names (nor one of their shapes, see :mod:`.shape`); such a failure is raised."""
    if not isinstance(value, dict):
        return None
    given = value.get("failure")
    if a_failure(given):
        if value.get("scope", "") != scope:  # met with other keys: this worker asks with its own
            return None
        error = error_for_code(
            given["code"],
            str(given.get("message") or ""),
            provider=given.get("provider"),
            detail=given.get("detail"),
            retry_after=given.get("retry_after"),
            status_code=given.get("status_code"),
        )
        if isinstance(given.get("failures"), list):
            error.failures = given["failures"]
        raise error
    return value if an_answer(value) else None
