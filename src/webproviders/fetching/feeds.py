"""RSS and Atom feeds read as a page: the feed's title, then each entry's title (linked), date
and summary as text, instead of the XML with its summaries still HTML-escaped.

Runs in the extraction workers, as HTML does (a feed is untrusted markup, and a podcast's
can be megabytes). Entities are never expanded and nothing is fetched while parsing (no DTD,
no external entity), so a "billion laughs" feed or one that names a local file reads as text.
"""

from __future__ import annotations

import re
from typing import Any

from ..urls import join_url
from .extraction import Format, HtmlDocument

#: The XML declaration: the text is decoded already, and lxml refuses a string that has one.
_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
#: A character reference to half of a UTF-16 pair (``&#xD83D;&#xDE00;``, an emoji as Java and
#: JavaScript serializers write it): lxml keeps it as bytes no text can be read from, and the
#: whole feed failed. Hexadecimal D800-DFFF, or decimal from 55000 (the callback checks the rest).
_SURROGATE_REF = re.compile(r"&#(?:[xX]0*([dD][89a-fA-F][0-9a-fA-F]{2})|0*(5[5-7][0-9]{3}));")
#: A heading inside an entry's summary: it goes below the entry's own (``##``).
_SUMMARY_HEADING = re.compile(r"^(#{1,6}) ", re.MULTILINE)
#: The feed formats by their root element (RSS 0.9x/2.0, RSS 1.0's RDF, Atom).
_ROOTS = {"rss": "rss", "rdf": "rss", "feed": "atom"}
#: The namespaces an RSS ``<link>`` comes in: none (RSS 0.91 to 2.0), and RSS 1.0's and 0.90's,
#: whose RDF feeds put every element in theirs; never another vocabulary's (``atom:link``).
_RSS_NAMESPACES = frozenset({"", "http://purl.org/rss/1.0/", "http://my.netscape.com/rdf/simple/0.9/"})
#: The ``type`` of an Atom text construct that holds plain text (RFC 4287 3.1.1: ``text``, the
#: default; ``atom:content`` may name a MIME type instead).
_ATOM_PLAIN = frozenset({"text", "text/plain"})


def _surrogate(found: re.Match[str]) -> str:
    code = int(found[1], 16) if found[1] else int(found[2])
    return chr(code) if 0xD800 <= code <= 0xDFFF else found[0]


def _pairs_joined(xml: str) -> str:
    """``xml`` with its references to surrogates read as their serializer meant them: a pair as
    the character it writes (😀), a half on its own as U+FFFD."""
    joined, count = _SURROGATE_REF.subn(_surrogate, xml)
    return joined.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace") if count else xml


def _local(element: Any) -> str:
    tag = element.tag
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _child(element: Any, *names: str) -> Any:
    """The first child named one of ``names`` (any namespace), in the order of ``names``."""
    for name in names:
        for child in element:
            if _local(child) == name:
                return child
    return None


def _text(element: Any) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def _plain(element: Any, kind: str) -> bool:
    """Whether ``element`` holds plain text, shown as it is, ``<`` and all: an Atom text
    construct says so by its ``type`` (RSS has none: its text is escaped HTML by custom)."""
    return kind == "atom" and not len(element) and (element.get("type") or "text").strip().lower() in _ATOM_PLAIN


def _title(element: Any, kind: str) -> str:
    """A title on one line: an Atom one of ``type="html"`` read as the text that HTML shows."""
    if element is None or kind != "atom" or _plain(element, kind):
        return _text(element)
    return " ".join(_markup_text(element, False, kind).split())


def _markup_text(element: Any, marks: bool, kind: str) -> str:
    """A summary's text: escaped HTML (RSS, Atom ``type="html"``) or XHTML children are read as
    a page's visible text; plain text (Atom's by default) as it is."""
    if element is None:
        return ""
    if _plain(element, kind):  # ``Vec&lt;T&gt;`` read as markup lost ``<T>`` as an unknown tag
        return (element.text or "").strip()
    from lxml import html

    from .pagetext import visible_text

    if len(element):  # Atom type="xhtml": the markup is the element's own children
        fragment = html.fragment_fromstring(
            "".join(_serialised(child) for child in element), create_parent="div"
        )
    else:
        source = (element.text or "").strip()
        if not source:
            return ""
        if "<" not in source and "&" not in source:
            return source
        fragment = html.fragment_fromstring(source, create_parent="div")
    text = visible_text(fragment, marks=marks)
    return _SUMMARY_HEADING.sub(lambda found: "#" * min(6, len(found[1]) + 2) + " ", text) if marks else text


