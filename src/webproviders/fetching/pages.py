"""From a fetched response to a page item: markdown for HTML, text, JSON and PDF.

HTML goes through trafilatura; text and markdown pass through; JSON is pretty-printed;
PDF becomes text when ``pypdf`` is installed (the ``pdf`` extra). Images and other binaries
are refused with ``unsupported``, never turned into garbage text. HTML, feeds, JSON and PDF
are parsed in the extraction worker processes (:mod:`webproviders.fetching.extractpool`),
within the ``web.extraction`` limits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..config import ExtractionSettings
from ..context import warn
from ..envelope import cut_page, truncate
from ..errors import TooLargeError, UnsupportedError
from ..urls import query_in_encoding, shorten
from .charset import decode
from .decompress import undecoded_codings
from .extraction import HtmlDocument, html_document
from .extractpool import extraction_pool
from .feeds import feed_document
from .fetch import FetchResult
from .htmltree import MAX_HTML_DEPTH, NESTING
from .jsontext import json_text
from .options import PageOptions
from .pdf import missing_pypdf, pdf_text, pypdf_installed
from .refresh import refresh_to
from .sniff import pdf_label, textual

#: ``raw_content`` is bounded: the page text before main-content selection can be huge.
RAW_LIMIT = 100_000
#: HTML with more tags than this (counted as ``<`` characters: about half as many elements)
#: can hold a worker for a second or more, as extraction time grows with the elements, not
#: the characters (a 1.5 MB news page of inline scripts and 1,000 elements takes 40 ms): it
#: is extracted as a heavy page, as PDFs are, which never takes the last free worker.
HEAVY_HTML_TAGS = 20_000
#: JSON longer than this takes a worker for 0.2 s or more (parsing and printing it): a heavy page.
HEAVY_JSON_CHARS = 1_000_000
#: Said in ``meta.warnings`` when an HTML page gave no text: an empty ``content`` alone does
#: not tell a reader whether the page is empty or is built by a script, which is not run here.
NO_TEXT = (
    "A page gave no text of its own (its content is empty, or only what it shows when scripts do "
    "not run): it may build its text with a script, which is not run when a page is read this "
    "way. A backend that renders pages in a browser (crawl4ai, firecrawl) can read such pages."
)
#: Frames named in the sentence about a frameset page (a crawl follows all of them).
FRAMES_NAMED = 5
#: An ATX heading's line, whose closing ``#``s are cut in :func:`_passthrough_title`: a pattern
#: that cut them too (``\s*#*\s*$`` after a lazy title) took time cubic in a run of spaces, and a
#: 5 KB file held the event loop for minutes.
_HEADING = re.compile(r"^#{1,6}[ \t]+(\S.*)$", re.MULTILINE)


class NotAPage(UnsupportedError):
    """The body is binary (an image, an archive): no page at all, which a crawl passes by
    without an item. A page that cannot be read here (a locked PDF) is ``unsupported`` too, and
    stays a failed page of the crawl."""


@dataclass
class RenderedPage:
    """A page item plus what a crawler needs from it."""

    item: dict[str, Any]
    links: list[str]
    #: Whether the page is HTML (only HTML pages are followed by the crawler).
    html: bool = False
    nofollow: bool = False
    #: Where the page's ``<meta http-equiv="refresh">`` (or ``Refresh`` header) sends a reader at once, if anywhere.
    refresh: str | None = None


def _base_metadata(result: FetchResult, mime: str) -> dict[str, Any]:
    return {
        "final_url": result.final_url,
        "status_code": result.status_code,
        "content_type": mime,
    }


def _passthrough_title(text: str, kind: str) -> str:
    """A markdown file's first heading, without its closing ``#``s (CommonMark's: after a space,
    so that ``# C#`` is ``C#``); other text has no title."""
    if kind != "markdown" or (match := _HEADING.search(text)) is None:
        return ""
    title = match.group(1).strip()
    unclosed = title.rstrip("#")
    if unclosed != title and (not unclosed or unclosed[-1] in " \t"):
        title = unclosed.strip()
    return title


