"""A question in plain words as the terms a store searches for.

People and models ask in sentences ("how do I configure retries?"). Each word becomes a
term, ``"quoted phrases"`` stay phrases, and common English words are left out unless the
question has nothing else; query syntax of any engine (``AND``, ``-x``, ``NEAR(...)``) is
plain text. Every store ranks pages by how many of the terms, and how rare ones, they hold.

A word keeps the combining marks written in it (the vowel signs of Hindi or Thai, an accent
typed decomposed) and its case: each store splits and folds a term as it does page text, so
``कोलकाता`` is asked as the page holds it, not as the consonants between its marks, and
``İstanbul`` is not lowered to ``i̇stanbul`` (an ``i`` and a combining dot) as Python lowers it.
"""

from __future__ import annotations

import re
import unicodedata

from .text import stored

_PHRASE = re.compile(r'"([^"]+)"')
STOP_WORDS = frozenset(
    """a an and are as at be been but by can could do does did for from had has have how i if in
    into is it its me my no not of on or our should so than that the their them then there these
    they this to was we were what when where which who whom why will with would you your""".split()
)


def _words(text: str) -> list[str]:
    """Runs of word characters (``\\w``) with the combining marks that follow one inside them
    (``\\w`` leaves marks out, which cut ``हिन्दी`` into ``ह``, ``न`` and ``द``); a run of
    underscores alone is none (both stores index ``_`` as punctuation: ``___`` matched nothing)."""
    words: list[str] = []
    word: list[str] = []
    for char in text:
        if char.isalnum() or char == "_" or (word and unicodedata.category(char).startswith("M")):
            word.append(char)
        elif word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    return [word for word in words if word.strip("_")]


def question_terms(query: str) -> list[str]:
    """The terms ``query`` asks for, phrases first, then words; each as the stores keep
    text (CJK characters set apart, see :mod:`.text`); empty when it holds no word.
    The question is read composed (NFC), as pages are written."""
    query = unicodedata.normalize("NFC", query)
    phrases = [phrase for phrase in (" ".join(_words(p)) for p in _PHRASE.findall(query)) if phrase]
    words = _words(_PHRASE.sub(" ", query))
    terms = [w for w in words if w.lower() not in STOP_WORDS]
    if not terms and not phrases:
        terms = words
    unique: dict[str, str] = {}
    for term in phrases + terms:  # one term whatever its case, in its first spelling
        unique.setdefault(term.casefold(), term)
    return [stored(term) for term in unique.values()]
