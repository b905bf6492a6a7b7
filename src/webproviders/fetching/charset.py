"""Turning a response body into text the way a browser would read it.

Order: a byte-order mark; the ``Content-Type`` charset; for HTML a ``<meta charset>`` or
``<meta http-equiv="Content-Type">`` in the head or the first KiBs (for XML its declaration;
either naming UTF-16 in a document readable as ASCII means UTF-8); then detection by
Firefox's own detector (chardetng), given the address's top-level domain as Firefox gives it.
A declared label is read as the WHATWG Encoding Standard says browsers read it, which for several legacy labels is a superset of
the encoding named: ``Shift_JIS`` is decoded as windows-31J (cp932, with ㈱ and ①),
``EUC-KR`` as windows-949 (cp949, with 똠), ``GB2312``/``GBK`` as GB18030,
``ISO-8859-1``/``ASCII`` as windows-1252. A label the standard does not list (``utf-7``,
EBCDIC, ``zlib``) counts as no label, as in browsers. ``ISO-2022-KR`` and ``HZ-GB-2312``,
which browsers show as one U+FFFD (the standard's "replacement"), are read as what they name.
EUC-JP and ISO-2022-JP read the NEC and IBM rows of JIS X 0208 (① ㈱ 髙) as Shift_JIS does;
a pair no table knows is one U+FFFD, as in browsers, and leaves the characters after it whole.

A 7-bit body holding ISO-2022-JP's escapes is ISO-2022-JP (and one holding ISO-2022-KR's
designation ISO-2022-KR), whatever else it declares: those are text in no other encoding. With
nothing declared, a body in
UTF-16 without a byte-order mark (a NUL byte beside each ASCII character of its markup, on one
side) is read as UTF-16 in that byte order, where a browser shows NULs between the letters;
any other undeclared body goes to detection.

Pages are often mislabelled: a body that is valid UTF-8 and holds non-ASCII text is read as
UTF-8 whatever legacy encoding it declares (text really written in a legacy encoding is
practically never valid UTF-8); a body declared UTF-8 a quarter or more of whose non-ASCII
bytes are not UTF-8, or declared in a 7-bit encoding and holding bytes past ASCII and none of
its escapes, is read by its own declaration, else by detection. The UTF-8 checks read the body from its
first non-ASCII byte, which can come after 100 KB of inline scripts and styles, and read
the rest of the body as far as 64 KiB of bytes that are not long ASCII runs take them.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import re
import threading
from urllib.parse import urlsplit

#: KOI8-U as browsers decode it (:func:`_koi8_u`).
KOI8_U = "webproviders_koi8_u"


def _koi8_u(name: str) -> codecs.CodecInfo | None:
    """KOI8-U with the WHATWG table, which takes in KOI8-RU: Belarusian ``ў`` and ``Ў`` at 0xAE
    and 0xBE, where Python's ``koi8_u`` has box-drawing characters (``╝сё`` for ``ўсё``)."""
    if name != KOI8_U:
        return None
    from encodings import koi8_u

    table = koi8_u.decoding_table
    table = table[:0xAE] + "\u045e" + table[0xAF:0xBE] + "\u040e" + table[0xBF:]
    encoding_table = codecs.charmap_build(table)
    return codecs.CodecInfo(
        name="koi8-u",
        encode=lambda text, errors="strict": codecs.charmap_encode(text, errors, encoding_table),
        decode=lambda data, errors="strict": codecs.charmap_decode(data, errors, table),
    )


codecs.register(_koi8_u)

