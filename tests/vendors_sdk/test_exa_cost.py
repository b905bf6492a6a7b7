"""Exa states what each request cost (``costDollars.total``); that figure is the call's cost."""

from __future__ import annotations

from typing import Any

import pytest
import respx

from .bodies import EXA_CONTENTS, EXA_SEARCH
from .conftest import settings

API = "https://api.exa.ai"


def test_the_stated_cost_replaces_the_list_price(run: Any, make_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXA_API_KEY", "exa-3f9c2b7e-test-key-00aa")
    config = make_config(**settings("exa"))
    with respx.mock() as router:
        router.post(f"{API}/search").respond(200, json=EXA_SEARCH)
        router.post(f"{API}/contents").respond(200, json=EXA_CONTENTS)
        searched = run("search", config, "transformer supply", backend="exa", limit=2)
        read = run("extract", config, ["https://example.com", "https://gone.example/"], backend="exa")
    assert searched["meta"]["cost"] == {
        "usd": EXA_SEARCH["costDollars"]["total"], "units": 1, "unit": "request", "estimated": False
    }
    assert read["success"] is True
    assert read["meta"]["cost"]["usd"] == EXA_CONTENTS["costDollars"]["total"]
    assert read["meta"]["cost"]["estimated"] is False
