"""A page's HTML as an lxml tree, nested as deep as a page may be.

libxml2 stops parsing at 256 open elements: what follows is lost, so a page wrapped in 300
``<div>``s read as empty (its text, and a warning that a script may build it). Such a page is
parsed again allowing libxml2's largest depth, 2,048 (``huge_tree``, whose other limits a page
under ``web.extraction.max_html_chars`` never nears); a page deeper still is read up to that
depth, and said to be cut.
"""

from __future__ import annotations

from typing import Any

#: The deepest nesting read (libxml2's own bound with ``XML_PARSE_HUGE``).
MAX_HTML_DEPTH = 2_048
#: The ``detail`` of the ``too_large`` a page nested deeper, with no text before, gets.
NESTING = "nesting"

_deep_parser: Any = None


def load_tree(html: str) -> tuple[Any, bool]:
    """The tree of ``html`` (None when it is no HTML at all), and whether it was cut off at
    :data:`MAX_HTML_DEPTH`."""
    from trafilatura.utils import HTML_PARSER, load_html

    tree = load_html(html)
    if tree is None or not _cut(HTML_PARSER):
        return tree, False
    from lxml.html import HTMLParser, fromstring

    global _deep_parser
    if _deep_parser is None:  # trafilatura's own options, with the deeper bound
        _deep_parser = HTMLParser(
            collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True, remove_pis=True,
            huge_tree=True,
        )
    deep = fromstring(html.encode("utf-8", "surrogatepass"), parser=_deep_parser)
    return deep, _cut(_deep_parser)


def _cut(parser: Any) -> bool:
    """Whether the last parse stopped at one of libxml2's bounds (the depth, for a page)."""
    return any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log)
