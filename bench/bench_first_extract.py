"""First extract in a fresh process: ``webproviders extract URL`` against a plain script.

Both are whole processes started from nothing, reading the same article page from a local
server (``bench/localsite.py``): ours is the command line (``webproviders extract URL
--backend http``, configuration allowing the loopback address), the plain script fetches
the page with ``urllib`` and calls ``trafilatura.extract`` with our markdown settings. Runs
are interleaved so machine noise hits both alike; medians are compared.

    python bench/bench_first_extract.py [--runs 15]

Target: ours at most 1.5 x the plain script. The extract's text must hold the article.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAIN = """
import sys, urllib.request, trafilatura
html = urllib.request.urlopen(sys.argv[1]).read().decode("utf-8")
text = trafilatura.extract(html, url=sys.argv[1], output_format="markdown", include_links=True,
                           include_formatting=True, include_tables=True, include_comments=False)
print(text[:200])
"""
#: Bytecode is written on the warm-up run, as pip compiles an installed package (see bench_cold_start).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _once(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return time.perf_counter() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, str(HERE / "localsite.py"), "articles", "0", "1"], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    port = int(server.stdout.readline())
    url = f"http://127.0.0.1:{port}/p/0"
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.yaml"
        config.write_text("web:\n  allow_private_networks: true\n", encoding="utf-8")
        env = {**ENV, "WEBPROVIDERS_CONFIG": str(config)}
        ours_cmd = [str(Path(sys.executable).parent / "webproviders"), "extract", url, "--backend", "http"]
        plain_cmd = [sys.executable, "-c", PLAIN, url]
        try:
            _, out = _once(ours_cmd, env)  # warm the file cache and the .pyc files
            _once(plain_cmd, env)
            assert "Copyright" not in out and len(out) > 500, out[:500]
            ours, plain = [], []
            for _ in range(args.runs):
                plain.append(_once(plain_cmd, env)[0])
                ours.append(_once(ours_cmd, env)[0])
        finally:
            server.terminate()
            server.wait()
    o, p = statistics.median(ours), statistics.median(plain)
    print(f"plain urllib + trafilatura.extract: median {p * 1000:.0f} ms  (min {min(plain) * 1000:.0f})")
    print(f"webproviders extract (CLI):         median {o * 1000:.0f} ms  (min {min(ours) * 1000:.0f})")
    print(f"ratio: {o / p:.2f} x (target <= 1.5), {args.runs} interleaved runs")


if __name__ == "__main__":
    main()
