"""Plugin code that hangs is bounded: a stuck ``register()`` or ``is_available()`` never stalls dispatch.

The hanging plugins wait on an event that teardown sets, so no thread outlives the test.
Calls run in a helper thread only so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from webproviders import dispatch_search, get_registry, list_providers

SAFETY_NET = 60.0

_HANGING_REGISTER = """
import threading
from webproviders import WebSearchProvider

RELEASE = threading.Event()
DONE = threading.Event()


class Late(WebSearchProvider):
    name = "late"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        return [{"title": "late", "url": "https://late.example/", "description": ""}]


def register(ctx):
    RELEASE.wait()
    try:
        ctx.register_web_search_provider(Late())
    finally:
        DONE.set()
"""

_HANGING_AVAILABILITY = """
import threading
from webproviders import WebSearchProvider

RELEASE = threading.Event()


class Sleepy(WebSearchProvider):
    name = "sleepy"

    def is_available(self):
        RELEASE.wait()
        return True

    def search(self, query, limit=5, **options):
        return [{"title": "sleepy", "url": "https://sleepy.example/", "description": ""}]


def register(ctx):
    ctx.register_web_search_provider(Sleepy())
"""


def returns(fn: Callable[[], Any]) -> Any:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn).result(timeout=SAFETY_NET)


@pytest.fixture
def release() -> Iterator[None]:
    """Let every hanging plugin go at teardown."""
    yield
    for name, module in list(sys.modules.items()):
        if name.startswith("_webproviders_plugins.user.") and hasattr(module, "RELEASE"):
            module.RELEASE.set()


@pytest.fixture
def hanging_config(write_plugin: Any, make_config: Any, release: None) -> Callable[..., Any]:
    def build(code: str, name: str, **plugins: Any) -> Any:
        root = write_plugin(name, code)
        return make_config(
            web={"cache": False}, plugins={"paths": [str(root)], "enabled": [name], **plugins}
        )

    return build


def test_a_hanging_register_is_recorded_and_skipped(hanging_config: Callable[..., Any]) -> None:
    config = hanging_config(_HANGING_REGISTER, "hangs", register_timeout=0.3)
    rows = {row["name"]: row for row in returns(lambda: list_providers(config))}
    assert "late" not in rows
    assert "did not finish within 0.3 s" in rows["hangs"]["load_error"]
    assert rows["stub"]["available"] is True
    envelope = returns(lambda: dispatch_search("q", backend="stub", config=config))
    assert envelope["success"] is True


def test_a_late_registration_is_refused(hanging_config: Callable[..., Any]) -> None:
    config = hanging_config(_HANGING_REGISTER, "hangs", register_timeout=0.3)
    returns(lambda: list_providers(config))
    module = next(m for n, m in sys.modules.items() if n.startswith("_webproviders_plugins.user.hangs"))
    module.RELEASE.set()  # register() goes on and tries to add its provider, too late
    assert module.DONE.wait(SAFETY_NET)
    assert get_registry(config).get("late") is None
    assert "late" not in {row["name"] for row in list_providers(config)}


def test_dispatch_honours_its_timeout_while_plugins_load(hanging_config: Callable[..., Any]) -> None:
    config = hanging_config(_HANGING_REGISTER, "hangs", register_timeout=1.0)
    early = returns(lambda: dispatch_search("q", backend="stub", config=config, timeout=0.2))
    assert early["success"] is False and early["error_code"] == "timeout"
    assert "Loading plugins" in early["error"]
    later = returns(lambda: dispatch_search("q", backend="stub", config=config))
    assert later["success"] is True


def test_a_hanging_is_available_is_skipped(hanging_config: Callable[..., Any]) -> None:
    config = hanging_config(_HANGING_AVAILABILITY, "sleepy-plugin", availability_timeout=0.3)
    named = returns(lambda: dispatch_search("q", backend="sleepy", config=config))
    assert named["error_code"] == "not_configured"
    assert "did not return within 0.3 s" in named["error"]
    chain = returns(lambda: dispatch_search("q", backend=["sleepy", "stub"], config=config))
    assert chain["success"] is True and chain["provider"] == "stub"
    assert chain["meta"]["attempts"][0]["provider"] == "sleepy"
    assert chain["meta"]["attempts"][0]["outcome"] == "skipped"
    rows = {row["name"]: row for row in returns(lambda: list_providers(config))}
    assert rows["sleepy"]["available"] is False and "not returned yet" in rows["sleepy"]["reason"]


def test_is_available_is_bounded_by_the_call_deadline(hanging_config: Callable[..., Any]) -> None:
    """The call ran out of time, which says nothing of whether the backend can run: a timeout
    that may be tried again, not ``not_configured`` (before, a busy machine's slow check told
    the caller that the backend it named was not set up)."""
    config = hanging_config(_HANGING_AVAILABILITY, "sleepy-plugin", availability_timeout=30)
    envelope = returns(lambda: dispatch_search("q", backend="sleepy", config=config, timeout=0.3))
    assert envelope["success"] is False
    assert envelope["error_code"] == "timeout" and envelope["retryable"] is True, envelope
    assert "is_available() had not answered by this call's deadline" in envelope["error"]


def test_a_call_that_gives_up_on_a_slow_import_names_the_plugin(
    install_entry_point: Any, make_config: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed package whose import is slow holds up every call until it is loaded (its
    import is not bounded); the timeout said only that plugins were loading, not which one."""
    release = tmp_path / "release"
    monkeypatch.setenv("SLOWPKG_RELEASE", str(release))
    install_entry_point(
        "slowpkg",
        "wp_slowpkg",
        """
        import os, time

        open(os.environ["SLOWPKG_RELEASE"] + ".started", "w").close()
        deadline = time.monotonic() + 60
        while not os.path.exists(os.environ["SLOWPKG_RELEASE"]) and time.monotonic() < deadline:
            time.sleep(0.02)

        def register(ctx):
            pass
        """,
    )
    config = make_config(web={"cache": False})
    started = tmp_path / "release.started"
    try:
        first = returns(lambda: dispatch_search("q", backend="stub", config=config, timeout=0.3))
        assert first["error_code"] == "timeout"
        # Finding the installed packages may itself take longer than 0.3 s on a busy machine:
        # the call that names the plugin is made once its import has begun.
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        early = returns(lambda: dispatch_search("q", backend="stub", config=config, timeout=0.3))
    finally:
        release.touch()
    assert early["error_code"] == "timeout"
    assert early["error"].startswith(
        "Loading plugins took longer than this call's 0.3 s (entry point plugin 'slowpkg' is still loading)"
    )
    assert returns(lambda: dispatch_search("q", backend="stub", config=config))["success"] is True


