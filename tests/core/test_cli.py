"""The ``webproviders`` command as a user runs it (a real subprocess)."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
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


def test_python_m_webproviders_is_the_command() -> None:
    """``python -m webproviders`` (where the script is not on PATH) said "No module named
    webproviders.__main__"."""
    done = subprocess.run(
        [sys.executable, "-m", "webproviders", "search", "q", "--limit", "1", "--backend", "stub", "--json"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["provider"] == "stub"


def test_search_prints_numbered_results() -> None:
    result = run("search", "hello world", "--limit", "2", "--backend", "stub")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "1. hello world — result 1"
    assert lines[1].strip().startswith("https://stub.example.com/hello-world/")
    assert "2. hello world — result 2" in result.stdout


class _SearxngWithLineBreaks(BaseHTTPRequestHandler):
    """SearXNG's JSON answer, whose title and snippet, written by the page, hold line breaks."""

    def do_GET(self) -> None:
        body = json.dumps({
            "query": "q", "number_of_results": 0, "answers": [], "suggestions": [], "unresponsive_engines": [],
            "results": [{
                "url": "https://example.org/real", "title": "Real\n2. Forged result\n   https://evil.example/",
                "content": "snippet\r\n3. Another forged one", "engine": "bing", "engines": ["bing"], "score": 1.0,
            }],
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_result_s_line_breaks_cannot_print_results_of_their_own(http_server: Any, tmp_path: Path) -> None:
    """A title holding line breaks printed a forged "2." result, with its own URL, above the real one."""
    port = http_server(_SearxngWithLineBreaks).server_address[1]
    path = tmp_path / "c.yaml"
    path.write_text(f"web:\n  cache: false\n  providers: {{searxng: {{base_url: 'http://127.0.0.1:{port}'}}}}\n")
    result = run("--config", str(path), "search", "q", "--backend", "searxng")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "1. Real 2. Forged result    https://evil.example/",
        "   https://example.org/real",
        "   snippet 3. Another forged one",
    ]


def test_a_query_typed_as_several_words_is_one_query() -> None:
    """``webproviders search hello world`` stopped with exit 2: 'unrecognized arguments: world'."""
    result = run("search", "hello", "world", "--limit", "1", "--backend", "stub")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "1. hello world — result 1"


def test_a_url_typed_without_its_scheme_is_refused_saying_what_to_write() -> None:
    """``webproviders extract example.com`` said only "is not an http:// or https:// address"."""
    result = run("extract", "example.com/docs", "--backend", "stub")
    assert result.returncode == 2
    assert "The URL 'example.com/docs' is not an http:// or https:// address: write it with its scheme, " \
        "'https://example.com/docs'." in result.stderr


def test_search_json_is_the_envelope() -> None:
    result = run("search", "q", "--backend", "stub", "--json")
    envelope = json.loads(result.stdout)
    assert envelope["success"] is True and envelope["provider"] == "stub"


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "cp1252"])
def test_a_terminal_that_cannot_show_the_text_gets_it_escaped_not_a_failure(encoding: str) -> None:
    """Before, a search whose results held a character the terminal's encoding lacks (the stub's
    em dash under ``LANG=C``, a cp1252 console) exited 1 with "provider_error: 'ascii' codec
    can't encode", after the search had succeeded."""
    env = {"PYTHONIOENCODING": encoding}
    text = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "search", "café 東京", "--limit", "1", "--backend", "stub"],
        capture_output=True, timeout=60, env={**os.environ, **env},
    )
    assert text.returncode == 0, text.stderr
    first = text.stdout.decode(encoding).splitlines()[0]
    assert first.startswith("1. caf") and "\\u6771\\u4eac" in first and "Traceback" not in text.stderr.decode(encoding)
    as_json = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "search", "café 東京", "--backend", "stub", "--json"],
        capture_output=True, timeout=60, env={**os.environ, **env},
    )
    assert as_json.returncode == 0, as_json.stderr
    envelope = json.loads(as_json.stdout.decode(encoding))  # exact: JSON's own escapes
    assert envelope["data"]["web"][0]["title"] == "café 東京 — result 1"


def test_an_ascii_locale_without_utf8_mode_reads_the_query_and_escapes_the_results() -> None:
    """``LC_ALL=C`` with Python's UTF-8 mode and locale coercion off: the query's UTF-8 bytes
    arrived as lone surrogates (refused as ``invalid_input``), and an em dash in the results
    ended the command with "'ascii' codec can't encode" (stdout's handler is surrogateescape)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONIOENCODING"))}
    env.update({"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"})
    done = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "search", "café 東京", "--limit", "1", "--backend", "stub"],
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("ascii").splitlines()[0] == "1. caf\\xe9 \\u6771\\u4eac \\u2014 result 1"


@pytest.mark.parametrize("command", ["extract", "crawl"])
def test_an_ascii_locale_without_utf8_mode_reads_a_url_as_typed(command: str) -> None:
    """The same for a URL: ``webproviders extract https://.../wiki/東京`` was refused as
    ``invalid_input`` ("a lone surrogate") where the same word as a query was read."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONIOENCODING"))}
    env.update({"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"})
    done = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", command, "https://stub.example.com/wiki/東京", "--backend", "stub", "--json"],
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["data"][0]["url"] == "https://stub.example.com/wiki/東京"


