"""The visible text of a page, whole or without its furniture (menus, banners, footers).

trafilatura looks for one main block of text, which is what an article has. A service page,
a listing or a collection is made of many blocks side by side (a hero, feature cards, item
cards, pricing), and trafilatura keeps one of them; :func:`page_text` keeps them all, leaving
out what every page of a site repeats around its content. Nothing here imports trafilatura.
"""

from __future__ import annotations

import copy
import re
from typing import Any

#: Elements whose text is never page text.
NON_TEXT = frozenset({"script", "style", "noscript", "template", "svg", "head", "iframe", "object"})
#: Form controls and media: their text is labels and fallbacks, not the page's.
_CONTROLS = frozenset({"button", "select", "option", "input", "textarea", "canvas", "video", "audio"})
#: Page furniture, by element and by ARIA role.
_FURNITURE = frozenset({"nav", "header", "footer", "aside", "form", "dialog"})
_FURNITURE_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog", "menu", "menubar"}
)
#: Class or id words of overlays, helpers and footers that are not content.
_FURNITURE_NAME = re.compile(
    r"(?i)(?:^|[\s_-])(?:cookies?|consent|gdpr|modal|popup|breadcrumbs?|skip-link|sr-only|visually-hidden|"
    r"screen-reader-text|newsletter|footer|copyright)(?:$|[\s_-])"
)
#: Furniture holding more than this share of the page's text is the page itself (a form
#: around the whole page, a header left unclosed).
_FURNITURE_MAX_SHARE = 0.5
#: A single ``<main>`` holding at least this many words is where the content is.
_MAIN_MIN_WORDS = 50
_BLOCK = frozenset(
    {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header",
     "footer", "nav", "aside", "main", "ul", "ol", "table", "pre", "blockquote", "dd", "dt"}
)
#: Table cells are kept apart by a space, so a row reads as one line.
_CELLS = frozenset({"td", "th"})
_HEADINGS = {f"h{level}": "#" * level for level in range(1, 7)}
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
#: With marks, what markdown would read as markup in a page's own words: emphasis, code and
#: link characters anywhere, and a heading, quote or list mark where a text starts.
_INLINE_MARKUP = re.compile(r"([\\`*_\[\]])")
_BLOCK_MARK = re.compile(r"^(\s*)(#|>|[-+](?=\s))|^(\s*\d{1,9})(?=[.)]\s)")
#: Stands in for a code block while the text around it has its spaces squeezed.
_KEPT = "\x00{}\x00"
_KEPT_AT = re.compile("\x00(\\d+)\x00")


def _escaped(text: str) -> str:
    return _BLOCK_MARK.sub(_unmarked, _INLINE_MARKUP.sub(r"\\\1", text))


def _unmarked(found: re.Match[str]) -> str:
    """A block mark escaped: ``\\#``, ``\\-``; a number's full stop, ``1\\.`` (``\\1`` is a backslash)."""
    if found.group(3) is not None:
        return found.group(3) + "\\"
    return found.group(1) + "\\" + found.group(2)


def _fenced(code: str) -> str:
    """``code`` as a fenced block, its fence longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{code.strip(chr(10))}\n{fence}"


def visible_text(root: Any, *, marks: bool = False) -> str:
    """The text of ``root`` with block boundaries as line breaks.

    With ``marks``, headings start with ``#`` marks and list items with ``-``, blocks are
    separated by blank lines, ``<pre>`` is a fenced code block with its spaces and lines as
    they were, and the page's own ``*``, ``_``, ``#``... are escaped: markdown a reader sees
    with the page's structure, and its words as written.
    """
    parts: list[str] = []
    kept: list[str] = []
    own = _escaped if marks else str

    def walk(element: Any) -> None:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if tag in NON_TEXT:
            if element.tail:
                parts.append(own(element.tail))
            return
        if marks and tag == "pre":
            code = element.text_content()
            if code.strip():
                kept.append(_fenced(code))
                parts.append("\n\n" + _KEPT.format(len(kept) - 1) + "\n\n")
            if element.tail:
                parts.append(own(element.tail))
            return
        block = tag in _BLOCK
        if block:
            parts.append("\n\n" if marks else "\n")
            if marks and tag in _HEADINGS:
                parts.append(_HEADINGS[tag] + " ")
            elif marks and tag == "li":
                parts.append("- ")
        if element.text and tag:
            parts.append(own(element.text))
        for child in element:
            walk(child)
        if block:
            parts.append("\n\n" if marks else "\n")
        elif tag in _CELLS:
            parts.append(" ")
        if element.tail:
            parts.append(own(element.tail))

    walk(root)
    text = _SPACES.sub(" ", "".join(parts))
    lines = (line.strip() for line in text.split("\n"))
    if marks:  # a mark with nothing after it is no block
        lines = (line for line in lines if line not in ("-", *_HEADINGS.values()))
    text = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
    return _KEPT_AT.sub(lambda found: kept[int(found.group(1))], text) if kept else text


def _is_furniture(element: Any) -> bool:
    if element.tag in _FURNITURE or (element.get("role") or "").strip().lower() in _FURNITURE_ROLES:
        return True
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return True  # a decorative copy of text shown elsewhere
    names = " ".join(filter(None, (element.get("class"), element.get("id"))))
    return bool(names) and element.tag not in ("html", "body", "main") and bool(_FURNITURE_NAME.search(names))


def page_text(tree: Any) -> str:
    """The page's text without its furniture, as markdown (``tree`` is left as it is).

    Dropped: form controls and media, navigation, banners, footers, asides, forms, dialogs
    (by element or ARIA role), ``aria-hidden`` copies, and cookie, consent and newsletter
    overlays, screen-reader helpers and footers (by class or id). When one ``<main>``
    element holds the content, only its text is taken. Elements no reader sees are expected
    gone already (:func:`.boilerplate.drop_unrendered`).
    """
    tree = copy.deepcopy(tree)
    body = tree.find(".//body")
    root = body if body is not None else tree
    most = _FURNITURE_MAX_SHARE * len(root.text_content())
    pending = list(root)
    while pending:
        element = pending.pop()
        if not isinstance(element.tag, str):
            continue  # a comment or a processing instruction
        if element.tag in _CONTROLS or (_is_furniture(element) and len(element.text_content()) <= most):
            element.drop_tree()
        else:
            pending.extend(element)
    mains = root.xpath(".//main | .//*[@role='main']")
    if len(mains) == 1 and len(mains[0].text_content().split()) >= _MAIN_MIN_WORDS:
        root = mains[0]
    return visible_text(root, marks=True)
