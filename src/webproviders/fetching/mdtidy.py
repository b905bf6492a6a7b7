"""Repairs to trafilatura's markdown, so that a markdown reader shows what the page showed.

Two of its habits break documentation pages most: inline code that the page wrapped over
two lines comes out as a fenced block opened in the middle of a sentence (which then swallows
the text after it as code), and lines inside list items come out indented by four spaces or
more (an indented code block to a renderer, so their links and emphasis show as raw syntax).
Fenced code blocks themselves are left exactly as they are.
"""

from __future__ import annotations

import re

#: A fence opened after text on the same line (not after more backticks: ```` opens a block
#: whose code holds a ``` line), closed a few lines later: inline code. The line after it
#: joins the sentence, unless it starts a block of its own (a list item, a heading, a fence).
_INLINE_FENCE = re.compile(
    r"(?<=[^\s`])[ \t]*```\n((?:[^\n`]*\n){0,8}?[^\n`]*)\n```(?!`)[ \t]*"
    r"(?:\n(?=[^\n])(?!\s*(?:[-*+]\s|\d{1,9}[.)]\s|#|>|\||```|~~~)))?"
)
#: A fence line: three or more backticks or tildes. One closes the block only when it is of
#: the same character and at least as long as the one that opened it (CommonMark).
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s")
_SPACES = re.compile(r"\s+")


def _inline(match: re.Match[str]) -> str:
    code = _SPACES.sub(" ", match.group(1)).strip()
    return f" `{code}`" if code else ""


def tidy_markdown(markdown: str) -> str:
    """``markdown`` with mid-sentence fences made inline code and stray indentation removed."""
    markdown = _INLINE_FENCE.sub(_inline, markdown)
    lines: list[str] = []
    opened: str | None = None  # the fence of the code block the line is in
    for line in markdown.split("\n"):
        fence = _FENCE.match(line)
        if fence is not None:
            marker = fence.group(1)
            if opened is None:
                opened = marker
            elif marker[0] == opened[0] and len(marker) >= len(opened):
                opened = None
        elif opened is None and line.startswith("    ") and not _LIST_ITEM.match(line):
            line = line.lstrip()
        lines.append(line)
    return "\n".join(lines)
