"""The licence the package declares is the one it ships, in the wheel and the sdist."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[2]


def test_the_licence_file_is_the_apache_2_text_the_metadata_declares() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")

    assert project["project"]["license"] == "Apache-2.0"
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert project["project"]["license-files"] == ["LICENSE"]
    assert "LICENSE" in project["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
