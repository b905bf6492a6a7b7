"""A sync call made while another thread is still importing trio.

A vendor SDK is imported off the event loop, and the import goes on after a call that timed
out; other libraries import trio on their own threads. Meanwhile ``sys.modules["trio"]`` is a
module without its attributes yet, and the check whether this thread runs trio's loop met it:
``dispatch_search`` raised ``AttributeError: partially initialized module 'trio' has no
attribute 'lowlevel'`` out of the call. The import here is a real one, held half done.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Any

import pytest

from webproviders import dispatch_search
from webproviders.config import config_from_dict


class _HeldImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``trio`` as an empty module, held half done until ``released`` is set."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.released = threading.Event()

    def find_spec(
        self, name: str, path: Any, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(name, self) if name == "trio" else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        self.started.set()
        self.released.wait(30)


def test_a_sync_call_is_answered_while_another_thread_imports_trio(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held = _HeldImport()
    monkeypatch.delitem(sys.modules, "trio", raising=False)  # the real one comes back after
    monkeypatch.setattr(sys, "meta_path", [held, *sys.meta_path])
    importer = threading.Thread(target=__import__, args=("trio",), daemon=True)
    importer.start()
    try:
        assert held.started.wait(10)
        envelope = dispatch_search(
            "q", backend="stub", config=config_from_dict({"web": {"cache": False}})
        )
    finally:
        held.released.set()
        importer.join(10)
        sys.modules.pop("trio", None)
    assert envelope["success"] is True and envelope["provider"] == "stub", envelope
