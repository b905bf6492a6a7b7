"""The form DuckDuckGo's HTML endpoint takes, built from the common search options.

``kl`` is a fixed list of region codes (``us-en``, ``de-de``, ``uk-en``...), not a free
country + language pair, so ``country`` / ``lang`` are matched against that list and a
pair DuckDuckGo does not offer is reported in ``meta.warnings`` instead of being guessed.
"""

from __future__ import annotations

from typing import Any

from webproviders import warn
from webproviders.kit import site_query

#: ``df``: how recent results must be.
TIME_RANGES = {"day": "d", "week": "w", "month": "m", "year": "y"}
#: ``kp``: 1 strict, -1 moderate, -2 off.
SAFE_SEARCH = {"strict": "1", "moderate": "-1", "off": "-2"}

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


def region(country: str | None, lang: str | None) -> str | None:
    """The ``kl`` region for a country and/or language, or None (with a warning) if none fits."""
    if not country and not lang:
        return None
    lang_code = (lang or "").lower().split("-")[0]
    if country:
        code = country.lower()
        code = _COUNTRY_ALIASES.get(code, code)
        choices = [r for r in REGIONS if r.split("-")[0] == code]
        if not choices:
            warn(
                f"ddg_html has no DuckDuckGo region for country '{country}'; searched all regions."
            )
            return None
        for choice in choices:
            if lang_code and choice.split("-")[1] in (lang_code, "t" + lang_code):
                return choice
        if lang_code:
            warn(
                f"DuckDuckGo offers no '{lang}' results for country '{country}'; "
                f"ddg_html used region {choices[0]}."
            )
            return choices[0]
        return next((c for c in choices if c.split("-")[1] == c.split("-")[0]), choices[0])
    found = _LANG_REGIONS.get(lang_code) or (
        f"{lang_code}-{lang_code}" if f"{lang_code}-{lang_code}" in REGIONS else None
    )
    if found is None:
        warn(f"ddg_html has no DuckDuckGo region for language '{lang}'; searched all regions.")
    return found


def first_page_form(query: str, options: dict[str, Any]) -> dict[str, str]:
    """The POST form for the first results page."""
    form = {
        "q": site_query(
            query,
            options.get("include_domains", []),
            options.get("exclude_domains", []),
            group=True,
        ),
        "b": "",
    }
    kl = region(options.get("country"), options.get("lang"))
    if kl:
        form["kl"] = kl
    if options.get("time_range"):
        form["df"] = TIME_RANGES[options["time_range"]]
    if options.get("safe_search"):
        form["kp"] = SAFE_SEARCH[options["safe_search"]]
    return form