def test_failure_is_one_line_and_non_zero() -> None:
    result = run("search", "   ", "--backend", "stub")
    assert result.returncode == 2
    assert result.stderr.strip() == "error [invalid_input]: The query is empty; pass the words to search for."
    assert "Traceback" not in result.stderr


def test_failure_with_json_still_exits_non_zero() -> None:
    result = run("search", "q", "--backend", "no-such-backend", "--json")
    assert result.returncode == 2  # a name no provider has, on the command line: bad usage
    assert json.loads(result.stdout)["error_code"] == "invalid_input"


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


def test_providers_says_which_capability_still_needs_a_key() -> None:
    """jina's reader works without a key, its search does not: the listing said "ready" for
    search and extract alike, and a search on it then failed with not_configured."""
    keyless = {k: v for k, v in os.environ.items() if k != "JINA_API_KEY"}
    table = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "providers"], capture_output=True, text=True, timeout=60, env=keyless
    )
    jina = next(line for line in table.stdout.splitlines() if line.startswith("jina "))
    assert " ready " in jina and jina.endswith("  (search: JINA_API_KEY is not set (or web.providers.jina.api_key))")
    rows = {row["name"]: row for row in json.loads(run("providers", "--json", env={"JINA_API_KEY": "jina_k"}).stdout)}
    assert rows["jina"]["available"] is True and rows["jina"]["unavailable_for"] == {}
    rows = {row["name"]: row for row in json.loads(
        subprocess.run([sys.executable, "-m", "webproviders.cli", "providers", "--json"],
                       capture_output=True, text=True, timeout=60, env=keyless).stdout
    )}
    assert rows["jina"]["unavailable_for"] == {"search": "JINA_API_KEY is not set (or web.providers.jina.api_key)"}


