"""Extract 200 pages from a local server that adds 100 ms per response.

Compares the ``http`` provider (concurrent fetching, extraction in its worker processes) with
plain sequential ``trafilatura.fetch_url`` + ``trafilatura.extract`` over the same pages in
the same run, with the same trafilatura settings, and checks that the text is identical.

    python bench/bench_extract.py            # 200 pages, 100 ms latency
    python bench/bench_extract.py --saved ~/.cache/webproviders/bench/article-extraction-benchmark/html --latency 0

``--saved DIR`` serves real saved pages instead (``*.html`` / ``*.html.gz``, e.g. the 181 of
the article-extraction benchmark, see ``bench_extraction_quality.py``), as they were saved and
with no charset in the header. Our extraction corrects trafilatura's on such pages, so their
text is not compared; the pages that came back with text are counted.

The pages are spread over 50 host names (4 pages each) that a local resolver maps to the
server, the way a batch of URLs from search results spans many sites; so the provider's
defaults apply (8 at a time, at most 2 per host). The same batch on a single host, where the
per-host limit of 2 is the bound, is reported as well.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BATCH = 20  # dispatch_extract takes at most 20 URLs per call
HOSTS = 50


def start_server(latency: float, count: int, kind: str = "articles") -> tuple[subprocess.Popen[str], int]:
    """``bench/localsite.py`` in its own process; returns it and its port."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "localsite.py"), kind, str(latency), str(count)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def baseline(port: int, urls: list[str]) -> tuple[float, list[str | None]]:
    import trafilatura
    from trafilatura.settings import use_config

    from webproviders.fetching.extraction import TRAFILATURA_OPTIONS

    settings = use_config()
    settings.set("DEFAULT", "SSRF_PROTECTION", "false")  # its own guard refuses 127.0.0.1
    texts: list[str | None] = []
    started = time.perf_counter()
    for n, url in enumerate(urls):
        html = trafilatura.fetch_url(f"http://127.0.0.1:{port}/p/{n}", config=settings)
        texts.append(trafilatura.extract(html, url=url, **TRAFILATURA_OPTIONS["markdown"]))
    return time.perf_counter() - started, texts


async def ours(urls: list[str], config: Any, **options: Any) -> tuple[float, list[dict[str, Any]]]:
    from webproviders import adispatch_extract

    started = time.perf_counter()
    pages: list[dict[str, Any]] = []
    for start in range(0, len(urls), BATCH):
        envelope = await adispatch_extract(urls[start:start + BATCH], backend="http", config=config, timeout=120, cache=False, **options)
        assert envelope["success"], envelope
        pages += envelope["data"]
    return time.perf_counter() - started, pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--saved", type=Path, help="serve the saved pages in this folder instead of generated ones")
    args = parser.parse_args()
    kind = "articles"
    if args.saved is not None:
        kind = f"files:{args.saved.expanduser()}"
        args.pages = sum(1 for path in args.saved.expanduser().iterdir() if path.name.endswith((".html", ".html.gz")))

    from webproviders.config import config_from_dict
    from webproviders.fetching.urlsafety import set_resolver

    async def local_names(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    set_resolver(local_names)  # every bench host name is the local server
    proc, port = start_server(args.latency, args.pages, kind)
    try:
        # Page n lives on host n % 50: consecutive URLs are on different hosts.
        urls = [f"http://h{n % HOSTS}.bench.test:{port}/p/{n}" for n in range(args.pages)]
        single = [f"http://127.0.0.1:{port}/p/{n}" for n in range(args.pages)]
        config = config_from_dict({"web": {"allowed_hosts": ["*.bench.test", "127.0.0.1"]}})

        asyncio.run(ours(urls[:2], config))  # warm-up: imports, first connections
        seq_seconds, expected = baseline(port, urls)
        our_seconds, pages = asyncio.run(ours(urls, config))
        one_host_seconds, _ = asyncio.run(ours(single, config))
    finally:
        proc.terminate()
        proc.wait()

    failures = [p for p in pages if p.get("error")]
    same = sum(1 for page, text in zip(pages, expected, strict=True) if page["content"] == (text or "").strip())
    with_text = sum(1 for page in pages if page["content"].strip())
    print(f"pages: {args.pages}, latency per response: {args.latency * 1000:.0f} ms")
    print(f"sequential trafilatura.fetch_url + extract: {seq_seconds:6.2f} s  ({args.pages / seq_seconds:5.1f} pages/s)")
    print(f"http provider, 50 hosts, defaults (8, 2/host): {our_seconds:6.2f} s  ({args.pages / our_seconds:5.1f} pages/s)")
    print(f"speed-up: {seq_seconds / our_seconds:.1f}x")
    print(f"http provider, one host (2 at a time):  {one_host_seconds:6.2f} s  ({args.pages / one_host_seconds:5.1f} pages/s, {seq_seconds / one_host_seconds:.1f}x)")
    if args.saved is None:
        print(f"identical text: {same}/{args.pages}; failed pages: {len(failures)}")
    else:
        print(f"pages with text: {with_text}/{args.pages} (trafilatura: {sum(1 for t in expected if t)}); failed pages: {len(failures)}")


if __name__ == "__main__":
    main()
