"""Structured content within the MCP server's character budget.

The text of a tool result is cut to ``--max-chars``; the structured content beside it goes
to the same client (and often to the same model), so it keeps to the same budget, counted
as its compact JSON. When it has to be cut it says so (``"truncated": true``) rather than
pass for the whole answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .formatting import cut_end, format_results

#: Set in structured content that was cut to fit; its compact JSON counts against the budget.
TRUNCATED = {"truncated": True}
_TRUNCATED_CHARS = len(',"truncated":true')
#: What a cut envelope keeps when nothing else fits.
_CORE = ("success", "error_code", "provider")


def json_chars(value: Any) -> int:
    """Length of ``value`` as compact JSON, the way the budget counts it."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))


def _strings_exceed(value: Any, limit: int) -> bool:
    """Whether the strings in ``value`` alone are longer than ``limit``, so its JSON is too:
    a look that stops once past it, before a dump of what may be megabytes of pages."""
    pending, total, seen = [value], 0, set()
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            total += len(item)
            if total > limit:
                return True
        elif isinstance(item, (Mapping, list, tuple)) and id(item) not in seen:
            seen.add(id(item))  # a container met again is not JSON: the dump says so
            pending.extend([*item.keys(), *item.values()] if isinstance(item, Mapping) else item)
    return False


def bounded_envelope(envelope: Mapping[str, Any], max_chars: int) -> dict[str, Any]:
    """The envelope when its JSON fits in ``max_chars``; else its ``json`` rendering (no
    ``meta`` or ``raw_content``, page contents and snippets cut fairly, trailing items left
    out with an ``omitted`` count) marked ``truncated``."""
    if not _strings_exceed(envelope, max_chars) and json_chars(envelope) <= max_chars:
        return dict(envelope)
    room = max_chars - _TRUNCATED_CHARS
    view = json.loads(format_results(envelope, "json", room) or "{}") if room > 0 else {}
    if "success" not in view:  # not even that fits (a failure with many URLs' sentences)
        view = _core(envelope, room)
    return {**view, **TRUNCATED}


def _core(envelope: Mapping[str, Any], room: int) -> dict[str, Any]:
    """What the call came to (``success``, ``error_code``, ``provider``) and as much of its
    sentence as fits in ``room``; empty when not even those fit."""
    core = {key: envelope[key] for key in _CORE if key in envelope}
    error = envelope.get("error")
    if isinstance(error, str):
        spare = room - json_chars({**core, "error": ""})
        while spare > 0:
            core["error"] = cut_end(error, spare)
            over = json_chars(core) - room
            if over <= 0:
                break
            spare -= over
        else:
            core.pop("error", None)
    return core if json_chars(core) <= room else {}


def bounded_rows(key: str, rows: Sequence[Any], max_chars: int) -> dict[str, Any]:
    """``{key: rows}`` when it fits in ``max_chars``; else as many leading rows as fit, with
    an ``omitted`` count, marked ``truncated``."""
    whole = {key: list(rows)}
    if json_chars(whole) <= max_chars:
        return whole
    for kept in range(len(rows) - 1, 0, -1):
        cut = {key: list(rows[:kept]), "omitted": len(rows) - kept, **TRUNCATED}
        if json_chars(cut) <= max_chars:
            return cut
    return {key: [], "omitted": len(rows), **TRUNCATED}
