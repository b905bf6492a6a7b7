"""A question in plain words as the terms a store searches for.

People and models ask in sentences ("how do I configure retries?"). Each word becomes a
term, ``"quoted phrases"`` stay phrases, and common English words are left out unless the
question has nothing else; query syntax of any engine (``AND``, ``-x``, ``NEAR(...)``) is
plain text. Every store ranks pages by how many of the terms, and how rare ones, they hold.
"""

from __future__ import annotations

import re

from .text import stored

_PHRASE = re.compile(r'"([^"]+)"')
_WORD = re.compile(r"\w+")
STOP_WORDS = frozenset(
    """a an and are as at be been but by can could do does did for from had has have how i if in
    into is it its me my no not of on or our should so than that the their them then there these
    they this to was we were what when where which who whom why will with would you your""".split()
)


def question_terms(query: str) -> list[str]:
    """The terms ``query`` asks for, phrases first, then words; each as the stores keep
    text (CJK characters set apart, see :mod:`.text`); empty when it holds no word."""
    phrases = [" ".join(_WORD.findall(p.lower())) for p in _PHRASE.findall(query) if _WORD.search(p)]
    words = _WORD.findall(_PHRASE.sub(" ", query).lower())
    terms = [w for w in words if w not in STOP_WORDS]
    if not terms and not phrases:
        terms = words
    return [stored(term) for term in dict.fromkeys(phrases + terms)]
