"""Text a vendor sends that no UTF-8 encoder accepts: a lone surrogate.

JSON may spell half of a UTF-16 pair on its own (``"\\ud83d"``, a string cut between the two
halves of an emoji), and it decodes into a ``str`` that cannot be written as UTF-8: an
envelope holding one could not go over MCP, into a cache or index, or to a file. Every
string of an answer comes out with U+FFFD in its place, through an SDK vendor (``tavily``)
and a raw-HTTP one (``searxng``), on search, extract and a vendor's error sentence.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import webproviders
from webproviders.config import config_from_dict

from .conftest import settings
from .loopback import JsonVendor

H = "\\ud83d"  # half of an emoji, as the vendor's JSON spells it
SEARCH = (
    f'{{"results": [{{"url": "https://a.example/", "title": "Caf\\u00e9 {H}", '
    f'"content": "cut here: {H}", "score": 0.5, "engine": "x{H}"}}], "answer": "so {H}"}}'
)
EXTRACT = (
    f'{{"results": [{{"url": "https://a.example/", "raw_content": "page {H} text", "title": "T{H}"}}], '
    '"failed_results": []}'
)
ERROR = f'{{"detail": {{"error": "bad request {H}"}}, "error": "bad request {H}"}}'


@pytest.fixture
def vendor(http_server: Callable[..., Any]) -> Callable[[int, str], str]:
    """``vendor(status, body)``: a loopback vendor answering every request with that JSON text."""

    def start(status: int, body: str) -> str:
        raw = body.encode("ascii")

        class Handler(JsonVendor):
            def reply(self) -> tuple[int, bytes]:
                return status, raw

        return f"http://127.0.0.1:{http_server(Handler).server_address[1]}"

    return start


def _utf8(envelope: dict[str, Any]) -> str:
    """The envelope as UTF-8 JSON text, as MCP, a cache or a file writes it."""
    return json.dumps(envelope, ensure_ascii=False).encode("utf-8").decode("utf-8")


@pytest.fixture(autouse=True)
def _closed() -> Any:
    yield
    webproviders.close()


@pytest.mark.parametrize("provider", ["tavily", "searxng"])
def test_a_lone_surrogate_in_a_vendor_s_hits_becomes_a_replacement_character(
    vendor: Any, run: Any, provider: str
) -> None:
    config = config_from_dict(
        settings(provider, base_url=vendor(200, SEARCH), api_key="tvly-k-0001")
    )
    envelope = run("search", config, "q", backend=provider)
    assert envelope["success"], envelope
    hit = envelope["data"]["web"][0]
    assert hit["title"] == "Café \ufffd" and hit["description"] == "cut here: \ufffd"
    assert "\ufffd" in _utf8(envelope)


def test_a_lone_surrogate_in_an_extracted_page_becomes_a_replacement_character(
    vendor: Any, run: Any
) -> None:
    config = config_from_dict(
        settings("tavily", base_url=vendor(200, EXTRACT), api_key="tvly-k-0001")
    )
    envelope = run("extract", config, ["https://a.example/"], backend="tavily")
    assert envelope["success"], envelope
    assert envelope["data"][0]["content"] == "page \ufffd text"
    _utf8(envelope)


def test_a_lone_surrogate_in_a_vendor_s_error_sentence_becomes_a_replacement_character(
    vendor: Any, run: Any
) -> None:
    config = config_from_dict(
        settings("tavily", base_url=vendor(400, ERROR), api_key="tvly-k-0001")
    )
    envelope = run("search", config, "q", backend="tavily")
    assert envelope["error_code"] == "invalid_input"
    assert "bad request \ufffd" in envelope["error"]
    _utf8(envelope)


def test_a_lone_surrogate_in_a_vendor_s_warning_becomes_a_replacement_character(
    vendor: Any, run: Any
) -> None:
    answer = (
        '{"search_id": "s", "results": [{"url": "https://a.example/", "title": "t", '
        f'"excerpts": ["x"]}}], "warnings": [{{"type": "warning", "message": "cut {H} here"}}]}}'
    )
    config = config_from_dict(
        settings("parallel", base_url=vendor(200, answer), api_key="par-k-0001")
    )
    envelope = run("search", config, "q", backend="parallel")
    assert "parallel: cut \ufffd here" in envelope["meta"]["warnings"]
    _utf8(envelope)
