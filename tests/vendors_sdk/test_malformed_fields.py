"""A field inside a hit that is not what the vendor documents (Exa's ``highlights``, Parallel's
``excerpts``, ``warnings`` or an extract error's ``error_type`` given as a number).

Parallel's SDK builds its models without checking the answer and Exa's keeps what it is sent,
so such a field reached our mapping as it came, and iterating it raised ``TypeError``: the
call failed with ``provider_error`` ("parallel failed: TypeError: 'int' object is not
iterable"), which a chain does not move on from. The field is now dropped and the hit kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import webproviders
from webproviders import dispatch_extract, dispatch_search
from webproviders.config import config_from_dict

from .conftest import settings
from .loopback import JsonVendor

URL = "https://a.example/"


@pytest.fixture
def vendor(http_server: Callable[..., Any]) -> Iterator[Callable[[dict[str, Any]], str]]:
    """``vendor(body)``: a loopback vendor answering every request with that JSON."""

    def start(body: dict[str, Any]) -> str:
        raw = json.dumps(body).encode()

        class Handler(JsonVendor):
            def reply(self) -> tuple[int, bytes]:
                return 200, raw

        return f"http://127.0.0.1:{http_server(Handler).server_address[1]}"

    yield start
    webproviders.close()


def _config(provider: str, url: str) -> Any:
    return config_from_dict(
        settings(provider, base_url=url, api_key=f"{provider}-test-key-0001"), source="<test>"
    )


@pytest.mark.parametrize(
    ("provider", "body"),
    [
        ("exa", {"results": [{"id": URL, "url": URL, "title": "A", "highlights": 5}]}),
        ("parallel", {"search_id": "s", "results": [{"url": URL, "title": "A", "excerpts": 5}]}),
        (
            "parallel",
            {
                "search_id": "s",
                "results": [{"url": URL, "title": "A", "excerpts": ["a"]}],
                "warnings": 5,
            },
        ),
    ],
)
def test_a_hit_field_out_of_shape_costs_that_field_not_the_answer(
    vendor: Any, provider: str, body: dict[str, Any]
) -> None:
    envelope = dispatch_search("q", backend=provider, config=_config(provider, vendor(body)))
    assert envelope["success"] is True, envelope
    assert [(hit["url"], hit["title"]) for hit in envelope["data"]["web"]] == [(URL, "A")]


def test_an_extract_error_out_of_shape_is_still_that_url_s_failure(vendor: Any) -> None:
    body = {
        "extract_id": "e",
        "results": [],
        "errors": [{"url": URL, "error_type": 5, "http_status_code": "x", "content": 7}],
    }
    envelope = dispatch_extract([URL], backend="parallel", config=_config("parallel", vendor(body)))
    assert envelope["success"] is False and envelope["error_code"] == "provider_error", envelope
    assert envelope["error"] == "Parallel could not read this page (error).", envelope
