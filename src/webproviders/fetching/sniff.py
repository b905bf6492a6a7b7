"""What a response body really is: the declared content type checked against its first bytes.

Servers mislabel often (PDFs as ``application/octet-stream``, images as ``text/html``), and
turning an image into "text" would hand a model garbage, so magic bytes win over the label.
"""

from __future__ import annotations

import codecs
import re
from typing import Literal

from .charset import KR_DESIGNATOR, header_encoding, utf16_without_bom

Kind = Literal["html", "markdown", "text", "json", "xml", "pdf", "binary"]

#: Leading bytes of formats that are never text.
_BINARY_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"\x00\x00\x01\x00", "image/x-icon"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (b"Rar!\x1a\x07", "application/vnd.rar"),
    (b"\x7fELF", "application/x-executable"),
    (b"OggS\x00", "audio/ogg"),
    (b"ID3\x02", "audio/mpeg"),
    (b"ID3\x03", "audio/mpeg"),
    (b"ID3\x04", "audio/mpeg"),
    (b"fLaC", "audio/flac"),
    (b"\x1aE\xdf\xa3", "video/webm"),
    (b"wOFF", "font/woff"),
    (b"wOF2", "font/woff2"),
)
#: How an unlabelled HTML document may begin: the tags the WHATWG MIME Sniffing Standard
#: lists (a browser renders a body starting so as HTML), and ``<meta``.
_HTML_START = re.compile(
    rb"<(?:!doctype\s+html|!--|(?:html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|meta)[\s/>])"
)
#: An XHTML root element: browsers render such a document as a page whatever XML type it is served as.
_XHTML_ROOT = re.compile(rb"""<html[^>]*\sxmlns\s*=\s*["']http://www\.w3\.org/1999/xhtml["']""")
#: An RSS, RSS 1.0 (RDF) or Atom root, after an XML declaration, comments and processing
#: instructions (a style sheet): a feed, even where the server calls it a page or plain text.
_FEED_START = re.compile(rb"(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*|<\?[^>]*\?>\s*)*<(?:rss|feed|rdf:rdf)[\s>]", re.DOTALL)
_UTF8_BOM = b"\xef\xbb\xbf"
_PDF_MAGIC = b"%PDF-"
#: Where PDF readers look for a PDF's header.
_PDF_HEADER_WITHIN = 1024

_DECLARED: dict[str, Kind] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
    "text/csv": "text",
    "text/css": "text",
    "text/javascript": "text",
    "application/javascript": "text",
    # Text under an application/ type (a YAML OpenAPI file, older servers' JavaScript): read as
    # it came, not refused as binary. Other application/ types are binary, or markup such as
    # RTF and PostScript that would only be garbage to a reader.
    "application/x-javascript": "text",
    "application/ecmascript": "text",
    "application/yaml": "text",
    "application/x-yaml": "text",
    "application/toml": "text",
    "application/x-ndjson": "text",
    "application/jsonl": "text",
    "application/sql": "text",
    "application/x-sh": "text",
    "application/json": "json",
    "text/json": "json",
    "application/xml": "xml",
    "text/xml": "xml",
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
}


#: A MIME type as the WHATWG Fetch Standard parses one: ``type/subtype``, parameters after ``;``.
_MIME_TYPE = re.compile(r"\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:;.*)?", re.DOTALL)


def effective_content_type(values: list[str]) -> str:
    """The ``Content-Type`` a browser goes by, among ``values`` (each header's, commas split):
    the last that is a MIME type other than ``*/*``, keeping an earlier one's charset when it
    names the same type without one (WHATWG Fetch, "extract a MIME type"); '' when none is, so
    that the body's bytes decide. Two headers (``text/html`` and ``text/html; charset=utf-8``,
    a server and a script both setting it) came as one value no type matched, and a page as
    its markup."""
    chosen, essence = "", ""
    for value in values:
        match = _MIME_TYPE.fullmatch(value)
        if match is None or match.group(1) == "*/*":
            continue
        if match.group(1).lower() != essence or "charset" in value.lower():
            chosen, essence = value.strip(), match.group(1).lower()
    return chosen


