"""A page an SDK vendor returns without any text is said in ``meta.warnings``.

Tavily (``raw_content: null``), Exa (``text: ""``), Parallel (no full content, no excerpts)
and Firecrawl (``markdown: ""``) answered such a page as a plain success with an empty
``content``, while the ``http`` provider and the raw-HTTP readers say what an empty page is.
"""

from __future__ import annotations

from typing import Any

import pytest
import respx

from webproviders import dispatch_extract

from .bodies import firecrawl_document
from .conftest import settings

URL = "https://example.com/app"
EMPTY = {
    "tavily": ("https://api.tavily.com/extract", {"results": [{"url": URL, "raw_content": None}], "failed_results": []}),
    "exa": (
        "https://api.exa.ai/contents",
        {
            "requestId": "r1",
            "results": [{"id": URL, "url": URL, "title": "App", "text": ""}],
            "statuses": [{"id": URL, "status": "success"}],
        },
    ),
    "parallel": (
        "https://api.parallel.ai/v1/extract",
        {"extract_id": "e1", "session_id": "s1", "results": [{"url": URL, "excerpts": [], "full_content": None}], "errors": []},
    ),
    "firecrawl": ("https://api.firecrawl.dev/v2/scrape", {"success": True, "data": firecrawl_document(URL, "App", "")}),
}


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_a_page_returned_without_text_is_said(make_config: Any, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(f"{name.upper()}_API_KEY", "test-key-0123456789abcdef")
    endpoint, body = EMPTY[name]
    with respx.mock() as router:
        router.post(endpoint).respond(200, json=body)
        envelope = dispatch_extract([URL], backend=name, config=make_config(**settings(name)))
    assert envelope["success"] is True, envelope
    assert envelope["data"][0]["content"] == ""
    assert envelope["meta"]["warnings"] == [
        f"{name} returned no text for {URL}: the page may be empty, or its text put there by a script."
    ]
