"""Reading a Baidu results page with lxml, using the selectors in :mod:`.markup`.

A page is the verification wall (``blocked``), a results page (zero or more organic
results), or something else (``parse_error``: the markup changed), so neither a CAPTCHA
nor a redesign passes for "no results". Zero hits is an empty success only on the "no
results" notice, or when every block of the column is a known ad or aggregate; a column of
blocks that are not results we can read is a markup change, and says so.

A hit's URL is the block's ``mu`` attribute (the real destination) when it has one; the
title link's ``/link?url=`` redirect is then kept as ``metadata.redirect_url``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.html
from lxml import etree

from webproviders import ParseError
from webproviders.kit import is_http_url

from .markup import (
    NO_RESULTS_TEXT_MARKERS,
    PLACEHOLDER_HOSTS,
    SELECTORS,
    VERIFY_TEXT_MARKERS,
    captcha_error,
)

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


#: Where Baidu's relative links lead.
BAIDU = "https://www.baidu.com/"


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
    # Baidu's own redirect; a relative one ("/link?url=...") is Baidu's, as a browser reads it.
    redirect = urljoin(BAIDU, link.get("href", "").strip())
    destination = _destination(block)
    hit: dict[str, Any] = {
        "title": _text(link),
        "url": destination or redirect,
        "description": snippet,
    }
    if destination and redirect and redirect != destination:
        hit["metadata"] = {"redirect_url": redirect}
    published = _iso_date(date_text)
    if published:
        hit["published_at"] = published
    display_url = _text(_first(block, "display_url")) or _shown(destination)
    if display_url:
        hit["display_url"] = display_url
    return hit


def _destination(block: Any) -> str:
    """The block's ``mu`` URL, when it is an http(s) URL and not one of Baidu's placeholders."""
    found = block.xpath(SELECTORS["destination"])
    url = str(found[0]).strip() if found else ""
    host = (urlsplit(url).hostname or "").lower() if is_http_url(url) else ""
    placeholder = any(host == name or host.endswith("." + name) for name in PLACEHOLDER_HOSTS)
    return url if host and not placeholder else ""


def _shown(url: str) -> str:
    """A URL as a results page shows it: host and path, without scheme or query."""
    if not url:
        return ""
    parts = urlsplit(url)
    return (parts.netloc + parts.path).rstrip("/")


def _is_no_results(document: Any) -> bool:
    if document.xpath(SELECTORS["no_results"]):
        return True
    text = _text(document)
    return any(marker in text for marker in NO_RESULTS_TEXT_MARKERS)


def _check_understood(column: Any) -> None:
    """Raise ``parse_error`` for a column that gave no hit yet holds blocks we cannot read."""
    results = column.xpath(SELECTORS["result"])
    if any(not block.xpath(SELECTORS["ad"]) for block in results):
        raise ParseError(
            "Baidu sent result blocks without the title link we read (its markup may have changed)."
        )
    blocks = column.xpath(SELECTORS["block"])
    unknown = [
        block
        for block in blocks
        if block not in results
        and not block.xpath(SELECTORS["ad"])
        and not block.xpath(SELECTORS["aggregate"])
    ]
    if unknown or not blocks:
        raise ParseError(
            "Baidu sent a results column whose blocks are not results we can read "
            "(its markup may have changed)."
        )


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
        if _is_no_results(document):
            return []
        raise ParseError(
            "Baidu sent a page that is not a results page (its markup may have changed)."
        )
    hits = [hit for hit in (_hit(block) for block in column.xpath(SELECTORS["result"])) if hit]
    if not hits and not _is_no_results(document):
        _check_understood(column)
    return hits
