"""A redirect's ``Location`` as browsers read it, before anything else reads it.

httpx parses every redirect's target as the answer arrives (for a next request the fetcher,
which checks each hop itself, never sends), and stopped at what a browser's URL parser cleans
away: a tab in the header failed the page, and ``\\docs\\page`` was requested as written.
Links on pages are read with the same rules (:func:`webproviders.urls.as_parsers_read`).
"""

from __future__ import annotations

from urllib.parse import quote

import httpx

from ..urls import as_parsers_read

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
#: Bytes a Location header keeps as they are; any other is percent-encoded.
_LOCATION_SAFE = "".join(map(chr, range(0x21, 0x7F)))


def redirect_location(headers: httpx.Headers) -> str | None:
    """The ``Location`` header as browsers follow it: bytes outside ASCII percent-encoded as
    they came. Decoded as text first, a Shift_JIS path (not UTF-8, so read as Latin-1) went
    out re-encoded as UTF-8 (``%C2%93…``), an address the site does not have."""
    raw = _raw_location(headers)
    if raw is None:
        return None
    if raw.isascii():
        return raw.decode("ascii")
    return quote(raw.strip(), safe=_LOCATION_SAFE)


async def clean_location(response: httpx.Response) -> None:
    """A client's response hook: a redirect's ``Location`` rewritten as browsers' URL parser
    reads it (tabs and newlines dropped, a backslash a slash), before httpx parses it. Its
    bytes outside ASCII are kept, percent-encoded (Latin-1 maps each byte to one character)."""
    if response.status_code not in REDIRECT_STATUSES:
        return
    raw = _raw_location(response.headers)
    if raw is None:
        return
    text = raw.decode("latin-1")
    cleaned = as_parsers_read(text, str(response.request.url))
    if cleaned != text:
        response.headers["Location"] = quote(cleaned.encode("latin-1"), safe=_LOCATION_SAFE)


def _raw_location(headers: httpx.Headers) -> bytes | None:
    """The ``Location`` header's bytes, as they came."""
    return next((value for key, value in headers.raw if key.lower() == b"location"), None)
