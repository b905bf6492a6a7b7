"""Content-Encoding decoding that stops at a cap on the decoded bytes.

httpx decodes each network read in one go, so a few kilobytes of ``gzip, gzip`` can expand to
gigabytes before a size check sees them. Here every coding is a streaming decompressor asked
for at most :data:`PIECE` bytes at a time (zlib's ``max_length``, brotli's
``output_buffer_limit``; a zstd decoder is fed slices of input too short to expand far past
the cap), and the output of every stage of a stacked encoding is counted against the cap, so decoding ends as soon as the body is
known to be too large, having held little more than the cap in memory.

This module is pure computation; :mod:`webproviders.fetching.fetch` runs it off the event loop.
"""

from __future__ import annotations

import functools
import importlib
import sys
import zlib
from collections.abc import Callable
from typing import Any, Protocol

#: The most bytes one decompression step may produce.
PIECE = 64 * 1024
#: Stacked encodings beyond this many are refused (no server needs more than two).
MAX_CODINGS = 5
#: RFC 9659 lets HTTP clients refuse zstd frames that need a larger window than 8 MB.
ZSTD_MAX_WINDOW = 8 * 1024 * 1024
#: The most a zstd block's input expands: 4 bytes (an RLE block) to 128 KiB.
ZSTD_BLOCK_RATIO = 128 * 1024 // 4
#: The smallest slice of zstd input decoded at once (at most about two blocks' output).
ZSTD_MIN_SLICE = 4
#: How a zstd frame begins, and the most bytes before its window is known (RFC 8878 3.1.1).
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_HEADER = 14


def zstd_window(header: bytes) -> int | None:
    """The window a zstd frame beginning with ``header`` needs (RFC 8878 3.1.1.1.2: its window
    descriptor, or in a single segment its content size), or None when ``header`` does not say."""
    if not header.startswith(ZSTD_MAGIC) or len(header) < 6:
        return None
    descriptor = header[4]
    if not descriptor & 0x20:  # a window descriptor follows
        exponent, mantissa = header[5] >> 3, header[5] & 7
        base = 1 << (10 + exponent)
        return base + base // 8 * mantissa
    size_bytes = (1, 2, 4, 8)[descriptor >> 6]
    at = 5 + (0, 1, 2, 4)[descriptor & 3]  # after the dictionary id
    if len(header) < at + size_bytes:
        return None
    size = int.from_bytes(header[at : at + size_bytes], "little")
    return size + 256 if size_bytes == 2 else size

#: The most input given to zlib at once.
ZLIB_SLICE = 4096
#: How a gzip member begins.
GZIP_MAGIC = b"\x1f\x8b"
Sink = Callable[[bytes], None]
#: Why a body whose compressed stream has no end is refused (a page cut mid-word otherwise).
CUT_SHORT = "its compressed data stops before the end of the stream, so the transfer was cut short; trying again may help"


class BodyTooLarge(Exception):
    """A decoding stage produced more than the cap."""


class Undecodable(Exception):
    """The body is not valid data in its declared coding."""


class UnsupportedCoding(Exception):
    """The body uses a coding this installation cannot decode."""


class _Full(Exception):
    """The truncated body has all it will keep: decoding stops (never leaves this module)."""


class _Stage(Protocol):
    def feed(self, data: bytes, sink: Sink) -> None: ...

    def finish(self, sink: Sink) -> None: ...


