"""The docs stay true to the code: every built-in provider has its row."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from webproviders import list_providers

ROOT = Path(__file__).resolve().parents[2]


def test_every_builtin_provider_has_a_row_in_providers_md(make_config: Any) -> None:
    text = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| \[`([^`]+)`\]", text, flags=re.MULTILINE))
    builtins = {row["name"] for row in list_providers(make_config()) if row["source"] == "built-in"}
    assert builtins, "no built-in providers were loaded"
    assert builtins <= documented, f"undocumented: {sorted(builtins - documented)}"
    assert documented <= builtins, f"documented but not shipped: {sorted(documented - builtins)}"


def test_every_built_in_plugin_loads_cleanly(make_config: Any) -> None:
    errors = {row["name"]: row["load_error"] for row in list_providers(make_config()) if row["load_error"]}
    assert errors == {}


def test_security_md_lists_the_whole_address_table() -> None:
    from webproviders.fetching.urlsafety import ADDRESS_TABLE

    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([^`]+)` \| (metadata|never|private) \|", text, flags=re.MULTILINE))
    assert rows == {(str(row.network), row.kind) for row in ADDRESS_TABLE}
