"""Several API keys per provider: a refused key rests, the next one serves, no key leaks."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search

from .conftest import build_config

URL = "https://api.fake-vendor.test/v1/search"
BODY = {"results": [{"title": "Python", "link": "https://www.python.org/", "snippet": "home"}]}
KEY_ONE = "fv-first-key-0001"
KEY_TWO = "fv-second-key-0002"


def _by_key(responses: dict[str, httpx.Response]) -> Any:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        key = request.headers["X-Api-Key"]
        seen.append(key)
        return responses[key]

    answer.seen = seen  # type: ignore[attr-defined]
    return answer


def test_a_401_on_the_first_key_moves_on_to_the_second() -> None:
    config = build_config(search_backend="fake-vendor", providers={"fake-vendor": {"api_key": [KEY_ONE, KEY_TWO]}})
    answer = _by_key({
        KEY_ONE: httpx.Response(401, json={"error": {"message": f"Invalid API key {KEY_ONE}"}}),
        KEY_TWO: httpx.Response(200, json=BODY),
    })
    with respx.mock() as mock:
        mock.get(URL).mock(side_effect=answer)
        envelope = dispatch_search("python", config=config)
        again = dispatch_search("rust", config=config)
    assert envelope["success"] is True and again["success"] is True
    assert answer.seen == [KEY_ONE, KEY_TWO, KEY_TWO]  # the refused key rests
    text = json.dumps([envelope, again])
    assert KEY_ONE not in text and KEY_TWO not in text


def test_every_key_refused_is_one_auth_error_without_key_text() -> None:
    config = build_config(search_backend="fake-vendor", providers={"fake-vendor": {"api_key": [KEY_ONE, KEY_TWO]}})
    answer = _by_key({
        KEY_ONE: httpx.Response(401, text=f"bad key {KEY_ONE}"),
        KEY_TWO: httpx.Response(403, text=f"Authorization: Bearer {KEY_TWO} revoked"),
    })

    async def run() -> dict[str, Any]:
        with respx.mock() as mock:
            mock.get(URL).mock(side_effect=answer)
            return await adispatch_search("python", config=config)

    envelope = asyncio.run(run())
    assert envelope["success"] is False
    assert envelope["error_code"] == "auth_error"
    assert answer.seen == [KEY_ONE, KEY_TWO]
    text = json.dumps(envelope)
    assert KEY_ONE not in text and KEY_TWO not in text


def test_a_key_out_of_quota_rests_while_the_other_serves() -> None:
    config = build_config(search_backend="fake-vendor", cache=False, providers={"fake-vendor": {"api_key": [KEY_ONE, KEY_TWO]}})
    answer = _by_key({KEY_ONE: httpx.Response(402, json={"error": "quota"}), KEY_TWO: httpx.Response(200, json=BODY)})
    with respx.mock() as mock:
        mock.get(URL).mock(side_effect=answer)
        for _ in range(3):
            assert dispatch_search("python", config=config)["success"] is True
    assert answer.seen == [KEY_ONE, KEY_TWO, KEY_TWO, KEY_TWO]


def test_comma_separated_environment_variable_gives_several_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_VENDOR_API_KEY", f"{KEY_ONE}, {KEY_TWO}")
    config = build_config(search_backend="fake-vendor", cache=False)
    answer = _by_key({KEY_ONE: httpx.Response(200, json=BODY), KEY_TWO: httpx.Response(200, json=BODY)})
    with respx.mock() as mock:
        mock.get(URL).mock(side_effect=answer)
        for _ in range(4):
            dispatch_search("python", config=config)
    assert answer.seen == [KEY_ONE, KEY_TWO, KEY_ONE, KEY_TWO]  # round-robin


def test_a_rate_limited_key_rests_while_the_other_serves_and_the_provider_is_not_paused() -> None:
    config = build_config(search_backend="fake-vendor", cache=False, providers={"fake-vendor": {"api_key": [KEY_ONE, KEY_TWO]}})
    answer = _by_key({
        KEY_ONE: httpx.Response(429, headers={"Retry-After": "30"}, json={"error": "Too many requests"}),
        KEY_TWO: httpx.Response(200, json=BODY),
    })
    with respx.mock() as mock:
        mock.get(URL).mock(side_effect=answer)
        envelopes = [dispatch_search("python", config=config, timeout=5) for _ in range(3)]
    assert [e["success"] for e in envelopes] == [True, True, True]
    assert answer.seen == [KEY_ONE, KEY_TWO, KEY_TWO, KEY_TWO]


def test_every_key_rate_limited_pauses_the_provider() -> None:
    config = build_config(search_backend="fake-vendor", cache=False, providers={"fake-vendor": {"api_key": [KEY_ONE, KEY_TWO]}})
    limited = httpx.Response(429, headers={"Retry-After": "30"}, json={"error": "Too many requests"})
    answer = _by_key({KEY_ONE: limited, KEY_TWO: limited})
    with respx.mock() as mock:
        mock.get(URL).mock(side_effect=answer)
        first = dispatch_search("python", config=config, timeout=5)
        second = dispatch_search("rust", config=config, timeout=5)
    assert first["error_code"] == second["error_code"] == "rate_limited"
    assert answer.seen == [KEY_ONE, KEY_TWO]  # the second call waits out the pause without a request
    assert KEY_ONE not in json.dumps([first, second]) and KEY_TWO not in json.dumps([first, second])
