"""HTML to markdown (or text) with trafilatura.

:func:`html_document` runs in an extraction worker process, one page at a time
(:mod:`webproviders.fetching.extractpool`): trafilatura (with lxml 6) is not safe to call from
several threads at once, and a hostile page can keep it busy for minutes. trafilatura and
our corrections to it (:mod:`.boilerplate`, :mod:`.pagetype`, :mod:`.pagetext`,
:mod:`.mdtidy`) are imported inside the functions that use them, so only workers load them:
the process that sends pages imports this module just to name :func:`html_document` and to
read back an :class:`HtmlDocument` (and ``import webproviders`` imports nothing of it).

Pages are not all articles: the page's type (:mod:`.pagetype`) adjusts trafilatura's settings
(:data:`TYPE_OPTIONS`) and whether another reading may stand in for a main text that kept
one part of a page made of many (:data:`RESCUE_SHARE`, :data:`AGREED_FACTOR`, :data:`UNDATED_RECALL_SHARE`,
:data:`SECTIONS_SHARE`);
``docs/performance.md`` has the measurements behind each choice.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from ..urls import MAX_URL_CHARS, is_http_url, join_url, query_in_encoding
from .robotsmeta import says_nofollow

if TYPE_CHECKING:
    from .pagetype import PageType

Format = Literal["markdown", "text"]

#: The trafilatura settings behind ``format="markdown"`` and ``format="text"`` (the
#: benchmark compares against plain trafilatura with exactly these).
TRAFILATURA_OPTIONS: dict[str, dict[str, Any]] = {
    "markdown": {
        "output_format": "markdown",
        "include_links": True,
        "include_formatting": True,
        "include_tables": True,
        "include_comments": False,
    },
    "text": {"output_format": "txt", "include_tables": True, "include_comments": False},
}
#: What a page type changes in those settings: a forum's posts are its content, though
#: their markup often names them comments; on documentation and collection pages, links
#: make trafilatura lose text (table cells, item names run together), so their text is
#: taken without them (a crawl still gets every link of the page).
TYPE_OPTIONS: dict[str, dict[str, Any]] = {
    "forum": {"include_comments": True},
    "documentation": {"include_links": False},
    "collection": {"include_links": False},
}
#: When trafilatura's main text has fewer words than this share of another reading of the
#: page, it chose one part of a page made of many (one post, one card, one section): that
#: reading stands in. Only on pages known to be made of many parts: on articles and product
#: pages the extra text is mostly comments, menus and recommendations (measured on all
#: three evaluation sets).
RESCUE_SHARE = 0.4
#: The page text does not stand in when trafilatura's baseline (a reading that makes no
#: main-block choice) finds as many words as the main text, within this factor, and those
#: are at least :data:`AGREED_MIN_WORDS`: two readings agreeing on a block of content found
#: the content, and the rest of the page is filters, facets and teasers (checked with
#: five-fold cross-validation, ``docs/performance.md``).
AGREED_FACTOR = 1.1
AGREED_MIN_WORDS = 50
#: Which reading stands in, by page type: the page's text without its furniture
#: (:func:`.pagetext.page_text`) where the parts are cards and sections side by side, or
#: trafilatura's baseline (its paragraph-like blocks) where they are posts or prose, which
#: the page text would surround with thread lists and sidebars.
RESCUE_WITH: dict[str, Literal["page", "baseline"]] = {
    "collection": "page",
    "listing": "page",
    "service": "page",
    "forum": "baseline",
    "documentation": "baseline",
}
#: A page that states no kind and carries no date is less often an article than its look
#: says (many are services, listings and collections whose markup states nothing), and
#: trafilatura's default precision then often keeps one block of many: its ``favor_recall``
#: reading stands in when the default kept fewer than this share of that reading's words.
#: The page's own text would gain more on such pages but fills undated articles with
#: menus and teasers (measured on all three evaluation sets).
UNDATED_RECALL_SHARE = 0.8
#: An undated page read as an article whose main text (after the reading above) holds
#: fewer than this share of the words of the page's own text is a page of sections side by
#: side (a service's, a category's, a listing's), of which trafilatura kept one: the page
#: text stands in, when at most :data:`SECTIONS_LIST_SHARE` of its lines are list items.
#: News pages whose text trafilatura cut as short keep their menus and teasers in lists,
#: which is what the page text would add to them, and a page with a comment section (see
#: :data:`DISCUSSION_COMMENTS`) would get its comments: both keep their main text
#: (measured on all three evaluation sets, and checked by five-fold cross-validation).
SECTIONS_SHARE = 1 / 3
SECTIONS_LIST_SHARE = 0.01
#: A page read as an article whose comments hold this many times its own words is a
#: discussion (a link aggregator's thread: a title, a link, a line, then the discussion),
#: and is read as a forum is, posts kept. Asked only of pages with at least
#: :data:`DISCUSSION_COMMENTS` elements named for comments, so articles pay nothing; news
#: pages with long comment sections stay articles (their readers' comments held 5 to 16
#: times the article's words on the evaluation sets, and annotators leave them out).
DISCUSSION_SHARE = 20
DISCUSSION_COMMENTS = 50
_WORD = re.compile(r"\w+")
#: A markdown link's target.
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
#: Links collected from one page at most (a crawl needs far fewer; each costs a URL join).
MAX_LINKS = 5_000
#: Frames a frameset page's item lists (a crawl follows them as links, up to MAX_LINKS).
MAX_FRAMES = 100

_quiet_done = False


def quiet_libraries() -> None:
    """trafilatura logs every page it discards, pypdf every flaw of a PDF it reads anyway; keep
    that off stderr (a worker's is the caller's) unless configured."""
    global _quiet_done
    if not _quiet_done:
        for name in ("trafilatura", "htmldate", "courlan", "pypdf"):
            logger = logging.getLogger(name)
            if logger.level == logging.NOTSET:
                logger.setLevel(logging.CRITICAL)
        _quiet_done = True


#: Longer than a "this page needs JavaScript" notice: text this long is the page's own.
_NOTICE_CHARS = 1_000


@dataclass
class HtmlDocument:
    """What one HTML page yields."""

    content: str
    title: str
    metadata: dict[str, Any]
    raw_text: str | None = None
    links: list[str] = field(default_factory=list)
    #: ``<meta name="robots" content="nofollow">`` (in any of its robots tags): a polite crawler does not follow links.
    nofollow: bool = False
    #: True when trafilatura found no main content and the page text stands in for it.
    fallback: bool = False
    #: True when the only text is what the page shows with scripts off (``<noscript>``):
    #: a script builds its content ("You need to enable JavaScript to run this app.").
    scripted: bool = False
    #: Where the page's ``<meta http-equiv="refresh">`` sends a reader soon (:mod:`.refresh`).
    refresh: str | None = None
    #: The pages a frameset page shows in its ``<frame>``s: its text is there, not in it.
    frames: list[str] = field(default_factory=list)
    #: True when the HTML was over its budget even without what no reader sees, and was cut.
    truncated: bool = False
    #: True when the page nests deeper than :data:`.htmltree.MAX_HTML_DEPTH`: read up to there.
    too_deep: bool = False


def _text_of(tree: Any) -> str:
    from .pagetext import visible_text

    body = tree.find(".//body")
    return visible_text(body if body is not None else tree)


def _base(tree: Any, url: str) -> str:
    """The address the page's relative links are read against (its ``<base href>``, if any). A
    base that is no http(s) address (``javascript:void(0)``, ``data:``) is ignored, as browsers
    do: links read against it were left relative, and a crawl followed none of them."""
    base_el = tree.find(".//base[@href]")
    if base_el is None:
        return url
    base = join_url(url, base_el.get("href", "").strip())
    return base if base is not None and is_http_url(base) else url


def _links(tree: Any, base: str) -> list[str]:
    seen: dict[str, None] = {}
    for element in tree.iter("a", "area", "frame"):  # a frameset's pages are followed as links are
        if len(seen) >= MAX_LINKS:
            break
        href = (element.get("src" if element.tag == "frame" else "href") or "").strip()
        if not href or href.startswith("#"):
            continue
        link = join_url(base, href)  # a longer one is not followed: never sent back to the crawl
        if link is not None and len(link) <= MAX_URL_CHARS:
            seen.setdefault(link, None)
    return list(seen)


def _frames(tree: Any, base: str) -> list[str]:
    """The pages a ``<frameset>`` shows, in order; none for any other page."""
    if tree.find(".//frameset") is None:
        return []
    found = (join_url(base, (frame.get("src") or "").strip()) for frame in tree.iter("frame"))
    pages = (link for link in found if is_http_url(link) and len(link) <= MAX_URL_CHARS)  # not about:blank
    return list(dict.fromkeys(pages))[:MAX_FRAMES]


#: An href that names its scheme (``mailto:``, ``https:``) or only a place on the page.
_NOT_RELATIVE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|#")


def _absolute_hrefs(tree: Any, base: str, encoding: str) -> None:
    """Every link's target read against the page's address (or its ``<base href>``), as a
    browser reads it: trafilatura joins a relative one to the site's root, so ``install.html``
    on ``/blog/2024/page.html`` pointed at ``/install.html`` in the markdown. Its query is
    written as a browser sends it from a page in ``encoding`` (a Python codec): ``?q=東京`` on a
    Shift_JIS page is ``?q=%93%8C%8B%9E``, which an extract of the link then asks for."""
    for element in tree.iter("a"):
        href = element.get("href")
        if not href:
            continue
        absolute = bool(_NOT_RELATIVE.match(href := href.strip()))
        joined = href if absolute else join_url(base, href)
        if joined is None:
            continue
        if not joined.isascii() and is_http_url(joined):
            try:
                joined = query_in_encoding(joined, encoding)
            except ValueError:  # an address no parser reads (``http://[x``) is left as written
                pass
        if not absolute or joined != href:
            element.set("href", joined)


def _read_noframes(tree: Any) -> None:
    """A frameset page's ``<noframes>`` markup as elements: parsed as raw text, its tags came
    back as the page's text (``<p>Your browser does not support frames.</p>``)."""
    from lxml import html as lxml_html

    for holder in tree.iter("noframes"):
        if holder.text and "<" in holder.text:
            holder.append(lxml_html.fragment_fromstring(holder.text, create_parent="div"))
            holder.text = None


