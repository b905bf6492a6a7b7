"""Turning a response body into text with the right character encoding.

Order, as browsers do it: a byte-order mark, the ``Content-Type`` charset, a ``<meta>``
declaration (HTML) or the XML declaration, then UTF-8 if the bytes are valid UTF-8, then
detection. Labels follow the WHATWG rule that ``iso-8859-1`` and ``ascii`` mean
``windows-1252``, which is what such pages are really written in. A label naming a Python
codec that does not turn bytes into text (``zlib``, ``base64``, ``rot13``) or cannot
replace bad bytes (``idna``, ``undefined``) counts as unknown, as browsers treat labels
they do not know.
"""

from __future__ import annotations

import codecs
import functools
import re

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_WHATWG_ALIASES = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "windows-1252": "cp1252",
    "x-sjis": "shift_jis",
    "gb2312": "gb18030",
    "gbk": "gb18030",
}
#: How much of an HTML document is searched for a ``<meta>`` charset (browsers use 1024).
_META_WINDOW = 4096
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)
_XML_DECL = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)
#: Detection reads at most this much (it is slow on big bodies).
_DETECT_BYTES = 64 * 1024


def codec_for(label: str | None) -> str | None:
    """The Python codec for an encoding label, or None for an unknown label."""
    if not label:
        return None
    name = label.strip().strip("'\"").lower()
    name = _WHATWG_ALIASES.get(name, name)
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        return None
    return codec if _decodes_text(codec) else None


@functools.lru_cache(maxsize=64)
def _decodes_text(codec: str) -> bool:
    """Whether ``codec`` decodes any bytes to text with bad bytes replaced (asked of Python)."""
    try:
        b"<html>\xff\x80 caf\xc3\xa9".decode(codec, errors="replace")
    except (LookupError, UnicodeError, ValueError, TypeError):
        return False
    return True


def _from_bom(body: bytes) -> str | None:
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return codec
    return None


def declared_encoding(body: bytes, content_type: str | None, kind: str) -> str | None:
    """The encoding the response declares (header, then document), if any is usable."""
    if content_type:
        match = _HEADER_CHARSET.search(content_type)
        codec = codec_for(match.group(1)) if match else None
        if codec:
            return codec
    head = body[:_META_WINDOW]
    if kind in ("html", "xml"):
        xml = _XML_DECL.match(head.lstrip())
        if xml:
            codec = codec_for(xml.group(1).decode("ascii"))
            if codec:
                return codec
    if kind == "html":
        meta = _META_CHARSET.search(head)
        codec = codec_for(meta.group(1).decode("ascii")) if meta else None
        if codec:
            # A UTF-16 declaration inside a document readable as ASCII is a lie (browsers agree).
            return "utf-8" if codec.startswith("utf-16") else codec
    return None


def _detect(body: bytes) -> str:
    try:
        from charset_normalizer import from_bytes
    except ImportError:
        return "cp1252"
    matches = from_bytes(body[:_DETECT_BYTES])
    best = matches.best()
    if best is None:
        return "cp1252"
    # Detection often cannot tell the Latin code pages apart; on a tie, windows-1252 (the
    # web's usual legacy encoding) wins, as it does in browsers.
    tied = {m.encoding for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)}
    if "cp1252" in tied:
        return "cp1252"
    return codec_for(best.encoding) or "cp1252"


def decode(body: bytes, content_type: str | None = None, kind: str = "text") -> tuple[str, str]:
    """``(text, codec)``: ``body`` decoded with the best known encoding (never raises)."""
    codec = _from_bom(body) or declared_encoding(body, content_type, kind)
    if codec is None:
        try:
            return body.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            codec = _detect(body)
    return body.decode(codec, errors="replace"), codec
