"""A plain script may call extract at its top level: starting the workers never runs it again.

The script runs in a fresh interpreter, without an ``if __name__ == "__main__":`` guard, and
records every time its top level runs; a real HTTP server on 127.0.0.1 serves the page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .fetch_site import SiteServer

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from webproviders import dispatch_extract
    from webproviders.config import config_from_dict

    with open(sys.argv[2], "a") as runs:
        runs.write("ran\\n")
    config = config_from_dict({"web": {"allow_private_networks": True}})
    envelope = dispatch_extract(sys.argv[1], backend="http", config=config, cache=False, timeout=60)
    print(json.dumps({"success": envelope["success"], "content": envelope["data"][0].get("content", "")
                      if envelope["success"] else envelope}))
    """
)


def test_a_script_without_a_main_guard_runs_once(site: SiteServer, tmp_path: Path) -> None:
    script = tmp_path / "read_page.py"
    script.write_text(SCRIPT)
    runs = tmp_path / "runs.txt"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    finished = subprocess.run(
        [sys.executable, str(script), site.url("/articles/caching"), str(runs)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=environment,
    )
    assert finished.returncode == 0, finished.stderr
    assert runs.read_text().splitlines() == ["ran"], finished.stderr
    assert '"success": true' in finished.stdout, finished.stdout


def test_a_damaged_pdf_read_anyway_leaves_the_scripts_stderr_alone(site: SiteServer, tmp_path: Path) -> None:
    """pypdf's warnings about a PDF it reads anyway came out on the script's stderr, from the workers."""
    script = tmp_path / "read_page.py"
    script.write_text(SCRIPT)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    finished = subprocess.run(
        [sys.executable, str(script), site.url("/misplaced-xref.pdf"), str(tmp_path / "runs.txt")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=environment,
    )
    assert "Quarterly report" in finished.stdout, finished.stdout
    assert "startxref" not in finished.stderr, finished.stderr


def test_an_aes_encrypted_pdf_without_cryptography_says_what_to_install(site: SiteServer, tmp_path: Path) -> None:
    """pypdf decrypts AES only with cryptography, which the ``pdf`` extra did not install: such a
    PDF (anyone may open it) was ``provider_error``, "Extraction failed: DependencyError: ...", a
    fault of the backend's own. Run where importing cryptography fails, in the workers too."""
    pytest.importorskip("cryptography")  # to write the PDF
    blocked = tmp_path / "blocked" / "cryptography"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('not installed')\n")
    script = tmp_path / "read_page.py"
    script.write_text(SCRIPT)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocked.parent), *sys.path])}
    finished = subprocess.run(
        [sys.executable, str(script), site.url("/aes.pdf"), str(tmp_path / "runs.txt")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=environment,
    )
    envelope = json.loads(finished.stdout)["content"]
    assert envelope["error_code"] == "unsupported", envelope
    assert "pip install 'webproviders[pdf]'" in envelope["error"], envelope["error"]
