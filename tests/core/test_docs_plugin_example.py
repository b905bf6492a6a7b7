"""The third-party plugin in docs/writing-a-plugin.md works as written (installed via entry point)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest
import respx

from webproviders import dispatch_search, list_providers

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-a-plugin.md"


def _example_source() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    return next(block for block in blocks if "class AcmeProvider" in block)


@pytest.fixture
def acme_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    package = site / "acme_webproviders"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(_example_source(), encoding="utf-8")
    dist = site / "acme_webproviders-1.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-webproviders\nVersion: 1.0.0\n")
    (dist / "entry_points.txt").write_text("[webproviders]\nacme = acme_webproviders\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()


def test_the_documented_plugin_lists_searches_and_maps_errors(
    acme_installed: None, make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}})
    row = next(r for r in list_providers(config) if r["name"] == "acme")
    assert (row["source"], row["available"]) == ("entry point", False)
    assert "ACME_API_KEY is not set" in row["reason"]

    monkeypatch.setenv("ACME_API_KEY", "acme-secret-123456")
    config = make_config(web={"cache": False, "retry": {"max_retries": 0}})
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get("https://api.acme.example/v2/search").respond(
            200,
            json={"results": [{"headline": "Acme", "link": "https://acme.example/a", "summary": "s",
                               "date": "2026-11-01"}]},
        )
        envelope = dispatch_search("hello", backend="acme", config=config, time_range="week")
    assert envelope["success"] is True
    assert envelope["data"]["web"][0]["published_at"] == "2026-11-01"
    request = route.calls.last.request
    assert request.headers["X-Acme-Key"] == "acme-secret-123456"
    assert request.url.params["recency"] == "7d"

    with respx.mock() as mock:
        mock.get("https://api.acme.example/v2/search").respond(200, json={"error": {"type": "quota"}})
        failed = dispatch_search("hello", backend="acme", config=config)
    assert failed["error_code"] == "quota_exceeded"
    assert "acme-secret-123456" not in repr(failed)