def _meta(tree: Any, name: str) -> str:
    return next(_metas(tree, name), "")


def _metas(tree: Any, name: str) -> Iterator[str]:
    """The contents of every ``<meta name=...>`` tag of that name, in order (a page may give
    its robots directives in several)."""
    for element in tree.iter("meta"):
        if (element.get("name") or "").strip().lower() == name:
            yield (element.get("content") or "").strip()


#: Longer than any language tag a page means (RFC 5646 asks room for 35 characters).
MAX_LANGUAGE_CHARS = 64


def _language(tree: Any) -> str | None:
    lang = (tree.get("lang") or tree.get("{http://www.w3.org/XML/1998/namespace}lang") or "").strip()
    if not lang:
        for element in tree.iter("meta"):
            if (element.get("http-equiv") or "").strip().lower() == "content-language":
                lang = (element.get("content") or "").strip()
                break
    return lang if 0 < len(lang) <= MAX_LANGUAGE_CHARS else None


def _canonical(tree: Any, base: str) -> str | None:
    for element in tree.iter("link"):
        rels = (element.get("rel") or "").lower().split()
        href = (element.get("href") or "").strip()
        if "canonical" in rels and href:
            canonical = join_url(base, href)
            return canonical if canonical is not None and len(canonical) <= MAX_URL_CHARS else None
    return None