def test_config_command_explains_choices(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  search_backend: [stub, ddgs]\n  extract_backend: stub\n")
    result = run("--config", str(path), "config")
    assert result.returncode == 0
    assert "search   stub -> ddgs [chain]  (from web.search_backend)" in result.stdout
    assert "extract  stub  (from web.extract_backend)" in result.stdout


def test_config_command_names_the_variable_that_chose_a_backend(tmp_path: Path) -> None:
    """``WEB_SEARCH_BACKEND`` (or ``WEB_BACKEND``) overriding the file was shown as the file's
    key: ``search ddgs (from web.backend)`` beside a file that says ``backend: stub``."""
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  backend: stub\n  extract_backend: stub\n")
    result = run("--config", str(path), "config", env={"WEB_BACKEND": "ddgs", "WEB_SEARCH_BACKEND": ""})
    assert result.returncode == 0, result.stderr
    assert "search   ddgs  (from WEB_BACKEND)" in result.stdout
    assert "extract  stub  (from web.extract_backend)" in result.stdout
    report = json.loads(run("--config", str(path), "config", "--json", env={"WEB_SEARCH_BACKEND": "ddgs,stub"}).stdout)
    assert report["capabilities"]["search"]["source"] == "WEB_SEARCH_BACKEND"
    assert report["capabilities"]["crawl"]["source"] == "web.backend"


def test_an_override_of_only_commas_is_not_named_as_the_unknown_backend(tmp_path: Path) -> None:
    """``WEB_BACKEND=,`` names no backend, so the file's unknown one is the one to fix."""
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  backend: nosuch\n")
    result = run("--config", str(path), "config", env={"WEB_BACKEND": " , "})
    assert result.returncode == 3
    assert "error: web.backend names 'nosuch'" in result.stderr, result.stderr


def test_bad_config_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("web:\n  timeout: later\n")
    result = run("--config", str(path), "search", "q")
    assert result.returncode == 3
    assert "'web.timeout'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("debug", [False, True])
def test_debug_shows_tracebacks(tmp_path: Path, debug: bool) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("web: [\n")
    args: list[Any] = ["--debug"] if debug else []
    result = run(*args, "--config", str(path), "providers")
    assert result.returncode == (1 if debug else 3)  # a traceback is Python's own exit
    assert ("Traceback" in result.stderr) is debug


def test_version() -> None:
    from webproviders import __version__

    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"webproviders {__version__}"


def test_a_partial_extract_prints_what_was_read_names_the_failed_url_and_exits_8() -> None:
    result = run("extract", "https://93.184.216.34/a", "ftp://example.org/b", "--backend", "stub")
    assert result.returncode == 8
    assert "https://93.184.216.34/a" in result.stdout and "ftp://" not in result.stdout
    assert "failed [invalid_input] ftp://example.org/b: The URL 'ftp://example.org/b' is not an http" in result.stderr


def test_warnings_go_to_stderr_and_stub_answers_say_they_are_not_the_web() -> None:
    result = run("search", "q", "--backend", "stub")
    assert result.returncode == 0 and "warning" not in result.stdout
    assert "warning: These are offline placeholder results from the stub backend" in result.stderr


def test_a_store_that_is_down_is_said_once(tmp_path: Path) -> None:
    """The cache's outage is in the call's warnings, which the command prints; the library's
    log line for services says the same, so the command leaves it out (``--debug`` keeps it)."""
    import socket

    with socket.socket() as probe:  # a loopback port with nothing listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "config.yaml"
    config.write_text(f"web:\n  cache:\n    url: redis://127.0.0.1:{port}/0\n  usage: false\n", encoding="utf-8")
    env = {"WEBPROVIDERS_CONFIG": str(config)}
    result = run("search", "q", "--backend", "stub", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("The cache (redis) failed") == 1, result.stderr
    assert "warning: The cache (redis) failed" in result.stderr
    debug = run("--debug", "search", "q", "--backend", "stub", env=env)
    assert debug.stderr.count("The cache (redis) failed") == 2, debug.stderr


def test_main_called_by_a_program_leaves_its_log_handlers_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """The command leaves its own duplicate log lines out with a filter on the handler it
    installs; a program that calls ``main()`` keeps its handlers (and every record) as they were."""
    import logging

    from webproviders.cli import main

    root = logging.getLogger()
    mine = logging.StreamHandler()
    root.addHandler(mine)
    try:
        before = {handler: list(handler.filters) for handler in root.handlers}
        assert main(["providers", "--json"]) == 0
        assert {handler: list(handler.filters) for handler in before} == before
    finally:
        root.removeHandler(mine)
    capsys.readouterr()


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


@pytest.mark.parametrize("args, env, code", [
    (["config", "--json"], {}, "not_configured"),  # a config file that is not YAML
    (["search", "q", "--json"], {}, "not_configured"),
    (["search", "q", "--json"], {"WEB_BACKEND": "nosuch"}, "not_configured"),
])
def test_json_is_json_even_for_a_failure_before_any_call(
    args: list[str], env: dict[str, str], code: str, tmp_path: Path
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("web: [1\n" if not env else "web: {}\n", encoding="utf-8")
    result = run("--config", str(config), *args, env=env)
    assert result.returncode == 3
    failure = json.loads(result.stdout)
    assert failure["success"] is False and failure["error_code"] == code and failure["error"]


def test_a_usage_error_with_json_is_json_and_without_it_argparse_s_line() -> None:
    """A command line argparse refuses: exit 2 either way; with ``--json`` stdout still holds one
    JSON object, without it stderr has argparse's own usage and error lines."""
    as_json = run("search", "q", "--limit", "many", "--json")
    assert as_json.returncode == 2
    failure = json.loads(as_json.stdout)
    assert failure["error_code"] == "invalid_input" and "--limit" in failure["error"] and "'many'" in failure["error"]
    plain = run("search", "q", "--limit", "many")
    assert plain.returncode == 2 and plain.stdout == ""
    assert plain.stderr.startswith("usage: webproviders search")
    assert "webproviders search: error: argument --limit: invalid int value: 'many'" in plain.stderr


def test_an_option_of_the_command_itself_after_the_subcommand_says_where_it_goes(tmp_path: Path) -> None:
    """``webproviders extract --allow-private URL`` said only "unrecognized arguments:
    --allow-private", though the option exists: it goes before the subcommand."""
    plain = run("extract", "--allow-private", "--debug", "http://127.0.0.1:9/")
    assert plain.returncode == 2
    assert plain.stderr.endswith(
        "webproviders: error: unrecognized arguments: --allow-private --debug; --allow-private, --debug go "
        "before the command: webproviders --allow-private --debug extract ...\n"
    ), plain.stderr
    as_json = run("usage", "--json", f"--config={tmp_path / 'c.yaml'}")
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["error"].endswith(
        "; --config goes before the command: webproviders --config PATH usage ..."
    )
    other = run("extract", "--allow-privat", "http://127.0.0.1:9/")
    assert other.stderr.endswith("webproviders: error: unrecognized arguments: --allow-privat\n")


def test_a_closed_pipe_ends_quietly_with_141() -> None:
    """``webproviders search ... | head -0`` exited 0, so a script could not tell that the answer
    was never read; 141 is what a shell reports for a command a closed pipe ended."""
    reader = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", "search", "pipes", "--backend", "stub", "--limit", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()  # what `| head` does once it has its lines
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=60) == 141
    assert "Broken pipe" not in err and "Traceback" not in err and "Exception ignored" not in err


@pytest.mark.parametrize("argv", [("search", "q", "--limit", "many", "--json"), ("extract", "--json")])
def test_a_refused_command_line_as_json_to_a_closed_pipe_ends_quietly_with_141(argv: tuple[str, ...]) -> None:
    """A command line argparse refuses, with ``--json``, writes its failure as JSON on stdout:
    to a pipe whose reader had gone that was a ``BrokenPipeError`` traceback and exit 1."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # `| head -0` that has already gone
    try:
        done = subprocess.run(
            [sys.executable, "-m", "webproviders.cli", *argv], stdout=write_end, stderr=subprocess.PIPE,
            timeout=60, text=True,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "Broken pipe" not in done.stderr


@pytest.mark.parametrize("argv", [("--help",), ("search", "--help"), ("--version",)])
def test_help_that_cannot_be_written_is_not_an_exit_with_0(argv: tuple[str, ...]) -> None:
    """argparse drops the error of writing ``--help`` or ``--version``: to a closed pipe, or to
    a command started without stdout, the command exited 0 having written nothing."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        piped = subprocess.run(
            [sys.executable, "-m", "webproviders.cli", *argv], stdout=write_end, stderr=subprocess.PIPE,
            timeout=60, text=True,
        )
    finally:
        os.close(write_end)
    assert piped.returncode == 141 and "Traceback" not in piped.stderr, piped.stderr
    closed = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        timeout=60, text=True, preexec_fn=lambda: os.close(1),
    )
    assert closed.returncode == 1
    assert closed.stderr == "error: the output could not be written: the command has no stdout to write to.\n"
    assert run(*argv).returncode == 0


