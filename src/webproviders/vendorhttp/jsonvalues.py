"""How many values a vendor's JSON answer may hold, so that parsing it stays within its cap.

Parsing makes a Python object of every value, and a small value costs many times its bytes:
10 million ``{}`` in 30 MB (within the 32 MiB cap) made a raw-HTTP vendor's search grow by
756 MB and an SDK's (which parses it twice) by 1.5 GB, for seconds no deadline can cut short.
Counting is done on the decoded bytes before anyone parses them, in C (``bytes.count``).
"""

from __future__ import annotations

import re

#: Bytes of the body cap per JSON value an answer may hold: 2,097,152 values at the default
#: 32 MiB, about 6 times as many as a 31 MiB SearXNG answer of 175,000 hits holds.
BYTES_PER_VALUE = 16
_JSON_START = re.compile(rb"\s*[\[{]")


def most_values(max_bytes: int) -> int:
    """The most JSON values an answer under a ``max_bytes`` cap may hold."""
    return max(1, max_bytes // BYTES_PER_VALUE)


def values_over(body: bytes, max_bytes: int) -> int | None:
    """The number of values ``body`` may hold when a JSON body holds more than
    :func:`most_values` allows, else None (a body that is no JSON array or object, too).

    Every value after an array's or object's first follows a comma, and every array and
    object opens with a bracket, so their count bounds the values (a comma or bracket inside
    a string is counted too: a bound, never an undercount)."""
    if not _JSON_START.match(body):
        return None
    counted = body.count(b",") + body.count(b"{") + body.count(b"[")
    return counted if counted > most_values(max_bytes) else None


__all__ = ["BYTES_PER_VALUE", "most_values", "values_over"]
