"""A search hit's snippet: the part of a page where the question's words are, in markdown.

Each store marks every match in a page's text (FTS5's ``highlight()``, PostgreSQL's
``ts_headline``) with :data:`START` and :data:`END`; this module picks the stretch of
:data:`SNIPPET_WORDS` words holding the most different matched words and turns the marks
into markdown bold. A match inside a code span is never bolded inside it (``max_**retries**``
would show the asterisks): the whole span is bolded instead (``**`max_retries`**``). Matched
CJK characters next to each other make one bold run.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from itertools import islice

from .text import CJK_CHARS, END, SEGMENT, START, TOKEN, shown

SNIPPET_WORDS = 32
BOLD = "**"
ELLIPSIS = "…"
#: Characters a word takes, roughly, with the space after it.
_CHARS_PER_WORD = 7
#: A code span at the edge of the snippet is taken in whole when it is at most this long.
_WHOLE_CODE = 120
#: A run of characters without a space (an inlined base64 image, a rule of dashes) is shown
#: up to this long; and a snippet is at most :data:`MAX_CHARS` long, whatever its words are.
_LONG_RUN = 60
MAX_CHARS = 1_000
_RUN = re.compile(rf"[^\s*]{{{_LONG_RUN + 1},}}")
_MARK = re.compile(f"([{START}{END}])")
_CJK = re.compile(f"[{CJK_CHARS}]")
_TICKS = re.compile(r"`+")

Span = tuple[int, int]


def _parse(marked: str) -> tuple[str, list[Span]]:
    """The plain text and where the matches are in it; touching matches are one, and a match
    takes in the marks written on its last letter (FTS5 ends a Hindi or Thai word before a
    vowel sign: ``**कोलकात**ा``)."""
    pieces: list[str] = []
    found: list[Span] = []
    position, start = 0, None
    for piece in _MARK.split(marked.replace(SEGMENT, "")):
        if piece == START:
            start = position
        elif piece == END:
            if start is not None and position > start:
                found.append((start, position))
            start = None
        else:
            pieces.append(piece)
            position += len(piece)
    text = "".join(pieces)
    spans: list[Span] = []
    for start, end in found:
        while end < len(text) and unicodedata.category(text[end]).startswith("M"):
            end += 1
        if spans and spans[-1][1] >= start:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return text, spans


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
    """About ``words`` tokens where the most different matched words are (then the most
    matches, then the earliest), from two words before the first of them.

    Matches are grouped by distance in characters, so only the chosen stretch is split into
    tokens: a long page costs no more than a short one.
    """
    width = words * _CHARS_PER_WORD
    anchor, best_key = 0, (0, 0)
    seen: Counter[str] = Counter()
    left = 0
    for right, (start, end) in enumerate(spans):
        seen[text[start:end].lower()] += 1
        while start - spans[left][0] >= width:
            word = text[spans[left][0]:spans[left][1]].lower()
            seen[word] -= 1
            if not seen[word]:
                del seen[word]
            left += 1
        key = (len(seen), right - left + 1)
        if key > best_key:
            anchor, best_key = spans[left][0], key
    after = list(islice(TOKEN.finditer(text, anchor), words))
    before = list(TOKEN.finditer(text, max(0, anchor - width), anchor))
    lead = before[max(0, len(before) - max(2, words - len(after))):]  # two words, more near the end
    window = [m.span() for m in lead + after][:words]
    if not window:
        return 0, len(text)
    return window[0][0], window[-1][1]


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


def _whole_terms(text: str, spans: list[Span], terms: list[str]) -> list[Span]:
    """The matches that hold a whole term where the term is CJK text (a phrase of characters).

    PostgreSQL's ``ts_headline`` marks each word of a phrase wherever it is, and a word of CJK
    or Thai text is one character: every ``京`` of a page was bold for ``東京``, and for a Thai
    question most of the page. Other matches are kept (their words may be stemmed)."""
    whole = [shown(term).casefold() for term in terms]
    return [
        (start, end) for start, end in spans
        if not _CJK.search(text, start, end) or any(term in text[start:end].casefold() for term in whole)
    ]


def snippet(marked: str, words: int = SNIPPET_WORDS, terms: list[str] | None = None) -> str:
    """The snippet of a page's marked text: one line, matches in bold, ``…`` where cut.
    With the question's ``terms``, a match in CJK text is shown only where a whole term is."""
    text, spans = _parse(marked)
    if terms is not None:
        spans = _whole_terms(text, spans, terms)
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
    line = _bounded(" ".join("".join(pieces).split()))
    if start:
        line = ELLIPSIS + line
    if end < len(text) and not line.endswith(ELLIPSIS):
        line += ELLIPSIS
    return line


def _bounded(line: str) -> str:
    """``line`` with each long run cut short and the whole cut to :data:`MAX_CHARS` (a bold
    run it cuts is closed): a word is a few characters, and a hit's snippet stays a line."""
    line = _RUN.sub(lambda run: run.group()[:_LONG_RUN] + ELLIPSIS, line)
    if len(line) <= MAX_CHARS:
        return line
    cut = line[:MAX_CHARS]
    cut = cut[: cut.rfind(" ")] if " " in cut[MAX_CHARS // 2 :] else cut
    return cut + (BOLD if cut.count(BOLD) % 2 else "") + ELLIPSIS
