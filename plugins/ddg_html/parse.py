"""Reading a DuckDuckGo HTML results page with lxml.

A page is one of three things: the anti-bot challenge (``blocked``), a results page (with
zero or more organic results), or something else (``parse_error``: the markup changed), so
a challenge or a redesign never passes for "no results".

A page with nothing (more) to show carries a ``result--no-result`` block ("No  results.")
and, before it, an "EOF" entry whose link hands the query to a Google search: that page
has zero hits, and such a hand-off link is never a hit on any page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import lxml.html
from lxml import etree

from webproviders import BlockedError, ParseError


def _has_class(name: str) -> str:
    """XPath test for one class token (``result`` matches ``result`` but not ``result__a``)."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


CHALLENGE = (
    "//*[contains(@class, 'anomaly-modal')] | //form[@id='challenge-form']"
    " | //form[contains(@action, 'anomaly.js')]"
)
CHALLENGE_TEXT = "bots use duckduckgo too"
RESULTS_PAGE = f"//div[@id='links'] | //div[{_has_class('serp__results')}]"
RESULTS = f"//div[{_has_class('result')}]"
NO_RESULTS = f"//div[{_has_class('result--no-result')}] | //*[{_has_class('no-results')}]"
AD = f"self::*[{_has_class('result--ad')}] | .//*[{_has_class('badge--ad')}]"
TITLE_LINK = ".//a[contains(@class, 'result__a')]"
SNIPPET = ".//*[contains(@class, 'result__snippet')]"
DISPLAY_URL_LINE = ".//div[contains(@class, 'result__extras__url')]/span"
NEXT_FORM = "//div[contains(@class, 'nav-link')]//form[.//input[@name='s']]"
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2}))?")


@dataclass
class ResultsPage:
    """The organic hits on one page and the form that asks for the next page, if any."""

    hits: list[dict[str, Any]] = field(default_factory=list)
    next_form: dict[str, str] | None = None


def _text(element: Any) -> str:
    return " ".join(element.text_content().split()) if element is not None else ""


def _first(element: Any, xpath: str) -> Any:
    found = element.xpath(xpath)
    return found[0] if found else None


def is_search_handoff(url: str) -> bool:
    """A link to another engine's results page (the "EOF" entry's ``google.com/search``)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    name, _, suffix = host.partition(".")
    return name == "google" and 0 < len(suffix.split(".")) <= 2 and parts.path == "/search"


def result_url(href: str) -> str | None:
    """Where a result link leads: ``//duckduckgo.com/l/?uddg=...`` decoded; None for ads."""
    href = href.strip()
    if href.startswith("//"):
        href = "https:" + href
    elif href.startswith("/"):
        href = "https://duckduckgo.com" + href
    parts = urlsplit(href)
    host = (parts.hostname or "").lower()
    if host != "duckduckgo.com" and not host.endswith(".duckduckgo.com"):
        return href
    if parts.path.startswith("/l/"):
        target = parse_qs(parts.query).get("uddg")
        return target[0] if target else None
    return None  # y.js ad clicks and DuckDuckGo's own pages are not results


def _published_at(block: Any) -> str | None:
    for span in block.xpath(DISPLAY_URL_LINE):
        match = _DATE.search(_text(span))
        if match:
            return match.group(1) + (f"T{match.group(2)}" if match.group(2) else "")
    return None


def _hit(block: Any) -> dict[str, Any] | None:
    if block.xpath(AD):
        return None
    link = _first(block, TITLE_LINK)
    if link is None:
        return None
    url = result_url(link.get("href", ""))
    if not url or is_search_handoff(url):
        return None
    hit: dict[str, Any] = {
        "title": _text(link),
        "url": url,
        "description": _text(_first(block, SNIPPET)),
    }
    published = _published_at(block)
    if published:
        hit["published_at"] = published
    return hit


def _next_form(document: Any) -> dict[str, str] | None:
    forms = document.xpath(NEXT_FORM)
    if not forms:
        return None
    # Later pages carry a "Previous" form too; the "Next" one comes last when unlabelled.
    labelled = [form for form in forms if form.xpath(".//input[@type='submit'][@value='Next']")]
    fields = {
        item.get("name"): item.get("value", "")
        for item in (labelled or forms)[-1].xpath(".//input[@name]")
        if item.get("type", "hidden").lower() != "submit"
    }
    return fields or None


def is_challenge(document: Any) -> bool:
    if document.xpath(CHALLENGE):
        return True
    return CHALLENGE_TEXT in _text(document).lower()


def parse_page(html: str) -> ResultsPage:
    """Organic hits of a results page; raises ``blocked`` or ``parse_error`` for other pages."""
    if not html.strip():
        raise ParseError("DuckDuckGo sent an empty page instead of results.")
    try:
        # The text is already decoded; re-encoding it as UTF-8 and saying so keeps lxml from
        # trusting a stale <meta charset>. A parser per call: lxml parsers are not thread-safe.
        parser = lxml.html.HTMLParser(encoding="utf-8")
        document = lxml.html.document_fromstring(html.encode("utf-8"), parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ParseError(
            f"DuckDuckGo sent a page that could not be parsed as HTML ({exc})."
        ) from None
    if is_challenge(document):
        raise BlockedError(
            "DuckDuckGo answered with its anti-bot challenge instead of results; "
            "wait a few minutes or use another backend.",
            detail="captcha_required",
        )
    if not document.xpath(RESULTS_PAGE):
        raise ParseError(
            "DuckDuckGo sent a page that is not a results page (its markup may have changed)."
        )
    if document.xpath(NO_RESULTS):
        return ResultsPage()
    blocks = document.xpath(RESULTS)
    hits = [hit for hit in (_hit(block) for block in blocks) if hit]
    if not hits:
        _check_understood(blocks)
    return ResultsPage(hits=hits, next_form=_next_form(document) if hits else None)


def _check_understood(blocks: list[Any]) -> None:
    """Raise ``parse_error`` for a results page that gave no hit and says nothing of having
    none: no result block at all, or blocks without the title link we read (a redesign, an
    overlay). An empty success would tell an agent that nothing on the web matches."""
    if not blocks:
        raise ParseError(
            "DuckDuckGo sent a results page with neither results nor its no-results notice "
            "(its markup may have changed)."
        )
    if any(not block.xpath(AD) and _first(block, TITLE_LINK) is None for block in blocks):
        raise ParseError(
            "DuckDuckGo sent result blocks without the title link we read (its markup may have changed)."
        )
