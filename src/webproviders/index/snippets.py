"""A search hit's snippet: the part of a page where the question's words are, in markdown.

Each store marks every match in a page's text (FTS5's ``highlight()``, PostgreSQL's
``ts_headline``) with :data:`START` and :data:`END`; this module picks the stretch of
:data:`SNIPPET_WORDS` words holding the most different matched words and turns the marks
into markdown bold. A match inside a code span is never bolded inside it (``max_**retries**``
would show the asterisks): the whole span is bolded instead (``**`max_retries`**``). Matched
CJK characters next to each other make one bold run.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter

from .text import SEGMENT, TOKEN

#: Marks around a match in a store's highlighted text (private-use characters).
START, END = "\ue000", "\ue001"
SNIPPET_WORDS = 32
BOLD = "**"
ELLIPSIS = "…"
#: A code span at the edge of the snippet is taken in whole when it is at most this long.
_WHOLE_CODE = 120
_MARK = re.compile(f"([{START}{END}])")
_TICKS = re.compile(r"`+")

Span = tuple[int, int]


def _parse(marked: str) -> tuple[str, list[Span]]:
    """The plain text and where the matches are in it; touching matches are one."""
    text: list[str] = []
    spans: list[Span] = []
    position, start = 0, None
    for piece in _MARK.split(marked.replace(SEGMENT, "")):
        if piece == START:
            start = position
        elif piece == END:
            if start is not None and position > start:
                if spans and spans[-1][1] == start:
                    spans[-1] = (spans[-1][0], position)
                else:
                    spans.append((start, position))
            start = None
        else:
            text.append(piece)
            position += len(piece)
    return "".join(text), spans


def _code_spans(text: str) -> list[Span]:
    """Inline code spans (and fenced blocks): a run of backticks up to the next run as long."""
    spans: list[Span] = []
    opening: re.Match[str] | None = None
    for run in _TICKS.finditer(text):
        if opening is None:
            opening = run
        elif len(run.group()) == len(opening.group()):
            spans.append((opening.start(), run.end()))
            opening = None
    return spans


def _best_window(text: str, spans: list[Span], words: int) -> Span:
    """The stretch of ``words`` tokens with the most different matched words (then the most
    matches, then the earliest)."""
    tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    if not tokens:
        return 0, len(text)
    starts = [start for start, _ in tokens]
    hits = [(bisect.bisect_right(starts, s) - 1, text[s:e].lower()) for s, e in spans]
    best, best_key = 0, (0, 0)
    seen: Counter[str] = Counter()
    left = 0
    for right, (index, word) in enumerate(hits):
        seen[word] += 1
        while index - hits[left][0] >= words:
            seen[hits[left][1]] -= 1
            if not seen[hits[left][1]]:
                del seen[hits[left][1]]
            left += 1
        key = (len(seen), right - left + 1)
        if key > best_key:  # start two words before the first match, if the page goes on that far
            best, best_key = max(0, min(hits[left][0] - 2, len(tokens) - words)), key
    last = min(len(tokens), best + words) - 1
    return tokens[best][0], tokens[last][1]


def _widen(window: Span, code: list[Span]) -> Span:
    """Take in a short code span that the window's edges would cut."""
    start, end = window
    for span_start, span_end in code:
        if span_end - span_start > _WHOLE_CODE:
            continue
        if span_start < start < span_end:
            start = span_start
        if span_start < end < span_end:
            end = span_end
    return start, end


def _hoisted(spans: list[Span], code: list[Span], window: Span) -> list[Span]:
    """Matches in the window, each inside a code span (wholly shown) grown to that span."""
    start, end = window
    grown: list[Span] = []
    for s, e in spans:
        s, e = max(s, start), min(e, end)
        if s >= e:
            continue
        for code_start, code_end in code:
            if code_start <= s < code_end and start <= code_start and code_end <= end:
                s, e = code_start, max(e, code_end)
        if grown and s <= grown[-1][1]:
            grown[-1] = (grown[-1][0], max(grown[-1][1], e))
        else:
            grown.append((s, e))
    return grown


def snippet(marked: str, words: int = SNIPPET_WORDS) -> str:
    """The snippet of a page's marked text: one line, matches in bold, ``…`` where cut."""
    text, spans = _parse(marked)
    code = _code_spans(text)
    start, end = _widen(_best_window(text, spans, words), code)
    if not TOKEN.search(text, 0, start):
        start = 0  # only markup or punctuation around the window (a heading's "#", a full stop): show it
    if not TOKEN.search(text, end):
        end = len(text)
    pieces: list[str] = []
    position = start
    for s, e in _hoisted(spans, code, (start, end)):
        pieces += [text[position:s], BOLD, text[s:e], BOLD]
        position = e
    pieces.append(text[position:end])
    line = " ".join("".join(pieces).split())
    if start:
        line = ELLIPSIS + line
    if end < len(text):
        line += ELLIPSIS
    return line
