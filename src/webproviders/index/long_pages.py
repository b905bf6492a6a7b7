"""The marked text of a long page's best stretch, for its snippet in the SQLite store.

FTS5's ``highlight()`` grows its answer one match at a time, copying what it has so far:
its cost grows with the square of a page's matches (a 1.4 MB page naming a word 80,000
times took 5 s, 3.6 MB 36 s, longer than a search may last, and a search cannot stop it).
So a page longer than :data:`LONG_PAGE` characters is cut into pieces of about that size,
put in an FTS5 table in memory, and only the piece that BM25 ranks first for the question
(the most, and the rarest, of its words) is highlighted.
"""

from __future__ import annotations

import re

#: FTS5's tokenizer for page text, here and in the index itself: matches are the same words.
TOKENIZE = "porter unicode61 remove_diacritics 2"
#: Characters of a page's text above which it is highlighted piece by piece; a piece's size.
LONG_PAGE = 32_768
_SPACE = re.compile(r"\s")


def _pieces(text: str) -> list[str]:
    """``text`` in pieces of at most :data:`LONG_PAGE` characters, cut at a space where one is
    in the second half of the piece (text without spaces, such as Chinese, anywhere)."""
    pieces = []
    start = 0
    while len(text) - start > LONG_PAGE:
        end = start + LONG_PAGE
        spaces = [m.start() for m in _SPACE.finditer(text, start + LONG_PAGE // 2, end)]
        cut = spaces[-1] + 1 if spaces else end
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


def best_piece(content: str, expression: str, start: str, end: str) -> tuple[str, bool, bool]:
    """The piece of ``content`` (as stored) where ``expression`` (an FTS5 ``MATCH``) fits best,
    its matches between ``start`` and ``end``; and whether text was cut before and after it.
    The first piece, unmarked, when no piece holds a match (the title matched)."""
    import sqlite3

    pieces = _pieces(content)
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE piece USING fts5(content, tokenize='{TOKENIZE}')")
        conn.executemany("INSERT INTO piece (rowid, content) VALUES (?, ?)", enumerate(pieces))
        row = conn.execute(
            "SELECT rowid, highlight(piece, 0, ?, ?) FROM piece WHERE piece MATCH ? ORDER BY rank LIMIT 1",
            (start, end, expression),
        ).fetchone()
    finally:
        conn.close()
    index, marked = row if row is not None else (0, pieces[0])
    return marked, index > 0, index < len(pieces) - 1
