"""How page text is kept so that every store finds words in any script.

Full-text tokenizers (FTS5's ``unicode61``, PostgreSQL's default parser) split words at
spaces and punctuation, so a run of Chinese or Japanese, written without spaces, becomes one
long "word" and ``東京`` inside it is never found; so does a Latin word or a number touching
it (``Python入門``, ``2024年``). The stores therefore keep such text with :data:`SEGMENT` (the
ASCII unit separator, a word break to both tokenizers and never part of page text) after and
before every CJK character that touches another word character: each CJK character is a
token, ``Python`` and ``2024`` stay words of their own, and a question's ``東京`` becomes the
phrase ``東 京``. :func:`shown` takes the separators out again on read. Thai, Lao, Khmer and
Myanmar, also written without spaces between words, are kept the same way, each letter with
the vowel and tone marks written on it (``ประเทศไทย`` is found inside a sentence).

Characters no store can hold are not kept: NUL (PostgreSQL's text refuses it, failing the
whole batch of pages it came in) and lone surrogates (not UTF-8 at all), which a vendor's
JSON can carry (``"\\u0000"``, ``"\\ud800"``); nor are the two control characters that mark
matches (:data:`START`, :data:`END`), which no page means.
"""

from __future__ import annotations

import re
import unicodedata

SEGMENT = "\x1f"
#: Marks around a match in a store's highlighted text (:mod:`.snippets`): control characters,
#: left out of stored text as :data:`SEGMENT` is. (Private-use characters served before, and
#: an icon font's U+E000 in a page's text was taken for a mark: words were bold at random.)
START, END = "\x1d", "\x1e"
#: Scripts written without spaces between words: kana, CJK ideographs, Hangul syllables,
#: and the ideographic marks 々 〆 〇 written among them; Thai, Lao, Myanmar and Khmer.
CJK_CHARS = (
    "\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0002fa1f\u0e01-\u0eff\u1000-\u109f\u1780-\u17ff"
)
#: Where a CJK character and another word character (CJK or not) touch, either way round; a
#: mark written on a letter (Thai ``ี``, not a word character) stays with it.
_CJK_EDGE = re.compile(rf"(?<=[{CJK_CHARS}])(?=\w)|(?=[{CJK_CHARS}])(?=\w)(?<=\w)")
#: NUL and the match marks, dropped, and lone surrogates, each kept as U+FFFD.
_UNSTORABLE = re.compile(f"[\x00{START}{END}\ud800-\udfff]")
#: What a store counts as one token: a CJK character (with the marks written on it), or a run
#: of other word characters.
TOKEN = re.compile(rf"[{CJK_CHARS}](?:(?!\w)[{CJK_CHARS}])*|[^\W{CJK_CHARS}]+")


def stored(text: str) -> str:
    """``text`` as a store keeps it: composed (NFC, as questions are read: PostgreSQL does not
    compose, and decomposed Hangul is no CJK character), each CJK character set apart by
    :data:`SEGMENT` from the word characters it touches, so that each is found on its own;
    characters no store can hold left out (NUL) or replaced (lone surrogates)."""
    text = _UNSTORABLE.sub(lambda m: "\ufffd" if "\ud800" <= m.group() <= "\udfff" else "", text)
    text = unicodedata.normalize("NFC", text)
    return _CJK_EDGE.sub(SEGMENT, text.replace(SEGMENT, ""))


def shown(text: str) -> str:
    """Stored text as it was given."""
    return text.replace(SEGMENT, "")


def token_count(text: str) -> int:
    """How many words (CJK: characters) ``text`` holds: a page's length for ranking."""
    return sum(1 for _ in TOKEN.finditer(text))
