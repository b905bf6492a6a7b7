"""Plugin code that raises what is not an ordinary exception fails one call, not the program.

A plugin that calls ``sys.exit()``, raises ``KeyboardInterrupt`` or a ``BaseException`` of its
own, or lets a ``StopIteration`` out of a sync method (``next()`` on an empty iterator) must
end in a ``provider_error`` envelope naming it: raised out of ``dispatch_search`` it would end
the caller's program, or an MCP server serving every client.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_search, list_providers

CODE = """
import asyncio
import concurrent.futures
import os
from webproviders import WebSearchProvider


class Own(BaseException):
    pass


RAISES = {
    "exit": lambda: SystemExit(3),
    "interrupt": KeyboardInterrupt,
    "own": lambda: Own("the plugin's own"),
    "stop": StopIteration,
    "cancelled": asyncio.CancelledError,  # a task of its own that was cancelled, awaited
    "futures-cancelled": concurrent.futures.CancelledError,
}


class Sync(WebSearchProvider):
    name = "sync-raiser"

    def is_available(self):
        if os.environ.get("RAISER_UNAVAILABLE"):
            raise SystemExit("no")
        return True

    def search(self, query, limit=5, **options):
        if query in RAISES:
            raise RAISES[query]()
        return [{"title": "ok", "url": "https://ok.example/"}]


class Async(WebSearchProvider):
    name = "async-raiser"

    def is_available(self):
        return True

    async def search(self, query, limit=5, **options):
        if query in RAISES:
            raise RAISES[query]()
        return [{"title": "ok", "url": "https://ok.example/"}]


class Deferred(WebSearchProvider):  # a plain def returning a coroutine, which raises
    name = "deferred-raiser"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        return Async().search(query, limit)


def register(ctx):
    ctx.register_web_search_provider(Sync())
    ctx.register_web_search_provider(Async())
    ctx.register_web_search_provider(Deferred())
"""

@pytest.fixture
def config(write_plugin: Any, make_config: Any) -> Any:
    root = write_plugin("raisers", CODE)
    return make_config(web={"timeout": 10}, plugins={"paths": [str(root)], "enabled": ["raisers"]})


@pytest.mark.parametrize(
    ("backend", "query", "named"),
    [
        ("sync-raiser", "exit", "SystemExit: 3"),
        ("sync-raiser", "interrupt", "KeyboardInterrupt"),
        ("sync-raiser", "own", "Own: the plugin's own"),
        ("sync-raiser", "stop", "StopIteration"),
        ("async-raiser", "exit", "SystemExit: 3"),
        ("async-raiser", "own", "Own: the plugin's own"),
        # Each was raised out of dispatch_search: a CancelledError as the caller's own
        # cancellation, the SystemExit of a returned coroutine as the program's end.
        ("sync-raiser", "futures-cancelled", "CancelledError"),
        ("async-raiser", "cancelled", "CancelledError"),
        ("deferred-raiser", "exit", "SystemExit: 3"),
        ("deferred-raiser", "own", "Own: the plugin's own"),
        ("deferred-raiser", "cancelled", "CancelledError"),
    ],
)
def test_a_provider_that_exits_fails_its_call_only(
    config: Any, backend: str, query: str, named: str
) -> None:
    started = time.monotonic()
    envelope = dispatch_search(query, backend=backend, config=config)
    assert time.monotonic() - started < 5  # an answer, not the 10 s deadline
    assert envelope["success"] is False
    assert envelope["error_code"] == "provider_error"
    assert envelope["error"] == f"{backend} failed: {named}"
    assert dispatch_search("fine", backend=backend, config=config)["success"] is True


def test_a_provider_s_own_cancelled_error_is_its_failure_on_the_caller_s_loop(config: Any) -> None:
    """Its own ``CancelledError`` once ended ``adispatch_search`` as if the caller had been
    cancelled, and the caller's code after it still ran (nothing had cancelled it)."""

    async def main() -> dict[str, Any]:
        return await adispatch_search("cancelled", backend="async-raiser", config=config)

    envelope = asyncio.run(main())
    assert (envelope["error_code"], envelope["error"]) == (
        "provider_error",
        "async-raiser failed: CancelledError",
    )


def test_an_is_available_that_exits_makes_the_provider_unavailable(
    config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAISER_UNAVAILABLE", "1")
    envelope = dispatch_search("fine", backend="sync-raiser", config=config)
    assert envelope["error_code"] == "not_configured"
    assert "is_available() failed: SystemExit" in envelope["error"]


def test_a_package_that_exits_on_import_is_recorded_and_the_others_work(
    install_entry_point: Any, make_config: Any
) -> None:
    install_entry_point(
        "needy", "wp_needy", "import sys\nsys.exit('wp-needy needs a newer Python')\n"
    )
    config = make_config()
    row = next(row for row in list_providers(config) if row["name"] == "needy")
    assert row["load_error"] == (
        "import failed: SystemExit: wp-needy needs a newer Python (in the installed package wp-needy 1.0)"
    )
    assert dispatch_search("q", backend="stub", config=config)["success"] is True


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("import sys\nsys.exit(4)\n", "import failed: SystemExit: 4"),
        ("def register(ctx):\n    raise SystemExit(4)\n", "register() failed: SystemExit: 4"),
        # Loaded on a thread of its own, where no Ctrl-C arrives: the plugin's, not the user's.
        # It was passed on there as one, and the plugin was said not to register its provider.
        ("raise KeyboardInterrupt\n", "import failed: KeyboardInterrupt"),
        ("def register(ctx):\n    raise KeyboardInterrupt\n", "register() failed: KeyboardInterrupt"),
    ],
)
def test_a_plugin_folder_that_exits_is_recorded(
    write_plugin: Any, make_config: Any, code: str, error: str
) -> None:
    root = write_plugin(
        "exiting", code, providers=[{"name": "exiting", "capabilities": ["search"]}]
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["exiting"]})
    envelope = dispatch_search("q", backend="exiting", config=config)
    assert envelope["error_code"] == "not_configured"
    assert error in envelope["error"]
    assert dispatch_search("q", backend="stub", config=config)["success"] is True


def test_a_ctrl_c_while_a_plugin_imports_on_the_main_thread_ends_its_load(
    write_plugin: Any, make_config: Any
) -> None:
    """The user's Ctrl-C goes on to the caller; the plugin is then loaded as far as it got,
    not "still loading" in every later answer."""
    root = write_plugin(
        "interrupted", "raise KeyboardInterrupt\n", providers=[{"name": "interrupted", "capabilities": ["search"]}]
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["interrupted"]})
    with pytest.raises(KeyboardInterrupt):
        list_providers(config, load=True)
    envelope = dispatch_search("q", backend="interrupted", config=config)
    assert envelope["error_code"] == "not_configured"
    assert "still loading" not in envelope["error"], envelope


HOOKS = """
def before_dispatch(arguments):
    if arguments.get("query") == "refuse":
        raise SystemExit("policy")


def after_dispatch(arguments):
    if arguments.get("query") == "observe":
        raise SystemExit("observer")
"""


def test_a_hook_that_exits_ends_in_an_envelope(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin("exiting-hooks", HOOKS)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["exiting-hooks"]})
    refused = dispatch_search("refuse", backend="stub", config=config)
    assert (refused["error_code"], refused["error"]) == (
        "provider_error",
        "The before_dispatch hook of user plugin 'exiting-hooks' failed: SystemExit: policy.",
    )
    assert dispatch_search("observe", backend="stub", config=config)["success"] is True
