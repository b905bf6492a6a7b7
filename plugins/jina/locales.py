"""The ``gl`` and ``hl`` codes Jina's search takes: Google's countries and interface languages
(``kit.GOOGLE_GL`` and ``kit.GOOGLE_HL``), which Jina checks.

Jina refuses any other value with a 400 ``ParamValidationError``, so a ``country`` or
``lang`` outside its lists (South Sudan ``ss``, Burmese ``my``) failed the whole search as
the caller's ``invalid_input``, and a fallback chain stopped there instead of asking a
provider that could serve it. Such a value is left out with a warning instead.
"""

from __future__ import annotations

from webproviders.kit import google_country, google_interface_language


def jina_language(lang: str) -> str | None:
    """Jina's ``hl`` for a language tag (Google's list, which Jina checks), or None with a
    warning. Jina compares codes exactly, so Montenegrin keeps its upper-case region."""
    code = google_interface_language(lang, "jina")
    return "sr-ME" if code == "sr-me" else code


def jina_country(country: str) -> str | None:
    """Jina's ``gl`` for a country code (Google's list, which Jina checks), or None with a warning."""
    return google_country(country, "jina")
