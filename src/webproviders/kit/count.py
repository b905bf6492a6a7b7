"""A result count held to what a vendor serves in one request, said in ``meta.warnings``.

A ``limit`` above the vendor's ceiling is refused by some vendors (a 422 for the caller)
and quietly cut by others; either way the caller should get what the vendor can give and
be told why the answer is shorter than asked.
"""

from __future__ import annotations

from ..context import warn


def capped_count(name: str, limit: int, most: int) -> int:
    """``limit``, or ``most`` with a warning when ``limit`` is above it."""
    if limit <= most:
        return limit
    warn(f"{name} returns at most {most} results per request; {limit} were asked for.")
    return most
