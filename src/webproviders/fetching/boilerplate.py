"""Our corrections around trafilatura's main-text choice, measured on public evaluation pages.

trafilatura finds a page's main text well, but four mistakes recur often enough to
matter (``bench/bench_extraction_quality.py`` measures each): it reads elements a browser
never shows, it keeps only the first part of an article whose body the page splits into
several containers, it drops the article's lead paragraph (styled apart from the body and
often named like a teaser), and it keeps "read also" lines that point readers to other pages.
Everything here works on an lxml tree or on finished markdown; nothing imports trafilatura.
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import urlsplit

from ..urls import join_url
from .pagetext import NON_TEXT

#: Elements a browser never renders: their text is not page text.
_UNRENDERED = "//template | //*[@hidden]"
#: A hidden element with more than this share of the page's text is the page, shown by a script
#: (the text a reader sees: a page's scripts and styles can hold many times more).
_REVEALED_SHARE = 0.3
#: A class word naming an article's body container (trafilatura starts from the first one).
_BODY_NAME = re.compile(
    r"(?i)(?:^|\s)(?:article(?:-|__)?body|articleBody|article-?content|post-?content|entry-content|"
    r"story-?body|body-text)(?:$|[\s_-])"
)
#: A later part of a split body shares an ancestor this close to the first part.
_PART_MAX_LEVELS = 3
#: A later part holds at least this much text (less is a caption or a widget named alike).
_PART_MIN_CHARS = 200
#: More containers named alike than this is a listing of posts, not one split article (and
#: keeps the join's work bounded on a page that repeats the name thousands of times).
_MAX_PARTS = 12
#: Class or id words that name an article's lead (standfirst) paragraph.
_LEAD_NAME = re.compile(
    r"(?i)(?:^|[\s_-])(?:lead|intro|teaser-?text|excerpt|chapo|standfirst|abstract|sub-?title|"
    r"sub-?headline|preface)(?:$|[\s_-])"
)
#: A lead is prose: a sentence or more, ending like one.
_LEAD_MIN_WORDS = 10
_SENTENCE_END = re.compile(r"[.!?…:\"“”»«)]$")
#: A description shorter than this says too little to recognise the lead by.
_DESCRIPTION_MIN_WORDS = 8
#: How much of a text identifies it when looking for it elsewhere.
_KEY_CHARS = 50
#: An element holding much more text than the description (beyond this factor plus a
#: sentence) is a container, not the lead.
_LEAD_SLACK = 2.5
_LEAD_SLACK_CHARS = 80
#: A lead is mostly not link text.
_LEAD_MAX_LINKED = 0.3
#: The first paragraph kept is found in the page by its first characters.
_ANCHOR_CHARS = 40
_ANCHOR_MIN_CHARS = 15
#: Shorter blocks (a dateline, a caption) are not taken for the first paragraph.
_PARAGRAPH_MIN_WORDS = 8

_MD_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\((<[^>]*>|[^)\s]*)(?:\s+\"[^\"]*\")?\)")
#: Markup, and the characters markdown escapes, gone alike: the lead is found in the text
#: whether its ``snake_case`` came out as ``snake\_case`` or not (it was put in twice).
_MD_MARKUP = re.compile(r"[*_`\\]|^\s*(?:#{1,6}|[-*+]|\d+\.)\s+", re.MULTILINE)
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
#: A heading run into the line before it (a list item's standfirst, as trafilatura writes it).
_INLINE_HEADING = re.compile(r"\s+(?=#{1,6}\s)")
#: What may surround a teaser link: emphasis, arrows, bullets, dashes and a colon.
_TEASER_TRIM = re.compile(r"[\s*_>»«<|\\\-–—•·:]+")
#: A "Read also:" label: at most this many words, ending in a colon or an arrow.
_LABEL_MAX_WORDS = 4
_LABEL_END = re.compile(r"[:»>]\s*[*_]*\s*$")
#: A line introducing teasers ("Diese Artikel könnten dich auch interessieren:") is short.
_INTRO_MAX_WORDS = 12
_FILE_LINK = re.compile(r"\.(?:pdf|jpe?g|png|gif|webp|svg|zip|docx?|xlsx?|pptx?|mp[34])$", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_BLOCK_SPLIT = re.compile(r"\n\s*\n")
#: Elements whose text is never shown as page text.
_NOT_TEXT = frozenset({"script", "style", "noscript", "template", "head", "title"})


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _plain(markdown: str) -> str:
    """The words of a markdown fragment without its markup (good enough to find it again)."""
    return _squash(_MD_MARKUP.sub("", _MD_LINK.sub(r"\1", markdown)))


def _opened_by_reader(element: Any, controlled: set[str]) -> bool:
    """A panel a reader opens: a tab or accordion panel (named by a control's
    ``aria-controls``), or ``hidden="until-found"`` text that the browser's find reveals."""
    return element.get("id") in controlled or (element.get("hidden") or "").strip().lower() == "until-found"


