"""Main-text extraction quality on public evaluation pages: ours against plain trafilatura.

Two public sets, neither part of this repository; ``--set`` picks one.

``--set trafilatura`` (the default): trafilatura's own evaluation set, about 1,000 real pages
(news, blogs, shops, government sites; many languages), each annotated with text snippets
that belong to the main text ("with") and snippets that do not ("without")::

    git clone --depth 1 https://github.com/adbar/trafilatura /tmp/trafilatura
    python bench/bench_extraction_quality.py --data /tmp/trafilatura/tests

Scoring, per page and summed over the set: a "with" snippet found in the output is a true
positive, one not found a false negative; a "without" snippet found is a false positive,
one not found a true negative. Matching is on whitespace-collapsed text.

``--set scrapinghub``: the article-extraction benchmark, 181 news and blog pages (mostly
English) with the article body each should yield::

    git clone --depth 1 https://github.com/scrapinghub/article-extraction-benchmark /tmp/aeb
    python bench/bench_extraction_quality.py --set scrapinghub --data /tmp/aeb

Scoring follows that benchmark's rule: texts are cut into words (``\\w+``) and runs of four
consecutive words; per page, runs found in both are matched (counted with repetition);
precision and recall are computed per page and averaged over pages, and F1 is taken from the
two averages.

``--data`` is the set's folder (trafilatura's ``tests/`` with ``evaldata.json``, ``eval/``
and ``cache/``; the benchmark checkout with ``ground-truth.json`` and ``html/``). Without it
the benchmark looks in ``$WEBPROVIDERS_BENCH_DATA``, then in
``~/.cache/webproviders/bench/trafilatura-tests`` or ``.../article-extraction-benchmark``.

Markdown output is scored on what a reader sees: it is rendered (markdown-it-py) and its text
taken, so link targets and emphasis marks neither help nor hurt. Every extractor reads the
same decoded page with the same URL.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import hashlib
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

CACHE = Path.home() / ".cache" / "webproviders" / "bench"
_SPACE = re.compile(r"\s+")
#: Words as the article-extraction benchmark counts them, and its shingle length.
_WORD = re.compile(r"\w+")
_SHINGLE_WORDS = 4


@dataclass
class Score:
    """What one extractor scored on a set: time and crashes here, the counts in a subclass."""

    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    def add(self, other: Self) -> None:
        self.seconds += other.seconds
        self.failures += other.failures
        self._add_counts(other)

    def _add_counts(self, other: Self) -> None:
        raise NotImplementedError

    @property
    def precision(self) -> float:
        raise NotImplementedError

    @property
    def recall(self) -> float:
        raise NotImplementedError

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def counts(self) -> list[str]:
        """The table cells behind precision and recall."""
        raise NotImplementedError


@dataclass
class Snippets(Score):
    """Snippet counts summed over pages (trafilatura's evaluation rule)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def _add_counts(self, other: Snippets) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.tn += other.tn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    def counts(self) -> list[str]:
        return [str(self.tp), str(self.fp), str(self.fn), str(self.tn)]


@dataclass
class Shingles(Score):
    """Per-page shingle matches (the article-extraction benchmark's rule), averaged over pages.

    Each page contributes its own precision and recall, so a long article weighs no more
    than a short one; a page with no output has no precision (it is left out of that mean)
    and a recall of 0.
    """

    #: Per page: shingles matched, shingles output but not expected, expected but not output.
    pages: list[tuple[int, int, int]] = field(default_factory=list)

    def _add_counts(self, other: Shingles) -> None:
        self.pages += other.pages

    @staticmethod
    def _share(tp: int, wrong: int, other_wrong: int) -> float:
        if wrong == other_wrong == 0:
            return 1.0  # nothing expected and nothing output, or a perfect match
        return tp / (tp + wrong)

    @property
    def precision(self) -> float:
        shares = [self._share(tp, fp, fn) for tp, fp, fn in self.pages if tp + fp]
        return statistics.fmean(shares) if shares else 0.0

    @property
    def recall(self) -> float:
        shares = [self._share(tp, fn, fp) for tp, fp, fn in self.pages if tp + fn]
        return statistics.fmean(shares) if shares else 0.0

    def counts(self) -> list[str]:
        exact = sum(fp == fn == 0 for _, fp, fn in self.pages)
        empty = sum(tp + fp == 0 for tp, fp, _ in self.pages)
        return [str(exact), str(empty)]


def collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def score_snippets(expected: dict[str, Any], output: str) -> Snippets:
    """Count one page's snippets against the text an extractor returned."""
    text = collapse(output)
    found_with = sum(collapse(s) in text for s in expected["with"])
    found_without = sum(collapse(s) in text for s in expected["without"])
    return Snippets(
        tp=found_with,
        fn=len(expected["with"]) - found_with,
        fp=found_without,
        tn=len(expected["without"]) - found_without,
    )


def shingles(text: str) -> Counter[tuple[str, ...]]:
    """Runs of four consecutive words, counted (a text of fewer words is one shorter run)."""
    words = _WORD.findall(text)
    if len(words) < _SHINGLE_WORDS:
        return Counter([tuple(words)] if words else [])
    return Counter(tuple(words[at : at + _SHINGLE_WORDS]) for at in range(len(words) - _SHINGLE_WORDS + 1))


def score_shingles(expected: dict[str, Any], output: str) -> Shingles:
    """Match one page's output against its expected article body, shingle by shingle."""
    want, got = shingles(expected["articleBody"]), shingles(output)
    matched = sum((want & got).values())
    return Shingles(pages=[(matched, sum(got.values()) - matched, sum(want.values()) - matched)])


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


def corrected(html: str, url: str, *, split: bool, lead: bool) -> str:
    """trafilatura markdown with unrendered elements removed and, if asked, a split body joined and the lead restored."""
    import trafilatura
    from trafilatura.utils import load_html

    from webproviders.fetching.boilerplate import drop_unrendered, join_split_body, restore_lead
    from webproviders.fetching.extraction import TRAFILATURA_OPTIONS

    tree = load_html(html)
    drop_unrendered(tree)
    if split:
        join_split_body(tree)
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
    # The corrections one at a time (``--only trafilatura-markdown step-unrendered step-split step-lead ours``):
    "step-unrendered": ("+ unrendered elements removed", functools.partial(corrected, split=False, lead=False)),
    "step-split": ("+ split article body joined", functools.partial(corrected, split=True, lead=False)),
    "step-lead": ("+ lead paragraph restored", functools.partial(corrected, split=True, lead=True)),
}
#: What runs without ``--only``.
DEFAULT_EXTRACTORS = ["ours", "trafilatura-markdown", "trafilatura-defaults", "trafilatura-no-comments"]


