"""The ``hl`` codes Jina's search takes: Google's interface languages, which Jina checks.

Jina refuses any other value with a 400 ``ParamValidationError``, so a ``lang`` outside the
list (Burmese ``my``, Luxembourgish ``lb``) failed the whole search as the caller's
``invalid_input``, and a fallback chain stopped there instead of asking a provider that
could serve it. Such a language is left out with a warning instead.
"""

from __future__ import annotations

from webproviders import warn
from webproviders.kit import google_language

#: Jina compares codes exactly, so Montenegrin keeps its upper-case region.
HL_CODES = frozenset(
    "af ak sq am ar hy az eu be bem bn bh bs br bg km ca chr ny zh-cn zh-tw co hr cs da nl en eo "
    "et ee fo tl fi fr fy gaa gl ka de el gn gu ht ha haw iw hi hu is ig id ia ga it ja jw kn kk "
    "rw rn kg ko kri ku ckb ky lo la lv ln lt loz lg ach mk mg ms ml mt mi mr mfe mo mn sr-ME ne "
    "pcm nso no nn oc or om ps fa pl pt pt-br pt-pt pa qu ro rm nyn ru gd sr sh st tn crs sn sd "
    "si sk sl so es es-419 su sw sv tg ta tt te th ti to lua tum tr tk tw ug uk ur uz vi cy wo "
    "xh yi yo zu".split()
)


def jina_language(lang: str) -> str | None:
    """Jina's ``hl`` for a language tag, or None (with a warning) when Jina has no code for it."""
    code = google_language(lang)
    code = "sr-ME" if code == "sr-me" else code
    if code in HL_CODES:
        return code
    warn(f"jina does not search in the language '{lang}'; lang ignored.")
    return None
