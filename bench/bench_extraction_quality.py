"""Main-text extraction quality on public evaluation pages: ours beside plain trafilatura.

Every set whose data is found runs by default, each reported overall and per page type, with
trafilatura's default settings and its ``include_comments=False`` setting in the same run;
``--set`` picks sets. None of the data is part of this repository. The library (``ours``)
reads each page as an extract does under the default ``web.extraction`` limits (the HTML
budget, then the element budget), so a figure here is what a caller gets.

``wcxb-dev`` (and ``wcxb-test``): the WCXB benchmark, 2,008 real pages of seven types
(article, forum, product, collection, listing, documentation, service) with their main
content. Scoring reimplements its ``evaluate.py`` metric: lower-cased ``\\w+`` words matched
with repetition, precision, recall and F1 per page, each averaged over pages. Rules are
tuned on the development split only; ``wcxb-test`` is the held-out split, run only when
named, once every decision is frozen::

    git clone https://github.com/Murrough-Foley/web-content-extraction-benchmark ~/.cache/webproviders/bench/wcxb

``scrapinghub``: the article-extraction benchmark, 181 news and blog pages with the article
body each should yield. Scoring follows that benchmark's rule: texts are cut into words
(``\\w+``) and runs of four consecutive words; per page, runs found in both are matched
(counted with repetition); precision and recall are computed per page and averaged over
pages, and F1 is taken from the two averages::

    git clone --depth 1 https://github.com/scrapinghub/article-extraction-benchmark ~/.cache/webproviders/bench/article-extraction-benchmark

``trafilatura``: trafilatura's own evaluation set, about 1,000 real pages annotated with text
snippets that belong to the main text ("with") and snippets that do not ("without"); a
"with" snippet found is a true positive, one not found a false negative; a "without" snippet
found is a false positive, one not found a true negative; counts are summed over the set::

    git clone --depth 1 https://github.com/adbar/trafilatura /tmp/trafilatura
    cp -r /tmp/trafilatura/tests ~/.cache/webproviders/bench/trafilatura-tests

``cleaning``: five older boilerplate-removal sets in one layout (``input/*.html`` beside
``GoldStandard/*.txt``), each reported as its own page type: CleanEval's development and
final sets, CleanPortalEval (portal pages, several per site), Dragnet's news and blog pages,
page-signal's Google News pages and Mozilla Readability's test pages; scored by word F1 as
WCXB is. No rule was chosen on these pages: like ``wcxb-test``, it runs only when named, to
check that what was tuned elsewhere holds on pages nobody tuned on::

    git clone https://github.com/j-szulc/html-cleaning-dataset-merged ~/.cache/webproviders/bench/cleaning

``--data`` names one set's folder instead; ``$WEBPROVIDERS_BENCH_DATA`` is looked at before
``~/.cache/webproviders/bench``. Markdown output is scored on what a reader sees: it is
rendered (markdown-it-py) and its text taken, so link targets and emphasis marks neither help
nor hurt. Every extractor reads the same decoded page with the same URL. ``--only`` adds
other extractors (rs-trafilatura, resiliparse, readability-lxml, jusText) when installed.
"""

from __future__ import annotations

import argparse
import copy
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
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*>")
#: The line by which Dragnet's references separate a page's comments from its content.
_COMMENTS_MARK = re.compile(r"^[ \t]*[!@#$%^&*()][ \t!@#$%^&*()]{3,}COMMENTS[ \t\r]*$", re.MULTILINE)


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


@dataclass
class WordF1(Score):
    """Per-page word precision, recall and F1 (WCXB's rule), each averaged over pages.

    Words are lower-cased ``\\w+`` runs counted with repetition; a page whose reference is
    empty scores 1 when the output is empty too, else 0; an empty output scores 0.
    """

    pages: list[tuple[float, float, float]] = field(default_factory=list)

    def _add_counts(self, other: WordF1) -> None:
        self.pages += other.pages

    def _mean(self, at: int) -> float:
        return statistics.fmean(page[at] for page in self.pages) if self.pages else 0.0

    @property
    def precision(self) -> float:
        return self._mean(0)

    @property
    def recall(self) -> float:
        return self._mean(1)

    @property
    def f1(self) -> float:
        return self._mean(2)

    def counts(self) -> list[str]:
        return [str(sum(f1 == 0 for _, _, f1 in self.pages))]


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


