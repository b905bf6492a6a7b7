"""The parsed copy of a ``plugin.yaml`` kept beside the plugin's bytecode: used while the
file is unchanged, never once it changes, never written where Python writes no bytecode."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from webproviders.manifest import read_manifest

MANIFEST = """\
name: acme
description: {description}
hooks: []
providers:
  - name: acme
    capabilities: [search]
    price:
      search: {{usd: 0.004, per: request}}
      as_of: 2026-11-23
"""


@pytest.fixture
def writes_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _plugin(tmp_path: Path, description: str) -> Path:
    folder = tmp_path / "acme"
    folder.mkdir(exist_ok=True)
    (folder / "plugin.yaml").write_text(MANIFEST.format(description=description), encoding="utf-8")
    return folder


def _copy(folder: Path) -> Path:
    return Path(importlib.util.cache_from_source(str(folder / "plugin.py"))).with_name("plugin.yaml.json")


def test_the_copy_is_written_and_read_while_the_file_is_unchanged(tmp_path: Path, writes_bytecode: None) -> None:
    folder = _plugin(tmp_path, "first")
    first = read_manifest(folder)
    copy = _copy(folder)
    assert copy.is_file()
    # What the copy says is what a read returns while the file is the one it was made from.
    copy.write_bytes(copy.read_bytes().replace(b'"first"', b'"kept"'))
    assert read_manifest(folder).description == "kept"
    again = read_manifest(folder)
    assert again.providers[0].price_sheet() == first.providers[0].price_sheet()  # the date reads the same
    assert str(again.providers[0].price_sheet().as_of) == "2026-11-23"  # type: ignore[union-attr]


def test_a_changed_file_is_parsed_again_even_at_the_same_size(tmp_path: Path, writes_bytecode: None) -> None:
    folder = _plugin(tmp_path, "first")
    read_manifest(folder)
    _plugin(tmp_path, "other")  # same length, same second
    assert read_manifest(folder).description == "other"
    assert b'"other"' in _copy(folder).read_bytes()


def test_a_copy_the_models_refuse_is_ignored(tmp_path: Path, writes_bytecode: None) -> None:
    folder = _plugin(tmp_path, "first")
    read_manifest(folder)
    copy = _copy(folder)
    head, rest = copy.read_bytes().split(b"\n", 1)
    source = rest[: int(head)]
    assert source == (folder / "plugin.yaml").read_bytes()
    copy.write_bytes(head + b"\n" + source + b'{"name": "acme", "unknown_key": 1}')
    assert read_manifest(folder).description == "first"


def test_an_invalid_file_is_an_error_and_leaves_no_copy(tmp_path: Path, writes_bytecode: None) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "plugin.yaml").write_text("name: Not Valid\n", encoding="utf-8")
    with pytest.raises(ValueError, match="invalid"):
        read_manifest(folder)
    assert not _copy(folder).exists()


def test_no_copy_where_python_writes_no_bytecode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    folder = _plugin(tmp_path, "first")
    assert read_manifest(folder).description == "first"
    assert not _copy(folder).exists()


def test_a_copy_made_from_other_bytes_is_not_used(tmp_path: Path, writes_bytecode: None) -> None:
    """Only the very bytes the copy was made from select it: a copy headed by anything else
    (an earlier version's digest line, another file of the same length) is parsed over."""
    folder = _plugin(tmp_path, "first")
    read_manifest(folder)
    copy = _copy(folder)
    head, rest = copy.read_bytes().split(b"\n", 1)
    source, parsed = rest[: int(head)], rest[int(head) :]
    changed = source.replace(b"first", b"other")
    copy.write_bytes(head + b"\n" + changed + parsed.replace(b'"first"', b'"kept"'))
    assert read_manifest(folder).description == "first"
    copy.write_bytes(b"0123456789abcdef0123456789abcdef\n" + parsed.replace(b'"first"', b'"kept"'))
    assert read_manifest(folder).description == "first"
    assert copy.read_bytes().startswith(head + b"\n" + source)  # written again
