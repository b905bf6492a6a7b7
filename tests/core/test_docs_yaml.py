"""Every YAML example a user may copy loads with the real loaders, without a warning.

That is every ```yaml block under docs/ (and in the README) and config.example.yaml, each
as written, with all of its commented example lines (``# key: value``) uncommented as the
file intends, and with each such line uncommented alone (alternatives such as two
``search_backend`` lines would otherwise hide each other). A block that is a plugin's
``plugin.yaml`` (or a fragment of one: a top-level ``providers`` list) is read by the
manifest reader; anything else by the config loader.
"""

from __future__ import annotations

import logging
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

import webproviders.dispatch  # noqa: F401 - the whole package, as an application has it loaded
from webproviders.config import load_config
from webproviders.manifest import read_manifest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```ya?ml[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.MULTILINE | re.DOTALL
)
#: A commented example line: ``# `` directly followed by a key (prose comments are left alone).
EXAMPLE = re.compile(r"^(?P<indent>[ \t]*)# (?=[A-Za-z_][\w-]*:(?:[ \t]|$))", re.MULTILINE)
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


def _blocks() -> list[tuple[str, str]]:
    found = []
    for path in sorted([*ROOT.glob("docs/**/*.md"), ROOT / "README.md"]):
        for number, match in enumerate(FENCE.finditer(path.read_text(encoding="utf-8")), 1):
            found.append((f"{path.relative_to(ROOT)} block {number}", textwrap.dedent(match.group("body"))))
    found.append(("config.example.yaml", (ROOT / "config.example.yaml").read_text(encoding="utf-8")))
    return found


BLOCKS = _blocks()


def _variants(text: str) -> list[tuple[str, str]]:
    spots = list(EXAMPLE.finditer(text))
    variants = [("as written", text)]
    if spots:
        variants.append(("every example uncommented", EXAMPLE.sub(r"\g<indent>", text)))
    for spot in spots:
        line = text[spot.end() : text.find("\n", spot.end())]
        variants.append((f"only {line.strip()!r} uncommented", text[: spot.start()] + spot["indent"] + text[spot.end() :]))
    return variants


def _manifest(text: str) -> dict[str, Any] | None:
    """The block as a ``plugin.yaml`` (a fragment gets a name), or None when it is a config."""
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not ("kind" in data or isinstance(data.get("providers"), list)):
        return None
    return {"name": "docs-example", **data}


def test_the_examples_are_found() -> None:
    names = [name for name, _ in BLOCKS]
    assert len(names) >= 8
    assert "docs/dependable-dispatch.md block 1" in names and "docs/writing-a-plugin.md block 1" in names
    assert sum(len(_variants(text)) for _, text in BLOCKS) > 50


@pytest.mark.parametrize(("name", "text"), BLOCKS, ids=[name for name, _ in BLOCKS])
def test_every_yaml_example_loads_without_a_warning(
    name: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for variable in set(VARIABLE.findall(text)):
        monkeypatch.setenv(variable, f"dummy-{variable.lower()}")
    for number, (how, variant) in enumerate(_variants(text)):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="webproviders.config"):
            manifest = _manifest(variant)
            if manifest is not None:
                folder = tmp_path / f"plugin{number}"
                folder.mkdir()
                (folder / "plugin.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
                assert read_manifest(folder).providers, f"{name}, {how}: no provider"
            else:
                path = tmp_path / f"config{number}.yaml"
                path.write_text(variant, encoding="utf-8")
                load_config(path)
        warned = [r.getMessage() for r in caplog.records]
        if how != "as written":  # alternatives uncommented together set a key twice, or a cache url
            # (or the ledger's) beside the path it overrides, on purpose
            alternatives = (" is set twice in ", "web.cache.url selects the redis backend", "web.usage.url names the ledger")
            warned = [message for message in warned if not any(said in message for said in alternatives)]
        assert not warned, f"{name}, {how}: {warned}"
