"""A JSON body as a reader sees it: pretty-printed, or as it came when that would not help.

Runs in the extraction workers, as HTML does: a body is untrusted, and pretty-printing is
where its cost hides. Every level of nesting indents each line below it, so 300 KB of
nested arrays would print as gigabytes; output past :data:`GROWTH` times the body's size
(and a body nested past Python's recursion limit) is shown as the body itself.
"""

from __future__ import annotations

import json
from typing import Literal

#: Pretty-printed JSON longer than this many times the body is not printed (ordinary JSON
#: grows about twice: indentation and a line per value).
GROWTH = 4
#: What a short body may grow by beyond :data:`GROWTH` (a small object printed one key a line).
SLACK = 4096


def json_text(text: str, fmt: Literal["markdown", "text"]) -> str:
    """``text`` indented two spaces a level (a fenced block in markdown), or as it is when it is
    no JSON, is nested too deeply, or would grow past its bound."""
    try:
        chunks = json.JSONEncoder(indent=2, ensure_ascii=False).iterencode(json.loads(text))
        bound, size, kept = GROWTH * len(text) + SLACK, 0, []
        for chunk in chunks:
            size += len(chunk)
            if size > bound:
                return text
            kept.append(chunk)
    except (ValueError, RecursionError):
        return text
    pretty = "".join(kept)
    return f"```json\n{pretty}\n```" if fmt == "markdown" else pretty