def score_words(expected: dict[str, Any], output: str) -> WordF1:
    """Word F1 of one page's output against its reference main content."""
    want = Counter(_WORD.findall(expected["main_content"].lower()))
    got = Counter(_WORD.findall(output.lower()))
    if not want:
        share = 0.0 if got else 1.0
        return WordF1(pages=[(share, share, share)])
    if not got:
        return WordF1(pages=[(0.0, 0.0, 0.0)])
    matched = sum((want & got).values())
    precision, recall = matched / sum(got.values()), matched / sum(want.values())
    f1 = 2 * precision * recall / (precision + recall) if matched else 0.0
    return WordF1(pages=[(precision, recall, f1)])


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


def ours_markdown(html: str, url: str) -> str:
    """The page as an extract reads it under the default ``web.extraction`` limits: held to
    the HTML budget, and read as plain text past the element budget."""
    from webproviders.config import ExtractionSettings
    from webproviders.fetching.extraction import html_document

    limits = ExtractionSettings()
    return html_document(html, url, max_elements=limits.max_html_elements, max_chars=limits.max_html_chars).content


def ours(html: str, url: str) -> str:
    return markdown_text(ours_markdown(html, url))


def trafilatura_markdown(html: str, url: str) -> str:
    import trafilatura

    from webproviders.fetching.extraction import TRAFILATURA_OPTIONS

    return markdown_text(trafilatura.extract(html, url=url, **TRAFILATURA_OPTIONS["markdown"]) or "")