class _Zlib:
    """gzip, or deflate with the zlib wrapper or without it (servers send both).

    A gzip body may be several members one after another (RFC 1952 2.2; a server that
    compresses a page in pieces sends it so): each is decoded, where zlib stops at the end of
    the first. Bytes after the last member that begin none (padding), like bytes after
    deflate's one stream, are ignored.
    """

    def __init__(self, gzip: bool) -> None:
        self._gzip = gzip
        self._decompressor = zlib.decompressobj(zlib.MAX_WBITS | 16 if gzip else zlib.MAX_WBITS)
        # Until deflate's 2-byte zlib header has been accepted, the bytes are kept so that
        # they can be read again as raw deflate.
        self._header: bytearray | None = None if gzip else bytearray()
        #: gzip, after a member's end: the bytes after it, until they show whether another begins.
        self._between: bytes | None = None
        self._ignoring = False

    def feed(self, data: bytes, sink: Sink) -> None:
        if self._header is None:
            self._drain(data, sink)
            return
        self._header += data
        try:
            self._drain(data, sink)
        except Undecodable:
            self._decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
            data, self._header = bytes(self._header), None
            self._drain(data, sink)
            return
        if len(self._header) >= 2:
            self._header = None

    def _drain(self, data: bytes, sink: Sink) -> None:
        # In slices: zlib copies the input left over after each call (the rest of a member, the
        # members after it), which over a whole sitemap of many members took time quadratic in its size.
        view = memoryview(data)
        for start in range(0, len(view), ZLIB_SLICE):
            self._drain_slice(bytes(view[start : start + ZLIB_SLICE]), sink)
        if not view:
            self._drain_slice(b"", sink)

    def _drain_slice(self, data: bytes, sink: Sink) -> None:
        while True:
            if self._between is not None:
                data = self._between + data
                if self._ignoring or len(data) < len(GZIP_MAGIC):
                    self._between = b"" if self._ignoring else data
                    return
                if not data.startswith(GZIP_MAGIC):
                    self._ignoring = True
                    return
                self._decompressor, self._between = zlib.decompressobj(zlib.MAX_WBITS | 16), None
            decompressor = self._decompressor
            try:
                while not decompressor.eof:
                    out = decompressor.decompress(data, PIECE)
                    data = decompressor.unconsumed_tail
                    if out:
                        sink(out)
                    if not decompressor.eof and not data and len(out) < PIECE:
                        return  # input used up and nothing left pending inside zlib
            except zlib.error as exc:
                raise Undecodable(str(exc)) from None
            if not self._gzip:
                return
            self._between, data = b"", decompressor.unused_data

    def finish(self, sink: Sink) -> None:
        self._drain(b"", sink)
        if self._between is None and not self._decompressor.eof:
            raise Undecodable(CUT_SHORT)


class _Brotli:
    """``br``, with brotli >= 1.2, whose decompressor takes an output limit."""

    def __init__(self, module: Any) -> None:
        self._error = module.error
        self._decompressor = module.Decompressor()

    def feed(self, data: bytes, sink: Sink) -> None:
        # Output held inside the decompressor comes out on calls with no new input; it is
        # drained when a call gives nothing and the decompressor takes input again.
        decompressor = self._decompressor
        try:
            out = decompressor.process(data, output_buffer_limit=PIECE)
            while True:
                if out:
                    sink(out)
                if decompressor.is_finished() or (not out and decompressor.can_accept_more_data()):
                    return
                out = decompressor.process(b"", output_buffer_limit=PIECE)
        except self._error as exc:
            raise Undecodable(str(exc)) from None

    def finish(self, sink: Sink) -> None:
        # brotli hands out everything as it goes; only the end of the stream is left to check.
        if not self._decompressor.is_finished():
            raise Undecodable(CUT_SHORT)


#: How to start decoding a zstd frame (with the window capped), and what its errors are.
_ZstdFrames = tuple[Callable[[], Any], type[Exception]]


