"""First extract in a fresh process: ``webproviders extract URL`` against a plain script.

Both are whole processes started from nothing, reading the same article page from a local
server (``bench/localsite.py``): ours is the command line (``webproviders extract URL
--backend http``, configuration allowing the loopback address), the plain script fetches
the page with ``urllib`` and calls ``trafilatura.extract`` with our markdown settings. Runs
are interleaved so machine noise hits every command alike; medians are compared. The CPU
time of each (the process and the extraction worker it waited for) is printed too: on a
shared machine it moves less than the wall-clock time.

A third command gives the floor under ours: a script that only loads our configuration
(pydantic, the YAML file) and fetches the page with httpx's async client under asyncio (what
the ``http`` provider sends through), then exits as our command does (``gc.freeze()``), and
like it without loading httpx's own command line (see ``webproviders.cli.run``). It
extracts nothing; what ours takes beyond it is our own code, the registry, the URL screen,
the extraction worker's round trip and the usage ledger.

What else is installed changes the figure (httpx imports ``rich`` when it is there, httpcore
``trio``), so each ``--env`` (a virtual environment's directory, repeatable; default: the
one running this script) is measured: its ``bin/webproviders`` against the plain script run
by its ``bin/python``. A base environment is ``python3 -m venv DIR`` then ``DIR/bin/pip
install .``: the package and its declared dependencies only.

    python bench/bench_first_extract.py [--runs 15] [--env DIR ...] [--only-ours]

``--only-ours`` times the command alone in each environment (a before/after of two trees),
the environments' order turned round every run, and prints the median difference between
runs taken side by side, which moves less than either median.

Target: ours at most 1.5 x the plain script. The extract's text must hold the article.
"""

from __future__ import annotations

import argparse
import os
import resource
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
FLOOR = """
import sys; sys.modules["httpx._main"] = None  # as our command does: httpx's own CLI unloaded
import asyncio, gc, httpx
from webproviders.config import load_config
load_config()
async def fetch():
    async with httpx.AsyncClient() as client:
        return (await client.get(sys.argv[1])).text
print(asyncio.run(fetch())[:200])
gc.freeze()
"""
#: Bytecode is written on the warm-up run, as pip compiles an installed package (see bench_cold_start).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _once(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall-clock time, CPU time (the process and the workers it waited for) and stdout."""
    cpu, started = _cpu_of_children(), time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return time.perf_counter() - started, _cpu_of_children() - cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--env", action="append", type=Path, metavar="DIR",
        help="a virtual environment to measure (repeatable; default: the one running this script)",
    )
    parser.add_argument("--only-ours", action="store_true", help="the command alone in each environment, paired")
    args = parser.parse_args()
    envs = args.env or [Path(sys.prefix)]
    server = subprocess.Popen([sys.executable, str(HERE / "localsite.py"), "articles", "0", "1"], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    port = int(server.stdout.readline())
    url = f"http://127.0.0.1:{port}/p/0"
    commands: dict[str, list[str]] = {}
    for env_dir in envs:
        if not args.only_ours:
            commands[f"{env_dir}: plain"] = [str(env_dir / "bin" / "python"), "-c", PLAIN, url]
            commands[f"{env_dir}: floor"] = [str(env_dir / "bin" / "python"), "-c", FLOOR, url]
        commands[f"{env_dir}: ours"] = [str(env_dir / "bin" / "webproviders"), "extract", url, "--backend", "http"]
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.yaml"
        config.write_text("web:\n  allow_private_networks: true\n", encoding="utf-8")
        env = {**ENV, "WEBPROVIDERS_CONFIG": str(config)}
        try:
            for name, command in commands.items():  # warm the file cache and the .pyc files
                *_, out = _once(command, env)
                assert not name.endswith("ours") or ("Copyright" not in out and len(out) > 500), out[:500]
            for run in range(args.runs):
                for name, command in list(commands.items())[:: -1 if args.only_ours and run % 2 else 1]:
                    wall, used, _ = _once(command, env)
                    times[name].append(wall)
                    cpu[name].append(used)
        finally:
            server.terminate()
            server.wait()
    first = statistics.median(times[f"{envs[0]}: ours"])
    if args.only_ours:
        for env_dir in envs:
            ours = times[f"{env_dir}: ours"]
            paired = statistics.median(b - a for a, b in zip(times[f"{envs[0]}: ours"], ours, strict=True))
            print(f"{env_dir}: median {statistics.median(ours) * 1000:.0f} ms (min {min(ours) * 1000:.0f}), "
                  f"{statistics.median(ours) / first:.3f} x the first; paired median difference {paired * 1000:+.1f} ms")
        print(f"{args.runs} runs, order turned round each run; load average {os.getloadavg()[0]:.1f} at the end")
        return
    for env_dir in envs:
        plain, floor, ours = (times[f"{env_dir}: {kind}"] for kind in ("plain", "floor", "ours"))
        o, f, p = statistics.median(ours), statistics.median(floor), statistics.median(plain)
        o_cpu, f_cpu, p_cpu = (statistics.median(cpu[f"{env_dir}: {kind}"]) for kind in ("ours", "floor", "plain"))
        print(f"{env_dir}")
        print(f"  plain urllib + trafilatura.extract: median {p * 1000:.0f} ms  (min {min(plain) * 1000:.0f}), CPU {p_cpu * 1000:.0f} ms")
        print(f"  floor: our config + httpx async:    median {f * 1000:.0f} ms  (min {min(floor) * 1000:.0f}), CPU {f_cpu * 1000:.0f} ms")
        print(f"  webproviders extract (CLI):         median {o * 1000:.0f} ms  (min {min(ours) * 1000:.0f}), CPU {o_cpu * 1000:.0f} ms")
        print(f"  ratio: {o / p:.2f} x (target <= 1.5; the floor is {f / p:.2f} x); CPU time {o_cpu / p_cpu:.2f} x")
        if env_dir != envs[0]:
            print(f"  ours against {envs[0]}'s: {o / first:.3f} x")
    print(f"{args.runs} interleaved runs; load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