def mime_type(content_type: str | None) -> str:
    """``text/html; charset=utf-8`` -> ``text/html`` (lower case, '' when absent)."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def _binary_magic(head: bytes) -> str | None:
    for magic, kind in _BINARY_MAGIC:
        if head.startswith(magic):
            return kind
    if head[:4] == b"RIFF" and head[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return "application/octet-stream"
    if head[4:8] == b"ftyp":
        return "video/mp4"
    return None


def _strip_prefix(head: bytes) -> bytes:
    return head.removeprefix(_UTF8_BOM).lstrip().lower()


def _as_utf8(content_type: str | None, head: bytes) -> bytes:
    """``head`` re-encoded as UTF-8 when it is UTF-16 (by its BOM, its header, or with neither,
    by where its NUL bytes are), else as it is: UTF-16 text is full of NUL bytes, which would
    make it look binary."""
    codec = "utf-16" if head.startswith((b"\xff\xfe", b"\xfe\xff")) else header_encoding(content_type, head)
    if codec is None:
        codec = utf16_without_bom(head)
    if codec is None or not codec.startswith("utf-16"):
        return head
    try:  # a cut last character is awaited, not an error
        return codecs.getincrementaldecoder(codec)().decode(head, final=False).encode("utf-8")
    except UnicodeDecodeError:  # a lone surrogate: no UTF-16 text, so judged by its own bytes
        return head


def pdf_label(mime: str) -> bool:
    """Whether ``mime`` names a PDF: a body so labelled without a PDF's header is no PDF at all."""
    return _DECLARED.get(mime) == "pdf"


#: Top-level types that are no page whatever their bytes (an SVG drawing is XML text).
_MEDIA = ("image", "audio", "video", "font", "model")


def textual(mime: str) -> bool:
    """Whether ``mime`` names a type of text, which a body of binary bytes then only claims to be
    (``image/svg+xml`` is an image, refused as one)."""
    if mime.split("/", 1)[0] in _MEDIA:
        return False
    return mime.startswith("text/") or mime in _DECLARED or mime.endswith(("+json", "+xml"))


def _looks_binary(head: bytes) -> bool:
    """NUL bytes or many control bytes in the first KiB: not text. ESC is not one of them (as in
    the WHATWG MIME Sniffing Standard): ISO-2022-JP text switches with it, between each run of
    Japanese and ASCII (a date such as 2024年5月1日 holds four). Nor are SO and SI after
    ISO-2022-KR's designation, with which its text switches between Korean and ASCII."""
    sample = head[:1024]
    if b"\x00" in sample:
        return True
    shifts = (0x0E, 0x0F) if KR_DESIGNATOR in sample else ()
    controls = sum(1 for b in sample if (b < 9 or 13 < b < 32 and b != 0x1B) and b not in shifts)
    return bool(sample) and controls / len(sample) > 0.1


def _guess_text_kind(head: bytes) -> Kind:
    start = _strip_prefix(head)
    if _FEED_START.match(start):  # a feed script that sets no type, or application/octet-stream
        return "xml"
    if _HTML_START.match(start):
        return "html"
    if start.startswith(b"<?xml"):
        return "html" if b"<html" in start[:1024] else "xml"
    if start[:1] in (b"{", b"["):
        return "json"
    return "text"


def sniff(content_type: str | None, head: bytes) -> tuple[Kind, str]:
    """``(kind, mime)`` for a body whose first bytes are ``head``.

    Binary magic wins over any label; a declared textual type is trusted otherwise; an
    absent or generic label (``application/octet-stream``) is decided from the bytes.
    """
    declared = mime_type(content_type)
    # A script that writes a PDF often sends a line break or some spaces before it, and PDF
    # readers look for the header in the first KiB: a PDF so labelled is read, not refused.
    labelled_pdf = _DECLARED.get(declared) == "pdf" and _PDF_MAGIC in head[:_PDF_HEADER_WITHIN]
    if head.lstrip().startswith(_PDF_MAGIC) or labelled_pdf:
        return "pdf", "application/pdf"
    magic = _binary_magic(head)
    if magic is not None:
        return "binary", magic
    if declared.split("/", 1)[0] in _MEDIA:
        return "binary", declared
    head = _as_utf8(content_type, head)
    kind = _DECLARED.get(declared)
    if kind is None and declared.endswith("+json"):
        kind = "json"
    if kind is None and declared.endswith("+xml"):
        kind = "xml"
    if kind == "xml" and _XHTML_ROOT.search(_strip_prefix(head)[:1024]):
        kind = "html"
    if kind == "pdf":
        return "binary", declared  # labelled PDF but not a PDF: nothing sensible to read
    if kind in ("html", "text") and _FEED_START.match(_strip_prefix(head)):
        kind = "xml"  # a script that sets no type (PHP's default is text/html) sends its feed so
    if kind == "html" and _HTML_START.match(_strip_prefix(head)):
        return kind, declared  # a page, whatever stray NUL bytes it holds: browsers show it
    if kind is not None:
        return ("binary", declared) if _looks_binary(head) else (kind, declared)
    if declared and declared not in ("application/octet-stream", "binary/octet-stream", "unknown/unknown"):
        if not declared.startswith("text/") or _looks_binary(head):
            return "binary", declared
        return "text", declared
    if _looks_binary(head):
        return "binary", declared or "application/octet-stream"
    kind = _guess_text_kind(head)
    return kind, declared or {"html": "text/html", "xml": "application/xml", "json": "application/json"}.get(kind, "text/plain")
