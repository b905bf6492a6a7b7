"""Jina, Linkup and You.com fetch pages on their own servers: extract needs no DNS here.

The suite's DNS (``tests/conftest.py``) fails every lookup of an undeclared name, as on a
machine without public DNS, and counts lookups; the vendor APIs are mocked with the bodies
they send (the same ones as each vendor's own tests).
"""

from __future__ import annotations

from typing import Any

import pytest
import respx

from .test_jina import PAGE_BODY, READER
from .test_linkup import FETCH, FETCH_BODY
from .test_you import CONTENTS, PAGES

CASES = [
    ("jina", READER, PAGE_BODY, "https://example.com/"),
    ("linkup", FETCH, FETCH_BODY, "https://example.com"),
    ("you", CONTENTS, PAGES[:1], "https://you.com/about"),
]


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINKUP_API_KEY", "lk-test-0123456789abcdef")
    monkeypatch.setenv("YDC_API_KEY", "ydc-sk-test-0123456789abcdef")


@pytest.mark.parametrize(("name", "endpoint", "body", "url"), CASES, ids=[case[0] for case in CASES])
def test_extract_reaches_the_vendor_without_a_lookup(
    name: str, endpoint: str, body: Any, url: str, mock: respx.MockRouter, dispatch: Any, dns: Any
) -> None:
    route = mock.post(endpoint).respond(200, json=body)
    envelope = dispatch("extract", [url], backend=name)
    assert envelope["success"] is True and envelope["provider"] == name, envelope
    assert envelope["data"][0]["content"]
    assert route.called
    assert sum(dns.lookups.values()) == 0, dns.lookups


@pytest.mark.parametrize(("name", "endpoint", "body", "url"), CASES, ids=[case[0] for case in CASES])
def test_a_metadata_address_never_reaches_the_vendor(
    name: str, endpoint: str, body: Any, url: str, mock: respx.MockRouter, dispatch: Any, dns: Any
) -> None:
    route = mock.post(endpoint).respond(200, json=body)
    envelope = dispatch("extract", ["http://[fd00:ec2::254]/latest/meta-data/"], backend=name)
    assert envelope["error_code"] == "unsafe_url", envelope
    assert not route.called and sum(dns.lookups.values()) == 0