_HANGING_CAPABILITIES = """
import threading
from webproviders import WebSearchProvider

RELEASE = threading.Event()


class Stuck(WebSearchProvider):
    name = "stuck"

    def is_available(self):
        return True

    def supports_extract(self):
        RELEASE.wait()
        return False

    def search(self, query, limit=5, **options):
        return []


def register(ctx):
    ctx.register_web_search_provider(Stuck())
"""


def test_a_provider_whose_own_code_hangs_while_registering_is_skipped(
    hanging_config: Callable[..., Any],
) -> None:
    """The registration reads the provider's capabilities; one that never returned there held
    every listing and every call for as long as it hung, whatever ``plugins.register_timeout`` said."""
    config = hanging_config(_HANGING_CAPABILITIES, "stuckplugin", register_timeout=0.3)
    pool = ThreadPoolExecutor(1)
    try:
        rows = {row["name"]: row for row in pool.submit(list_providers, config).result(timeout=SAFETY_NET)}
    finally:
        pool.shutdown(wait=False)  # a regression leaves the listing waiting until teardown's release
    assert "stuck" not in rows
    assert "did not finish within 0.3 s" in rows["stuckplugin"]["load_error"]
    assert returns(lambda: dispatch_search("q", backend="stub", config=config))["success"] is True


_HANGING_REASON = """
import threading
from webproviders import WebSearchProvider

RELEASE = threading.Event()


class Vague(WebSearchProvider):
    name = "vague"

    def is_available(self):
        return False

    def unavailable_reason(self):
        RELEASE.wait()
        return "no"

    def search(self, query, limit=5, **options):
        return []


def register(ctx):
    ctx.register_web_search_provider(Vague())
"""


def test_a_hanging_unavailable_reason_is_the_method_named(hanging_config: Callable[..., Any]) -> None:
    """``is_available()`` answered False at once; the sentence blamed it for the
    ``unavailable_reason()`` that hung, sending the plugin's author to the wrong method."""
    config = hanging_config(_HANGING_REASON, "vague-plugin", availability_timeout=0.3)
    named = returns(lambda: dispatch_search("q", backend="vague", config=config))
    assert named["error_code"] == "not_configured"
    assert "unavailable_reason() did not return within 0.3 s" in named["error"]
    rows = {row["name"]: row for row in returns(lambda: list_providers(config))}
    assert rows["vague"]["reason"].startswith("unavailable_reason() has not returned yet")


_SLOW_IMPORT = """
import os
import time

from webproviders import WebSearchProvider

open(os.environ["SLOWDIR_RELEASE"] + ".started", "w").close()
deadline = time.monotonic() + 60
while not os.path.exists(os.environ["SLOWDIR_RELEASE"]) and time.monotonic() < deadline:
    time.sleep(0.02)


class Slowpoke(WebSearchProvider):
    name = "slowpoke"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        return []


def register(ctx):
    ctx.register_web_search_provider(Slowpoke())
"""


def test_a_plugin_slow_to_import_holds_up_no_other_plugins_load(
    write_plugin: Any, make_config: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin folder's import is not bounded, and it ran under the lock every plugin load
    takes: while one imported for seconds, a call to a built-in provider whose code had not
    loaded yet waited for it, and timed out blaming its own plugin."""
    release = tmp_path / "release"
    monkeypatch.setenv("SLOWDIR_RELEASE", str(release))
    root = write_plugin("slowdir", _SLOW_IMPORT, [{"name": "slowpoke"}])
    manifest = root / "slowdir" / "plugin.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "hooks: []\n", encoding="utf-8")
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["slowdir"]})
    started = tmp_path / "release.started"
    try:
        first = returns(lambda: dispatch_search("q", backend="slowpoke", config=config, timeout=0.3))
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        other = returns(lambda: dispatch_search("q", backend="stub", config=config, timeout=20))
    finally:
        release.touch()
    assert first["error_code"] == "timeout"
    assert other["success"] is True, other
    assert returns(lambda: dispatch_search("q", backend="slowpoke", config=config))["success"] is True