def _first_text(tree: Any, path: str) -> str:
    element = tree.find(path)
    return " ".join(element.text_content().split()) if element is not None else ""


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def _read_words(markdown: str) -> int:
    """Words a reader sees in ``markdown``: its link targets left out."""
    return _words(_LINK_TARGET.sub("]", markdown))


def _trafilatura_text(tree: Any, url: str, fmt: Format, options: dict[str, Any]) -> str | None:
    """trafilatura's main text with our corrections (:mod:`.boilerplate`) applied."""
    import trafilatura

    from .boilerplate import drop_teaser_links, restore_lead
    from .mdtidy import tidy_markdown

    extracted = trafilatura.extract(tree, url=url, **{**TRAFILATURA_OPTIONS[fmt], **options})
    if extracted:
        extracted = restore_lead(tree, extracted)
        if fmt == "markdown":
            extracted = tidy_markdown(drop_teaser_links(extracted, url))
    return extracted


def _main_text(
    html: str, tree: Any, url: str, fmt: Format, kind: PageType, dated: bool
) -> tuple[str | None, PageType]:
    """The page's main text as its kind reads it, or as a forum's when an article's comments
    dwarf it (see :data:`DISCUSSION_SHARE`), or the page's own text when an undated article
    turns out to be one section of many (see :data:`SECTIONS_SHARE`); and the kind it was
    read as."""
    discussion = kind == "article" and _comment_blocks(tree, DISCUSSION_COMMENTS)
    text = _reading(html, tree, url, fmt, kind, dated)
    if discussion:
        thread = _reading(html, tree, url, fmt, "forum", dated)
        if thread and _read_words(thread) >= DISCUSSION_SHARE * max(_read_words(text or ""), 1):
            return thread, "forum"
    if text and kind == "article" and not dated and not discussion:
        return _sections_or(text, tree), kind
    return text, kind


