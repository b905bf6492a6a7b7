"""ISO 3166-1 alpha-3 country codes (``deu``) as the alpha-2 codes (``de``) every vendor takes,
and the United Kingdom's reserved ``uk`` as its ``gb``.

The dispatcher accepts either form; every search API it speaks to (Brave's ``country``,
Google's ``gl``, You.com, Perplexity, Exa, ...) takes two letters only, so a three-letter
code is turned into its two-letter one once, before any provider sees it. The table is
CLDR's, read from Babel, and loaded only when a three-letter code arrives.
"""

from __future__ import annotations

from functools import cache

from .errors import InvalidInputError


@cache
def _alpha2_by_alpha3() -> dict[str, str]:
    from babel.core import get_global

    aliases = get_global("territory_aliases")
    return {
        alias.lower(): targets[0].lower()
        for alias, targets in aliases.items()
        if len(alias) == 3 and alias.isalpha() and len(targets) == 1 and len(targets[0]) == 2
    }


#: ``uk``: the code ISO 3166 reserves for the United Kingdom (its ``.uk`` domain), which people
#: write for it; every vendor's own code is ``gb`` (Brave refuses ``UK`` with a 422).
_RESERVED = {"uk": "gb"}


def alpha2(country: str) -> str:
    """``country`` as two letters: an alpha-2 code as given (``uk`` as ``gb``), an alpha-3
    code mapped to its alpha-2 one; an unknown three-letter code is the caller's error, said
    as such."""
    if len(country) != 3:
        code = _RESERVED.get(country.lower())
        return country if code is None else code if country.islower() else code.upper()
    code = _alpha2_by_alpha3().get(country.lower())
    if code is None:
        raise InvalidInputError(
            f"country {country!r} is not an ISO 3166-1 country code; use two letters such as 'us' "
            "or three such as 'deu'."
        )
    return code if country.islower() else code.upper()
