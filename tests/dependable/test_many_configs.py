"""Many configs in one process (a tenant's, an agent tool's, an MCP client's keys): each keeps
its own dispatch state for as long as it is used, however many there are."""

from __future__ import annotations

import copy
import gc
import pickle
import weakref
from typing import Any

from webproviders import dispatch_search
from webproviders.registry.providers import get_registry

from .conftest import build_config

#: More configs than a process used to keep the state of (8).
CONFIGS = 40


def test_each_of_many_configs_keeps_its_cache_rate_limit_and_plugins(counting_server: Any) -> None:
    """Before, the registries of only the 8 configs used last were kept: a ninth config used in
    turn loaded plugins again on every call, never found its cached answer and let a `1/min`
    request budget send a request a minute to each of them again and again."""
    section = {"base_url": counting_server.url, "rate_limit": "1/min"}
    configs = [build_config(providers={"fake-counter": section}) for _ in range(CONFIGS)]
    first = [dispatch_search(f"tenant {n}", backend="fake-counter", config=c) for n, c in enumerate(configs)]
    assert all(envelope["success"] for envelope in first)
    registries = [get_registry(config) for config in configs]
    again = [dispatch_search(f"tenant {n}", backend="fake-counter", config=c) for n, c in enumerate(configs)]
    assert [envelope["meta"].get("cached") for envelope in again] == [True] * CONFIGS
    other = [dispatch_search(f"other {n}", backend="fake-counter", config=c, timeout=2) for n, c in enumerate(configs)]
    assert {envelope.get("error_code") for envelope in other} == {"rate_limited"}
    assert len(counting_server.requests) == CONFIGS
    assert [get_registry(config) for config in configs] == registries


def test_a_config_s_state_goes_with_it_and_its_copies_start_clean() -> None:
    config = build_config()
    registry = get_registry(config)
    assert get_registry(copy.copy(config)) is not registry
    assert get_registry(config.model_copy(update={"source": "copy"})) is not registry
    clone = copy.deepcopy(config)
    assert clone == config and get_registry(clone) is not registry
    assert get_registry(pickle.loads(pickle.dumps(config))) is not registry
    gone = weakref.ref(registry)
    del config, registry, clone
    gc.collect()
    assert gone() is None