def _serialised(element: Any) -> str:
    from lxml import etree

    return etree.tostring(element, encoding="unicode", with_tail=True)


def _rss_link(element: Any) -> bool:
    """Whether ``element`` is an RSS ``<link>``: an RSS 1.0 item's is in the RSS namespace, and
    taken for another vocabulary's, every entry of such a feed lost its page."""
    tag = element.tag
    if not isinstance(tag, str):
        return False
    namespace, _, local = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    return local == "link" and namespace in _RSS_NAMESPACES


def _link(entry: Any, kind: str, base: str) -> str:
    """The entry's page: RSS's ``<link>`` (else a ``<guid>`` that is a permalink), Atom's
    ``rel="alternate"`` link (an ``edit`` or ``self`` link is not the page), made absolute."""
    if kind == "rss":
        found = next((child for child in entry if _rss_link(child) and _text(child)), None)
        guid = _child(entry, "guid")
        if found is not None:
            href = _text(found)
        elif guid is not None and guid.get("isPermaLink", "true") != "false" and _text(guid).startswith("http"):
            href = _text(guid)
        else:
            href = ""
    else:
        links = [child for child in entry if _local(child) == "link" and child.get("href")]
        chosen = next((link for link in links if link.get("rel", "alternate") == "alternate"), None)
        href = chosen.get("href", "").strip() if chosen is not None else ""
    return (join_url(base, href) or "") if href else ""


def _body(entry: Any) -> Any:
    """The entry's fullest text that holds any: an Atom ``<content src="...">`` names where its
    content is, holding none, and the ``<summary>`` beside it (the RFC asks for one) was lost."""
    for name in ("encoded", "content", "description", "summary"):
        element = _child(entry, name)
        if element is not None and (len(element) or (element.text or "").strip()):
            return element
    return None


def _entry(entry: Any, kind: str, base: str, marks: bool) -> tuple[str, str, str, str]:
    title = _title(_child(entry, "title"), kind)
    date = _text(_child(entry, "pubdate", "date", "published", "updated"))
    return title, _link(entry, kind, base), date, _markup_text(_body(entry), marks, kind)


def feed_document(xml: str, url: str, *, fmt: Format = "markdown") -> HtmlDocument | None:
    """The feed as a page, or None when ``xml`` is no RSS or Atom feed (it is then shown as it is)."""
    from lxml import etree

    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, recover=True, remove_comments=True, remove_pis=True
    )
    try:
        root = etree.fromstring(_pairs_joined(_DECLARATION.sub("", xml, count=1)), parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    kind = _ROOTS.get(_local(root)) if root is not None else None
    if kind is None:
        return None
    # RSS 2.0 keeps its items in the channel; RSS 1.0 beside it; Atom's feed is both.
    channel = _child(root, "channel")
    head = channel if channel is not None else root
    holder = head if _local(root) == "rss" else root
    entries = [child for child in holder if _local(child) in ("item", "entry")]
    marks = fmt == "markdown"
    title = _title(_child(head, "title"), kind)
    blocks = [f"# {title}" if marks and title else title, _markup_text(_child(head, "description", "subtitle"), marks, kind)]
    for entry_title, link, date, summary in (_entry(entry, kind, url, marks) for entry in entries):
        name = entry_title or link
        if marks:
            heading = f"## [{name}]({link})" if link else f"## {name}"
        else:
            heading = "\n".join(part for part in (name, link if link != name else "") if part)
        blocks += [heading, date, summary]
    content = "\n\n".join(block for block in blocks if block)
    return HtmlDocument(content, title, {"feed": kind, "entries": len(entries)})