def _shown_chars(root: Any, wanted: set[Any]) -> dict[Any, int]:
    """The length of the text a reader would see (scripts, styles and the like left out) of
    ``root`` and of each element of ``wanted`` within it, in one pass over the tree."""
    found: dict[Any, int] = {}

    def walk(element: Any) -> int:
        if not isinstance(element.tag, str) or element.tag.lower() in NON_TEXT:
            return 0  # a comment, or an element whose text is never shown (its tail is)
        chars = len(element.text or "")
        for child in element:
            chars += walk(child) + len(child.tail or "")
        if element is root or element in wanted:
            found[element] = chars
        return chars

    walk(root)
    return found


def drop_unrendered(tree: Any) -> None:
    """Remove ``<template>`` and ``hidden`` elements, which no reader sees, from ``tree``.

    An element holding most of the page's text stays: that is the page itself, hidden until
    a script shows it (readers see it once the page has loaded). So do the closed panels of
    tabs and accordions: a reader opens them (services and products keep their answers and
    specifications there).
    """
    hidden = tree.xpath(_UNRENDERED)
    if not hidden:
        return
    body = tree.find(".//body")
    body = body if body is not None else tree
    shown = _shown_chars(body, set(hidden))
    most = _REVEALED_SHARE * shown.get(body, 0)
    controlled = {name for value in tree.xpath("//@aria-controls") for name in str(value).split()}
    for element in hidden:
        if (
            element.getparent() is not None  # the root cannot be dropped
            and shown.get(element, 0) <= most
            and not _opened_by_reader(element, controlled)
        ):
            element.drop_tree()


def _beside(ancestor: Any, element: Any) -> Any:
    """The child of ``ancestor`` that holds ``element``."""
    while element.getparent() is not ancestor:
        element = element.getparent()
    return element


def _is_later_part(first: Any, candidate: Any) -> bool:
    """Whether ``candidate`` continues the article body ``first`` starts, rather than another post.

    It sits near ``first`` (neither inside the other), holds text of its own, and what wraps it
    carries no heading beside it: a separate post or teaser comes with its own title.
    """
    near = list(first.iterancestors())[:_PART_MAX_LEVELS]
    if first in candidate.iterancestors() or candidate in near or len(candidate.text_content()) < _PART_MIN_CHARS:
        return False
    common = next((element for element in candidate.iterancestors() if element in near), None)
    if common is None:
        return False
    inside = set(candidate.iter())
    return not any(heading not in inside for heading in _beside(common, candidate).iter("h1", "h2", "h3"))


def join_split_body(tree: Any) -> None:
    """Move the later parts of an article body that the page splits into several containers into the first.

    Pages that place ads or asides between stretches of an article repeat its body container
    (``<div class="article__body">`` three times); trafilatura takes the first and loses the rest.
    """
    parts: dict[str, list[Any]] = {}
    for element in tree.iter("div", "section"):
        names = element.get("class")
        if names and _BODY_NAME.search(names):
            parts.setdefault(names, []).append(element)
    for first, *others in (group for group in parts.values() if 1 < len(group) <= _MAX_PARTS):
        for part in others:
            if _is_later_part(first, part):
                first.append(part)


