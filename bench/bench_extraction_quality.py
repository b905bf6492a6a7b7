"""Main-text extraction quality on public evaluation pages: ours against plain trafilatura.

The data is trafilatura's own evaluation set: about 1,000 real pages (news, blogs, shops,
government sites; many languages), each annotated with text snippets that belong to the
main text ("with") and snippets that do not ("without"). It is not part of this repository:

    git clone --depth 1 https://github.com/adbar/trafilatura /tmp/trafilatura
    python bench/bench_extraction_quality.py --data /tmp/trafilatura/tests

``--data`` is the folder holding ``evaldata.json`` with its ``eval/`` and ``cache/`` page
folders (a checkout's root works too). Without it the benchmark looks in
``$WEBPROVIDERS_BENCH_DATA``, then in ``~/.cache/webproviders/bench/trafilatura-tests``.

Scoring, per page and summed over the set: a "with" snippet found in the output is a true
positive, one not found a false negative; a "without" snippet found is a false positive,
one not found a true negative. Matching is on whitespace-collapsed text. Markdown output is
scored on what a reader sees: it is rendered (markdown-it-py) and its text taken, so link
targets and emphasis marks neither help nor hurt.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_CACHE = Path.home() / ".cache" / "webproviders" / "bench" / "trafilatura-tests"
_SPACE = re.compile(r"\s+")


@dataclass
class Counts:
    """Snippet counts for one extractor, summed over pages."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.tn += other.tn
        self.seconds += other.seconds
        self.failures += other.failures

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def score_page(expected: dict[str, Any], output: str) -> Counts:
    """Count one page's snippets against the text an extractor returned."""
    text = collapse(output)
    found_with = sum(collapse(s) in text for s in expected["with"])
    found_without = sum(collapse(s) in text for s in expected["without"])
    return Counts(
        tp=found_with,
        fn=len(expected["with"]) - found_with,
        fp=found_without,
        tn=len(expected["without"]) - found_without,
    )


def markdown_text(markdown: str) -> str:
    """What a reader of rendered ``markdown`` sees, one block a line (ordered lists keep their numbers)."""
    import lxml.html
    from markdown_it import MarkdownIt

    if not markdown.strip():
        return ""
    root = lxml.html.fromstring(f"<div>{MarkdownIt('commonmark').enable('table').render(markdown)}</div>")
    for ordered in root.iter("ol"):
        number = int(ordered.get("start") or 1)
        for item in ordered.iterchildren("li"):
            item.text = f"{number}. {item.text or ''}"
            number += 1
    for cell in root.iter("td", "th"):
        cell.tail = " " + (cell.tail or "")
    return root.text_content()


# -- the extractors compared ------------------------------------------------------------


def ours(html: str, url: str) -> str:
    from webproviders.fetching.extraction import html_document

    return markdown_text(html_document(html, url).content)


def trafilatura_markdown(html: str, url: str) -> str:
    import trafilatura

    from webproviders.fetching.extraction import TRAFILATURA_OPTIONS

    return markdown_text(trafilatura.extract(html, url=url, **TRAFILATURA_OPTIONS["markdown"]) or "")


def corrected(html: str, url: str, *, lead: bool) -> str:
    """trafilatura markdown with unrendered elements removed and, if ``lead``, the lead restored."""
    import trafilatura
    from trafilatura.utils import load_html

    from webproviders.fetching.boilerplate import drop_unrendered, restore_lead
    from webproviders.fetching.extraction import TRAFILATURA_OPTIONS

    tree = load_html(html)
    drop_unrendered(tree)
    content = trafilatura.extract(tree, url=url, **TRAFILATURA_OPTIONS["markdown"]) or ""
    return markdown_text(restore_lead(tree, content) if lead and content else content)


