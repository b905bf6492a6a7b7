"""A page's own robots directives: its ``<meta name="robots">`` tags and ``X-Robots-Tag``
headers (robots.txt is :mod:`.robots`). Apart from it, as the extraction worker reads these
on every page and needs nothing of a crawl's robots.txt machinery (asyncio, protego)."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Robots directives that take a value after a colon (``max-snippet: 20``): a line that starts
#: with any other word and a colon names the crawler it is for (``googlebot: nofollow``).
_VALUED_DIRECTIVES = frozenset({"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"})
_NAMED = re.compile(r"\s*([\w.-]+)\s*:")


def says_nofollow(values: Iterable[str], user_agent: str = "") -> bool:
    """Whether robots directives forbid following a page's links: the contents of its
    ``<meta name="robots">`` tags or the values of its ``X-Robots-Tag`` headers, each a
    comma-separated list (``noindex, nofollow``; ``none`` means both). A value addressed to one
    named crawler (``googlebot: nofollow``) is for it alone: ours when the name is a product
    token of ``user_agent``, as a robots.txt group's is."""
    for value in values:
        named = _NAMED.match(value)
        if named and named.group(1).lower() not in _VALUED_DIRECTIVES:
            if not _names(user_agent, named.group(1)):
                continue
            value = value[named.end() :]
        if {part.strip().lower() for part in value.split(",")} & {"nofollow", "none"}:
            return True
    return False


def _names(user_agent: str, name: str) -> bool:
    """Whether ``name`` stands in ``user_agent`` as a whole product token (``MyBot`` in
    ``Mozilla/5.0 (compatible; MyBot/1.0)``, not ``bot`` in it)."""
    pattern = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
    return re.search(pattern, user_agent, re.IGNORECASE) is not None
