"""A generated local web site with fixed latency, for the extract and crawl benchmarks.

Run as a separate process (``python bench/localsite.py articles 0.1``) so the benchmark's
own memory and CPU figures are the client's alone; it prints its port on the first line.

- ``articles``: ``/p/<n>`` are 200 realistic article pages (navigation, sidebar, footer
  around several paragraphs, a list, a table and a code block).
- ``site``: ``/page/<n>`` for ``n`` in 0..499, each linking to a handful of others and to
  the first pages from its navigation, so a breadth-first crawl from ``/page/0`` finds all.
- ``hostile``: the ``articles`` pages, plus two pages built to be expensive to extract:
  ``/hostile/links`` (about 5 MB of HTML holding 150,000 links) and ``/hostile/report.pdf``
  (a PDF of about 70 KB whose 300 pages all draw one large content stream; needs pypdf).
- ``files:DIR``: the saved pages in ``DIR`` (``*.html`` or ``*.html.gz``, sorted by name) as
  ``/p/<n>``, their bytes as saved, sent as ``text/html`` with no charset (the reader decodes).
"""

from __future__ import annotations

import gzip
import io
import random
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

WORDS = ["cache", "latency", "request", "server", "client", "retry", "backoff", "queue", "worker", "thread", "process", "memory", "storage", "index", "query", "table", "column", "schema", "migration", "deploy", "release", "rollback", "canary", "metric", "alert", "dashboard", "trace", "span", "log", "error", "timeout", "budget", "quota", "limit", "token", "key", "secret", "config", "network", "packet", "socket", "proxy", "gateway", "balancer", "region", "zone", "cluster", "node", "replica", "shard", "consistency", "availability", "partition", "leader", "follower", "election", "heartbeat", "lease", "lock"]

NAV = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(12))
FOOTER = (
    '<aside><h3>Popular</h3><ul><li><a href="/popular/1">Ten tips</a></li><li><a href="/popular/2">Why it broke</a></li></ul></aside>'
    '<footer><p>Copyright 2024 Example Corp. All rights reserved.</p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>'
)


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(9, 18))]
    return " ".join(words).capitalize() + "."


def article(n: int) -> str:
    rng = random.Random(n)
    paragraphs = "".join(
        "<p>" + " ".join(sentence(rng) for _ in range(rng.randint(3, 6))) + "</p>" for _ in range(rng.randint(6, 10))
    )
    items = "".join(f"<li>{sentence(rng)}</li>" for _ in range(4))
    rows = "".join(f"<tr><td>{rng.choice(WORDS)}</td><td>{rng.randint(1, 999)}</td></tr>" for _ in range(4))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Article {n} | Example</title>'
        f'<meta name="description" content="Article number {n}."></head><body>'
        f'<header><div class="cookies">We use cookies.</div><nav><ul>{NAV}</ul></nav></header>'
        f"<main><article><h1>Article {n}: {sentence(rng)}</h1>{paragraphs}<h2>Details</h2><ul>{items}</ul>"
        f"<table><tr><th>name</th><th>value</th></tr>{rows}</table>"
        f"<pre><code>def handler_{n}(request):\n    return respond(request)\n</code></pre></article></main>{FOOTER}</body></html>"
    )


def site_page(n: int, total: int) -> str:
    rng = random.Random(n)
    targets = sorted({(n * 7 + k * 13 + 1) % total for k in range(6)} | {2 * n + 1, 2 * n + 2} - {n})
    links = "".join(f'<li><a href="/page/{t}">Page {t}</a></li>' for t in targets if t < total)
    nav = "".join(f'<li><a href="/page/{t}">Top {t}</a></li>' for t in range(10))
    body = "".join("<p>" + " ".join(sentence(rng) for _ in range(4)) + "</p>" for _ in range(4))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Page {n}</title></head><body>'
        f"<nav><ul>{nav}</ul></nav><main><article><h1>Page {n}</h1>{body}<ul>{links}</ul></article></main>"
        "<footer><p>Copyright 2024 Example Corp. All rights reserved.</p></footer></body></html>"
    )


def link_farm(links: int = 150_000) -> str:
    """About 5 MB of HTML that is nothing but links: costly for main-content extraction."""
    body = "".join(f"<a href=/l/{i}>link {i}</a> " for i in range(links))
    return f"<html><head><title>Links</title></head><body><div>{body}</div></body></html>"


def shared_stream_pdf(pages: int = 300, lines: int = 7_000) -> bytes:
    """A small PDF whose ``pages`` pages all draw the same long content stream (needs pypdf)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    ops = b"BT /F1 12 Tf 72 720 Td " + b"(Lorem ipsum dolor sit amet) Tj 0 -14 Td " * lines + b"ET"
    font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"),
        NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    })
    writer = PdfWriter()
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        stream.set_data(ops)
        page.replace_contents(stream.flate_encode())
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    writer.compress_identical_objects()  # one content stream, shared by every page
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def saved_pages(folder: str) -> list[bytes]:
    """The bytes of every saved page in ``folder``, in name order."""
    files = sorted(path for path in Path(folder).iterdir() if path.name.endswith((".html", ".html.gz")))
    return [gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes() for path in files]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    #: Headers and body go out in separate writes; without this, Nagle's algorithm and
    #: delayed ACKs add ~40 ms to every response on top of the configured latency.
    disable_nagle_algorithm = True
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        time.sleep(self.server.latency)
        path = self.path.split("?", 1)[0]
        body: bytes | None = None
        content_type = self.server.types.get(path, self.server.content_type)
        if path == "/robots.txt":
            body, content_type = b"User-agent: *\nDisallow: /private/\n", "text/plain"
        elif path == "/hostile/report.pdf":
            body, content_type = self.server.pages.get(path), "application/pdf"
        elif path.startswith(("/p/", "/page/", "/hostile/")):
            body = self.server.pages.get(path)
        status = 200 if body is not None else 404
        body = body if body is not None else b"<h1>Not found</h1>"
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    #: A page's own ``Content-Type``, where it is not the server's.
    types: dict[str, str] = {}

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


def main() -> None:
    kind, latency = sys.argv[1], float(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else (200 if kind == "articles" else 500)
    server = Server(("127.0.0.1", 0), Handler)
    server.kind, server.latency = kind, latency  # type: ignore[attr-defined]
    server.content_type = "text/html; charset=utf-8"  # type: ignore[attr-defined]
    if kind.startswith("files:"):
        server.pages = {f"/p/{n}": body for n, body in enumerate(saved_pages(kind[len("files:"):]))}  # type: ignore[attr-defined]
        server.content_type = "text/html"  # type: ignore[attr-defined]
    elif kind in ("articles", "hostile"):
        server.pages = {f"/p/{n}": article(n).encode() for n in range(count)}  # type: ignore[attr-defined]
        if kind == "hostile":
            server.pages["/hostile/links"] = link_farm().encode()  # type: ignore[attr-defined]
            server.pages["/hostile/report.pdf"] = shared_stream_pdf()  # type: ignore[attr-defined]
    else:
        server.pages = {f"/page/{n}": site_page(n, count).encode() for n in range(count)}  # type: ignore[attr-defined]
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