# -- data -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One annotated page: its key in the set, what is expected, the stored HTML."""

    key: str
    expected: dict[str, Any]
    path: Path
    #: The address the page was read from, when the set states it.
    url: str | None = None


def trafilatura_pages(folder: Path) -> list[Page]:
    annotations: dict[str, dict[str, Any]] = json.loads((folder / "evaldata.json").read_text(encoding="utf-8"))
    pages = []
    for key in sorted(annotations):
        for sub in ("eval", "cache"):
            path = folder / sub / annotations[key]["file"]
            if path.is_file():
                pages.append(Page(key, annotations[key], path))
                break
    return pages


def scrapinghub_pages(folder: Path) -> list[Page]:
    truth: dict[str, dict[str, Any]] = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for key in sorted(truth):
        path = folder / "html" / f"{key}.html.gz"
        if path.is_file():
            pages.append(Page(key, truth[key], path, truth[key].get("url")))
    return pages


@dataclass(frozen=True)
class EvalSet:
    """A public evaluation set: where its data lies, how its pages load, how they are scored."""

    title: str
    #: The file that marks the set's folder.
    marker: str
    #: Where the benchmark looks without ``--data`` (also ``$WEBPROVIDERS_BENCH_DATA``).
    cache: Path
    get_it: str
    pages: Callable[[Path], list[Page]]
    score: Callable[[dict[str, Any], str], Score]
    #: Table headings of :meth:`Score.counts`.
    count_names: tuple[str, ...]

    def describe(self, pages: list[Page]) -> str:
        if self.marker == "evaldata.json":
            snippets = sum(len(p.expected["with"]) + len(p.expected["without"]) for p in pages)
            return f"{len(pages)} pages, {snippets} snippets"
        return f"{len(pages)} pages, {sum(len(_WORD.findall(p.expected['articleBody'])) for p in pages)} words of article text"


SETS = {
    "trafilatura": EvalSet(
        "trafilatura's evaluation set (snippets)",
        "evaldata.json",
        CACHE / "trafilatura-tests",
        "git clone --depth 1 https://github.com/adbar/trafilatura /tmp/trafilatura\n"
        "and pass --data /tmp/trafilatura/tests",
        trafilatura_pages,
        score_snippets,
        ("TP", "FP", "FN", "TN"),
    ),
    "scrapinghub": EvalSet(
        "article-extraction-benchmark (article bodies)",
        "ground-truth.json",
        CACHE / "article-extraction-benchmark",
        "git clone --depth 1 https://github.com/scrapinghub/article-extraction-benchmark /tmp/aeb\n"
        "and pass --set scrapinghub --data /tmp/aeb",
        scrapinghub_pages,
        score_shingles,
        ("exact pages", "empty pages"),
    ),
}


