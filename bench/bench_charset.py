"""Reading pages whose encoding is not declared: how much of their text comes back, and how long it takes.

WCXB's development pages (see ``bench_extraction_quality.py`` for the data) that hold at least 300
characters of one script are written in a legacy encoding for that script (Shift_JIS and EUC-JP for
Japanese, GBK and Big5 for Chinese, windows-949 for Korean, windows-1251 and KOI8-R for Cyrillic,
windows-1252 for Latin, windows-1250, -1253, -1256 and -874 for the others) with their ``<meta
charset>`` taken out, and decoded the way the ``http`` provider decodes a body: served with a bare
``text/html``, and behind a server's ``charset=utf-8`` for every page. A page's score is the share
of its non-ASCII characters that come back (counted with repetition); trafilatura's own decoding
(``trafilatura.utils.decode_file``) is scored beside ours. The development split only: the test
split is never read here.

Run: python bench/bench_charset.py [--against OTHER/src]   (``--against``: a tree's ``decode`` too)
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path.home() / ".cache/webproviders/bench/wcxb/dev/html"
META_CHARSET = re.compile(r"<meta[^>]*charset[^>]*>", re.IGNORECASE)
KANA = re.compile(r"[\u3040-\u30ff]")
#: (script's characters, encodings a page in it is written in).
SCRIPTS: list[tuple[str, list[str]]] = [
    (r"[\u3040-\u30ff\u4e00-\u9fff]", ["cp932", "euc_jp"]),
    (r"[\uac00-\ud7af]", ["cp949"]),
    (r"[\u4e00-\u9fff]", ["gb18030", "big5hkscs"]),
    (r"[\u0400-\u04ff]", ["cp1251", "koi8_r"]),
    (r"[\u00c0-\u00ff\u2018-\u201e]", ["cp1252"]),
    (r"[\u0100-\u017f]", ["cp1250"]),
    (r"[\u0370-\u03ff]", ["cp1253"]),
    (r"[\u0600-\u06ff]", ["cp1256"]),
    (r"[\u0e00-\u0e7f]", ["cp874"]),
]
CASES = {"undeclared": "text/html", "utf-8 header": "text/html; charset=utf-8"}


def encodings_for(text: str) -> list[str]:
    for pattern, codecs in SCRIPTS:
        if len(re.findall(pattern, text)) < 300:
            continue
        japanese = bool(KANA.search(text))
        if (codecs[0] == "cp932") != japanese and codecs[0] in ("cp932", "gb18030"):
            continue
        return codecs
    return []


def recovered(got: str, want: str) -> float:
    wanted = Counter(ch for ch in want if ord(ch) > 127)
    have = Counter(ch for ch in got if ord(ch) > 127)
    return sum(min(n, have[ch]) for ch, n in wanted.items()) / max(1, sum(wanted.values()))


def decode_of(src: str) -> Callable[..., tuple[str, str]]:
    """``decode`` from another source tree's ``fetching/charset.py``, loaded under its own name."""
    spec = importlib.util.spec_from_file_location("other_charset", Path(src) / "webproviders/fetching/charset.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.decode  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", help="another source tree whose decode is scored beside this one")
    args = parser.parse_args()
    if not ROOT.is_dir():
        sys.exit(f"no WCXB data at {ROOT}: see bench_extraction_quality.py for how to get it")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import trafilatura.utils

    from webproviders.fetching.charset import decode

    readers: dict[str, Callable[[bytes, str], str]] = {"ours": lambda body, ctype: decode(body, ctype, "html")[0]}
    if args.against:
        other = decode_of(args.against)
        readers["against"] = lambda body, ctype: other(body, ctype, "html")[0]
    readers["trafilatura"] = lambda body, _ctype: trafilatura.utils.decode_file(body)
    scores: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    seconds: Counter[str] = Counter()
    for path in sorted(ROOT.glob("*.html.gz")):
        text = META_CHARSET.sub("", gzip.decompress(path.read_bytes()).decode("utf-8", "replace"))
        for codec in encodings_for(text):
            want = text.encode(codec, errors="ignore").decode(codec)
            body = want.encode(codec)
            for case, content_type in CASES.items():
                for name, read in readers.items():
                    started = time.perf_counter()
                    got = read(body, content_type)
                    seconds[name] += time.perf_counter() - started
                    scores[(codec, case)][name].append(recovered(got, want))
    names = list(readers)
    print("| encoding | served | pages | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for (codec, case), by in sorted(scores.items()):
        cells = " | ".join(f"{sum(by[n]) / len(by[n]):.3f}" for n in names)
        print(f"| {codec} | {case} | {len(by[names[0]])} | {cells} |")
    print("\nseconds decoding, all pages: " + ", ".join(f"{n} {seconds[n]:.2f}" for n in names))



if __name__ == "__main__":
    main()