class _Zstd:
    """``zstd`` through a decompressor that knows where a frame ends: Python's own
    (``compression.zstd``, 3.14 on) or zstandard's ``decompressobj`` (its ``stream_writer``
    does not know, so a cut stream would pass for a whole one).

    Either returns all the output of the input it is given, and a 4-byte block can decode to
    128 KiB; so the input goes in slices small enough that their output cannot take this
    stage more than a block or so past ``limit``.
    """

    def __init__(self, frames: _ZstdFrames, limit: int) -> None:
        self._new_frame, self._error = frames
        self._limit = limit
        self._produced = 0
        self._frame = self._new_frame()
        self._in_frame = False  # a frame has begun and has not reached its end
        self._header = b""  # the current frame's first bytes, up to ZSTD_HEADER

    def feed(self, data: bytes, sink: Sink) -> None:
        view = memoryview(data)
        try:
            while view:
                size = max(ZSTD_MIN_SLICE, (self._limit - self._produced) // ZSTD_BLOCK_RATIO)
                self._decode(bytes(view[:size]), sink)
                view = view[size:]
        except self._error as exc:
            window = zstd_window(self._header)
            if window is not None and window > ZSTD_MAX_WINDOW:  # real zstd, refused as RFC 9659 allows
                raise UnsupportedCoding(
                    f"it is compressed with zstd in a {window / 2**20:,.0f} MiB window, larger than the "
                    f"{ZSTD_MAX_WINDOW // 2**20} MiB past which HTTP clients may refuse it (RFC 9659), as browsers do"
                ) from None
            raise Undecodable(str(exc)) from None

    def _decode(self, data: bytes, sink: Sink) -> None:
        # A body may hold several frames: the bytes after one frame's end begin the next.
        while data:
            if self._frame.eof:
                self._frame, self._header = self._new_frame(), b""
            if len(self._header) < ZSTD_HEADER:
                self._header += data[: ZSTD_HEADER - len(self._header)]
            out = self._frame.decompress(data)
            self._in_frame = not self._frame.eof
            data = self._frame.unused_data if self._frame.eof else b""
            if out:
                self._produced += len(out)
                sink(out)

    def finish(self, sink: Sink) -> None:
        # the decompressor hands out everything as it goes; only the end of the frame is left.
        if self._in_frame:
            raise Undecodable(CUT_SHORT)


def _zstd_frames() -> _ZstdFrames | None:
    """Python's own zstd (3.14 on), else zstandard's, else None (zstd is then not offered)."""
    standard = _import("compression.zstd") if sys.version_info >= (3, 14) else None  # no import to fail
    if standard is not None:
        options = {standard.DecompressionParameter.window_log_max: ZSTD_MAX_WINDOW.bit_length() - 1}
        return functools.partial(standard.ZstdDecompressor, options=options), standard.ZstdError
    zstandard = _import("zstandard")
    if zstandard is not None:

        def frame() -> Any:  # a decompressor of its own: one is not to be shared by two bodies
            return zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW).decompressobj(write_size=PIECE)

        return frame, zstandard.ZstdError
    return None


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@functools.lru_cache(maxsize=1)
def _optional_codings() -> dict[str, Callable[[int], _Stage]]:
    """The codings whose decoder is installed (and can be bounded), each made for a cap."""
    found: dict[str, Callable[[int], _Stage]] = {}
    brotli = _import("brotli")
    if brotli is not None and hasattr(brotli.Decompressor, "can_accept_more_data"):
        found["br"] = lambda _limit: _Brotli(brotli)
    frames = _zstd_frames()
    if frames is not None:
        found["zstd"] = functools.partial(_Zstd, frames)
    return found


#: Content codings by how they are read: gzip's two names, those needing an optional package,
#: and ``compress``, which nothing here decodes.
_GZIP = ("gzip", "x-gzip")
_OPTIONAL = ("br", "zstd")
_LZW = ("compress", "x-compress")


def _stage_for(coding: str, limit: int) -> _Stage | None:
    """A fresh decoder for ``coding``; None for ``identity`` and for labels that are no coding."""
    if coding in _GZIP:
        return _Zlib(gzip=True)
    if coding == "deflate":
        return _Zlib(gzip=False)
    make = _optional_codings().get(coding)
    if make is not None:
        return make(limit)
    if coding in _OPTIONAL:
        raise UnsupportedCoding(
            f"it is compressed with '{coding}', which needs brotli>=1.2 or, before Python 3.14, "
            "zstandard (pip install 'webproviders[compression]')"
        )
    if coding in _LZW:
        raise UnsupportedCoding(f"it is compressed with '{coding}', which cannot be decoded")
    return None  # "identity", or a label some servers send by mistake ("utf-8"): not a coding


#: The codings :func:`_stage_for` knows (decoded, or refused as not decodable here).
_KNOWN_CODINGS = frozenset({"identity", "deflate", *_GZIP, *_OPTIONAL, *_LZW})


