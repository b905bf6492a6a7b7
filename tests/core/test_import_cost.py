"""``import webproviders`` and listing providers stay light: no SDKs, no heavy packages."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = [
    "ddgs", "trafilatura", "lxml", "tavily", "exa_py", "firecrawl", "parallel", "crawl4ai",
    "mcp", "redis", "langchain_core", "pypdf", "openai", "primp", "webproviders.dispatch",
]


def _modules_after(code: str) -> set[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_is_light() -> None:
    loaded = _modules_after("import webproviders")
    assert not {m for m in loaded for h in HEAVY if m == h or m.startswith(h + ".")}
    assert "webproviders.registry.providers" not in loaded


def test_listing_providers_imports_no_vendor_sdk() -> None:
    loaded = _modules_after("import webproviders; webproviders.list_providers()")
    heavy = [h for h in HEAVY if h != "webproviders.dispatch"]
    assert not {m for m in loaded for h in heavy if m == h or m.startswith(h + ".")}


def test_listing_providers_loads_no_network_stack() -> None:
    """Start-up cost: the HTTP stack and asyncio load on the first call, not at listing."""
    loaded = _modules_after("import webproviders; webproviders.list_providers()")
    assert not loaded & {"httpx", "httpcore", "asyncio", "webproviders.dispatch.runner", "webproviders.fetching.fetch"}