def trafilatura_defaults(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def trafilatura_no_comments(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url, include_comments=False) or ""


EXTRACTORS: dict[str, tuple[str, Callable[[str, str], str]]] = {
    "ours": ("webproviders `html_document` (markdown)", ours),
    "trafilatura-markdown": ("trafilatura with our markdown settings, no clean-up", trafilatura_markdown),
    "trafilatura-defaults": ("trafilatura defaults (text, comments included)", trafilatura_defaults),
    "trafilatura-no-comments": ("trafilatura, `include_comments=False`", trafilatura_no_comments),
    # The corrections one at a time (``--only trafilatura-markdown step-unrendered step-lead ours``):
    "step-unrendered": ("+ unrendered elements removed", functools.partial(corrected, lead=False)),
    "step-lead": ("+ lead paragraph restored", functools.partial(corrected, lead=True)),
}
#: What runs without ``--only``.
DEFAULT_EXTRACTORS = ["ours", "trafilatura-markdown", "trafilatura-defaults", "trafilatura-no-comments"]


# -- data -----------------------------------------------------------------------------------


def find_data(given: str | None) -> Path:
    """The folder holding ``evaldata.json``, or exit saying how to get it."""
    candidates = [Path(given)] if given else []
    if not given and os.environ.get("WEBPROVIDERS_BENCH_DATA"):
        candidates.append(Path(os.environ["WEBPROVIDERS_BENCH_DATA"]))
    if not given:
        candidates.append(DEFAULT_CACHE)
    for folder in candidates:
        for inner in (folder, folder / "tests"):
            if (inner / "evaldata.json").is_file():
                return inner
    sys.exit(
        "The evaluation data was not found. Get it with\n"
        "    git clone --depth 1 https://github.com/adbar/trafilatura /tmp/trafilatura\n"
        "and pass --data /tmp/trafilatura/tests (or copy that folder to " + str(DEFAULT_CACHE) + ")."
    )


def page_path(folder: Path, name: str) -> Path | None:
    for sub in ("eval", "cache"):
        if (folder / sub / name).is_file():
            return folder / sub / name
    return None


def load_set(folder: Path, limit: int | None) -> list[tuple[str, dict[str, Any], Path]]:
    annotations: dict[str, dict[str, Any]] = json.loads((folder / "evaldata.json").read_text(encoding="utf-8"))
    pages = []
    for url in sorted(annotations):
        path = page_path(folder, annotations[url]["file"])
        if path is not None:
            pages.append((url, annotations[url], path))
    return pages[:limit] if limit else pages


# -- running ----------------------------------------------------------------------------------


def page_url(key: str, html: str) -> str:
    """The address the page was read from: the annotation key, else the URL the page states.

    A few annotations are keyed by a label instead of a URL; the extractors are still given
    the page's own canonical address, as a fetch would.
    """
    if key.startswith(("http://", "https://")):
        return key
    import lxml.html

    stated = lxml.html.fromstring(html).xpath("//link[@rel='canonical']/@href | //meta[@property='og:url']/@content")
    return next((url for url in stated if url.startswith(("http://", "https://"))), key)


def run_page(job: tuple[str, dict[str, Any], str, list[str]]) -> dict[str, Counts]:
    """Every extractor on one page (in a worker process: trafilatura is not thread-safe)."""
    import logging

    from webproviders.fetching.charset import decode

    logging.disable(logging.CRITICAL)  # trafilatura logs every page it finds hard
    key, expected, path, names = job
    html, _codec = decode(Path(path).read_bytes(), None, "html")
    url = page_url(key, html)
    results = {}
    for name in names:
        started = time.perf_counter()
        try:
            counts = score_page(expected, EXTRACTORS[name][1](html, url))
        except Exception as exc:  # noqa: BLE001 - a crash is scored as a page with nothing found
            counts = score_page(expected, "")
            counts.failures.append(f"{key}: {type(exc).__name__}: {exc}")
        counts.seconds = time.perf_counter() - started
        results[name] = counts
    return results


def run(pages: list[tuple[str, dict[str, Any], Path]], names: list[str], workers: int) -> dict[str, Counts]:
    totals = {name: Counts() for name in names}
    jobs: Iterator[tuple[str, dict[str, Any], str, list[str]]] = ((u, e, str(p), names) for u, e, p in pages)
    with ProcessPoolExecutor(workers) as pool:
        for results in pool.map(run_page, jobs, chunksize=4):
            for name, counts in results.items():
                totals[name].add(counts)
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder with evaldata.json, eval/ and cache/ (trafilatura's tests/)")
    parser.add_argument("--limit", type=int, help="score only the first N pages (sorted by URL)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--only", nargs="+", choices=list(EXTRACTORS), help="extractors to run, in this order (default: ours and the three trafilatura settings)")
    args = parser.parse_args()

    import trafilatura

    folder = find_data(args.data)
    pages = load_set(folder, args.limit)
    names = args.only or DEFAULT_EXTRACTORS
    digest = hashlib.sha256((folder / "evaldata.json").read_bytes()).hexdigest()[:12]
    snippets = sum(len(e["with"]) + len(e["without"]) for _, e, _ in pages)
    print(f"{len(pages)} pages, {snippets} snippets (evaldata.json sha256 {digest}…), trafilatura {trafilatura.__version__}")
    started = time.perf_counter()
    totals = run(pages, names, args.workers)
    print(f"{time.perf_counter() - started:.0f} s with {args.workers} worker processes\n")
    print("| extractor | precision | recall | F1 | TP | FP | FN | TN | ms/page |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        c = totals[name]
        print(
            f"| {EXTRACTORS[name][0]} | {c.precision:.4f} | {c.recall:.4f} | **{c.f1:.4f}** "
            f"| {c.tp} | {c.fp} | {c.fn} | {c.tn} | {1000 * c.seconds / len(pages):.0f} |"
        )
    for name in names:
        for failure in totals[name].failures:
            print(f"{name} failed: {failure}")


if __name__ == "__main__":
    main()
