"""Lone surrogates in text a vendor sent.

JSON may spell half of a UTF-16 pair on its own (``"\\ud83d"``: a string a vendor cut between
the two halves of an emoji), and Python decodes it into a ``str`` that no UTF-8 encoder
accepts. An envelope holding one could not be sent over MCP, stored in a cache or index, or
written to a file, so every string of an answer is repaired once, when it is normalised.
"""

from __future__ import annotations

import re

#: Any surrogate code point left in a ``str`` is a lone one: JSON decoding joins real pairs.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def is_sound(text: str) -> bool:
    """Whether ``text`` holds no lone surrogate (any UTF-8 encoder takes it)."""
    return sound(text) is text


def sound(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (``text`` itself when it has none)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # in C, and a third of a search's time on short text
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(REPLACEMENT, text)
    return text
