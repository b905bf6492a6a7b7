"""Holding a page's HTML to the parse budget (``web.extraction.max_html_chars``) without
losing its text to markup no reader sees.

Shop, product and app pages often carry megabytes of inline scripts (their scripts' state as
JSON), styles and SVG drawings ahead of their text: cut at the budget as it came, such a page
kept its head and lost its body. Over the budget, those elements and comments go first (the
extractor discards them anyway), except the JSON-LD scripts that a page's dates, authors and
product facts are read from; only what is still over the budget is cut.

The scan is linear in the page's length whatever it holds (an unclosed element or comment
runs to the end of the page, as a browser reads it), and a page within the budget is parsed
exactly as it came. It runs in the extraction worker, under the page's CPU and memory limits:
a page of a million empty elements takes it most of a second, which no caller's event loop
should wait for.
"""

from __future__ import annotations

import re

#: A comment, or the start of an element whose content is never text on the page.
_HIDDEN = re.compile(r"<!--|<(script|style|svg)(?=[\s/>])", re.IGNORECASE)
_CLOSING = {name: re.compile(rf"</{name}(?=[\s/>])", re.IGNORECASE) for name in ("script", "style", "svg")}
#: Scripts whose JSON the metadata is read from (trafilatura reads both kinds).
_KEPT_SCRIPT = re.compile(r"""\btype\s*=\s*["']?\s*application/(?:ld|settings)\+json""", re.IGNORECASE)


def fit_html(html: str, max_chars: int) -> tuple[str, bool]:
    """``html`` within ``max_chars`` characters, and whether any of its text had to be cut."""
    if len(html) <= max_chars:
        return html, False
    lean = _without_hidden(html)
    if len(lean) <= max_chars:
        return lean, False
    return lean[:max_chars], True


def _without_hidden(html: str) -> str:
    """``html`` without its comments, styles, SVG drawings and scripts other than JSON-LD."""
    kept: list[str] = []
    position = 0
    # Where, for each kind of element, no closing tag follows any more.
    unclosed: dict[str, int] = {}
    while (found := _HIDDEN.search(html, position)) is not None:
        name = found.group(1)
        if name is None:  # a comment, to its end (``<!-->`` and ``<!--->`` end where they start)
            kept.append(html[position : found.start()])
            after = found.end()
            if html.startswith(">", after) or html.startswith("->", after):
                position = html.find(">", after) + 1
                continue
            end = html.find("-->", after)
            position = len(html) if end < 0 else end + 3
            continue
        tag_end = html.find(">", found.end())
        if tag_end < 0:  # a tag never closed: the rest is left as it is
            break
        name = name.lower()
        if name == "svg" and html[tag_end - 1] == "/":  # <svg/>: an element without content
            kept.append(html[position : tag_end + 1])
            position = tag_end + 1
            continue
        # Past a search that found no closing tag none is searched for again: a page of
        # unclosed <svg> tags is read in one pass too.
        if tag_end >= unclosed.get(name, len(html)):
            closing = None
        else:
            closing = _CLOSING[name].search(html, tag_end + 1)
            if closing is None:
                unclosed[name] = tag_end
        if closing is None and name == "svg":  # a browser ends it at the next HTML element: kept
            kept.append(html[position : tag_end + 1])
            position = tag_end + 1
            continue
        if closing is None:  # a script or style runs to the end of the page
            end = len(html)
        else:
            close_end = html.find(">", closing.end())
            end = len(html) if close_end < 0 else close_end + 1
        if name == "script" and _KEPT_SCRIPT.search(html, found.end(), tag_end):
            kept.append(html[position:end])
        else:
            kept.append(html[position : found.start()])
        position = end
    kept.append(html[position:])
    return "".join(kept)
