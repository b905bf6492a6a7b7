"""Plugin code that may block never runs on an event loop: an async caller's loop, or the
loop whose timers start a hedged chain's next member.

The first call for a config builds its registry and loads the plugins that may implement
dispatch hooks; a plugin's ``register()`` or import may take seconds (here 2 s of CPU, as
an import of a vendor SDK takes), and so may a provider's ``is_available()``. The call still
ends at its deadline, the caller's other tasks run meanwhile, a hedge starts its next
member on time, and a later call finds the plugin loaded.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from webproviders import adispatch_search
from webproviders.registry.providers import AVAILABILITY_TTL

SLOW_REGISTER = """
import time

from webproviders import WebSearchProvider


class Slow(WebSearchProvider):
    name = "slowreg"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        return [{"title": query, "url": "https://slowreg.example/"}]


def register(ctx):
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        pass
    ctx.register_web_search_provider(Slow())
"""


def test_first_async_call_leaves_the_callers_loop_running(
    install_entry_point: Any, make_config: Any, ticking: Any
) -> None:
    install_entry_point("slowreg", f"wp_slowreg_{uuid.uuid4().hex}", SLOW_REGISTER)
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}})

    async def main() -> tuple[dict[str, Any], float, int, dict[str, Any]]:
        first, elapsed, ticks = await ticking(
            adispatch_search("q", backend="slowreg", config=config, timeout=0.6)
        )
        await asyncio.sleep(2.5)  # register() finishes in the background
        later = await adispatch_search("q", backend="slowreg", config=config, timeout=5)
        return first, elapsed, ticks, later

    first, elapsed, ticks, later = asyncio.run(main())
    assert first["error_code"] == "timeout" and "Loading plugins" in first["error"]
    assert elapsed < 0.6 + 0.8, elapsed  # register() alone takes 2 s
    # A loop held by the loading would not tick at all in those 0.6 s.
    assert ticks >= 10, ticks
    assert later["success"] is True and later["data"]["web"][0]["title"] == "q", later


SLOW_IMPORT = """
import time

_end = time.monotonic() + 2.0
while time.monotonic() < _end:  # a vendor SDK imported at module level
    pass

from webproviders import WebSearchProvider


class Lazy(WebSearchProvider):
    name = "lazyslow"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        return [{"title": query, "url": "https://lazyslow.example/"}]


def register(ctx):
    ctx.register_web_search_provider(Lazy())
"""


def _plugin(root: Any, name: str, code: str) -> None:
    """A user plugin with one search provider, loaded on its first use (``hooks: []``)."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        f"name: {name}\nkind: backend\nhooks: []\nproviders:\n  - name: {name}\n    capabilities: [search]\n",
        encoding="utf-8",
    )
    (folder / "__init__.py").write_text(code, encoding="utf-8")


def test_a_plugin_first_used_later_loads_off_the_callers_loop(
    tmp_path: Any, make_config: Any, ticking: Any
) -> None:
    """A plugin that declares its providers and ``hooks: []`` loads on its first use, which
    may come long after the registry was ready: that load, too, leaves the loop running."""
    _plugin(tmp_path / "plugins", "lazyslow", SLOW_IMPORT)
    config = make_config(
        web={"cache": False, "retry": {"max_retries": 0}},
        plugins={"paths": [str(tmp_path / "plugins")], "enabled": ["lazyslow"]},
    )

    async def main() -> tuple[dict[str, Any], float, int, dict[str, Any]]:
        ready = await adispatch_search("q", backend="stub", config=config)  # the registry is ready
        assert ready["success"] is True, ready
        first, elapsed, ticks = await ticking(
            adispatch_search("q", backend="lazyslow", config=config, timeout=0.6)
        )
        await asyncio.sleep(2.5)  # the import finishes in the background
        later = await adispatch_search("q", backend="lazyslow", config=config, timeout=5)
        return first, elapsed, ticks, later

    first, elapsed, ticks, later = asyncio.run(main())
    # The call ran out of time while the plugin loaded: a timeout, not a backend that is missing.
    assert first["error_code"] == "timeout" and "Loading plugin 'lazyslow'" in first["error"], first
    assert elapsed < 0.6 + 0.8, elapsed  # the import alone takes 2 s
    assert ticks >= 10, ticks
    assert later["success"] is True and later["data"]["web"][0]["title"] == "q", later


HANGING = """
import asyncio

from webproviders import WebSearchProvider


class Stall(WebSearchProvider):
    name = "stalls"

    def is_available(self):
        return True

    async def search(self, query, limit=5, **options):
        await asyncio.sleep(30)


def register(ctx):
    ctx.register_web_search_provider(Stall())
"""