def test_a_closed_pipe_on_stderr_loses_only_the_warnings(tmp_path: Path) -> None:
    """The stub's warning met stderr's closed pipe after the answer was written, and the
    command exited as if its answer had been lost."""
    answer = tmp_path / "answer.txt"
    with answer.open("w") as out:
        reader = subprocess.Popen(
            [sys.executable, "-m", "webproviders.cli", "search", "pipes", "--backend", "stub"],
            stdout=out,
            stderr=subprocess.PIPE,
        )
        assert reader.stderr is not None
        reader.stderr.close()  # `2>&1 >answer.txt | head -0`
        assert reader.wait(timeout=60) == 0
    assert answer.read_text().startswith("1. pipes")


@pytest.mark.parametrize(("argv", "code"), [(("search", "", "--json"), 2), (("search", "x", "--backend", "stub"), 1)])
def test_a_command_started_without_stdout_fails_saying_its_answer_was_lost(argv: tuple[str, ...], code: int) -> None:
    """``webproviders search ... >&-``: an AttributeError on the None stdout, a traceback and
    exit 1; then an exit with 0 for an answer written nowhere. A failure keeps its own code."""
    done = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        timeout=60, text=True, preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == code and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.endswith(
        "error: the output could not be written: the command has no stdout to write to.\n"
    ), done.stderr


@pytest.mark.parametrize(("closed", "missing"), [(0, "stdin"), (1, "stdout")])
def test_the_stdio_server_started_without_stdin_or_stdout_says_so(closed: int, missing: str) -> None:
    """``webproviders mcp <&-`` failed with "error: [Errno 22] Invalid argument"; ``>&-``
    served no one and exited 0."""
    done = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "mcp"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, timeout=60, text=True, preexec_fn=lambda: os.close(closed),
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"error: webproviders mcp serves over stdin and stdout, and this command was started without its {missing}: "
        "start it from an MCP client, or serve HTTP with --http.\n"
    )


def _stderr_open_for_reading() -> None:
    os.dup2(os.open(os.devnull, os.O_RDONLY), 2)


def test_a_command_whose_stderr_cannot_be_written_exits_as_its_work_went() -> None:
    """``2>&-`` through a launcher that is a shell script (pyenv's shims): the descriptor is
    the script, open for reading, and the stub's warning failed the command with exit 1."""
    done = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "search", "x", "--backend", "stub"],
        stdout=subprocess.PIPE,
        timeout=60,
        text=True,
        preexec_fn=_stderr_open_for_reading,
    )
    assert done.returncode == 0 and done.stdout.startswith("1. x"), done.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, a file that is always full")
@pytest.mark.parametrize("as_json", [False, True])
def test_an_answer_that_cannot_be_written_out_fails_saying_so(as_json: bool) -> None:
    """``webproviders search ... > file`` on a full disk: the answer was dropped without a word
    and the command exited 0, so a script took the empty file for the answer."""
    argv = [sys.executable, "-m", "webproviders.cli", "search", "x", "--backend", "stub", "--limit", "50"]
    with open("/dev/full", "w") as full:
        done = subprocess.run(argv + (["--json"] if as_json else []), stdout=full, stderr=subprocess.PIPE,
                              timeout=60, text=True)
    assert done.returncode == 1, done.stderr
    assert "error: the output could not be written to stdout (No space left on device)." in done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def _commands() -> dict[str, Any]:
    import argparse

    from webproviders.cli import _parser

    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"webproviders": parser, **sub.choices}


def test_every_option_has_help_and_shows_its_default() -> None:
    for name, parser in _commands().items():
        text = parser.format_help()
        for action in parser._actions:
            if action.dest in ("help", "version", "command"):
                continue
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"
            if action.option_strings and action.default not in (None, False):
                assert f"(default: {action.default})" in text, f"{name} {action.option_strings}"
        if name != "webproviders":
            assert "exit codes:" in text


