"""A user plugin whose ``probe`` provider answers, fails or stalls as the query asks."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

PROBE_MANIFEST = """\
name: probe
kind: backend
description: Test provider for the agent integrations.
providers:
  - name: probe
    display_name: Probe
    capabilities: [search, extract]
    fetch: none
    priority: 90
    auto_detect: false
"""

PROBE_CODE = '''
"""The probe provider: the query picks the answer, an error, or a stall."""

import asyncio

from webproviders import WebSearchProvider
from webproviders import errors

FAILURES = {
    "fail-invalid": lambda: errors.InvalidInputError("The probe refused this query."),
    "fail-provider": lambda: errors.ProviderError("The probe broke."),
    "fail-unsupported": lambda: errors.UnsupportedError("The probe cannot do that."),
    "fail-timeout": lambda: errors.WebTimeoutError("The probe timed out upstream."),
    "fail-captcha": lambda: errors.BlockedError("The probe hit a CAPTCHA page.", detail="captcha_required"),
    "fail-403": lambda: errors.BlockedError("The probe got an access wall (HTTP 403).", detail="http_403"),
    "fail-ratelimit": lambda: errors.RateLimitedError("The probe is rate limited (HTTP 429).", retry_after=30),
    "fail-parse": lambda: errors.ParseError("The probe answered something unreadable."),
    "fail-network": lambda: errors.NetworkError("The probe could not be reached."),
    "fail-auth": lambda: errors.AuthError("The probe rejected the API key."),
    "fail-notconfigured": lambda: errors.NotConfiguredError("PROBE_API_KEY is not set."),
    "fail-badgateway": lambda: errors.BadGatewayError("The probe failed on its side (HTTP 502)."),
    "fail-quota": lambda: errors.QuotaExceededError("The probe is out of credits."),
    "fail-crash": lambda: RuntimeError("<html><body>upstream stack trace ... </body></html>" * 40),
}

MIXED = [
    {"title": "Files", "url": "ftp://files.example.org/pub", "description": "ftp listing"},
    {"title": "Alpha", "url": "https://alpha.example.org/", "description": "first",
     "raw_html": "<div>upstream</div>", "engine": "probe-engine", "score": 0.9},
    {"title": "Script", "url": "javascript:alert(1)", "description": "script"},
    {"title": "Alpha again", "url": "https://alpha.example.org/", "description": "duplicate"},
    {"title": "Mail", "url": "mailto:someone@example.org", "description": "mail"},
    {"title": "Beta", "url": "http://beta.example.org/page", "description": "second"},
    {"title": "", "url": "https://gamma.example.org/", "description": ""},
]


class ProbeProvider(WebSearchProvider):
    @property
    def name(self):
        return "probe"

    def is_available(self):
        return True

    def supports_extract(self):
        return True

    async def search(self, query, limit=5, **options):
        if query == "slow":
            await asyncio.sleep(30)
        if query in FAILURES:
            raise FAILURES[query]()
        return MIXED

    async def extract(self, urls, **kwargs):
        pages = []
        for url in urls:
            if "blocked" in url:
                pages.append({"url": url, "title": "", "content": "", "error": "A CAPTCHA page answered.",
                              "error_code": "blocked"})
            else:
                pages.append({"url": url, "title": "Probe page", "content": "word " * 5000})
        return pages


def register(ctx):
    ctx.register_web_search_provider(ProbeProvider())
'''


@pytest.fixture(scope="session")
def probe_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agent-plugins")
    folder = root / "probe"
    folder.mkdir()
    (folder / "plugin.yaml").write_text(PROBE_MANIFEST, encoding="utf-8")
    (folder / "__init__.py").write_text(textwrap.dedent(PROBE_CODE), encoding="utf-8")
    return root


@pytest.fixture
def probe_config(make_config: Any, probe_dir: Path) -> Any:
    """A config with the probe plugin enabled (and ``stub`` as the default backend)."""

    def build(**web: Any) -> Any:
        return make_config(
            web={"backend": "stub", **web},
            plugins={"paths": [str(probe_dir)], "enabled": ["probe"]},
        )

    return build


@pytest.fixture
def per_user_budget(make_config: Any) -> Any:
    """A config where ``stub`` costs $0.008 a search and each user may spend $0.02 a day:
    a user's third search is refused with ``budget_exceeded``."""
    return make_config(
        web={
            "backend": "stub",
            "cache": False,
            "usage": False,
            "budget": {"per_tag": {"user": {"daily_usd": 0.02}}},
            "providers": {"stub": {"price": {"search": {"usd": 0.008, "per": "request"}}}},
        }
    )