def test_a_chain_member_loads_its_plugin_off_the_loop(tmp_path: Any, make_config: Any, ticking: Any) -> None:
    """A chain asks a member whether it can run only when its turn comes, which may load the
    member's plugin (seconds, for an SDK): the caller's loop runs on meanwhile."""
    _plugin(tmp_path / "plugins", "lazyslow", SLOW_IMPORT)
    config = make_config(
        web={"cache": False, "retry": {"max_retries": 0}},
        plugins={"paths": [str(tmp_path / "plugins")], "enabled": ["lazyslow"]},
    )

    async def main() -> tuple[dict[str, Any], float, int]:
        await adispatch_search("q", backend="stub", config=config)  # the registry is ready
        return await ticking(adispatch_search("q", backend=["lazyslow", "stub"], config=config, timeout=10))

    envelope, elapsed, ticks = asyncio.run(main())
    assert envelope["provider"] == "lazyslow", envelope
    assert elapsed >= 2.0  # the import's own time: the call waited for it, its loop did not
    assert ticks >= 50, ticks


def test_a_hedge_starts_the_next_member_while_one_loads_its_plugin(tmp_path: Any, make_config: Any) -> None:
    """[stalls, lazyslow (2 s import), stub] hedged after 0.2 s: while lazyslow's plugin loads,
    the hedge's timer starts stub, which answers. With the load on the loop, no timer could
    fire until the import was done."""
    _plugin(tmp_path / "plugins", "lazyslow", SLOW_IMPORT)
    _plugin(tmp_path / "plugins", "stalls", HANGING)
    config = make_config(
        web={"cache": False, "retry": {"max_retries": 0}},
        plugins={"paths": [str(tmp_path / "plugins")], "enabled": ["lazyslow", "stalls"]},
    )

    async def main() -> tuple[dict[str, Any], float]:
        for loaded in ("stalls", "stub"):  # their plugins are loaded (plugins load one at a time)
            await adispatch_search("q", backend=loaded, config=config, timeout=0.1)
        started = time.monotonic()
        envelope = await adispatch_search(
            "q", backend=["stalls", "lazyslow", "stub"], config=config, timeout=10, hedge_after=0.2
        )
        return envelope, time.monotonic() - started

    envelope, elapsed = asyncio.run(main())
    assert envelope["provider"] == "stub", envelope
    assert elapsed < 1.5, elapsed  # the import alone takes 2 s
    outcomes = {attempt["provider"]: attempt["outcome"] for attempt in envelope["meta"]["attempts"]}
    assert outcomes == {"stalls": "cancelled", "lazyslow": "cancelled", "stub": "ok"}, envelope["meta"]["attempts"]


SLOW_AVAILABILITY = """
import time

from webproviders import WebSearchProvider


class Checks(WebSearchProvider):
    name = "checks"

    def is_available(self):
        end = time.monotonic() + 0.5
        while time.monotonic() < end:  # asks a local service whether it is up
            pass
        return True

    def search(self, query, limit=5, **options):
        return [{"title": query, "url": "https://checks.example/"}]


def register(ctx):
    ctx.register_web_search_provider(Checks())
"""


def test_a_slow_is_available_is_asked_off_the_loop(tmp_path: Any, make_config: Any, ticking: Any) -> None:
    """A provider's ``is_available()`` is asked again once its answer is old (2 s): each time,
    on a worker thread, not on the caller's loop."""
    _plugin(tmp_path / "plugins", "checks", SLOW_AVAILABILITY)
    config = make_config(
        web={"cache": False, "retry": {"max_retries": 0}},
        plugins={"paths": [str(tmp_path / "plugins")], "enabled": ["checks"]},
    )

    async def main() -> list[tuple[dict[str, Any], float, int]]:
        runs = [await ticking(adispatch_search("q", backend="checks", config=config, timeout=5))]
        await asyncio.sleep(AVAILABILITY_TTL + 0.1)  # the answer is old: asked again
        runs.append(await ticking(adispatch_search("q", backend="checks", config=config, timeout=5)))
        return runs

    for envelope, elapsed, ticks in asyncio.run(main()):
        assert envelope["success"] is True, envelope
        assert elapsed >= 0.5  # is_available() took its time, on a worker thread
        assert ticks >= 15, ticks



# -- the HTTP stack's first import ---------------------------------------------------------

FIRST_REQUEST = r"""
import asyncio, importlib.abc, json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

importers = {}


class Watch(importlib.abc.MetaPathFinder):
    # Notes which thread first imports each module asked about (then lets the import go on).
    def find_spec(self, name, path, target=None):
        if name in WATCHED and name not in sys.modules:
            importers.setdefault(name, threading.current_thread() is threading.main_thread())
        return None


WATCHED = {"httpx", "httpcore", "tavily", "lxml"}
sys.meta_path.insert(0, Watch())


class Answer(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/search"):
            body, kind = json.dumps({"results": [{"url": "https://e.org/", "title": "T", "content": "c"}]}), "application/json"
        else:
            body, kind = "<html><body><article><h1>Page</h1><p>" + "Text of a page. " * 30 + "</p></article></body></html>", "text/html"
        raw = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_POST = do_GET

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
threading.Thread(target=server.serve_forever, daemon=True).start()
site = f"http://127.0.0.1:{server.server_address[1]}"

from webproviders import adispatch_crawl, adispatch_extract, adispatch_search
from webproviders.config import config_from_dict

providers = {"searxng": {"base_url": site}, "tavily": {"base_url": site, "api_key": "tvly-test"}}
providers.update({"ddg_html": {"base_url": site}, "baidu_html": {"base_url": site}})
config = config_from_dict({"web": {"cache": False, "allow_private_networks": True, "providers": providers}})
calls = {
    "searxng": lambda: adispatch_search("q", backend="searxng", config=config),
    "tavily": lambda: adispatch_search("q", backend="tavily", config=config),
    "extract": lambda: adispatch_extract(site + "/page", backend="http", config=config),
    "crawl": lambda: adispatch_crawl(site + "/page", backend="http", config=config, max_pages=1),
    "ddg_html": lambda: adispatch_search("q", backend="ddg_html", config=config),
    "baidu_html": lambda: adispatch_search("q", backend="baidu_html", config=config),
}
envelope = asyncio.run(calls[sys.argv[1]]())
print(json.dumps({"success": envelope["success"], "error": envelope.get("error"), "on_loop": importers}))
"""