def find_data(evalset: EvalSet, given: str | None) -> Path:
    """The folder holding the set's marker file, or exit saying how to get it."""
    candidates = [Path(given)] if given else []
    if not given and os.environ.get("WEBPROVIDERS_BENCH_DATA"):
        candidates.append(Path(os.environ["WEBPROVIDERS_BENCH_DATA"]))
    if not given:
        candidates.append(evalset.cache)
    for folder in candidates:
        for inner in (folder, folder / "tests"):
            if (inner / evalset.marker).is_file():
                return inner
    sys.exit(f"The evaluation data was not found. Get it with\n    {evalset.get_it}\n(or copy that folder to {evalset.cache}).")


# -- running ----------------------------------------------------------------------------------


def page_url(page: Page, html: str) -> str:
    """The address the page was read from: as the set states it, else the page's own.

    A few annotations are keyed by a label instead of a URL; the extractors are still given
    the page's own canonical address, as a fetch would.
    """
    if page.url:
        return page.url
    if page.key.startswith(("http://", "https://")):
        return page.key
    import lxml.html

    stated = lxml.html.fromstring(html).xpath("//link[@rel='canonical']/@href | //meta[@property='og:url']/@content")
    return next((url for url in stated if url.startswith(("http://", "https://"))), page.key)


def read_page(path: Path) -> str:
    """The page's HTML as a fetch would decode it (gzipped pages are stored as UTF-8)."""
    from webproviders.fetching.charset import decode

    if path.suffix == ".gz":
        return decode(gzip.decompress(path.read_bytes()), "text/html; charset=utf-8", "html")[0]
    return decode(path.read_bytes(), None, "html")[0]


def run_page(job: tuple[str, Page, list[str]]) -> dict[str, Score]:
    """Every extractor on one page (in a worker process: trafilatura is not thread-safe)."""
    import logging

    logging.disable(logging.CRITICAL)  # trafilatura logs every page it finds hard
    set_name, page, names = job
    score = SETS[set_name].score
    html = read_page(page.path)
    url = page_url(page, html)
    results = {}
    for name in names:
        started = time.perf_counter()
        try:
            result = score(page.expected, EXTRACTORS[name][1](html, url))
        except Exception as exc:  # noqa: BLE001 - a crash is scored as a page with nothing found
            result = score(page.expected, "")
            result.failures.append(f"{page.key}: {type(exc).__name__}: {exc}")
        result.seconds = time.perf_counter() - started
        results[name] = result
    return results


def run(set_name: str, pages: list[Page], names: list[str], workers: int) -> dict[str, Score]:
    totals: dict[str, Score] = {}
    jobs: Iterator[tuple[str, Page, list[str]]] = ((set_name, page, names) for page in pages)
    with ProcessPoolExecutor(workers) as pool:
        for results in pool.map(run_page, jobs, chunksize=4):
            for name, result in results.items():
                if name in totals:
                    totals[name].add(result)
                else:
                    totals[name] = result
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=list(SETS), default="trafilatura", help="evaluation set (default trafilatura)")
    parser.add_argument("--data", help="the set's folder: trafilatura's tests/, or the article-extraction-benchmark checkout")
    parser.add_argument("--limit", type=int, help="score only the first N pages (sorted by key)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--only", nargs="+", choices=list(EXTRACTORS), help="extractors to run, in this order (default: ours and the three trafilatura settings)")
    args = parser.parse_args()

    import trafilatura

    evalset = SETS[args.set]
    folder = find_data(evalset, args.data)
    pages = evalset.pages(folder)[: args.limit]
    names = args.only or DEFAULT_EXTRACTORS
    digest = hashlib.sha256((folder / evalset.marker).read_bytes()).hexdigest()[:12]
    print(f"{evalset.title}: {evalset.describe(pages)} ({evalset.marker} sha256 {digest}…), trafilatura {trafilatura.__version__}")
    started = time.perf_counter()
    totals = run(args.set, pages, names, args.workers)
    print(f"{time.perf_counter() - started:.0f} s with {args.workers} worker processes\n")
    print(f"| extractor | precision | recall | F1 | {' | '.join(evalset.count_names)} | ms/page |")
    print("|---" * (5 + len(evalset.count_names)) + "|")
    for name in names:
        score = totals[name]
        print(
            f"| {EXTRACTORS[name][0]} | {score.precision:.4f} | {score.recall:.4f} | **{score.f1:.4f}** "
            f"| {' | '.join(score.counts())} | {1000 * score.seconds / len(pages):.0f} |"
        )
    for name in names:
        for failure in totals[name].failures:
            print(f"{name} failed: {failure}")


if __name__ == "__main__":
    main()
