"""Where a page sends its reader with ``<meta http-equiv="refresh" content="0; url=...">``, or
with the ``Refresh: 0; url=...`` header that tag stands for (PHP's ``header("Refresh: ...")``).

Moved pages, link shorteners and consent interstitials answer 200 with this tag and little
else; a browser goes on to the target, so a reader does too. Only a short delay counts: a
news page that reloads itself (or goes to its home page) every few minutes says
``content="300; url=/"``, which is no redirect. A refresh inside ``<noscript>`` is for browsers
whose scripts are off (most often to a "turn on JavaScript" page); a browser running scripts
never reads it and shows the page, and so does a reader.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ..urls import join_url

#: Seconds of delay up to which a refresh is taken as a redirect.
MAX_DELAY = 10.0
#: ``N; url=target`` as the WHATWG refresh steps read it: a time first (digits, or a dot),
#: then a ``;``, a ``,`` or a space before the target (also without ``url=``, quoted). Content
#: that does not start with a time is no refresh at all: browsers ignore it. A long content is
#: read in one pass: no two open-ended parts of the pattern take the same characters.
_CONTENT = re.compile(
    r"^\s*(?=[\d.])(?P<delay>\d*)(?:\.[\d.]*)?(?:(?:\s*[;,]|\s)\s*(?:url\s*=)?(?P<target>.*))?$",
    re.IGNORECASE | re.DOTALL,
)


def _target(found: re.Match[str]) -> str:
    """The address a refresh names: up to its closing quote when it is quoted."""
    target = (found.group("target") or "").strip()
    if target[:1] in ("'", '"'):
        target = target[1:].split(target[0], 1)[0]
    return target.strip()


def refresh_target(tree: Any, url: str, base: str) -> str | None:
    """The http(s) address the page at ``url`` sends a reader to soon with its refresh (read
    against ``base``, the page's ``<base href>`` or its address), or None."""
    for element in tree.iter("meta"):
        if (element.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        if next(element.iterancestors("noscript"), None) is not None:
            continue
        return refresh_to(element.get("content") or "", url, base)
    return None


def refresh_to(content: str, url: str, base: str) -> str | None:
    """The http(s) address a refresh's ``content`` (``0; url=/moved``, a ``<meta>``'s or a
    ``Refresh`` header's) sends the reader of the page at ``url`` to soon, read against
    ``base``; None when it names none, waits longer, or names the page itself."""
    found = _CONTENT.match(content)
    if found is None or not (address := _target(found)):
        return None
    delay = float(found.group("delay") or 0)
    target = join_url(base, address)
    if target is None or delay > MAX_DELAY or urlsplit(target).scheme not in ("http", "https"):
        return None
    return None if target.split("#")[0] == url.split("#")[0] else target
