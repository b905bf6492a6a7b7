"""An async caller's first call loads plugins without stopping the caller's event loop.

The first call for a config builds its registry and loads the plugins that may implement
dispatch hooks; a plugin's ``register()`` may take seconds (here 2 s of CPU, as an import
of a vendor SDK takes). The call still ends at its deadline, the caller's other tasks run
meanwhile, and a later call finds the plugin loaded.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from webproviders import adispatch_search

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


def test_a_plugin_first_used_later_loads_off_the_callers_loop(
    tmp_path: Any, make_config: Any, ticking: Any
) -> None:
    """A plugin that declares its providers and ``hooks: []`` loads on its first use, which
    may come long after the registry was ready: that load, too, leaves the loop running."""
    folder = tmp_path / "plugins" / "lazyslow"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        "name: lazyslow\nkind: backend\nhooks: []\nproviders:\n  - name: lazyslow\n    capabilities: [search]\n",
        encoding="utf-8",
    )
    (folder / "__init__.py").write_text(SLOW_IMPORT, encoding="utf-8")
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