def undecoded_codings(content_encoding: str) -> list[str]:
    """The codings of a ``Content-Encoding`` that are read as no coding (a label some servers
    send by mistake, ``utf-8``; or one no client here decodes, ``xz``): the body came as they left it."""
    codings = (c.strip().lower() for c in content_encoding.split(","))
    return [c for c in codings if c and c not in _KNOWN_CODINGS]


@functools.lru_cache(maxsize=1)
def accept_encoding() -> str:
    """The ``Accept-Encoding`` to send: only codings this installation decodes with a bound."""
    return ", ".join(["gzip", "deflate", *_optional_codings()])


class BodyDecoder:
    """Decodes one response body's ``Content-Encoding`` chain with a cap on every stage.

    Raw bytes go in with :meth:`feed`; :attr:`stage_bytes` counts what each stage produced.
    Past the cap, :class:`BodyTooLarge` is raised, or with ``truncate`` the body keeps its
    first ``limit`` bytes and :attr:`full` tells the reader to stop.
    """

    def __init__(self, content_encoding: str, limit: int, *, truncate: bool = False) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        if len(codings) > MAX_CODINGS:
            raise UnsupportedCoding(f"it names {len(codings)} stacked content encodings")
        # Codings are listed in the order they were applied; decoding runs backwards.
        stages = (_stage_for(c, limit) for c in reversed(codings))
        self._stages = [s for s in stages if s is not None]
        self.limit = limit
        self.truncate = truncate
        self.raw_bytes = 0
        #: Bytes each decoding stage has produced so far, outermost coding first.
        self.stage_bytes = [0] * len(self._stages)
        self.full = False
        self._chunks: list[bytes] = []
        self._size = 0
        self._sinks: list[Sink] = [
            functools.partial(self._after_stage, index) for index in range(len(self._stages))
        ]

    @property
    def encoded(self) -> bool:
        """Whether there is decompression work (identity bodies are only counted)."""
        return bool(self._stages)

    @property
    def body(self) -> bytes:
        return b"".join(self._chunks)

    def feed(self, raw: bytes) -> None:
        """Decode the next raw chunk (raises :class:`BodyTooLarge` or :class:`Undecodable`)."""
        if self.full:
            return
        self.raw_bytes += len(raw)
        try:
            self._push(0, raw)
            if self.raw_bytes > self.limit and self._stages:
                self._over()  # the compressed body alone is over the cap
        except _Full:
            self.full = True

    def finish(self) -> None:
        """Flush what the decompressors still hold, at the end of the body; a compressed
        stream that has not reached its end raises :class:`Undecodable` (an empty body is no
        stream at all, and stays empty)."""
        if not self.raw_bytes:
            return
        try:
            for index, stage in enumerate(self._stages):
                if not self.full:
                    stage.finish(self._sinks[index])
        except _Full:
            self.full = True

    def _push(self, index: int, data: bytes) -> None:
        if index == len(self._stages):
            self._keep(data)
        else:
            self._stages[index].feed(data, self._sinks[index])

    def _after_stage(self, index: int, out: bytes) -> None:
        self.stage_bytes[index] += len(out)
        self._push(index + 1, out)
        if self.stage_bytes[index] > self.limit and index < len(self._stages) - 1:
            self._over()  # an inner encoding that expands without bound

    def _keep(self, data: bytes) -> None:
        room = self.limit - self._size
        if len(data) > room:
            if not self.truncate:
                self._refuse()
            self._chunks.append(data[:room])
            self._size = self.limit
            raise _Full()
        self._chunks.append(data)
        self._size += len(data)

    def _over(self) -> None:
        if not self.truncate:
            self._refuse()
        raise _Full()

    def _refuse(self) -> None:
        """Past the cap: what was kept goes at once, since the error's traceback holds this
        decoder for as long as the error is handled (a request sent meanwhile, such as a job's
        cancellation, would otherwise hold a second capped body beside it)."""
        self._chunks.clear()
        self._size = 0
        raise BodyTooLarge()


__all__ = [
    "GZIP_MAGIC", "PIECE", "BodyDecoder", "BodyTooLarge", "Undecodable", "UnsupportedCoding", "accept_encoding",
    "undecoded_codings",
]
