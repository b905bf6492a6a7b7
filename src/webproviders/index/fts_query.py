"""A question in plain words as an FTS5 ``MATCH`` expression.

People and models ask in sentences ("how do I configure retries?"), which FTS5's query
syntax would reject (``?``) or read too strictly (every word required). Each word becomes a
quoted term, ``"quoted phrases"`` stay phrases, and the terms are joined with ``OR`` so BM25
ranks pages by how many rare terms they share; common English words are left out unless
the question has nothing else.
"""

from __future__ import annotations

import re

_PHRASE = re.compile(r'"([^"]+)"')
_WORD = re.compile(r"\w+")
STOP_WORDS = frozenset(
    """a an and are as at be been but by can could do does did for from had has have how i if in
    into is it its me my no not of on or our should so than that the their them then there these
    they this to was we were what when where which who whom why will with would you your""".split()
)


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def query_terms(query: str) -> list[str]:
    """The quoted FTS5 terms (phrases first, then words) a question asks for."""
    phrases = [p.strip() for p in _PHRASE.findall(query) if _WORD.search(p)]
    words = _WORD.findall(_PHRASE.sub(" ", query).lower())
    terms = [w for w in words if w not in STOP_WORDS]
    if not terms and not phrases:
        terms = words
    return [_quoted(term) for term in dict.fromkeys(phrases + terms)]


def match_expression(query: str) -> str | None:
    """The ``MATCH`` expression for ``query``, or None when it holds no word at all."""
    return " OR ".join(query_terms(query)) or None
