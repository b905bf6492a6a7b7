"""xAI states what each response cost (``usage.cost_in_usd_ticks``); that figure is the call's cost."""

from __future__ import annotations

import json
from typing import Any

import pytest
import respx

from .bodies import XAI_CITATIONS, XAI_JSON_TEXT, xai_response
from .helpers import XAI_KEY, XAI_URL, web


def test_the_stated_cost_replaces_the_list_price(make_config: Any, search: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XAI_API_KEY", XAI_KEY)
    config = make_config(web=web())
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, json=xai_response(XAI_JSON_TEXT, citations=XAI_CITATIONS))
        envelope = search(config, "What did xAI announce this week?", backend="xai")
    assert envelope["success"] is True, envelope
    # 292,331,500 ticks of 1e-10 USD, stated by the vendor: not the $0.03 list estimate.
    assert envelope["meta"]["cost"] == {"usd": 0.029233, "units": 1, "unit": "request", "estimated": False}


def test_a_stated_cost_beyond_any_float_is_ignored_and_the_answer_kept(
    make_config: Any, search: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 400-digit tick count raised OverflowError: a good answer became a provider_error."""
    monkeypatch.setenv("XAI_API_KEY", XAI_KEY)
    config = make_config(web=web())
    body = xai_response(XAI_JSON_TEXT, citations=XAI_CITATIONS)
    body["usage"] = {**body["usage"], "cost_in_usd_ticks": 10**400}
    with respx.mock() as mock:
        mock.post(XAI_URL).respond(200, content=json.dumps(body).encode(), headers={"content-type": "application/json"})
        envelope = search(config, "What did xAI announce this week?", backend="xai")
    assert envelope["success"] is True, envelope
    assert envelope["meta"]["cost"]["usd"] == 0.03  # the list price, as for any nonsense
