"""Cold start: ``import webproviders; list_providers()`` against the floor of its own deps.

Run: python bench/bench_cold_start.py [--runs 15] [--litellm] [--against OTHER/src]
Target: at most 1.25 x the floor.

The floor is a bare interpreter loading what listing providers truly needs: PyYAML, pluggy,
and pydantic ready to validate (one model class built and used). pydantic 2 imports lazily,
so ``import pydantic`` alone loads almost nothing of it; that bare import is measured too
(``import pydantic, yaml, pluggy``) and printed for reference. httpx is not in the floor:
nothing at start needs it. Every command runs in a fresh process, interleaved with the
others, and medians are compared. With ``--litellm`` (and ``litellm`` installed; it is not a
dependency), ``from litellm import search`` is measured beside them, for comparison.
``--against`` also times listing with another source tree first on the path
(``PYTHONPATH=OTHER/src``), interleaved with the rest: a before/after in the same minutes.
The CPU time of each process (user + system) is printed beside the wall time: on a machine
other work shares, it moves less with the load, so two trees compare better by it.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

FLOOR = "import yaml, pluggy\nfrom pydantic import BaseModel\nclass Floor(BaseModel):\n    ready: bool = True\nFloor()"
BARE_IMPORTS = "import pydantic, yaml, pluggy"
OURS = "import webproviders; webproviders.list_providers()"
LITELLM = "from litellm import search"
#: Bytecode is written on the warm-up run, as pip compiles an installed package: with
#: PYTHONDONTWRITEBYTECODE set, our modules would be compiled on every run while the
#: floor's dependencies load from their compiled files, and the two would not compare.
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _once(code: str, src: str | None = None) -> tuple[float, float]:
    """Wall time and CPU time of one fresh interpreter running ``code``."""
    env = ENV if src is None else {**ENV, "PYTHONPATH": src}
    cpu, started = _cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=env)
    return time.perf_counter() - started, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--litellm", action="store_true", help="also time `from litellm import search`")
    parser.add_argument("--against", help="another source tree whose listing is timed too")
    args = parser.parse_args()
    commands: dict[str, tuple[str, str | None]] = {"floor": (FLOOR, None), "bare": (BARE_IMPORTS, None), "ours": (OURS, None)}
    if args.against:
        commands["other"] = (OURS, args.against)
    if args.litellm:
        commands["litellm"] = (LITELLM, None)
    for code, src in commands.values():
        _once(code, src)  # warm the OS file cache and .pyc files
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu_times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):  # interleaved, so machine noise hits all alike
        for name, (code, src) in commands.items():
            wall, cpu = _once(code, src)
            times[name].append(wall)
            cpu_times[name].append(cpu)
    median = {name: statistics.median(values) for name, values in times.items()}
    cpu_median = {name: statistics.median(values) for name, values in cpu_times.items()}
    providers = subprocess.run(
        [sys.executable, "-c", "import webproviders; print(len(webproviders.list_providers()))"],
        check=True, capture_output=True, text=True, env=ENV,
    ).stdout.strip()
    print(f"providers listed: {providers}")
    print(f"floor  (yaml, pluggy, one pydantic model): median {median['floor'] * 1000:.1f} ms")
    print(f"bare   ({BARE_IMPORTS}):       median {median['bare'] * 1000:.1f} ms")
    print(f"ours   ({OURS}): median {median['ours'] * 1000:.1f} ms")
    print(f"ratio: {median['ours'] / median['floor']:.2f} x the floor (target <= 1.25); "
          f"{median['ours'] / median['bare']:.2f} x the bare imports")
    if "other" in median:
        print(f"other tree ({args.against}): median {median['other'] * 1000:.1f} ms, "
              f"{median['other'] / median['floor']:.2f} x the floor")
    print("CPU time: " + ", ".join(
        f"{name} {cpu_median[name] * 1000:.1f} ms ({cpu_median[name] / cpu_median['floor']:.2f} x)"
        for name in cpu_median if name != "litellm"
    ))
    if "litellm" in median:
        print(f"litellm ({LITELLM}): median {median['litellm'] * 1000:.1f} ms, "
              f"{median['litellm'] / median['ours']:.1f} x ours")


if __name__ == "__main__":
    main()