def trafilatura_defaults(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def trafilatura_no_comments(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url, include_comments=False) or ""


def rs_trafilatura(html: str, url: str) -> str:
    """rs-trafilatura (a Rust port with page-type profiles; wheels for CPython 3.12 only)."""
    import rs_trafilatura

    return rs_trafilatura.extract(html, url=url).main_content or ""


def resiliparse(html: str, url: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    return extract_plain_text(HTMLTree.parse(html), main_content=True)


def readability(html: str, url: str) -> str:
    import lxml.html
    from readability import Document

    summary = Document(html, url=url).summary(html_partial=True)
    return lxml.html.fromstring(summary).text_content() if summary.strip() else ""


def justext(html: str, url: str) -> str:
    import justext as jt

    paragraphs = jt.justext(html.encode("utf-8"), frozenset(), stopwords_low=0, stopwords_high=0)
    return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


EXTRACTORS: dict[str, tuple[str, Callable[[str, str], str]]] = {
    "ours": ("webproviders `html_document` (markdown)", ours),
    "trafilatura-markdown": ("trafilatura with our markdown settings, no clean-up", trafilatura_markdown),
    "trafilatura-defaults": ("trafilatura defaults (text, comments included)", trafilatura_defaults),
    "trafilatura-no-comments": ("trafilatura, `include_comments=False`", trafilatura_no_comments),
    "rs-trafilatura": ("rs-trafilatura 0.1 `extract` (text)", rs_trafilatura),
    "resiliparse": ("resiliparse `extract_plain_text(main_content=True)`", resiliparse),
    "readability": ("readability-lxml `summary`", readability),
    "justext": ("jusText, no stop-list (language-neutral)", justext),
}
#: What runs without ``--only``.
DEFAULT_EXTRACTORS = ["ours", "trafilatura-defaults", "trafilatura-no-comments", "trafilatura-markdown"]


# -- data -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One annotated page: its key in the set, what is expected, the stored HTML."""

    key: str
    expected: dict[str, Any]
    path: Path
    #: The address the page was read from, when the set states it.
    url: str | None = None
    #: The page type the set assigns (``article``, ``forum``, …), or ``mixed`` when it assigns none.
    kind: str = "mixed"


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
            pages.append(Page(key, truth[key], path, truth[key].get("url"), "article"))
    return pages


def wcxb_pages(folder: Path, split: str) -> list[Page]:
    """One WCXB split; the page type is the annotation's primary type (``category`` is ``collection``)."""
    pages = []
    for path in sorted((folder / split / "ground-truth").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        truth = record.get("ground_truth")
        if not isinstance(truth, dict):
            continue
        kind = ((record.get("_internal") or {}).get("page_type") or {}).get("primary") or "article"
        expected = {"main_content": truth.get("main_content") or ""}
        html = folder / split / "html" / f"{path.stem}.html.gz"
        kind = "collection" if kind == "category" else kind
        pages.append(Page(path.stem, expected, html, record.get("url"), kind))
    return pages


def gold_text(path: Path) -> str:
    """A CleanEval-layout reference as text: its ``URL:`` line dropped, its markup (CleanEval's
    ``<p>``/``<h>``/``<l>`` marks, or a whole HTML page) read as a browser shows it. Dragnet's
    references list a page's comments after a marker line: the main content is what precedes it."""
    import lxml.html

    from webproviders.fetching.charset import decode

    text = decode(path.read_bytes(), None, "text")[0].lstrip()
    if text.startswith("URL:"):
        text = text.partition("\n")[2]
    text = _COMMENTS_MARK.split(text, maxsplit=1)[0]
    if not text.strip():
        return ""
    root = lxml.html.fromstring(f"<div>{text}</div>")
    for hidden in root.xpath("//script | //style | //noscript | //head | //title"):
        hidden.drop_tree()
    return root.text_content()


def cleaning_pages(folder: Path) -> list[Page]:
    """Every page of the merged boilerplate-removal sets; the page type is the set it comes from."""
    pages = []
    for path in sorted(folder.glob("*/input/*.html")):
        gold = path.parent.parent / "GoldStandard" / f"{path.stem}.txt"
        if not gold.is_file():
            continue
        head = gold.read_bytes()[:300].decode("utf-8", "replace").lstrip()
        url = head[4:].split()[0] if head.startswith("URL:") and head[4:].split() else None
        kind = path.parent.parent.name.removesuffix("-master").removesuffix("_data")
        pages.append(Page(f"{kind}/{path.stem}", {"main_content": gold_text(gold)}, path, url, kind))
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
    #: Run only when named: a held-out split or a set never tuned on, scored once every decision is frozen.
    held_out: bool = False

    def describe(self, pages: list[Page]) -> str:
        if self.marker == "evaldata.json":
            snippets = sum(len(p.expected["with"]) + len(p.expected["without"]) for p in pages)
            return f"{len(pages)} pages, {snippets} snippets"
        text = "articleBody" if self.marker == "ground-truth.json" else "main_content"
        return f"{len(pages)} pages, {sum(len(_WORD.findall(p.expected[text])) for p in pages)} words of reference text"


_GET_WCXB = (
    "git clone https://github.com/Murrough-Foley/web-content-extraction-benchmark ~/.cache/webproviders/bench/wcxb"
)
SETS = {
    "wcxb-dev": EvalSet(
        "WCXB development split (word F1, mean over pages)",
        "metadata.json",
        CACHE / "wcxb",
        _GET_WCXB,
        functools.partial(wcxb_pages, split="dev"),
        score_words,
        ("empty or no match",),
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
    "wcxb-test": EvalSet(
        "WCXB held-out test split (word F1, mean over pages)",
        "metadata.json",
        CACHE / "wcxb",
        _GET_WCXB,
        functools.partial(wcxb_pages, split="test"),
        score_words,
        ("empty or no match",),
        held_out=True,
    ),
    "cleaning": EvalSet(
        "Older boilerplate-removal sets, never tuned on (word F1, mean over pages)",
        "strip.py",
        CACHE / "cleaning",
        "git clone https://github.com/j-szulc/html-cleaning-dataset-merged ~/.cache/webproviders/bench/cleaning",
        cleaning_pages,
        score_words,
        ("empty or no match",),
        held_out=True,
    ),
}


def find_data(evalset: EvalSet, given: str | None) -> Path | None:
    """The folder holding the set's marker file, or None."""
    candidates = [Path(given)] if given else []
    if not given and os.environ.get("WEBPROVIDERS_BENCH_DATA"):
        candidates.append(Path(os.environ["WEBPROVIDERS_BENCH_DATA"]))
    if not given:
        candidates.append(evalset.cache)
    for folder in candidates:
        for inner in (folder, folder / "tests"):
            if (inner / evalset.marker).is_file():
                return inner
    return None


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

    # lxml refuses text that declares its own encoding; the declaration says nothing here
    root = lxml.html.fromstring(_XML_DECLARATION.sub("", html, count=1))
    stated = root.xpath("//link[@rel='canonical']/@href | //meta[@property='og:url']/@content")
    return next((url for url in stated if url.startswith(("http://", "https://"))), page.key)


def read_page(path: Path) -> str:
    """The page's HTML as a fetch would decode it (gzipped pages are stored as UTF-8)."""
    from webproviders.fetching.charset import decode

    if path.suffix == ".gz":
        return decode(gzip.decompress(path.read_bytes()), "text/html; charset=utf-8", "html")[0]
    return decode(path.read_bytes(), None, "html")[0]


def run_page(job: tuple[str, Page, list[str]]) -> tuple[Page, dict[str, Score]]:
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
    return page, results


#: Per extractor, per page type (``all`` for the whole set): the summed score.
Totals = dict[str, dict[str, Score]]


def run(set_name: str, pages: list[Page], names: list[str], workers: int, per_page: dict[str, Any]) -> Totals:
    totals: Totals = {name: {} for name in names}
    jobs: Iterator[tuple[str, Page, list[str]]] = ((set_name, page, names) for page in pages)
    with ProcessPoolExecutor(workers) as pool:
        for page, results in pool.map(run_page, jobs, chunksize=4):
            for name, result in results.items():
                for kind in ("all", page.kind):
                    if kind in totals[name]:
                        totals[name][kind].add(copy.deepcopy(result))
                    else:
                        totals[name][kind] = copy.deepcopy(result)
            per_page[f"{set_name}/{page.key}"] = {"kind": page.kind, **{n: round(r.f1, 4) for n, r in results.items()}}
    return totals


def report(evalset: EvalSet, pages: list[Page], names: list[str], totals: Totals) -> None:
    print(f"| extractor | precision | recall | F1 | {' | '.join(evalset.count_names)} | ms/page |")
    print("|---" * (5 + len(evalset.count_names)) + "|")
    for name in names:
        score = totals[name]["all"]
        print(
            f"| {EXTRACTORS[name][0]} | {score.precision:.4f} | {score.recall:.4f} | **{score.f1:.4f}** "
            f"| {' | '.join(score.counts())} | {1000 * score.seconds / len(pages):.0f} |"
        )
    kinds = Counter(page.kind for page in pages)
    if len(kinds) > 1:
        print(f"\nF1 per page type:\n\n| page type | pages | {' | '.join(names)} |")
        print("|---" * (2 + len(names)) + "|")
        for kind, count in kinds.most_common():
            cells = " | ".join(f"{totals[name][kind].f1:.4f}" for name in names)
            print(f"| {kind} | {count} | {cells} |")
    for name in names:
        for failure in totals[name]["all"].failures:
            print(f"{name} failed: {failure}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set", nargs="+", choices=list(SETS), dest="sets",
        help="evaluation sets (default: every one found, except the held-out wcxb-test and cleaning)",
    )
    parser.add_argument("--data", help="with one --set: its folder (trafilatura's tests/, a benchmark checkout)")
    parser.add_argument("--limit", type=int, help="score only the first N pages of each set (sorted by key)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--only", nargs="+", choices=list(EXTRACTORS), help="extractors to run, in this order (default: ours and the three trafilatura settings)")
    parser.add_argument("--pages-out", help="write each page's F1 per extractor to this JSON file (for comparing pages)")
    args = parser.parse_args()
    if args.data and (not args.sets or len(args.sets) != 1):
        parser.error("--data needs exactly one --set")

    import trafilatura

    names = args.only or DEFAULT_EXTRACTORS
    chosen = args.sets or [name for name, evalset in SETS.items() if not evalset.held_out]
    print(f"trafilatura {trafilatura.__version__}; {args.workers} worker processes\n")
    per_page: dict[str, Any] = {}
    for set_name in chosen:
        evalset = SETS[set_name]
        folder = find_data(evalset, args.data)
        if folder is None:
            if args.sets:
                sys.exit(f"The data of {set_name} was not found. Get it with\n    {evalset.get_it}\n(or copy that folder to {evalset.cache}).")
            print(f"## {evalset.title}: not found, skipped (get it with: {evalset.get_it})\n")
            continue
        pages = evalset.pages(folder)[: args.limit]
        digest = hashlib.sha256((folder / evalset.marker).read_bytes()).hexdigest()[:12]
        started = time.perf_counter()
        totals = run(set_name, pages, names, args.workers, per_page)
        print(f"## {evalset.title}\n\n{evalset.describe(pages)} ({evalset.marker} sha256 {digest}…), "
              f"{time.perf_counter() - started:.0f} s\n")
        report(evalset, pages, names, totals)
        print()
    if args.pages_out:
        Path(args.pages_out).write_text(json.dumps(per_page, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
