"""DuckDuckGo's region codes (``us-en``, ``de-de``...) and query syntax, for every client of it.

A region is one of a fixed list, not a free country + language pair: DuckDuckGo's HTML
endpoint (``kl``) and the ``ddgs`` package (``region``, which it splits into Google's and
Bing's country and language) both take it, so ``country`` / ``lang`` are matched against
the list once, here, and a pair DuckDuckGo does not offer is said in ``meta.warnings``
instead of being guessed.

The query is DuckDuckGo's too, whichever client sends it: a word that starts with ``!`` is a
bang, answered with a redirect to another site's search (``!w`` Wikipedia, ``!g`` Google), and
a first word that starts with ``\\`` ("I'm feeling ducky") with a redirect to the first
result's page; a client that follows redirects (ddgs does) then fetches that site from this
machine. ``duckduckgo_query`` quotes both, so DuckDuckGo searches them as words.
"""

from __future__ import annotations

import re

from ..context import warn
from .language import language_code

#: A word that starts with ``!``: a bang to DuckDuckGo, wherever it stands in the query.
_BANG = re.compile(r"(?<!\S)!\S*")
#: A first word that starts with ``\``: DuckDuckGo's shortcut to the first result's page.
_DUCKY = re.compile(r"\A(\s*)(\\\S*)")

#: The ``kl`` values DuckDuckGo's HTML endpoint offers in its region selector.
REGIONS = (
    "ar-es",
    "au-en",
    "at-de",
    "be-fr",
    "be-nl",
    "br-pt",
    "bg-bg",
    "ca-en",
    "ca-fr",
    "ct-ca",
    "cl-es",
    "cn-zh",
    "co-es",
    "hr-hr",
    "cz-cs",
    "dk-da",
    "ee-et",
    "fi-fi",
    "fr-fr",
    "de-de",
    "gr-el",
    "hk-tzh",
    "hu-hu",
    "in-en",
    "id-en",
    "ie-en",
    "il-en",
    "it-it",
    "jp-jp",
    "kr-kr",
    "lv-lv",
    "lt-lt",
    "my-en",
    "mx-es",
    "nl-nl",
    "nz-en",
    "no-no",
    "pk-en",
    "pe-es",
    "ph-en",
    "pl-pl",
    "pt-pt",
    "ro-ro",
    "ru-ru",
    "xa-ar",
    "sg-en",
    "sk-sk",
    "sl-sl",
    "za-en",
    "es-ca",
    "es-es",
    "se-sv",
    "ch-de",
    "ch-fr",
    "tw-tzh",
    "th-en",
    "tr-tr",
    "us-en",
    "us-es",
    "ua-uk",
    "uk-en",
    "vn-en",
)
#: ISO country codes DuckDuckGo spells differently.
_COUNTRY_ALIASES = {"gb": "uk", "sa": "xa", "si": "sl"}
#: The region a language alone points to, where ``<lang>-<lang>`` is not a region.
_LANG_REGIONS = {
    "en": "us-en",
    "zh": "cn-zh",
    "ja": "jp-jp",
    "ko": "kr-kr",
    "cs": "cz-cs",
    "da": "dk-da",
    "et": "ee-et",
    "el": "gr-el",
    "sv": "se-sv",
    "uk": "ua-uk",
    "ar": "xa-ar",
    "sl": "sl-sl",
    "ca": "ct-ca",
    "nb": "no-no",
}


def duckduckgo_region(
    name: str, country: str | None, lang: str | None, fallback: str = "all regions"
) -> str | None:
    """The region for a country and/or language, or None (with a warning naming ``name`` and
    what it searched instead, ``fallback``) if none fits."""
    if not country and not lang:
        return None
    lang_code = language_code(lang or "")
    # A tag's own region (pt-BR, zh-Hans-CN) stands in for a country not given.
    tags = (lang or "").replace("_", "-").split("-")[1:]
    country = country or next((t for t in reversed(tags) if len(t) == 2 and t.isalpha()), None)
    if country:
        code = country.lower()
        code = _COUNTRY_ALIASES.get(code, code)
        choices = [r for r in REGIONS if r.split("-")[0] == code]
        if not choices:
            warn(f"{name} has no DuckDuckGo region for country '{country}'; searched {fallback}.")
            return None
        for choice in choices:
            if lang_code and choice.split("-")[1] in (lang_code, "t" + lang_code):
                return choice
        if lang_code:
            warn(
                f"DuckDuckGo offers no '{lang}' results for country '{country}'; "
                f"{name} used region {choices[0]}."
            )
            return choices[0]
        return next((c for c in choices if c.split("-")[1] == c.split("-")[0]), choices[0])
    if lang_code == "zh" and "hant" in (tag.lower() for tag in tags):
        return "tw-tzh"  # traditional Chinese without a region: mainland China's region is simplified
    found = _LANG_REGIONS.get(lang_code) or (
        f"{lang_code}-{lang_code}" if f"{lang_code}-{lang_code}" in REGIONS else None
    )
    if found is None:
        warn(f"{name} has no DuckDuckGo region for language '{lang}'; searched {fallback}.")
    return found


def duckduckgo_query(query: str) -> str:
    """``query`` as DuckDuckGo searches it instead of redirecting it elsewhere: each ``!word``
    quoted (``'!w'``), and a leading ``\\word`` in double quotes (``"\\frac"``)."""
    query = _BANG.sub(lambda match: f"'{match.group()}'", query)
    return _DUCKY.sub(lambda match: f'{match.group(1)}"{match.group(2)}"', query)