#: WHATWG encodings (by the Python codec that decodes them as browsers do) and their labels.
_LABELS: dict[str, str] = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "cp866": "866 cp866 csibm866 ibm866",
    "iso8859_2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2",
    "iso8859_3": "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3",
    "iso8859_4": "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4",
    "iso8859_5": "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 iso_8859-5:1988",
    "iso8859_6": "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e "
    "iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987",
    "iso8859_7": "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597 "
    "iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    "iso8859_8": "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 iso88598 "
    "iso_8859-8 iso_8859-8:1988 visual csiso88598i iso-8859-8-i logical",
    "iso8859_10": "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    "iso8859_13": "iso-8859-13 iso8859-13 iso885913",
    "iso8859_14": "iso-8859-14 iso8859-14 iso885914",
    "iso8859_15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "iso8859_16": "iso-8859-16",
    "koi8_r": "cskoi8r koi koi8 koi8-r koi8_r",
    KOI8_U: "koi8-ru koi8-u",
    "mac_roman": "csmacintosh mac macintosh x-mac-roman",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "cp1250": "cp1250 windows-1250 x-cp1250",
    "cp1251": "cp1251 windows-1251 x-cp1251",
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 "
    "iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    "cp1253": "cp1253 windows-1253 x-cp1253",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 "
    "latin5 windows-1254 x-cp1254",
    "cp1255": "cp1255 windows-1255 x-cp1255",
    "cp1256": "cp1256 windows-1256 x-cp1256",
    "cp1257": "cp1257 windows-1257 x-cp1257",
    "cp1258": "cp1258 windows-1258 x-cp1258",
    "mac_cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "gb18030": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk gb18030",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso2022_jp_ext": "csiso2022jp iso-2022-jp",  # with half-width katakana (ESC ( I), as in browsers
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 "
    "windows-949",
    # The standard's "replacement" labels, which browsers show as one U+FFFD (its writers had
    # scripts in mind, which these 7-bit encodings could hide): read as the encoding named.
    "iso2022_kr": "csiso2022kr iso-2022-kr",
    "hz": "hz-gb-2312",
    "utf-16-be": "unicodefffe utf-16be",
    "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
}
_CODEC_BY_LABEL = {label: codec for codec, labels in _LABELS.items() for label in labels.split()}
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
#: How much of an HTML document is searched for a ``<meta>`` charset at least (browsers use
#: 1024), and more while its head lasts, up to :data:`_HEAD_LIMIT`: browsers honour a
#: ``<meta>`` after a long inline script or style in the head, by reading the page again.
_META_WINDOW = 4096
_HEAD_LIMIT = 256 * 1024
_HEAD_END = re.compile(rb"</head|<body", re.IGNORECASE)
#: A comment, which browsers skip when they look for a ``<meta>`` (an old one left commented out).
_COMMENT = re.compile(rb"<!--.*?(?:-->|$)", re.DOTALL)
#: A ``<meta>`` naming a charset, read up to the next tag at most: read up to the next ``>``, a
#: head of unclosed ``<meta`` tags took time quadratic in its size (250 KB: 17 s, on the event loop).
_META_CHARSET = re.compile(rb"""<meta[^<>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)
_XML_DECL = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)
#: The checks of a body's bytes read at most this much of it, taken from windows this long.
_SAMPLE_BYTES = 64 * 1024
_SAMPLE_WINDOW = 256 * 1024
#: A run of ASCII bytes is markup or script, which tells the checks nothing, past its first
#: 16 bytes: those stay, since the second byte of a Shift_JIS, GBK or Big5 character can be
#: ASCII (cut from its first, the character read as no Shift_JIS at all, and such pages as
#: windows-1252).
_ASCII_RUN = re.compile(rb"([\x00-\x7f]{16})[\x00-\x7f]{64,}")
#: A top-level domain as chardetng takes it (anything else is no hint).
_TLD = re.compile(r"[a-z][a-z0-9-]*")
_NON_ASCII = re.compile(rb"[\x80-\xff]")
#: ISO-2022-JP's switch to JIS X 0208 (or half-width katakana): the one 7-bit encoding the
#: standard decodes, which browsers' detectors tell by these escapes.
_JIS_ESCAPE = re.compile(rb"\x1b(?:\$[@B]|\(I)")
#: ISO-2022-KR's designation of KS X 1001, which RFC 1557 puts at the start of the text.
KR_DESIGNATOR = b"\x1b$)C"
#: How each 7-bit encoding shows in its bytes: a body declared in one that holds bytes past
#: ASCII and none of these is in another encoding (a Shift_JIS page under ISO-2022-JP).
_SEVEN_BIT = {
    "iso2022_jp_ext": _JIS_ESCAPE,
    "iso2022_kr": re.compile(re.escape(KR_DESIGNATOR)),
    "hz": re.compile(rb"~\{"),
}
#: How much of an undeclared body is looked at for UTF-16 without a byte-order mark.
_UTF16_PROBE = 512



#: Double-byte codecs whose unknown pairs :func:`_as_browsers_read_it` reads: the bytes that
#: start a pair, and the bytes not ASCII that end one.
_PAIRS = {
    "cp932": ((range(0x81, 0xA0), range(0xE0, 0xFD)), range(0x80, 0x100)),
    "euc_jp": ((range(0xA1, 0xFF),), range(0xA1, 0xFF)),
    "big5hkscs": ((range(0x81, 0xFF),), range(0x80, 0x100)),
    "cp949": ((range(0x81, 0xFF),), range(0x80, 0x100)),
}
#: The error handler :func:`decode` reads those pairs with (registered below), for at most
#: this many in a body: it is Python, a few µs a call, where ``replace`` is C, and a body of
#: garbage can hold millions (it is then read with ``replace``).
_ERRORS = "webproviders-whatwg"
#: Codecs besides those of :data:`_PAIRS` whose failures the handler reads: ISO-2022-JP's
#: JIS X 0208 rows, and GBK's single byte 0x80 (the euro sign, which ``gb18030`` refuses).
_ALSO_READ = frozenset({"iso2022_jp_ext", "gb18030"})
_ERRORS_READ = 10_000
_budget = threading.local()


class _TooManyErrors(Exception):
    """A body with more undecodable characters than :data:`_ERRORS_READ`."""


def _jis0208(first: int, second: int, offset: int) -> str | None:
    """A JIS X 0208 pair (row and cell bytes counted from ``offset``) read through the index
    the WHATWG decoders of EUC-JP, ISO-2022-JP and Shift_JIS share, which cp932 decodes:
    Python's ``euc_jp`` and ``iso2022_jp`` lack its NEC and IBM rows (① ㈱ ㌔ Ⅱ 纊 髙)."""
    if not (offset <= first < offset + 94 and offset <= second < offset + 94):
        return None
    lead, trail = divmod((first - offset) * 94 + second - offset, 188)
    sjis = bytes((lead + (0x81 if lead < 0x1F else 0xC1), trail + (0x40 if trail < 0x3F else 0x41)))
    try:
        return sjis.decode("cp932")
    except UnicodeDecodeError:
        return "\ufffd"


def _as_browsers_read_it(exc: UnicodeError) -> tuple[str, int]:
    """A character a CJK codec cannot decode, read as the WHATWG decoders read it: a JIS X 0208
    pair from the shared index, GBK's byte 0x80 as the euro sign, else one U+FFFD for a lead
    byte and the non-ASCII byte after it. Python's codecs drop the lead byte alone, so that
    byte starts a new pair and the characters after it in the run come out as other characters."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _budget.left = getattr(_budget, "left", 0) - 1
    if _budget.left < 0:
        raise _TooManyErrors
    data, at, end = exc.object, exc.start, exc.end
    if exc.encoding == "iso2022_jp_ext" and end - at == 2:
        return _jis0208(data[at], data[at + 1], 0x21) or "\ufffd", end
    if exc.encoding == "gb18030" and data[at] == 0x80:  # the euro sign as code page 936 writes it
        return "\u20ac", at + 1
    if exc.encoding in _PAIRS and end - at == 1 and at + 1 < len(data):
        leads, trails = _PAIRS[exc.encoding]
        first, second = data[at], data[at + 1]
        if any(first in lead for lead in leads) and second in trails:
            char = _jis0208(first, second, 0xA1) if exc.encoding == "euc_jp" else None
            return char or "\ufffd", at + 2
    return "\ufffd", end


codecs.register_error(_ERRORS, _as_browsers_read_it)


def codec_for(label: str | None) -> str | None:
    """The Python codec that decodes an encoding label as browsers do, or None for an unknown label."""
    if not label:
        return None
    return _CODEC_BY_LABEL.get(label.strip().strip("'\"").strip().lower())


def _from_bom(body: bytes) -> str | None:
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return codec
    return None


def header_encoding(content_type: str | None, body: bytes) -> str | None:
    """The usable encoding a ``Content-Type`` header names for ``body``, if any. A UTF-16 label
    over bytes that are UTF-8 (or ASCII) with no NUL is a server's mistake, not a usable one:
    UTF-16 writes a NUL beside each ASCII character, and markup is full of them (read as
    UTF-16, such a page was a run of CJK characters); over UTF-16, it is read in the byte
    order those NULs show."""
    match = _HEADER_CHARSET.search(content_type or "")
    codec = codec_for(match.group(1)) if match else None
    if codec is not None and codec.startswith("utf-16"):
        probe = body[:_UTF16_PROBE]
        if b"\x00" not in probe and (not _NON_ASCII.search(probe) or _utf8_text(probe)):
            return None
        # The byte order its NULs show: ``utf-16`` names none (browsers take little-endian, RFC
        # 2781 big-endian), and a page in the other order read as a run of CJK characters.
        return utf16_without_bom(body) or codec
    return codec


def declared_encoding(body: bytes, content_type: str | None, kind: str) -> str | None:
    """The encoding the response declares (header, then document), if any is usable."""
    codec = header_encoding(content_type, body)
    if codec:
        return codec
    end = _HEAD_END.search(body, 0, _HEAD_LIMIT) if kind == "html" else None
    head = body[: max(_META_WINDOW, end.start() if end else 0)]
    in_document = None
    if kind in ("html", "xml"):
        xml = _XML_DECL.match(head.lstrip())
        in_document = codec_for(xml.group(1).decode("ascii")) if xml else None
    if kind == "html" and in_document is None:
        meta = _META_CHARSET.search(_COMMENT.sub(b"", head))
        in_document = codec_for(meta.group(1).decode("ascii")) if meta else None
    if in_document is not None and in_document.startswith("utf-16"):
        # A UTF-16 declaration read as ASCII is a lie (HTML says so; .NET writes such XML).
        return "utf-8"
    return in_document


def _utf8_text(body: bytes) -> bool:
    """Whether ``body`` is valid UTF-8 holding non-ASCII text (a sequence cut at the end counts:
    a capped body may stop inside a character)."""
    if not _NON_ASCII.search(body):
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(body, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _sample(body: bytes) -> bytes:
    """What the checks of a body's bytes read: at most :data:`_SAMPLE_BYTES` of it, from its
    first non-ASCII byte (a head of inline scripts and styles can run past 100 KB) to as far
    as it takes, without the long ASCII runs between, which say nothing of the encoding."""
    first = _NON_ASCII.search(body)
    start = first.start() if first else 0
    parts: list[bytes] = []
    size = 0
    while start < len(body) and size < _SAMPLE_BYTES:
        part = _ASCII_RUN.sub(rb"\1\n", body[start : start + _SAMPLE_WINDOW])
        parts.append(part)
        size += len(part)
        start += _SAMPLE_WINDOW
    return b"".join(parts)[:_SAMPLE_BYTES]


def _not_utf8(body: bytes) -> bool:
    """Whether a quarter or more of the non-ASCII bytes of a body declared UTF-8 are not UTF-8:
    a page in windows-1251 behind a server whose header says ``utf-8`` for every page. EUC-JP
    and GBK pairs are valid UTF-8 about half the time, so "most" let half such pages through,
    read as UTF-8; a body of UTF-8 with a stray byte or two stays UTF-8 (read by detection, its
    real text would be lost)."""
    sample = _sample(body)
    non_ascii = len(sample) - len(sample.decode("ascii", errors="ignore"))
    marks = sample.decode("utf-8", errors="replace").count("\ufffd")
    lost = marks - sample.decode("utf-8", errors="ignore").count("\ufffd")  # not the page's own U+FFFD
    return lost * 4 > non_ascii


def _seven_bit_in(body: bytes, declared: str | None) -> str | None:
    """The 7-bit encoding whose escapes a body of ASCII bytes holds: the declared one, else
    ISO-2022-JP or ISO-2022-KR (HZ's ``~{`` is in too much ASCII text to tell it)."""
    if declared in _SEVEN_BIT:
        return declared
    return next((seven for seven in ("iso2022_jp_ext", "iso2022_kr") if _SEVEN_BIT[seven].search(body)), None)


def _not_seven_bit(codec: str, body: bytes) -> bool:
    """Whether ``body``, declared in the 7-bit encoding ``codec``, is in another: it holds bytes
    past ASCII and none of that encoding's escapes (read so, each such byte was a U+FFFD)."""
    escapes = _SEVEN_BIT.get(codec)
    return escapes is not None and bool(_NON_ASCII.search(body)) and not escapes.search(body)


def utf16_without_bom(body: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` for an undeclared body written in UTF-16 with no
    byte-order mark, else None. Markup is mostly ASCII, which UTF-16 writes with a NUL byte
    beside each character, on one side (a few other characters, such as 一 U+4E00, put one
    on the other side); text in an 8-bit encoding has no NULs at all. One NUL is no sign: a
    short body ending in one (``{"a":"b"}\\0``) was read as UTF-16, and came back as CJK."""
    head = body[: _UTF16_PROBE & ~1]
    if len(head) < 8:
        return None
    even, odd = head[0::2].count(0), head[1::2].count(0)
    enough = max(2, len(head) // 8)  # a quarter of the characters ASCII, and more than one
    if odd >= enough and even * 8 <= odd:
        return "utf-16-le"
    if even >= enough and odd * 8 <= even:
        return "utf-16-be"
    return None


def _detect(body: bytes, tld: bytes | None) -> str:
    """The encoding Firefox's detector (chardetng) reads ``body``'s sample in, given the
    address's top-level domain, which it weighs as Firefox does (``jp`` leans to the Japanese
    encodings); charset-normalizer's guess where chardetng is not installed."""
    detector_class = _chardetng()
    if detector_class is None:
        return _detect_without_chardetng(body)
    detector = detector_class()
    detector.feed(_sample(body), last=True)
    return codec_for(detector.guess(tld=tld, allow_utf8=False)) or "cp1252"


@functools.cache
def _chardetng() -> type | None:
    """chardetng's detector, or None: its package publishes wheels only for the Pythons it
    was released for (3.9 to 3.14), and the project's requirements leave it out on newer ones."""
    try:
        from chardetng_py import EncodingDetector
    except ImportError:
        return None
    return EncodingDetector  # type: ignore[no-any-return]


#: What charset-normalizer's (Python) codec names mean on the web: the superset browsers decode.
_DETECTED_AS = {
    "ascii": "cp1252", "latin_1": "cp1252", "iso8859_1": "cp1252", "shift_jis": "cp932", "euc_kr": "cp949",
    "gb2312": "gb18030", "gbk": "gb18030", "big5": "big5hkscs", "cp950": "big5hkscs", "iso8859_9": "cp1254",
    "iso8859_11": "cp874", "tis_620": "cp874", "euc_jis_2004": "euc_jp", "euc_jisx0213": "euc_jp",
    "shift_jis_2004": "cp932", "shift_jisx0213": "cp932", "iso2022_jp": "iso2022_jp_ext", "koi8_u": KOI8_U,
}


def _detect_without_chardetng(body: bytes) -> str:
    """charset-normalizer's best guess for ``body``'s sample, as the codec browsers use for it.

    Weaker than chardetng on pages that mix a CJK encoding with English (docs/performance.md,
    "Pages that do not declare their encoding"). As with chardetng, the answer is a legacy
    encoding (a body read as UTF-8 was tried before detection)."""
    from charset_normalizer import from_bytes

    matches = from_bytes(_sample(body))
    best = matches.best()
    if best is None:
        return "cp1252"
    # windows-1252 (browsers' default) is the best guess too where it reads the sample as the
    # same language: a French page is no Baltic one for its é
    if any(m.encoding == "cp1252" and (m.language, m.coherence) == (best.language, best.coherence) for m in matches):
        return "cp1252"
    name = codecs.lookup(best.encoding).name.replace("-", "_")
    codec = _DETECTED_AS.get(name, name)
    return codec if codec in _LABELS and not codec.startswith("utf") else "cp1252"


def _tld(url: str | None) -> bytes | None:
    """The last label of ``url``'s host as chardetng takes it (lower-case ASCII), if it is a name."""
    try:
        host = (urlsplit(url).hostname or "") if url else ""
    except ValueError:  # an address no parser reads is no hint
        return None
    label = host.rstrip(".").rsplit(".", 1)[-1]
    return label.encode("ascii") if _TLD.fullmatch(label) else None


def decode(
    body: bytes, content_type: str | None = None, kind: str = "text", url: str | None = None
) -> tuple[str, str]:
    """``(text, codec)``: ``body`` decoded with the best known encoding (never raises); ``url``,
    the address it came from, is a hint for detection."""
    codec = _from_bom(body)
    if codec is None:
        declared = declared_encoding(body, content_type, kind)
        if declared is None or not declared.startswith("utf-16"):
            if _utf8_text(body):
                codec = "utf-8"
            elif declared is None and (order := utf16_without_bom(body)) is not None:
                codec = order
            elif not _NON_ASCII.search(body) and (seven := _seven_bit_in(body, declared)) is not None:
                # Escapes no text in another encoding holds: a server's default header (shift_jis,
                # utf-8) over a page in ISO-2022-JP read as ``$BF|K\8l`` where it says 日本語.
                codec = seven
            elif declared is None and not _NON_ASCII.search(body):
                codec = "utf-8"  # plain ASCII reads the same in every web encoding but the 7-bit ones
            elif (declared == "utf-8" and _not_utf8(body)) or _not_seven_bit(declared, body):
                # A server's default header over a page in a legacy encoding: the page's own
                # declaration, else detection.
                own = declared_encoding(body, None, kind)
                fits = own and own != "utf-8" and not _not_seven_bit(own, body)
                codec = own if fits else _detect(body, _tld(url))
            else:
                codec = declared or _detect(body, _tld(url))
        else:
            codec = declared
    text = body.decode(codec, errors="replace")
    name = codecs.lookup(codec).name
    if (name in _PAIRS or name in _ALSO_READ) and "\ufffd" in text:
        _budget.left = _ERRORS_READ
        with contextlib.suppress(_TooManyErrors):
            text = body.decode(codec, errors=_ERRORS)
    return text, name