def _sections_or(text: str, tree: Any) -> str:
    """``text``, or the page's own text when that shows a page of sections of which ``text``
    is one (see :data:`SECTIONS_SHARE`)."""
    from .pagetext import page_text

    page = page_text(tree)
    if _read_words(text) >= SECTIONS_SHARE * _words(page):
        return text
    lines = [line for line in page.split("\n") if line]
    listed = sum(1 for line in lines if line.startswith("- "))
    return page if listed <= SECTIONS_LIST_SHARE * len(lines) else text


def _comment_blocks(tree: Any, least: int) -> bool:
    """Whether at least ``least`` elements have a class or id naming comments, in any case
    (stops there: an XPath count walked every page whole, twice as long)."""
    found = 0
    for element in tree.iter():
        named = element.get("class"), element.get("id")
        if any(name and "comment" in name.lower() for name in named):
            found += 1
            if found >= least:
                return True
    return False


def _reading(html: str, tree: Any, url: str, fmt: Format, kind: PageType, dated: bool) -> str | None:
    """trafilatura's main text, or another reading of the page when that holds much more
    (see :data:`RESCUE_SHARE`, :data:`AGREED_FACTOR` and :data:`UNDATED_RECALL_SHARE`)."""
    import trafilatura

    from .pagetext import page_text

    options = TYPE_OPTIONS.get(kind, {})
    extracted = _trafilatura_text(tree, url, fmt, options)
    # An empty main text stays empty: the page is then reported as having none.
    if extracted and kind == "article" and not dated:
        recall = _trafilatura_text(tree, url, fmt, {**options, "favor_recall": True})
        if recall and _read_words(extracted) < UNDATED_RECALL_SHARE * _read_words(recall):
            return recall
        return extracted
    by = RESCUE_WITH.get(kind)
    if by is None:
        return extracted
    rescue = page_text(tree) if by == "page" else trafilatura.baseline(html)[1]
    found = _words(extracted or "")
    if not rescue or found >= RESCUE_SHARE * _words(rescue):
        return extracted
    if by == "page" and found >= AGREED_MIN_WORDS:
        baseline = _words(trafilatura.baseline(html)[1])
        if found / AGREED_FACTOR <= baseline <= found * AGREED_FACTOR:
            return extracted
    return rescue


