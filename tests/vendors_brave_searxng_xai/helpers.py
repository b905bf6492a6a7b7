"""Keys, URLs and assertions shared by the Brave / SearXNG / xAI tests."""

from __future__ import annotations

import json
from typing import Any

BRAVE_KEY = "BSAtestkey-0123456789abcdef"
XAI_KEY = "xai-testkey-0123456789abcdefABCDEF"
SEARX_KEY = "searx-proxy-token-0123456789"
SEARX_URL = "http://127.0.0.1:8888"
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
XAI_URL = "https://api.x.ai/v1/responses"


def assert_no_secret(envelope: dict[str, Any], *secrets: str) -> None:
    """No key (nor its tail) anywhere in the envelope."""
    text = json.dumps(envelope)
    for secret in secrets:
        assert secret not in text
        assert secret[-12:] not in text


def web(**settings: Any) -> dict[str, Any]:
    """``web`` settings for these tests: no cache and no dispatcher retries, so every call
    reaches the (mocked) vendor exactly once and an error shows up as it was mapped."""
    return {"cache": False, "retry": {"max_retries": 0}, **settings}