def _description(tree: Any) -> str:
    longest = ""
    for meta in tree.iter("meta"):
        key = (meta.get("property") or meta.get("name") or "").strip().lower()
        if key in ("description", "og:description", "twitter:description"):
            text = _squash(html.unescape(meta.get("content") or ""))  # some pages escape twice
            if len(text) > len(longest):
                longest = text
    return re.sub(r"(?:\.\.\.|…)$", "", longest).strip()


def _text(element: Any) -> str:
    return _squash(element.text_content())


#: Whether an element's text, with white space (no-break spaces too) collapsed, holds ``$key``.
_HOLDS = "contains(normalize-space(translate(., '\u00a0', ' ')), $key)"
#: Text nodes holding ``$probe``: where a search for a longer text starts.
_TEXT_WITH_PROBE = ".//text()[contains(., $probe)]"
#: Climbing from a text node stops at containers bigger than this: they are not a paragraph.
_CLIMB_MAX_CHARS = 20_000
#: At most this many places holding the key's longest word are tried.
_MAX_PROBES = 100


def _deepest_holding(body: Any, key: str) -> Any:
    """The innermost element whose text contains ``key``, or None.

    The search starts from the text nodes holding the key's longest word and climbs from
    each to the first element holding the whole key; the one with the least text around
    the key wins. A big page costs no more than the places that word appears.
    """
    probe = max(key.split(), key=len, default="")
    best, best_size = None, _CLIMB_MAX_CHARS
    for node in body.xpath(_TEXT_WITH_PROBE, probe=probe)[:_MAX_PROBES] if probe else ():
        element = node.getparent().getparent() if node.is_tail else node.getparent()
        while element is not None and element.tag not in _NOT_TEXT:
            size = len(element.text_content())
            if size >= best_size:
                break  # an element further up cannot be closer around the key
            if element.xpath(_HOLDS, key=key):
                best, best_size = element, size
                break
            if element is body:
                break
            element = element.getparent()
    return best


def _lead_from_description(body: Any) -> str | None:
    """The visible element that shows the page's meta description, when there is one."""
    description = _description(body.getroottree().getroot())
    if len(description.split()) < _DESCRIPTION_MIN_WORDS:
        return None
    element = _deepest_holding(body, description[:_KEY_CHARS])
    if element is None or element.tag == "a":
        return None
    text = _text(element)
    return text if len(text) <= _LEAD_SLACK * len(description) + _LEAD_SLACK_CHARS else None


def _is_lead_prose(element: Any) -> bool:
    """A sentence or more of text, not a byline (a ``<time>``), a widget or a row of links."""
    if element.find(".//script") is not None or element.find(".//time") is not None:
        return False
    text = _text(element)
    linked = sum(len(_text(a)) for a in element.iter("a"))
    return (
        len(text.split()) >= _LEAD_MIN_WORDS
        and linked < _LEAD_MAX_LINKED * len(text)
        and bool(_SENTENCE_END.search(text))
    )


def _lead_by_name(body: Any, first_paragraph: str) -> str | None:
    """The last lead-named prose element between the page's ``<h1>`` and the main text."""
    key = first_paragraph[:_ANCHOR_CHARS]
    if len(key) < _ANCHOR_MIN_CHARS:
        return None
    anchor = _deepest_holding(body, key)
    if anchor is None:
        return None
    enclosing = set(anchor.iterancestors())
    lead = None
    for element in body.iter():
        if element is anchor:
            break
        if element.tag == "h1":
            lead = None  # a lead follows the title
        names = " ".join(filter(None, (element.get("class"), element.get("id"))))
        if (
            element.tag in ("p", "div", "h2", "section", "span", "header")
            and _LEAD_NAME.search(names)
            and element not in enclosing
            and _is_lead_prose(element)
        ):
            lead = _text(element)
    return lead


def _is_title(block: str, body: Any) -> bool:
    """Whether ``block`` is the page's title: a top-level markdown heading or the ``<h1>`` text."""
    if block.startswith("# "):
        return True
    h1 = body.find(".//h1")
    return h1 is not None and _text(h1) == _squash(block)