def _more_elements_than(tree: Any, limit: int) -> bool:
    return next(itertools.islice(tree.iter(), limit, None), None) is not None


def html_document(
    html: str,
    url: str,
    *,
    fmt: Format = "markdown",
    include_raw: bool = False,
    want_links: bool = False,
    max_elements: int | None = None,
    max_chars: int | None = None,
    encoding: str = "utf-8",
) -> HtmlDocument:
    """Extract one page (blocking and CPU-heavy: the extraction workers call it); ``encoding``
    is the Python codec the page was decoded with, in which its links' queries are sent.

    HTML over ``max_chars`` characters is held to them (:mod:`.htmlbudget`: here, under the
    worker's limits, since a page can make that pass slow). A tree of more than
    ``max_elements`` elements skips trafilatura's main-content selection and metadata search,
    whose cost grows with the element count: its plain text stands in.
    """
    from trafilatura.metadata import extract_metadata
    from trafilatura.settings import Document

    from .boilerplate import drop_unrendered, join_split_body
    from .htmlbudget import fit_html
    from .htmltree import load_tree
    from .pagetype import page_type
    from .product import product_facts
    from .refresh import refresh_target

    quiet_libraries()
    truncated = False
    if max_chars is not None:
        html, truncated = fit_html(html, max_chars)
    tree, too_deep = load_tree(html)
    if tree is None:  # a fragment or something barely HTML: give it a document around it
        tree, too_deep = load_tree(f"<html><body><div>{html}</div></body></html>")
        if tree is None:
            return HtmlDocument(content="", title="", metadata={}, fallback=True, truncated=truncated)
    base = _base(tree, url)
    links = _links(tree, base) if want_links else []
    frames = _frames(tree, base)
    if frames:
        _read_noframes(tree)
    nofollow = says_nofollow(_metas(tree, "robots"))
    raw = _text_of(tree) if include_raw else None
    kind: PageType | None = None
    product: dict[str, str] = {}
    if max_elements is not None and _more_elements_than(tree, max_elements):
        content, found = None, Document()
    else:
        kind = page_type(tree, url)
        if kind == "product":
            product = product_facts(tree)
        drop_unrendered(tree)
        join_split_body(tree)
        if fmt == "markdown":  # the only format that keeps links
            _absolute_hrefs(tree, base, encoding)
        # extensive=False: dates only from markup that states them, never guessed from a
        # copyright line in the footer.
        found = extract_metadata(tree, default_url=url, extensive=False)
        content, kind = _main_text(html, tree, url, fmt, kind, dated=bool(found.date))
    fallback = not content
    if fallback:
        content = raw if raw is not None else _text_of(tree)
    # The page text leaves <noscript> out; a short content beside no page text came from it.
    scripted = (
        bool(content) and len(content) < _NOTICE_CHARS and tree.find(".//body//noscript") is not None
        and not (raw if raw is not None else _text_of(tree)).strip()
    )
    title = (found.title or "").strip() or _first_text(tree, ".//title") or _first_text(tree, ".//h1")
    metadata: dict[str, Any] = {
        "description": found.description or _meta(tree, "description") or None,
        "author": found.author or None,
        "date": found.date or None,
        "site_name": found.sitename if found.sitename and found.sitename != urlsplit(url).netloc else None,
        "language": _language(tree),
        "canonical_url": _canonical(tree, base),
        "page_type": kind,
    }
    if product:
        metadata["product"] = product
    return HtmlDocument(
        content or "", title, metadata, raw, links, nofollow, fallback, scripted, refresh_target(tree, url, base), frames,
        truncated, too_deep,
    )
