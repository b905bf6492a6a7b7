"""The ``webproviders`` command as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webproviders.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def test_search_prints_numbered_results() -> None:
    result = run("search", "hello world", "--limit", "2", "--backend", "stub")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "1. hello world — result 1"
    assert lines[1].strip().startswith("https://stub.example.com/hello-world/")
    assert "2. hello world — result 2" in result.stdout


def test_search_json_is_the_envelope() -> None:
    result = run("search", "q", "--backend", "stub", "--json")
    envelope = json.loads(result.stdout)
    assert envelope["success"] is True and envelope["provider"] == "stub"


def test_failure_is_one_line_and_non_zero() -> None:
    result = run("search", "   ", "--backend", "stub")
    assert result.returncode == 1
    assert result.stderr.strip() == "error [invalid_input]: The query is empty; pass the words to search for."
    assert "Traceback" not in result.stderr


def test_failure_with_json_still_exits_non_zero() -> None:
    result = run("search", "q", "--backend", "no-such-backend", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error_code"] == "not_configured"


def test_extract_and_crawl() -> None:
    # An address literal: the URL check in the subprocess needs no DNS.
    site = "https://93.184.216.34"
    extract = run("extract", f"{site}/a", "--backend", "stub")
    assert extract.returncode == 0 and f"{site}/a" in extract.stdout
    crawl = run("crawl", f"{site}/", "--backend", "stub", "--max-pages", "2", "--json")
    assert [p["url"] for p in json.loads(crawl.stdout)["data"]] == [f"{site}/", f"{site}/page-1"]


def test_providers_json_lists_builtins_without_importing_sdks() -> None:
    result = run("providers", "--json")
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["stub"]["source"] == "built-in"
    assert rows["ddgs"]["capabilities"] == ["search"]


def test_config_command_explains_choices(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  search_backend: [stub, ddgs]\n  extract_backend: stub\n")
    result = run("--config", str(path), "config")
    assert result.returncode == 0
    assert "search   stub -> ddgs [chain]  (from web.search_backend)" in result.stdout
    assert "extract  stub  (from web.extract_backend)" in result.stdout


def test_bad_config_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("web:\n  timeout: later\n")
    result = run("--config", str(path), "search", "q")
    assert result.returncode == 1
    assert "'web.timeout'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("debug", [False, True])
def test_debug_shows_tracebacks(tmp_path: Path, debug: bool) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("web: [\n")
    args: list[Any] = ["--debug"] if debug else []
    result = run(*args, "--config", str(path), "providers")
    assert result.returncode == 1
    assert ("Traceback" in result.stderr) is debug


def test_version() -> None:
    from webproviders import __version__

    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"webproviders {__version__}"


def test_a_partial_extract_succeeds_and_names_the_failed_url_on_stderr() -> None:
    result = run("extract", "https://93.184.216.34/a", "ftp://example.org/b", "--backend", "stub")
    assert result.returncode == 0
    assert "https://93.184.216.34/a" in result.stdout and "ftp://" not in result.stdout
    assert "failed [invalid_input] ftp://example.org/b: The URL 'ftp://example.org/b' is not an http" in result.stderr


def test_warnings_go_to_stderr_and_stub_answers_say_they_are_not_the_web() -> None:
    result = run("search", "q", "--backend", "stub")
    assert result.returncode == 0 and "warning" not in result.stdout
    assert "warning: These are offline placeholder results from the stub backend" in result.stderr


def test_config_shows_backends_used_only_when_named_and_the_web_search_contract(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("web: {}\n")
    result = run("--config", str(path), "config", env={"WEB_SEARCH_BACKEND": "", "JINA_API_KEY": ""})
    assert "extract  http -> jina [standby]  (from auto-detect)" in result.stdout
    assert "never auto-detected (used only when named): brave-free, crawl4ai, local, stub" in result.stdout
    assert "web.search contract: stub  (WEB_SEARCH_BACKEND unset)" in result.stdout
    assert "the web.search contract answers with offline stub results" in result.stderr

    result = run("--config", str(path), "config", env={"WEB_SEARCH_BACKEND": "stub,altavista"})
    assert "web.search contract: stub  (from WEB_SEARCH_BACKEND)" in result.stdout
    assert "warning: WEB_SEARCH_BACKEND names unknown search backend(s) 'altavista'. Known: " in result.stderr
