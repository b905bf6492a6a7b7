"""The marked text of a long page's best stretch, for its snippet in the SQLite store.

FTS5's ``highlight()`` grows its answer one match at a time, copying what it has so far:
its cost grows with the square of a page's matches (a 1.4 MB page naming a word 80,000
times took 5 s, 3.6 MB 36 s, longer than a search may last, and a search cannot stop it).
So a page longer than :data:`LONG_PAGE` characters is cut into pieces of about that size,
put in an FTS5 table in memory, and only the piece that BM25 ranks first for the question
(the most, and the rarest, of its words) is highlighted. Indexing pieces costs as much as
indexing the page did (a 60 MB page: 7 s, at every search it was a hit of), so at most
:data:`MAX_PIECES` of them are: those holding the most of the question's words as plain
text (folded, each word without its last letters, which stemming may change).
"""

from __future__ import annotations

import re
import unicodedata

from .text import CJK_CHARS, SEGMENT, shown

#: FTS5's tokenizer for page text, here and in the index itself: matches are the same words.
TOKENIZE = "porter unicode61 remove_diacritics 2"
#: Characters of a page's text above which it is highlighted piece by piece; a piece's size.
LONG_PAGE = 32_768
#: Pieces (about 1 MB of text) ranked for a page's snippet at most.
MAX_PIECES = 32
_SPACE = re.compile(r"\s")
_MARKS = re.compile(r"[\u0300-\u036f]")
#: A run of CJK text, or a word of other word characters.
_CLUE = re.compile(rf"([{CJK_CHARS}]+)|[^\W{CJK_CHARS}]+")


def _pieces(text: str) -> list[str]:
    """``text`` in pieces of at most :data:`LONG_PAGE` characters, cut at a space where one is
    in the second half of the piece (text without spaces, such as Chinese, anywhere)."""
    pieces = []
    start = 0
    while len(text) - start > LONG_PAGE:
        end = start + LONG_PAGE
        cut = _last_space(text, start + LONG_PAGE // 2, end) + 1 or end
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


def _last_space(text: str, start: int, end: int) -> int:
    """Where the last white space in ``text[start:end]`` is, or -1: a line break or space
    found by ``rfind`` (listing every space with a regex took 4 s for a 60 MB page)."""
    found = max(text.rfind(char, start, end) for char in " \n\t\r")
    if found < 0:
        found = next((m.start() for m in reversed(list(_SPACE.finditer(text, start, end)))), -1)
    return found


def _folded(text: str) -> str:
    """``text`` without case or accents, as the tokenizer compares words."""
    text = text.replace(SEGMENT, "").casefold()
    return text if text.isascii() else _MARKS.sub("", unicodedata.normalize("NFD", text))


def _clues(expression: str) -> set[str]:
    """What a piece holding a word of ``expression`` holds as plain text: each word folded and
    cut short (``retries`` and ``retry`` share ``ret``), each run of CJK text as it is (``東京``,
    not ``東`` and ``京``, which a page holds far more often apart)."""
    clues = set()
    for match in _CLUE.finditer(_folded(shown(expression))):
        word = match.group()
        cjk = match.lastindex == 1
        clues.add(word if cjk or len(word) <= 3 else word[:max(3, len(word) - 4)])
    return clues - {"or"}


def _likely(pieces: list[str], expression: str) -> list[int]:
    """The indices of at most :data:`MAX_PIECES` pieces, those holding the most clues first."""
    if len(pieces) <= MAX_PIECES:
        return list(range(len(pieces)))
    clues = _clues(expression)
    held = [(-sum(clue in folded for clue in clues), i) for i, folded in enumerate(map(_folded, pieces))]
    return sorted(i for _, i in sorted(held)[:MAX_PIECES])


def best_piece(content: str, expression: str, start: str, end: str) -> tuple[str, bool, bool]:
    """The piece of ``content`` (as stored) where ``expression`` (an FTS5 ``MATCH``) fits best,
    its matches between ``start`` and ``end``; and whether text was cut before and after it.
    The first piece, unmarked, when no piece holds a match (the title matched)."""
    import sqlite3

    pieces = _pieces(content)
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE piece USING fts5(content, tokenize='{TOKENIZE}')")
        conn.executemany("INSERT INTO piece (rowid, content) VALUES (?, ?)",
                         [(i, pieces[i]) for i in _likely(pieces, expression)])
        row = conn.execute(
            "SELECT rowid, highlight(piece, 0, ?, ?) FROM piece WHERE piece MATCH ? ORDER BY rank LIMIT 1",
            (start, end, expression),
        ).fetchone()
    finally:
        conn.close()
    index, marked = row if row is not None else (0, pieces[0])
    return marked, index > 0, index < len(pieces) - 1