@pytest.mark.parametrize("first", ["searxng", "tavily", "extract", "crawl", "ddg_html", "baidu_html"])
def test_the_first_request_imports_the_http_stack_off_the_loop(first: str, run_script: Callable[..., Any]) -> None:
    """A cold import of httpx and what it pulls in takes 80-350 ms; on the event loop it would
    stop every other task of an async caller (a server's other requests, a hedge's timer).
    The first vendor request, the first page fetch and the first crawl of a fresh process
    import it in a worker thread, as an SDK's first import is (before, all three imported it
    on the loop: the first search of a raw-HTTP vendor held the loop for 330-350 ms). So do
    the keyless results-page scrapers, with the page fetcher and lxml: their first search,
    timeout=1.5, took 3-5 s on a busy machine."""
    answer = run_script(FIRST_REQUEST, first)
    if first.endswith("_html"):  # this site's page is no results page: only where it loaded is asked
        assert answer["on_loop"]["lxml"] is False, answer
    else:
        assert answer["success"] is True, answer
    assert answer["on_loop"]["httpx"] is False and answer["on_loop"]["httpcore"] is False, answer
    if first == "tavily":
        assert answer["on_loop"]["tavily"] is False, answer


# -- what the first call builds --------------------------------------------------------------

FIRST_BUILDS = r"""
import asyncio, json, sys
from webproviders import adispatch_search
from webproviders.config import config_from_dict

config = config_from_dict({})
built = []


def watch(frame, event, arg):  # what starts on the loop's thread while the call runs
    code = frame.f_code
    if event == "call" and code.co_name in ("compile", "complete_model_class"):
        if "re/_compiler" in code.co_filename or "pydantic" in code.co_filename:
            built.append(code.co_filename.rsplit("/", 2)[-2] + "." + code.co_name)


async def main():
    sys.setprofile(watch)  # this thread's only
    try:
        return await adispatch_search("q", backend="stub", config=config)
    finally:
        sys.setprofile(None)


envelope = asyncio.run(main())
print(json.dumps({"success": envelope["success"], "built": built}))
"""


def test_the_first_call_builds_nothing_on_the_callers_loop(run_script: Callable[..., Any]) -> None:
    """The first call of a process compiled the scrubber's patterns and built the provider
    settings' serializer (for its cache key) as it ran, on an async caller's loop: 30-80 ms
    with every other task held. Its preparation, which runs off the loop, builds them now."""
    answer = run_script(FIRST_BUILDS)
    assert answer == {"success": True, "built": []}, answer


STUCK_REGISTERED = """
def register(ctx):
    ctx.register_web_search_provider(Stuck())
"""


def test_a_call_prepares_even_while_every_sync_worker_hangs(
    write_plugin: Any, make_config: Any, stuck_provider: tuple[str, Any]
) -> None:
    """A sync provider that never returns keeps its worker thread after each call's deadline;
    64 such calls held every one. A call that had to prepare off its loop (a new config, an
    ``is_available()`` to ask again) queued behind them and never ended, past any deadline."""
    code, release = stuck_provider
    root = write_plugin("stuck", code + STUCK_REGISTERED)
    stuck = make_config(plugins={"paths": [str(root)], "enabled": ["stuck"]}, web={"cache": False})

    async def scenario() -> tuple[dict[str, Any], float]:
        hung = await asyncio.gather(
            *(adispatch_search(f"q{i}", backend="stuck", config=stuck, timeout=1) for i in range(64))
        )
        assert {envelope["error_code"] for envelope in hung} == {"timeout"}
        started = time.monotonic()
        fresh = make_config(web={"timeout": 10})  # a registry to build: prepared off the loop
        envelope = await asyncio.wait_for(adispatch_search("q", backend="stub", config=fresh), 30)
        return envelope, time.monotonic() - started

    try:
        envelope, took = asyncio.run(scenario())
    finally:
        release.touch()
    assert envelope["success"] is True
    assert took < 5  # its own deadline, not the hung calls
