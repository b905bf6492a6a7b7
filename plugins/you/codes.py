"""Our ``country`` and ``lang`` as the codes You.com's search takes.

Both are enums in You.com's API (its SDK's ``Country`` and ``Language``): any other value,
``EN-US`` or ``IE`` among them, is refused with HTTP 422, which would fail as the caller's
``invalid_input`` a search another provider could serve. So a tag is brought to the closest
listed code, and one with no such code is left out with a warning.
"""

from __future__ import annotations

from typing import Any

from webproviders import warn
from webproviders.kit import language_code

COUNTRIES = frozenset(
    "AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA "
    "ES SE CH TW TR GB US".split()
)
LANGUAGES = frozenset(
    "AR EU BN BG CA ZH-HANS ZH-HANT HR CS DA NL EN EN-GB ET FI FR GL DE EL GU HE HI HU IS IT JA "
    "KN KO LV LT MS ML MR NB PL PT-BR PT-PT PA RO RU SR SK SL ES SV TA TE TH TR UK VI".split()
)
#: Tags whose You.com code is not their own primary subtag.
_ALIASES = {
    "ZH": "ZH-HANS",
    "ZH-CN": "ZH-HANS",
    "ZH-SG": "ZH-HANS",
    "ZH-TW": "ZH-HANT",
    "ZH-HK": "ZH-HANT",
    "ZH-MO": "ZH-HANT",
    "PT": "PT-PT",
    "NO": "NB",
    "NN": "NB",
    "IW": "HE",
    "JP": "JA",
}


def you_language(lang: str) -> str | None:
    """You.com's ``language`` for a tag (``EN`` for ``en-US``, ``ZH-HANT`` for ``zh-TW``), or
    None when You.com has no code for it."""
    tag = lang.strip().replace("_", "-").upper()
    if tag in LANGUAGES:
        return tag
    if tag in _ALIASES:
        return _ALIASES[tag]
    if tag.startswith("ZH-HANT") or tag.startswith("ZH-HANS"):
        return tag[:7]
    primary = language_code(tag).upper()
    code = _ALIASES.get(primary, primary)
    return code if code in LANGUAGES else None


def locale_fields(options: dict[str, Any]) -> dict[str, str]:
    """``country`` and ``language`` for the body; a value You.com does not list is warned of."""
    fields: dict[str, str] = {}
    if options.get("country"):
        country = str(options["country"]).strip().upper()
        if country in COUNTRIES:
            fields["country"] = country
        else:
            warn(f"you does not offer results for the country '{country}'; country ignored.")
    if options.get("lang"):
        language = you_language(str(options["lang"]))
        if language:
            fields["language"] = language
        else:
            warn(f"you does not search in the language '{options['lang']}'; lang ignored.")
    return fields
