"""Google's own search parameters and organic-result fields, for vendors that resell them.

SerpAPI and Serper pass Google's ``gl`` / ``hl`` / ``tbs`` through unchanged and return
Google's organic results (``title``, ``link``, ``snippet``, ``date``); SerpAPI and the
Programmable Search API take Google's ``safe``. Both also return Google's answer box and
knowledge graph, which are not pages and go into ``meta``. The mapping both ways is written
once here; each provider adds only what is its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..context import warn
from .language import language_code

#: ``tbs``: results from the past day, week, month or year.
GOOGLE_TBS = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}
#: ``safe``: Google knows only "active" and "off"; moderate sends nothing (the default applies).
GOOGLE_SAFE = {"strict": "active", "off": "off"}
_DATE_FORMATS = ("%b %d, %Y", "%d %b %Y", "%Y-%m-%d")
#: The regional interface languages in Google's ``hl`` list; any other region is dropped.
_HL_REGIONAL = frozenset({"pt-br", "pt-pt", "es-419", "sr-me", "zh-cn", "zh-tw"})
#: Google's ``hl`` codes where they are not the ISO 639-1 code (its older names).
_HL_NAMES = {"he": "iw", "jv": "jw", "fil": "tl", "nb": "no"}
#: Subtags that mark traditional Chinese (``zh-tw``); other Chinese is ``zh-cn``.
_TRADITIONAL = frozenset({"hant", "tw", "hk", "mo"})
#: Google's countries (its ``gl`` list). Resellers check ``gl`` against it and refuse any other
#: code (South Sudan ``ss``, Curaçao ``cw``) with a 400 (SerpAPI: "Unsupported `ss` country - gl
#: parameter."), which failed the whole search as the caller's ``invalid_input``.
GOOGLE_GL = frozenset(
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
#: Google's interface languages (its ``hl`` list). Resellers check ``hl`` against it and refuse
#: any other code with a 400 (SerpAPI: "Unsupported `lb` interface language"), which failed the
#: whole search as the caller's ``invalid_input`` and stopped a fallback chain.
GOOGLE_HL = frozenset(
    "af ak sq am ar hy az eu be bem bn bh bs br bg km ca chr ny zh-cn zh-tw co hr cs da nl en eo "
    "et ee fo tl fi fr fy gaa gl ka de el gn gu ht ha haw iw hi hu is ig id ia ga it ja jw kn kk "
    "rw rn kg ko kri ku ckb ky lo la lv ln lt loz lg ach mk mg ms ml mt mi mr mfe mo mn sr-me ne "
    "pcm nso no nn oc or om ps fa pl pt pt-br pt-pt pa qu ro rm nyn ru gd sr sh st tn crs sn sd "
    "si sk sl so es es-419 su sw sv tg ta tt te th ti to lua tum tr tk tw ug uk ur uz vi cy wo "
    "xh yi yo zu".split()
)


def google_language(lang: str) -> str:
    """Google's ``hl`` for a language tag: ``en`` for ``en-US``, ``iw`` for ``he``, ``zh-tw``
    for ``zh-Hant``. SerpAPI refuses a code outside Google's list ("Unsupported `zh-Hant`
    interface language - hl parameter.")."""
    tag = lang.strip().replace("_", "-").lower()
    if tag in _HL_REGIONAL:
        return tag
    code = language_code(tag)
    if code == "zh":
        return "zh-tw" if _TRADITIONAL.intersection(tag.split("-")[1:]) else "zh-cn"
    return _HL_NAMES.get(code, code)


def google_interface_language(
    lang: str, provider: str, codes: frozenset[str] = GOOGLE_HL
) -> str | None:
    """The ``hl`` code of ``codes`` (Google's list unless the vendor's differs) for a language
    tag, or None with a warning: a language the vendor refuses is left out, not sent."""
    code = google_language(lang)
    if code in codes:
        return code
    warn(f"{provider} does not search in the language '{lang}'; lang ignored.")
    return None


def google_country(country: str, provider: str, codes: frozenset[str] = GOOGLE_GL) -> str | None:
    """The ``gl`` code of ``codes`` (Google's list unless the vendor's differs) for a country,
    or None with a warning: a country the vendor refuses is left out, not sent."""
    code = country.strip().lower()
    if code in codes:
        return code
    warn(f"{provider} does not offer results for the country '{country}'; country ignored.")
    return None


def google_locale_params(
    options: dict[str, Any],
    provider: str = "this provider",
    hl_codes: frozenset[str] = GOOGLE_HL,
    gl_codes: frozenset[str] = GOOGLE_GL,
) -> dict[str, Any]:
    """``gl`` (country) and ``hl`` (interface language), each when the vendor takes it, and
    ``tbs`` (time range) for the options."""
    params: dict[str, Any] = {}
    gl = google_country(options["country"], provider, gl_codes) if options.get("country") else None
    if gl:
        params["gl"] = gl
    hl = google_interface_language(options["lang"], provider, hl_codes) if options.get("lang") else None
    if hl:
        params["hl"] = hl
    if options.get("time_range"):
        params["tbs"] = GOOGLE_TBS[options["time_range"]]
    return params


def iso_date(text: Any) -> str | None:
    """Google's absolute dates (``Sep 3, 2026``) as ISO; relative ones (``3 days ago``) stay out."""
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(str(text).strip(), fmt).date().isoformat()
        except ValueError:
            continue
    return None


def google_organic_hit(item: Mapping[str, Any]) -> dict[str, Any]:
    """One organic result as a hit; Google's own ``date`` text is kept beside the ISO one,
    and the result's ``sitelinks`` (its site's other pages) stay with it."""
    hit: dict[str, Any] = {
        "title": item.get("title"),
        "url": item.get("link"),
        "description": item.get("snippet"),
    }
    if item.get("date"):
        hit["date"] = item["date"]
        published = iso_date(item["date"])
        if published:
            hit["published_at"] = published
    if item.get("sitelinks"):
        hit["sitelinks"] = item["sitelinks"]
    return hit


def google_results_envelope(hits: list[dict[str, Any]], **panels: Any) -> dict[str, Any]:
    """Organic hits as the list; Google's panels that are not pages (``answer_box``,
    ``knowledge_graph``) as the envelope's ``meta``, when the page had them."""
    meta = {name: panel for name, panel in panels.items() if panel}
    return {"success": True, "data": {"web": hits}, "meta": meta}