def _finish(item: dict[str, Any], options: PageOptions) -> dict[str, Any]:
    """The item with its raw text bounded, and its texts cut to ``max_chars`` when asked."""
    raw = item.get("raw_content")
    if raw is not None:
        item["raw_content"] = truncate(raw, RAW_LIMIT)
    item["metadata"] = {k: v for k, v in item["metadata"].items() if v is not None}
    if options.max_chars is not None:
        cut_page(item, options.max_chars)
    return item


async def render(
    result: FetchResult, options: PageOptions, limits: ExtractionSettings, *, want_links: bool = False
) -> RenderedPage:
    """The page item for a successful (2xx) fetch; raises ``unsupported``, ``parse_error``
    or ``timeout`` (the page outlived its CPU time or the call)."""
    kind, mime = result.sniff()
    url = result.url
    metadata = _base_metadata(result, mime)
    if kind == "binary":
        codings = undecoded_codings(result.headers.get("content-encoding", ""))
        if textual(mime) and codings:  # the bytes are most likely still compressed
            raise NotAPage(
                f"{url} is served as {mime}, but its bytes are binary: its Content-Encoding, "
                f"'{', '.join(codings)}', is not one decoded here, and they are most likely still in it; "
                "it cannot be extracted."
            )
        if pdf_label(mime):  # its bytes may well be text: "binary (NUL or control bytes)" was untrue
            raise UnsupportedError(
                f"{url} is served as {mime}, but its bytes are not a PDF (no %PDF- header): most often a sign-in "
                "or error page sent under the file's type, which a PDF reader cannot open either; it cannot be extracted."
            )
        if textual(mime):  # "is text/plain, not a page with text" contradicted itself
            raise NotAPage(
                f"{url} is served as {mime}, but its bytes are binary (NUL or control bytes), not text; "
                "it cannot be extracted."
            )
        raise NotAPage(
            f"{url} is {mime or 'binary content'}, not a page with text; it cannot be extracted."
        )
    if result.status_code == 206:  # no Range is ever sent: a cache's or a server's mistake, not kept as the page
        warn(f"{shorten(url)} answered 206 Partial Content though no part of it was asked for: "
             "its text may be only part of the page.", partial=True)
    if kind == "pdf":
        if not pypdf_installed():
            raise missing_pypdf(url)
        title, text, extra = await extraction_pool.run(
            limits, pdf_text, result.content, url, heavy=True,
            max_pages=limits.max_pdf_pages, cpu_budget=limits.cpu_timeout / 2,
        )
        if not text.strip():  # an empty content alone would leave a reader guessing why
            warn(f"{shorten(url)} is a PDF whose pages read hold no text: a scanned document, most often, "
                 "whose pages are images (no text is read from images here).")
        item = {"url": url, "title": title, "content": text, "raw_content": text if options.include_raw else None,
                "metadata": {**metadata, **extra}}
        return RenderedPage(_finish(item, options), [])
    text, codec = decode(result.content, result.content_type, kind, result.final_url)
    metadata["encoding"] = codec
    sent_on = _header_refresh(result, codec) if kind == "html" else None
    if not text.strip():  # whatever its type (a 204, an empty JSON answer): said, not left to guess
        if sent_on is None:  # else it sends its reader on, as a redirect does
            warn(f"{shorten(url)} answered with an empty body: the site sent no page to read.")
        item = {"url": url, "title": "", "content": "", "raw_content": "" if options.include_raw else None,
                "metadata": metadata}
        return RenderedPage(_finish(item, options), [], html=kind == "html", refresh=sent_on)
    if kind == "html":
        # The tags of the part that will be parsed at most (counted in C; the worker holds the
        # page to its budget, which the caller's loop does not wait for).
        tags = text.count("<", 0, limits.max_html_chars)
        doc: HtmlDocument = await extraction_pool.run(
            limits, html_document, text, result.final_url, heavy=tags > HEAVY_HTML_TAGS, fmt=options.format,
            include_raw=options.include_raw, want_links=want_links, max_elements=limits.max_html_elements,
            max_chars=limits.max_html_chars, encoding=codec,
        )
        refresh = sent_on or (doc.refresh and query_in_encoding(doc.refresh, codec))
        if doc.truncated or doc.too_deep:
            metadata["html_truncated"] = True
        if doc.too_deep:
            _too_deep(url, doc)
        metadata.update(doc.metadata)
        if metadata.get("canonical_url"):  # as a browser requests it, as the links a crawl compares it with
            metadata["canonical_url"] = query_in_encoding(metadata["canonical_url"], codec)
        if doc.fallback:
            metadata["extraction"] = "full_text"
        if doc.frames:
            # As a browser requests them, as the links a crawl follows are (``?cat=東京`` in Shift_JIS).
            frames = metadata["frames"] = [query_in_encoding(frame, codec) for frame in doc.frames]
            if not want_links:  # a crawl follows them as links: nothing to say there
                named = ", ".join(map(shorten, frames[:FRAMES_NAMED]))
                named += ", ..." if len(frames) > FRAMES_NAMED else ""
                warn(f"{shorten(url)} is a frameset: its text is in the pages its frames show, which were "
                     f"not read with it ({named}; all in metadata.frames): extract those, or crawl it.")
        elif metadata.get("html_truncated") and not doc.content.strip() and not doc.too_deep:
            warn(f"{shorten(url)} is longer than web.extraction.max_html_chars ({limits.max_html_chars:,} "
                 "characters) even without its inline scripts, styles and drawings, and its beginning, the "
                 "part read, holds no text: raise the limit to read the rest.")
        elif (doc.scripted or not doc.content.strip()) and not refresh and not doc.too_deep:  # its text is where it sends its reader
            warn(NO_TEXT)
        item = {"url": url, "title": doc.title, "content": doc.content, "raw_content": doc.raw_text,
                "metadata": metadata}
        links = [query_in_encoding(link, codec) for link in doc.links]
        return RenderedPage(_finish(item, options), links, html=True, nofollow=doc.nofollow, refresh=refresh)
    if kind == "xml":  # an RSS or Atom feed reads as its entries; other XML as it is
        feed = await extraction_pool.run(
            limits, feed_document, text, result.final_url, heavy=text.count("<") > HEAVY_HTML_TAGS, fmt=options.format
        )
        if feed is not None:
            item = {"url": url, "title": feed.title, "content": feed.content,
                    "raw_content": text if options.include_raw else None, "metadata": {**metadata, **feed.metadata}}
            return RenderedPage(_finish(item, options), [])
    if kind == "json":
        content = await extraction_pool.run(
            limits, json_text, text, options.format, heavy=len(text) > HEAVY_JSON_CHARS
        )
    else:
        content = text.strip()
    item = {"url": url, "title": _passthrough_title(text, kind), "content": content,
            "raw_content": text if options.include_raw else None, "metadata": metadata}
    return RenderedPage(_finish(item, options), [])


def _header_refresh(result: FetchResult, codec: str) -> str | None:
    """Where a page's ``Refresh`` header sends its reader at once, as its ``<meta>`` refresh
    would: a browser obeys the header first, before it reads the page."""
    values = result.headers.get_list("refresh")
    target = refresh_to(values[0], result.final_url, result.final_url) if values else None
    return target and query_in_encoding(target, codec)


def _too_deep(url: str, doc: HtmlDocument) -> None:
    """A page nested past :data:`MAX_HTML_DEPTH`: its text up to there, said to be cut; no text
    at all is a failure (another reader may cope), never an empty success."""
    where = (
        f"{shorten(url)} nests its elements more than {MAX_HTML_DEPTH:,} levels deep, past what is parsed"
    )
    if not doc.content.strip():
        raise TooLargeError(f"{where}, and holds no text before that depth.", detail=NESTING)
    warn(f"{where}: its text is read up to there; what lies deeper, and everything after it, is not.")