def restore_lead(tree: Any, content: str) -> str:
    """Put the article's lead paragraph back at the top of ``content`` when it was left out.

    The lead is recognised as the element that shows the page's meta description, or as a
    prose element named ``lead``/``intro``/``teaser-text``/… standing between the title
    and the first paragraph that was kept. It goes after the title when the text starts with it.
    """
    body = tree.find(".//body")
    if body is None or not content:
        return content
    separator = "\n\n" if "\n\n" in content else "\n"  # plain text has one paragraph a line
    blocks = [block for block in content.split(separator) if block.strip()]
    have = _plain(content)
    lead = _lead_from_description(body)
    if lead is None:
        prose = [block for block in blocks if not block.lstrip().startswith(("#", "|", "-", "*", ">"))]
        first = next((p for p in prose if len(p.split()) >= _PARAGRAPH_MIN_WORDS), None)
        lead = _lead_by_name(body, _plain(first)) if first else None
    if lead is None or _plain(lead)[:_KEY_CHARS] in have:
        return content
    at = 1 if blocks and _is_title(blocks[0], body) else 0
    return separator.join([*blocks[:at], lead, *blocks[at:]])


def _site(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.")


def _same_site_page(href: str, page_url: str) -> bool:
    """Whether ``href`` leads to another page (not a file) of the site ``page_url`` is on."""
    href = href.strip("<>")
    if href.startswith(("mailto:", "javascript:", "tel:")):
        return False
    target = join_url(page_url, href)
    site = _site(page_url)
    if target is None or not site or _site(target) != site:
        return False
    return not _FILE_LINK.search(urlsplit(target).path)


def _is_teaser_line(line: str, page_url: str) -> bool:
    """A line that is one link to another page of the same site, at most behind a short label.

    ``Read also: [Title](/other-article)`` and a bare ``[Title](/other-article)`` are
    teasers; a link to another site (a source, a petition, a shop) or to a file is part of
    the article, with or without a label.
    """
    links = list(_MD_LINK.finditer(line))
    if len(links) != 1:
        return False
    link = links[0]
    before, after = line[: link.start()], line[link.end():]
    if _TEASER_TRIM.sub(" ", after).strip() or len(_squash(link.group(1))) < 3:
        return False
    label = _TEASER_TRIM.sub(" ", before).strip()
    if label and (len(label.split()) > _LABEL_MAX_WORDS or not _LABEL_END.search(before)):
        return False
    return _same_site_page(link.group(2), page_url)


def _is_teaser_block(block: str, page_url: str) -> bool:
    """Teaser lines only, each at most followed by a heading (a card's standfirst); empty items do not count."""
    lines = [part for line in block.split("\n") for part in _INLINE_HEADING.split(_LIST_MARKER.sub("", line).strip())]
    after_teaser, teasers = False, 0
    for line in filter(None, lines):
        if _is_teaser_line(line, page_url):
            after_teaser, teasers = True, teasers + 1
        elif after_teaser and _HEADING.match(line):
            after_teaser = False
        elif line not in ("-", "*", "+"):
            return False
    return teasers > 0


def _introduces(block: str) -> bool:
    """A heading, or a short line ending in a colon ("You may also like:")."""
    if _HEADING.match(block):
        return True
    words = _plain(block).rstrip("*_ ")
    return len(words.split()) <= _INTRO_MAX_WORDS and words.endswith((":", "…", "..."))


def drop_teaser_links(markdown: str, page_url: str) -> str:
    """Remove paragraphs and lists made only of teaser lines (links to other articles).

    The heading or label line that introduced such a block goes with it: a "Related
    articles" heading with nothing under it is noise too. When such links are most of the
    text, they are the page (an index, a list of articles) and all stay.
    """
    blocks = [block for block in _BLOCK_SPLIT.split(markdown) if block.strip()]
    dropped = [_is_teaser_block(block, page_url) for block in blocks]
    for at in range(len(blocks) - 2, -1, -1):
        if not dropped[at] and dropped[at + 1] and _introduces(blocks[at]):
            dropped[at] = True
    kept = [block for block, drop in zip(blocks, dropped, strict=True) if not drop]
    gone = [block for block, drop in zip(blocks, dropped, strict=True) if drop]
    if not gone or len(_plain("\n".join(gone))) > len(_plain("\n".join(kept))):
        return markdown  # links are most of the page: an index or a list of articles, not teasers
    return "\n\n".join(kept)
