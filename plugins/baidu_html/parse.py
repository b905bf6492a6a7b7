"""Reading a Baidu results page with lxml, using the selectors in :mod:`.markup`.

A page is the verification wall (``blocked``), a results page (zero or more organic
results), or something else (``parse_error``: the markup changed), so neither a CAPTCHA
nor a redesign passes for "no results".
"""

from __future__ import annotations

import re
from typing import Any

import lxml.html
from lxml import etree

from webproviders import ParseError

from .markup import SELECTORS, VERIFY_TEXT_MARKERS, captcha_error

#: Absolute dates as Baidu prints them: 2024年7月22日 or 2024-07-22.
_DATE = re.compile(r"(\d{4})(?:年|-)(\d{1,2})(?:月|-)(\d{1,2})日?")
_LEADING_DATE = re.compile(r"(\d{4}年\d{1,2}月\d{1,2}日)\s*-\s*")


def _text(element: Any) -> str:
    return " ".join(element.text_content().split()) if element is not None else ""


def _first(element: Any, key: str) -> Any:
    found = element.xpath(SELECTORS[key])
    return found[0] if found else None


def _iso_date(text: str) -> str | None:
    match = _DATE.search(text)
    if not match:
        return None
    year, month, day = (int(part) for part in match.groups())
    return f"{year:04d}-{month:02d}-{day:02d}"


def _hit(block: Any) -> dict[str, Any] | None:
    if block.xpath(SELECTORS["ad"]):
        return None
    link = _first(block, "title_link")
    if link is None:
        return None
    date_text = _text(_first(block, "date"))
    snippet = _text(_first(block, "snippet"))
    if date_text and snippet.startswith(date_text):
        snippet = snippet[len(date_text) :].strip()
    elif not date_text:  # older layout: "2020年5月6日 - abstract..."
        leading = _LEADING_DATE.match(snippet)
        if leading:
            date_text, snippet = leading.group(1), snippet[leading.end() :]
    hit: dict[str, Any] = {
        "title": _text(link),
        "url": link.get("href", "").strip(),
        "description": snippet,
    }
    published = _iso_date(date_text)
    if published:
        hit["published_at"] = published
    display_url = _text(_first(block, "display_url"))
    if display_url:
        hit["display_url"] = display_url
    return hit


def parse_page(html: str) -> list[dict[str, Any]]:
    """Organic hits of a results page; raises ``blocked`` or ``parse_error`` for other pages."""
    if not html.strip():
        raise ParseError("Baidu sent an empty page instead of results.")
    try:
        # Decoded text, re-encoded as UTF-8 and said so; a parser per call (not thread-safe).
        parser = lxml.html.HTMLParser(encoding="utf-8")
        document = lxml.html.document_fromstring(html.encode("utf-8"), parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ParseError(f"Baidu sent a page that could not be parsed as HTML ({exc}).") from None
    column = _first(document, "column")
    if column is None:
        text = _text(document)
        if document.xpath(SELECTORS["verification"]) or any(m in text for m in VERIFY_TEXT_MARKERS):
            raise captcha_error("instead of results")
        if document.xpath(SELECTORS["no_results"]):
            return []
        raise ParseError(
            "Baidu sent a page that is not a results page (its markup may have changed)."
        )
    return [hit for hit in (_hit(block) for block in column.xpath(SELECTORS["result"])) if hit]
