"""A real HTTP server on 127.0.0.1 serving what an attacker would: compression bombs, pages
that are expensive to parse, PDFs with many pages, odd charsets and oversized robots.txt.

Payloads are built once per session; the bombs expand to :data:`BOMB_SIZE` bytes of zeros.
"""

from __future__ import annotations

import functools
import gzip
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .fetch_site import pdf_bytes, pdf_file

BOMB_SIZE = 64 * 1024 * 1024
_MB_OF_ZEROS = b"\0" * (1024 * 1024)


def _streamed(compressor: Any, finish: str) -> bytes:
    """``compressor`` fed BOMB_SIZE zeros a megabyte at a time (never all in memory)."""
    feed = getattr(compressor, "compress", None) or compressor.process
    parts = [feed(_MB_OF_ZEROS) for _ in range(BOMB_SIZE // len(_MB_OF_ZEROS))]
    return b"".join(parts) + getattr(compressor, finish)()


@functools.cache
def zstd_module() -> Any:
    """What compresses zstd here: Python's own (3.14 on) or zstandard (before it, with the
    ``compression`` extra); None when neither is installed."""
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        try:
            import zstandard
        except ImportError:
            return None
        return zstandard
    return zstd


def zstd_compress(data: bytes) -> bytes:
    return zstd_module().compress(data)  # type: ignore[no-any-return]


def zstd_compressor() -> Any:
    """A streaming zstd compressor with ``compress`` and ``flush``."""
    module = zstd_module()
    return module.ZstdCompressor() if module.__name__ != "zstandard" else module.ZstdCompressor().compressobj()


@functools.cache
def bomb(coding: str) -> bytes:
    """A body that decodes to BOMB_SIZE bytes under ``Content-Encoding: coding``."""
    if coding == "gzip, gzip":
        return gzip.compress(bomb("gzip"))
    if coding == "gzip":
        return _streamed(zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS | 16), "flush")
    if coding == "deflate":
        return _streamed(zlib.compressobj(1), "flush")
    if coding == "zstd":
        return _streamed(zstd_compressor(), "flush")
    if coding == "br":
        import brotli

        return _streamed(brotli.Compressor(quality=5), "finish")
    raise ValueError(coding)


def pdf_page(stream: bytes, filters: bytes = b"") -> bytes:
    """A one-page PDF whose page's content stream is ``stream`` (compressed with ``filters``)."""
    return pdf_file([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (Damaged) >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R /Resources << /Font << /F1 3 0 R >> >> >>",
        b"<< /Length %d %s>>\nstream\n%s\nendstream" % (len(stream), filters, stream),
    ])


#: Content streams that pypdf fails on with an assert, or with a RecursionError.
DAMAGED_PDF_STREAMS = {"reference": b"BT /F1 12 Tf 72 720 Td 1 0 R Tj ET", "nested": b"[" * 100_000 + b" TJ"}


@functools.cache
def pdf_bomb() -> bytes:
    """A one-page PDF of about 100 KB whose page's content stream inflates to 80 MB of text
    operators, past the most pypdf decompresses (75 MB)."""
    line = b"BT /F1 12 Tf 72 720 Td (A) Tj ET\n"
    compressor = zlib.compressobj(9)
    block = line * (1024 * 1024 // len(line))
    stream = b"".join(compressor.compress(block) for _ in range(80)) + compressor.flush()
    return pdf_page(stream, b"/Filter /FlateDecode ")


def link_farm(links: int) -> bytes:
    """A page of nothing but links: expensive for main-content extraction."""
    body = "".join(f'<a href="/l/{i}">link number {i}</a> ' for i in range(links))
    return f"<html><head><title>Links</title></head><body><div>{body}</div></body></html>".encode()


def nested_json(depth: int, n: int) -> bytes:
    """``n`` arrays nested ``depth`` deep, in one array: JSON whose indented form grows with
    the square of its depth."""
    return b"[" + b",".join([b"[" * depth + b"]" * depth] * n) + b"]"


def scripted_article(script_chars: int) -> bytes:
    """A news page as many are served: a short article beside a large inline script (state
    for the page's scripts), so many characters and few elements."""
    state = '{"items": [' + ", ".join(f'{{"id": {i}, "headline": "story {i}"}}' for i in range(script_chars // 36)) + "]}"
    return ARTICLE.replace(b"</body>", f"<script>window.__STATE__ = {state};</script></body>".encode())


ARTICLE = (
    "<html><head><title>Caf\u00e9 notes</title></head><body><article><h1>Caf\u00e9 notes</h1>"
    "<p>The caf\u00e9 on the corner serves cr\u00e8me br\u00fbl\u00e9e every morning, and the queue "
    "reaches the street before eight o'clock on most weekdays of the year.</p></article></body></html>"
).encode()

#: robots.txt over the RFC's 500 KiB: a rule early on, padding, and a rule past 512 KiB.
BIG_ROBOTS = (
    b"User-agent: *\nDisallow: /private/\n"
    + b"# padding to make the file large\n" * 20_000
    + b"Disallow: /docs/\n"
    + b"# more padding\n" * 100_000
)


class HostileServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), HostileHandler)
        self.port = self.server_address[1]
        #: Paths (with query) answered so far, in order.
        self.served: list[str] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hang up on purpose here (caps, timeouts)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


class HostileHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: HostileServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self) -> None:
        self.server.served.append(self.path)
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        host = (self.headers.get("Host") or "").split(":")[0]
        path = parts.path
        if path == "/bomb":
            coding = query["coding"][0]
            return self._send(bomb(coding), "text/html", {"Content-Encoding": coding})
        if path == "/labelled":  # plain bytes that claim a coding
            return self._send(ARTICLE, "text/html", {"Content-Encoding": query["coding"][0]})
        if path == "/cut":  # the article compressed, its second half lost on the way
            coding = query["coding"][0]
            whole = zlib.compress(ARTICLE) if coding == "deflate" else gzip.compress(ARTICLE)
            if coding == "br":
                import brotli

                whole = brotli.compress(ARTICLE)
            if coding == "zstd":
                whole = zstd_compress(ARTICLE)
            return self._send(whole[: len(whole) // 2], "text/html; charset=utf-8", {"Content-Encoding": coding})
        if path == "/members":  # the article gzipped in three pieces, one member each, as a server streaming it sends
            thirds = [ARTICLE[i : i + len(ARTICLE) // 3 + 1] for i in range(0, len(ARTICLE), len(ARTICLE) // 3 + 1)]
            return self._send(b"".join(map(gzip.compress, thirds)), "text/html; charset=utf-8", {"Content-Encoding": "gzip"})
        if path == "/cookies":  # a site whose cookies have grown past what any client reads in one header section
            self.send_response(200)
            for n in range(1_000):
                self.send_header("Set-Cookie", f"pref{n}={'v' * 100}; Path=/")
            self.send_header("Content-Length", str(len(ARTICLE)))
            self.end_headers()
            self.wfile.write(ARTICLE)
            return None
        if path == "/one-byte-chunks":  # a page without end, its body in one-byte chunks sent as fast as they go
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            burst = b"1\r\n \r\n" * 11_000  # about one 64 KiB read of the client's
            try:
                while True:
                    self.wfile.write(burst)
            except OSError:
                pass  # the client hung up: its deadline
            return None
        if path == "/hangup":  # the connection closed with no answer at all
            self.close_connection = True
            return None
        if path == "/gzip-article":
            return self._send(gzip.compress(gzip.compress(ARTICLE)), "text/html; charset=utf-8",
                              {"Content-Encoding": "gzip, gzip"})
        if path == "/charset":
            return self._send(ARTICLE, f"text/html; charset={query['label'][0]}")
        if path == "/scripted":
            return self._send(scripted_article(int(query["chars"][0])), "text/html; charset=utf-8")
        if path == "/head-links":  # markup without text before the page's text: links to its assets
            links = b"".join(b'<link rel="preload" as="script" href="/assets/chunk-%d.js">' % n for n in range(300))
            return self._send(ARTICLE.replace(b"</head>", links + b"</head>"), "text/html; charset=utf-8")
        if path == "/links":
            return self._send(link_farm(int(query["n"][0])), "text/html; charset=utf-8")
        if path == "/nested.json":  # arrays nested `depth` deep, `n` of them side by side
            return self._send(nested_json(int(query["depth"][0]), int(query.get("n", ["1"])[0])), "application/json")
        if path == "/nested.html":  # text inside and after `depth` nested <div>s, and before them with `before`
            depth = int(query["depth"][0])
            before = "<p>The text before the nest.</p>" if "before" in query else ""
            page = (
                "<html><head><title>Nested</title></head><body>" + before
                + "<div>" * depth + "<p>The text in the middle of the nest, as a page that never closes its "
                "elements holds it.</p>" + "</div>" * depth + "<p>The text after the nest.</p></body></html>"
            )
            return self._send(page.encode(), "text/html; charset=utf-8")
        if path == "/report.pdf":
            pages = int(query["pages"][0])
            return self._send(pdf_bytes(*(f"Page {n} of the report" for n in range(1, pages + 1))), "application/pdf")
        if path == "/spaced.md":  # a heading whose words a long run of spaces parts, as a table's generator pads it
            spaced = "# Release notes" + " " * 6000 + "(draft) #\n\nThe text of the notes.\n"
            return self._send(spaced.encode(), "text/markdown; charset=utf-8")
        if path == "/metas.html":  # a head of 250 KB of unclosed <meta> tags, then the text in windows-1251
            head = "<meta a" * 36_000
            page = f"<html><head>{head}</head><body><p>Привет, мир: страница в кодировке windows-1251.</p></body></html>"
            return self._send(page.encode("cp1251"), "text/html")
        if path == "/zstd-window":  # one raw block, in a frame that asks for a 64 MiB window (RFC 8878 3.1.1)
            frame = b"\x28\xb5\x2f\xfd\x00" + bytes([(26 - 10) << 3]) + (len(ARTICLE) << 3 | 1).to_bytes(3, "little")
            return self._send(frame + ARTICLE, "text/html; charset=utf-8", {"Content-Encoding": "zstd"})
        if path == "/csharp.md":
            return self._send(b"# C#\n\nA language for .NET.\n", "text/markdown")
        if path == "/damaged.pdf":
            return self._send(pdf_page(DAMAGED_PDF_STREAMS[query["stream"][0]]), "application/pdf")
        if path == "/bomb.pdf":
            return self._send(pdf_bomb(), "application/pdf")
        if path == "/robots.txt" and host == "bigrobots.test":
            return self._send(BIG_ROBOTS, "text/plain")
        if path == "/robots.txt" and host == "oddrobots.test":
            return self._send(b"User-agent: *\nDisallow: /private/\n", "text/plain; charset=zlib")
        if path == "/":
            links = "".join(f'<li><a href="{p}">{p}</a></li>' for p in ("/private/a", "/docs/a", "/public/a"))
            return self._send(f"<html><body><h1>Home</h1><ul>{links}</ul></body></html>".encode(), "text/html")
        name = path.strip("/").replace("/", " ")
        body = f"<html><body><article><h1>{name}</h1><p>This is the page called {name}, with a sentence long enough to be kept as its main content.</p></article></body></html>"
        return self._send(body.encode(), "text/html; charset=utf-8")
