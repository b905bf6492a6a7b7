"""How page text is kept so that every store finds words in any script.

Full-text tokenizers (FTS5's ``unicode61``, PostgreSQL's default parser) split words at
spaces and punctuation, so a run of Chinese or Japanese, written without spaces, becomes one
long "word" and ``東京`` inside it is never found. The stores therefore keep such text with
:data:`SEGMENT` (the ASCII unit separator, a word break to both tokenizers and never part of
page text) between adjacent CJK characters: each character is a token, and a question's
``東京`` becomes the phrase ``東 京``. :func:`shown` takes the separators out again on read.
"""

from __future__ import annotations

import re

SEGMENT = "\x1f"
#: Scripts written without spaces between words: kana, CJK ideographs, Hangul syllables.
CJK_CHARS = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0002fa1f"
)
_CJK_PAIR = re.compile(f"([{CJK_CHARS}])(?=[{CJK_CHARS}])")
#: What a store counts as one token: a CJK character, or a run of other word characters.
TOKEN = re.compile(rf"[{CJK_CHARS}]|[^\W{CJK_CHARS}]+")


def stored(text: str) -> str:
    """``text`` as a store keeps it: CJK characters set apart by :data:`SEGMENT`."""
    text = text.replace(SEGMENT, "")
    return _CJK_PAIR.sub(r"\1" + SEGMENT, text)


def shown(text: str) -> str:
    """Stored text as it was given."""
    return text.replace(SEGMENT, "")


def token_count(text: str) -> int:
    """How many words (CJK: characters) ``text`` holds: a page's length for ranking."""
    return sum(1 for _ in TOKEN.finditer(text))
