"""The ``gl`` and ``hl`` codes Jina's search takes: its country list and Google's interface
languages (``kit.GOOGLE_HL``), which Jina checks.

Jina refuses any other value with a 400 ``ParamValidationError``, so a ``country`` or
``lang`` outside its lists (South Sudan ``ss``, Burmese ``my``) failed the whole search as
the caller's ``invalid_input``, and a fallback chain stopped there instead of asking a
provider that could serve it. Such a value is left out with a warning instead.
"""

from __future__ import annotations

from webproviders import warn
from webproviders.kit import google_interface_language

GL_CODES = frozenset(
    "ad ae af ag ai al am an ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo "
    "br bs bt bv bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cx cy cz de dj dk dm "
    "do dz ec ee eg eh er es et eu fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq "
    "gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh "
    "ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn "
    "mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg "
    "ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sj sk sl sm sn "
    "so sr st sv sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug um us uy uz va "
    "vc ve vg vi vn vu wf ws xk ye yt za zm zw".split()
)
def jina_language(lang: str) -> str | None:
    """Jina's ``hl`` for a language tag (Google's list, which Jina checks), or None with a
    warning. Jina compares codes exactly, so Montenegrin keeps its upper-case region."""
    code = google_interface_language(lang, "jina")
    return "sr-ME" if code == "sr-me" else code


def jina_country(country: str) -> str | None:
    """Jina's ``gl`` for a country code, or None (with a warning) when Jina does not list it."""
    code = country.strip().lower()
    if code in GL_CODES:
        return code
    warn(f"jina does not offer results for the country '{country}'; country ignored.")
    return None