def test_config_json(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  search_backend: [stub, ddgs]\n  budget: {daily_usd: 0.005}\n")
    result = run("--config", str(path), "config", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["config"] == str(path)
    assert report["capabilities"]["search"] == {
        "backends": ["stub", "ddgs"], "mode": "chain", "source": "web.search_backend"
    }
    assert report["budgets"] == [{"setting": "web.budget.daily_usd", "usd": 0.005}]
    assert report["errors"] == [] and "stub" in report["never_auto_detected"]


def test_a_chain_member_whose_plugin_is_off_is_not_called_unknown(tmp_path: Path) -> None:
    """``plugins.disabled: [brave]`` beside ``search_backend: [brave, stub]``: the command
    stopped with exit 3 saying brave is no installed provider, where the library's chain goes
    on to stub; and ``config`` called it unknown, beside its plan saying why it is off."""
    path = tmp_path / "c.yaml"
    path.write_text("plugins:\n  disabled: [brave]\nweb:\n  search_backend: [brave, stub]\n")
    searched = run("--config", str(path), "search", "q", "--json")
    assert searched.returncode == 0, searched.stderr
    envelope = json.loads(searched.stdout)
    assert envelope["provider"] == "stub" and envelope["meta"]["attempts"][0]["provider"] == "brave"
    report = run("--config", str(path), "config", "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["errors"] == []
    path.write_text("plugins:\n  disabled: [brave]\nweb:\n  search_backend: brave\n")
    alone = run("--config", str(path), "search", "q")
    assert alone.returncode == 3
    assert alone.stderr == "error [not_configured]: Backend 'brave' is not available: plugins.disabled turns it off.\n"


@pytest.mark.parametrize("command", [["config"], ["config", "--json"], ["search", "q"], ["extract", "https://93.184.216.34/"]])
def test_an_unknown_web_backend_is_an_error_naming_it(command: list[str], tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("web: {}\n")
    result = run("--config", str(path), *command, env={"WEB_BACKEND": "nosuch"})
    assert result.returncode == 3
    assert "error: $WEB_BACKEND names 'nosuch', which no installed provider is (known: " in result.stderr


def test_an_unknown_backend_stops_only_the_commands_that_read_it() -> None:
    """A typo in $WEB_CRAWL_BACKEND stopped every search with exit 3, though no search reads it
    (the library served it); so did one in $WEB_BACKEND with --backend naming another."""
    env = {"WEB_CRAWL_BACKEND": "nosuch", "WEB_SEARCH_BACKEND": "stub"}
    assert run("search", "q", "--limit", "1", env=env).returncode == 0
    assert run("search", "q", "--limit", "1", "--backend", "stub", env={"WEB_BACKEND": "nosuch"}).returncode == 0
    crawl = run("crawl", "https://93.184.216.34/", env=env)
    assert crawl.returncode == 3
    assert "error: $WEB_CRAWL_BACKEND names 'nosuch', which no installed provider is" in crawl.stderr


def test_an_unknown_backend_name_a_typo_away_says_which_one_was_meant(tmp_path: Path) -> None:
    """The table line said "Did you mean 'brave'?"; the error the command stops on (exit 3)
    listed 25 names and left the reader to spot the typo."""
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  search_backend: [bravee, stub]\n")
    result = run("--config", str(path), "search", "q")
    assert result.returncode == 3
    assert "error: web.search_backend names 'bravee', which no installed provider is (known: " in result.stderr
    assert "stub, tavily, xai, you). Did you mean 'brave'?\n" in result.stderr


@pytest.mark.parametrize("command", [["config"], ["search", "q", "--limit", "1"]])
def test_a_chain_written_with_commas_in_the_file_is_read_as_the_chain_it_is(command: list[str], tmp_path: Path) -> None:
    """``search_backend: ${CHAIN}`` with ``CHAIN=stub,ddgs``: the library ran it as the chain
    stub -> ddgs, but the command stopped with exit 3 saying 'stub,ddgs' was no provider."""
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  search_backend: ${CHAIN}\n")
    result = run("--config", str(path), *command, env={"CHAIN": "stub, ddgs"})
    assert result.returncode == 0, result.stderr
    assert "which no installed provider is" not in result.stderr
    misspelt = run("--config", str(path), *command, env={"CHAIN": "stub,ddgss"})
    assert misspelt.returncode == 3
    assert "web.search_backend names 'ddgss', which no installed provider is" in misspelt.stderr


@pytest.mark.parametrize("command", [["config"], ["config", "--json"], ["search", "q"]])
def test_a_key_given_where_a_backend_name_was_meant_is_not_printed(
    command: list[str], tmp_path: Path
) -> None:
    """``search_backend: ${TAVILY_API_KEY}`` (or the key set in $WEB_SEARCH_BACKEND): the
    error naming the unknown backend must not print the key it is."""
    key = "tvly-Mixed0Up0Key0123456789"
    path = tmp_path / "c.yaml"
    path.write_text('web:\n  search_backend: [stub, "${TAVILY_API_KEY}"]\n')
    result = run("--config", str(path), *command, env={"TAVILY_API_KEY": key})
    assert result.returncode == 3
    assert "web.search_backend names '***', which no installed provider is" in result.stdout + result.stderr
    assert "Mixed0Up0Key" not in result.stdout + result.stderr


def test_money_is_shown_with_the_precision_of_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "web:\n  cache: false\n  usage: false\n  budget: {daily_usd: 0.005}\n"
        "  providers: {stub: {price: {search: {usd: 0.008, per: request}}}}\n"
    )
    assert "budget: $0.005  (web.budget.daily_usd)" in run("--config", str(path), "config").stdout
    refused = run("--config", str(path), "search", "q", "--backend", "stub")
    assert refused.returncode == 5
    assert "($0.005, web.budget.daily_usd)" in refused.stderr and "$0.01" not in refused.stderr


class Page(BaseHTTPRequestHandler):
    """A loopback site: /page is an article, anything else a 404."""

    def do_GET(self) -> None:
        found = self.path == "/page"
        body = (
            b"<html><head><title>Loopback page</title></head><body><article><p>"
            + b"Words on a page served from this machine for the command line. " * 8
            + b"</p></article></body></html>"
            if found
            else b"<html><body>gone</body></html>"
        )
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("backend", ["http", "stub"])
def test_an_extract_leaves_no_process_behind(backend: str, http_server: Any) -> None:
    """The command starts an extraction worker as it starts (so the worker is ready when the
    page arrives); whether or not the chain used it, nothing of the command outlives it."""
    url = f"http://127.0.0.1:{http_server(Page).server_address[1]}/page"
    command = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", "--allow-private", "extract", url, "--backend", backend],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    out, _err = command.communicate(timeout=60)
    assert command.returncode == 0 and url in out
    with pytest.raises(ProcessLookupError):  # its process group is empty: no worker left running
        os.killpg(command.pid, 0)



def test_an_extract_leaves_the_page_parsers_to_the_workers(http_server: Any) -> None:
    """The command sends the page to an extraction worker: trafilatura, lxml and our
    corrections to trafilatura load there, never in the command's own process."""
    url = f"http://127.0.0.1:{http_server(Page).server_address[1]}/page"
    script = (
        "import json, sys\nfrom webproviders.cli import main\n"
        f"code = main(['--allow-private', 'extract', {url!r}, '--backend', 'http'])\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\nsys.exit(code)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "Words on a page" in done.stdout, done.stderr
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "webproviders.fetching.extraction" in loaded  # the page went through it
    parsers = ("trafilatura", "lxml", "webproviders.fetching.boilerplate", "webproviders.fetching.pagetype",
               "webproviders.fetching.pagetext", "webproviders.fetching.mdtidy")
    assert not {m for m in loaded for p in parsers if m == p or m.startswith(p + ".")}

def test_the_command_does_not_load_the_http_clients_own_command_line(http_server: Any) -> None:
    """``import httpx`` loads httpx's command line (click, and rich where installed) unless
    that fails: a cost on every extract's start for a command this process never runs."""
    url = f"http://127.0.0.1:{http_server(Page).server_address[1]}/page"
    script = (
        "import atexit, json, sys\nfrom webproviders.cli import run\n"
        "atexit.register(lambda: sys.stderr.write(json.dumps(sorted(k for k, v in sys.modules.items() if v))))\n"
        f"sys.argv = ['webproviders', '--allow-private', 'extract', {url!r}, '--backend', 'http']\nrun()"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "Words on a page" in done.stdout, done.stderr
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "httpx" in loaded  # the page was fetched through it
    assert not {m for m in loaded if m in ("httpx._main", "click", "rich") or m.startswith(("click.", "rich."))}


def test_allow_private_by_flag_or_environment(http_server: Any) -> None:
    url = f"http://127.0.0.1:{http_server(Page).server_address[1]}/page"
    refused = run("extract", url, "--backend", "http")
    assert refused.returncode == 2 and "[unsafe_url]" in refused.stderr
    by_flag = run("--allow-private", "extract", url, "--backend", "http")
    assert by_flag.returncode == 0 and "Words on a page served" in by_flag.stdout
    by_env = run("extract", url, "--backend", "http", env={"WEB_ALLOW_PRIVATE_NETWORKS": "1"})
    assert by_env.returncode == 0 and "Loopback page" in by_env.stdout
    wrong = run("extract", url, "--backend", "http", env={"WEB_ALLOW_PRIVATE_NETWORKS": "maybe"})
    assert wrong.returncode == 3 and "WEB_ALLOW_PRIVATE_NETWORKS must be one of" in wrong.stderr


def test_not_found_and_partial_extract_exit_codes(http_server: Any) -> None:
    base = f"http://127.0.0.1:{http_server(Page).server_address[1]}"
    missing = run("--allow-private", "extract", f"{base}/gone", "--backend", "http")
    assert missing.returncode == 7 and "[not_found]" in missing.stderr
    partial = run("--allow-private", "extract", f"{base}/page", f"{base}/gone", "--backend", "http")
    assert partial.returncode == 8 and "Words on a page" in partial.stdout
    assert f"failed [not_found] {base}/gone" in partial.stderr


@pytest.mark.parametrize(
    ("status", "code"),
    [(401, 4), (429, 5), (432, 5), (503, 6)],
    ids=["auth", "rate-limited", "plan-limit", "vendor-5xx"],
)
def test_vendor_failures_exit_with_their_class(
    status: int, code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import respx

    from webproviders.cli import main

    path = tmp_path / "c.yaml"
    path.write_text("web:\n  cache: false\n  retry: {max_retries: 0}\n")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-dev-CliExitCodes0001")
    with respx.mock() as router:
        router.post("https://api.tavily.com/search").respond(status, json={"detail": {"error": "No."}})
        assert main(["--config", str(path), "search", "q", "--backend", "tavily"]) == code
    assert capsys.readouterr().err.startswith("error [")


def test_a_network_failure_exits_6(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from webproviders.cli import main

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    path = tmp_path / "c.yaml"
    path.write_text(f"web:\n  cache: false\n  retry: {{max_retries: 0}}\n  providers: {{searxng: {{base_url: 'http://127.0.0.1:{port}'}}}}\n")
    assert main(["--config", str(path), "search", "q", "--backend", "searxng"]) == 6
    assert "error [network_error]" in capsys.readouterr().err


def test_debug_shows_our_decisions_and_no_other_librarys_chatter() -> None:
    result = run("--debug", "search", "q", "--backend", "stub", "--limit", "2")
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    assert "debug: plan: search by stub (from argument)" in lines
    assert "debug: cache: not from the cache" in lines
    assert any(line.startswith("debug: attempt: stub ok") for line in lines)
    others = [
        line for line in lines
        if not line.startswith(("debug:", "warning:")) and " webproviders" not in line
    ]
    assert others == []


def test_the_command_writes_its_usage_row_before_it_exits(http_server: Any, tmp_path: Path) -> None:
    """The command skips the collector's passes at exit, not the exit's steps: the usage
    ledger's row, written by an atexit handler, is there afterwards."""
    url = f"http://127.0.0.1:{http_server(Page).server_address[1]}/page"
    result = run("--allow-private", "extract", url, "--backend", "http", env={"XDG_DATA_HOME": str(tmp_path)})
    assert result.returncode == 0 and "Words on a page served" in result.stdout
    with sqlite3.connect(tmp_path / "webproviders" / "usage.sqlite3") as ledger:
        rows = ledger.execute("SELECT provider, capability, outcome FROM usage").fetchall()
    assert rows == [("http", "extract", "ok")]


def test_usage_by_tag_shows_a_tag_s_control_characters_escaped(tmp_path: Path) -> None:
    """A tag's value is whatever the caller passed (an end user's name, say), and its escape
    sequences reached the terminal raw from ``webproviders usage --by tag:user``."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    script = (
        "from webproviders import dispatch_search\n"
        "assert dispatch_search('q', backend='stub', tags={'user': 'eve\\x1b]0;owned\\x07'})['success']\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60, env=env)
    result = run("usage", "--by", "tag:user", env={"XDG_DATA_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "eve\\x1b]0;owned\\x07" in result.stdout


def test_handlers_registered_before_the_command_still_run_at_exit(tmp_path: Path) -> None:
    """Whatever the process registered before the command started (a tracing SDK loaded by
    ``sitecustomize``, say) still runs when the command ends, and the exit code is kept."""
    script = (
        "import atexit, sys\n"
        "atexit.register(print, 'registered before the command', flush=True)\n"
        "from webproviders.cli import run\n"
        "sys.argv = ['webproviders', 'search', 'hello', '--backend', 'no-such-backend']\n"
        "run()\n"
    )
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 2  # bad usage (an unknown --backend), as without the quick exit
    assert result.stdout.splitlines()[-1] == "registered before the command"


class Hanging(BaseHTTPRequestHandler):
    """Holds every request until the test ends; ``arrived`` is set by the first."""

    arrived = threading.Event()

    def do_GET(self) -> None:
        Hanging.arrived.set()
        self.server.released.wait(60)  # type: ignore[attr-defined]

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("output", [[], ["--json"]])
def test_ctrl_c_during_a_call_ends_it_at_once_with_130_and_one_line(output: list[str], http_server: Any) -> None:
    import signal

    Hanging.arrived.clear()
    url = f"http://127.0.0.1:{http_server(Hanging).server_address[1]}/slow"
    command = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", "--allow-private", "extract", url, "--backend", "http", *output],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal starts it
    )
    assert Hanging.arrived.wait(30), "the command never asked for the page"
    # The page's request has arrived; the command is still finishing its send for a moment. A
    # Ctrl-C inside those microseconds can land between an HTTP trace's exit being made and
    # awaited, and Python says so when it collects it: this test is of a command waiting.
    time.sleep(0.2)
    command.send_signal(signal.SIGINT)
    out, err = command.communicate(timeout=30)  # not the page's 60 s, nor the call's deadline
    assert command.returncode == 130
    assert out == "" and err == "interrupted\n"


def test_sigterm_ends_the_call_as_ctrl_c_does_and_its_ddgs_worker_with_it(tmp_path: Path) -> None:
    """``timeout 10 webproviders search ...`` sends SIGTERM: its default action ended the command
    alone, and the ddgs worker it had started went on searching, holding its connection open
    until its own 60 s timeout."""
    import signal
    import socket

    pytest.importorskip("ddgs")
    proxy = socket.create_server(("127.0.0.1", 0))  # takes the connection, never answers
    proxy.settimeout(30)
    path = tmp_path / "c.yaml"
    path.write_text(
        f"web:\n  proxy: http://127.0.0.1:{proxy.getsockname()[1]}\n  cache: false\n  usage: false\n"
        "  providers:\n    ddgs: {backend: duckduckgo, timeout: 60, max_retries: 0}\n"
    )
    command = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", "--config", str(path), "search", "q", "--backend", "ddgs"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    with proxy, proxy.accept()[0] as worker_connection:
        worker_connection.settimeout(20)
        # the ddgs worker is searching once it has asked the proxy (connected is not enough:
        # a signal between the two closed the connection before it said anything)
        assert worker_connection.recv(1024).startswith(b"CONNECT ")
        command.send_signal(signal.SIGTERM)
        out, err = command.communicate(timeout=30)
        assert command.returncode == 143
        assert out == "" and err == "terminated\n"
        with contextlib.suppress(ConnectionResetError):
            assert worker_connection.recv(1024) == b""  # closed: the worker is gone


#: Ctrl-C pressed while the command is still starting: a real SIGINT, sent as the module of
#: the extraction workers (which ``extract`` loads before its call) begins to load.
_CTRL_C_AT_START = """
import os, signal, sys

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "webproviders.fetching.extractpool":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlC())
from webproviders.cli import run
sys.argv = ["webproviders", "--allow-private", "extract", "http://127.0.0.1:9/", "--backend", "http"]
run()
"""


def test_ctrl_c_while_the_command_starts_is_one_line_and_130_not_a_traceback() -> None:
    """Pressed before the call began (a typo seen at once, on a machine where the start takes
    a second), Ctrl-C ended the command with a KeyboardInterrupt traceback through the
    modules it was loading."""
    import signal

    done = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AT_START], capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal starts it
    )
    assert done.returncode == 130
    assert done.stdout == "" and done.stderr == "interrupted\n"


_COLLECTOR_PROBE = """
import gc
from pathlib import Path

def before_dispatch(capability, backend, arguments):
    with open(Path(__file__).parent / "seen.txt", "a", encoding="utf-8") as seen:
        seen.write(f"{capability} {gc.isenabled()}\\n")
"""


def test_a_command_that_may_run_long_keeps_the_cyclic_collector(write_plugin: Any, tmp_path: Path) -> None:
    """A search or an extract answers once and runs without the collector's passes; a crawl
    (and the index, and the MCP server) may run for hours, and must free its cycles as it goes."""
    root = write_plugin("probe", _COLLECTOR_PROBE)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{root}]\n  enabled: [probe]\n", encoding="utf-8")
    env = {"WEBPROVIDERS_CONFIG": str(config)}
    site = "https://93.184.216.34"  # an address literal: the URL check needs no DNS
    for args in (("search", "q"), ("extract", f"{site}/a"), ("crawl", f"{site}/")):
        done = run(*args, "--backend", "stub", env=env)
        assert done.returncode == 0, done.stderr
    seen = (root / "probe" / "seen.txt").read_text(encoding="utf-8").split("\n")
    assert seen[:3] == ["search False", "extract False", "crawl True"]
    # Called as a library function, the command leaves the collector as the caller had it.
    import gc

    from webproviders.cli import main

    assert gc.isenabled() and main(["--config", str(config), "search", "q", "--backend", "stub"]) == 0
    assert gc.isenabled()


_HOSTILE_TEXT = """
from webproviders import WebSearchProvider

TRICK = "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\rfake"


class Hostile(WebSearchProvider):
    name = "hostile"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        if query == "fail":
            raise RuntimeError("vendor said " + TRICK)
        return [{"title": "a" + TRICK, "url": "https://a.example/", "description": "line one\\r\\nline two"}]


def register(ctx):
    ctx.register_web_search_provider(Hostile())
"""


def test_control_characters_in_results_reach_the_terminal_as_escapes(
    write_plugin: Any, tmp_path: Path
) -> None:
    """A title or an error is written by whoever controls the page or the vendor: printed raw,
    an escape sequence in it retitles the terminal, clears it or hides what came before."""
    root = write_plugin("hostile", _HOSTILE_TEXT)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{root}]\n  enabled: [hostile]\n", encoding="utf-8")
    env = {"WEBPROVIDERS_CONFIG": str(config), "PYTHONIOENCODING": "utf-8"}
    shown = run("search", "q", "--backend", "hostile", env=env)
    assert shown.returncode == 0, shown.stderr
    assert "1. a\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x0dfake\n" in shown.stdout
    assert "   line one line two\n" in shown.stdout  # a CRLF line end is a line break: a space on the snippet's line
    failed = run("search", "fail", "--backend", "hostile", env=env)
    assert "vendor said \\x1b]0;pwned" in failed.stderr
    for output in (shown.stdout, failed.stderr):
        assert not any(ch in output for ch in "\x1b\x07\x9b")
    as_json = run("search", "q", "--backend", "hostile", "--json", env=env)
    assert not any(ch in as_json.stdout for ch in "\x1b\x07\x9b")
    assert (
        json.loads(as_json.stdout)["data"]["web"][0]["title"]
        == "a\x1b]0;pwned\x07\x1b[2J\x9b31m\rfake"
    )


_NOISY = """
from webproviders import WebSearchProvider

print("noisy: loading")


class Noisy(WebSearchProvider):
    name = "noisy"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        print("noisy: searching", query)
        return [{"title": "t", "url": "https://a.example/", "description": "d"}]


def register(ctx):
    ctx.register_web_search_provider(Noisy())
"""


@pytest.mark.parametrize(
    "command", [["search", "q", "--backend", "noisy"], ["providers"], ["config"]], ids=["search", "providers", "config"]
)
def test_what_a_plugin_prints_goes_to_stderr_so_json_output_parses(
    command: list[str], write_plugin: Any, tmp_path: Path
) -> None:
    """A plugin's ``print`` (or an SDK's progress lines) went to stdout before the JSON, which
    then did not parse."""
    root = write_plugin("noisy", _NOISY)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{root}]\n  enabled: [noisy]\n", encoding="utf-8")
    done = run(*command, "--json", env={"WEBPROVIDERS_CONFIG": str(config)})
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    assert "noisy: loading" in done.stderr
    if command[0] == "search":
        assert "noisy: searching q" in done.stderr


def test_providers_keeps_one_row_per_provider_when_a_reason_spans_lines(tmp_path: Path) -> None:
    """A plugin's ``unavailable_reason()`` (or what its ``is_available()`` raised) written over
    several lines broke the table: its rows continued at the start of the next lines."""
    folder = tmp_path / "plugins" / "regional"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text("name: regional\nkind: backend\nproviders: []\n")
    (folder / "__init__.py").write_text(
        "from webproviders import WebSearchProvider\n\n"
        "class P(WebSearchProvider):\n"
        "    name = 'regional'\n"
        "    def is_available(self):\n"
        "        return False\n"
        "    def unavailable_reason(self):\n"
        "        return 'ACME_REGION is not set.\\nSet it to one of:\\n  eu\\n  us'\n\n"
        "def register(ctx):\n"
        "    ctx.register_web_search_provider(P())\n"
    )
    config = tmp_path / "c.yaml"
    config.write_text(f"plugins:\n  paths: [{tmp_path / 'plugins'}]\n  enabled: [regional]\n")
    result = run("--config", str(config), "providers")
    assert result.returncode == 0
    assert [line for line in result.stdout.splitlines() if "ACME_REGION" in line or line.startswith(" ")] == [
        "regional       unavailable  search                user  "
        "(ACME_REGION is not set. Set it to one of: eu us)"
    ]
