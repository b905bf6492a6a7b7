"""``webproviders mcp``: a real server process driven by the real MCP client."""

from __future__ import annotations

import asyncio
import os
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp")

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

from webproviders.agents.bounded import json_chars

SECRET_WORDS = ("key", "token", "secret")
#: Pages the stub backend reads: an address literal, so the server's URL check needs no DNS.
SITE = "https://93.184.216.34"
TOOL_NAMES = {"web_search", "web_extract", "web_crawl", "web_providers"}


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment: the stub backend, no keys, no user config."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k in ("PATH", "PYTHONPATH", "SYSTEMROOT", "LANG", "LC_ALL", "VIRTUAL_ENV")
    }
    env.update({"HOME": str(home), "WEB_BACKEND": "stub", "PYTHONUNBUFFERED": "1", **extra})
    return env


def stdio_session(home: Path, lines: list[Any]) -> tuple[subprocess.CompletedProcess[bytes], list[dict[str, Any]]]:
    """The stdio server run on ``lines`` (each a message to write as JSON, or a raw line as text
    or bytes) to the end of its input: how it ended, and its answers in order."""
    import json

    raw = [line if isinstance(line, bytes) else (line if isinstance(line, str) else json.dumps(line)).encode() for line in lines]
    done = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "mcp"],
        env=server_env(home),
        input=b"".join(line + b"\n" for line in raw),
        capture_output=True,
        timeout=60,
    )
    return done, [json.loads(line) for line in done.stdout.decode().splitlines()]


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def exercise_tools(client: Client) -> None:
    """List the tools and call each one, including bad calls, on one connection."""
    listed = (await client.list_tools()).tools
    assert {tool.name for tool in listed} == TOOL_NAMES
    for tool in listed:
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert not [p for p in schema.get("properties", {}) if any(w in p for w in SECRET_WORDS)]

    search = await client.call_tool("web_search", {"query": "model context protocol", "limit": 3})
    assert not search.is_error
    hits = search.structured_content["data"]["web"]
    assert [hit["position"] for hit in hits] == [1, 2, 3]
    assert search.structured_content["provider"] == "stub"
    assert f"1. [{hits[0]['title']}]({hits[0]['url']})" in text_of(search)

    extract = await client.call_tool("web_extract", {"urls": [f"{SITE}/a", f"{SITE}/b"]})
    assert not extract.is_error
    assert [page["url"] for page in extract.structured_content["data"]] == [f"{SITE}/a", f"{SITE}/b"]
    assert f"This is offline content for {SITE}/a" in text_of(extract)

    refused = await client.call_tool(
        "web_extract", {"urls": ["http://169.254.169.254/latest/meta-data/"], "backend": "http"}
    )
    assert refused.is_error and refused.structured_content["error_code"] == "unsafe_url"

    crawl = await client.call_tool("web_crawl", {"url": f"{SITE}/", "max_pages": 2})
    assert not crawl.is_error and len(crawl.structured_content["data"]) == 2

    providers = await client.call_tool("web_providers", {})
    rows = {row["name"]: row for row in providers.structured_content["providers"]}
    assert rows["stub"]["available"] is True and rows["stub"]["capabilities"] == [
        "search",
        "extract",
        "crawl",
    ]
    assert "- stub (search, extract, crawl): ready" in text_of(providers)
    given = await client.call_tool("web_providers", {"x": 1})
    assert given.is_error and text_of(given) == "Error [invalid_input]: web_providers takes no arguments."
    assert given.structured_content["error_code"] == "invalid_input"

    bad = await client.call_tool("web_search", {"query": "x", "limit": 500})
    assert bad.is_error
    assert (
        text_of(bad)
        == "Error [invalid_input]: Invalid arguments for web_search: limit: Input should be less than or equal to 50."
    )
    assert bad.structured_content["error_code"] == "invalid_input"

    keyed = await client.call_tool("web_search", {"query": "x", "api_key": "sk-live-abcdef"})
    assert (
        keyed.is_error
        and "never tool arguments" in text_of(keyed)
        and "sk-live-abcdef" not in text_of(keyed)
    )

    failed = await client.call_tool(
        "web_extract", {"urls": ["https://example.com/"], "backend": "nosuch"}
    )
    assert failed.is_error and "Unknown backend 'nosuch'" in text_of(failed)

    with pytest.raises(MCPError):
        await client.call_tool("web_fetch", {"url": "https://example.com/"})

    again = await client.call_tool("web_search", {"query": "still serving", "limit": 1})
    assert not again.is_error and len(again.structured_content["data"]["web"]) == 1


def test_stdio_server_serves_every_tool(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "webproviders.cli", "mcp"], env=server_env(tmp_path)
    )

    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            await exercise_tools(client)

    asyncio.run(asyncio.wait_for(main(), 120))



def test_stdio_answers_a_request_holding_a_lone_surrogate(tmp_path: Path) -> None:
    """A JSON ``"\\ud800"`` escape (JavaScript clients send what a model emits) made the
    package's line parser fail; the server dropped the request and the client waited forever."""
    import json
    import queue
    import threading

    process = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", "mcp"],
        env=server_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()

    def send(line: str) -> None:
        assert process.stdin is not None
        process.stdin.write(line.encode() + b"\n")
        process.stdin.flush()

    def reply() -> dict[str, Any]:
        return dict(json.loads(lines.get(timeout=60)))

    try:
        send(json.dumps(INITIALIZE))
        assert reply()["id"] == 1
        send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        call = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"web_search","arguments":{"query":%s}}}'
        send(call % (2, '"broken \\ud83d emoji"'))
        refused = reply()
        assert refused["id"] == 2 and refused["error"]["code"] == -32700
        assert "lone surrogate (\\ud83d" in refused["error"]["message"]
        send(call % (3, '"whole \\ud83d\\ude00 emoji"'))
        served = reply()
        assert served["id"] == 3 and served["result"]["isError"] is False
    finally:
        stop(process)

def test_stdio_answers_requests_that_are_not_json_rpc_2(tmp_path: Path) -> None:
    """JSON the package reads but will not take, a batch or an object without ``"jsonrpc":
    "2.0"``, was dropped without a word: the client waited for its answers forever."""

    listing = {"jsonrpc": "2.0", "method": "tools/list"}
    lines = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        [{**listing, "id": "a"}, {**listing, "id": "b"}, {"jsonrpc": "2.0", "method": "notifications/x"}],
        {**listing, "jsonrpc": "1.0", "id": 3},
        {"id": 4, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": "web_search"},
        {"jsonrpc": "2.0", "id": "m", "method": 7},  # a method that is no string: dropped as well
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call",
         "params": {"name": "web_search", "arguments": {"query": "still serving", "limit": 1}}},
    ]
    done, answered = stdio_session(tmp_path, lines)
    answers = {answer["id"]: answer for answer in answered}
    assert done.returncode == 0 and set(answers) == {1, "a", "b", 3, 4, 5, "m", 6}
    batch = "Invalid request: this server reads one JSON-RPC message per line, not a batch (a JSON array); "
    assert answers["a"]["error"]["message"].startswith(batch) and answers["b"]["error"]["code"] == -32600
    version = 'Invalid request: a JSON-RPC request holds "jsonrpc": "2.0".'
    assert answers[3]["error"]["message"] == answers[4]["error"]["message"] == version
    assert answers[5]["error"] == {"code": -32600, "message": "Invalid request: params: Input should be an object."}
    assert answers["m"]["error"] == {"code": -32600, "message": "Invalid request: method: Input should be a valid string."}
    assert answers[6]["result"]["isError"] is False


def test_stdio_answers_a_request_whose_params_is_a_list(tmp_path: Path) -> None:
    """``params`` by position (a JSON array, as JSON-RPC allows and MCP does not) was taken for
    a batch holding no request: never answered, and the client waited forever."""

    lines = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": []},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": ["web_search", {"query": "x"}]},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
    ]
    done, answered = stdio_session(tmp_path, lines)
    answers = {answer["id"]: answer for answer in answered}
    assert done.returncode == 0 and set(answers) == {1, 2, 3, 4}
    for request_id in (2, 3):
        assert answers[request_id]["error"] == {
            "code": -32600, "message": "Invalid request: params: Input should be an object."
        }


BAD_IDS = {"1.5": "a number with a fraction or an exponent", "true": "true", "null": "null",
           '{"n": 1}': "an object", "[1]": "a list"}


def test_stdio_answers_a_request_whose_id_is_no_string_or_integer(tmp_path: Path) -> None:
    """The package read a request with an id such as ``1.5`` or ``true`` as a notification,
    its id dropped: the server never answered it and the client waited forever."""
    import json

    listing = '{"jsonrpc":"2.0","id":%s,"method":"tools/list"}'
    lines = [
        json.dumps(INITIALIZE),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        *(listing % request_id for request_id in BAD_IDS),
        '{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}',  # a notification: no answer
        '[{"jsonrpc":"2.0","id":2.5,"method":"tools/list"}]',  # in a batch
        '{"jsonrpc":"2.0","id":3.5,"method":"tools/call","params":{"name":"web_search",'
        '"arguments":{"query":"half \\ud83d"}}}',  # beside a lone surrogate
        listing % 7,
    ]
    done, answers = stdio_session(tmp_path, lines)
    assert done.returncode == 0 and [answer["id"] for answer in answers] == [1, *[None] * 7, 7]
    for answer, kind in zip(answers[1:6], BAD_IDS.values(), strict=True):
        assert answer["error"] == {
            "code": -32600,
            "message": f"Invalid request: its id is {kind}; a JSON-RPC request id is a string or an "
            "integer, and the answer names the request by it.",
        }
    assert answers[6]["error"]["message"].startswith("Invalid request: this server reads one JSON-RPC message")
    assert answers[7]["error"]["code"] == -32700 and "lone surrogate" in answers[7]["error"]["message"]
    assert answers[8]["result"]["tools"]


def test_stdio_answers_a_request_its_parser_refuses_for_a_raw_control_character(tmp_path: Path) -> None:
    """A raw control character in a string (a NUL or a tab a client did not escape) or a
    byte-order mark before the request made the package's parser refuse the line, and Python's
    strict reader as well: the request was dropped and the client waited for it forever."""
    import json

    call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"web_search","arguments":%s}}'
    lines = [
        json.dumps(INITIALIZE).encode(),
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        (call % (2, '{"query":"raw\x00nul"}')).encode(),
        (call % (3, '{"query":"raw\ttab"}')).encode(),
        "\ufeff".encode() + (call % (4, '{"query":"marked"}')).encode(),
        (call % (5, '{"query":"still serving","limit":1}')).encode(),
    ]
    done, answered = stdio_session(tmp_path, lines)
    answers = {answer["id"]: answer for answer in answered}
    assert done.returncode == 0 and set(answers) == {1, 2, 3, 4, 5}, done.stderr.decode()[-500:]
    for request_id in (2, 3):
        assert answers[request_id]["error"]["code"] == -32700
        assert "control character" in answers[request_id]["error"]["message"]
    assert answers[4]["error"]["code"] == -32700
    assert answers[5]["result"]["isError"] is False


@pytest.mark.parametrize("depth", [600, 100_000])
def test_stdio_answers_a_request_nested_too_deep(tmp_path: Path, depth: int) -> None:
    """Arguments nested deeper than Python's JSON reader goes (a 200 KB line of brackets)
    crashed the whole server (``RecursionError``) while it read the request's id."""
    import json

    nested = "[" * depth + "]" * depth
    call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"web_search","arguments":%s}}'
    batch = [
        json.dumps(INITIALIZE),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        call % (2, '{"query":"deep","extra":' + nested + "}"),
        call % (3, '{"query":"still serving","limit":1}'),
    ]
    done, answered = stdio_session(tmp_path, batch)
    answers = {answer["id"]: answer for answer in answered}
    assert done.returncode == 0 and set(answers) == {1, 2, 3}, done.stderr.decode()[-500:]
    assert answers[2]["error"]["code"] == -32700
    assert "recursion limit exceeded" in answers[2]["error"]["message"]
    assert answers[3]["result"]["isError"] is False


def test_ctrl_c_stops_the_stdio_server(tmp_path: Path, probe_dir: Path) -> None:
    """The transport read stdin in a thread no cancellation reaches: on Ctrl-C the server
    waited for the client's next line, for ever when none came (a server tried in a terminal)."""
    import json
    import signal

    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{probe_dir}]\n  enabled: [probe]\n", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", "--config", str(config), "mcp"],
        env=server_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        call = {"name": "web_search", "arguments": {"query": "slow", "backend": "probe"}}
        for message in (
            INITIALIZE,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
        ):
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1
        time.sleep(1)  # the call is in flight: the probe answers it in 30 s
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            raise AssertionError("the server was still running 15 s after Ctrl-C") from None
        assert process.stderr is not None
        assert code == 130 and process.stderr.read().decode().endswith("interrupted\n")
    finally:
        stop(process)


def test_stdio_answers_a_piped_batch_before_it_stops(tmp_path: Path, probe_dir: Path) -> None:
    """A batch piped in and stdin closed (``cat calls.jsonl | webproviders mcp``): the server
    stopped at end-of-file and every call still running was answered ``Connection closed``.
    A call the client cancelled is not waited for (the probe would answer it in 30 s)."""
    import json

    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{probe_dir}]\n  enabled: [probe]\n", encoding="utf-8")
    slow = {"name": "web_search", "arguments": {"query": "slow", "backend": "probe"}}
    batch = [INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    batch.append({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": slow})
    batch += [
        {"jsonrpc": "2.0", "id": n, "method": "tools/call",
         "params": {"name": "web_search", "arguments": {"query": f"batch {n}", "limit": 1}}}
        for n in range(2, 12)
    ]
    batch.append({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow"}})
    done = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "--config", str(config), "mcp"],
        env=server_env(tmp_path),
        input="".join(json.dumps(message) + "\n" for message in batch).encode(),
        capture_output=True,
        timeout=25,
    )
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.decode().splitlines())}
    assert done.returncode == 0 and set(answers) == {1, *range(2, 12)}
    for n in range(2, 12):
        assert "error" not in answers[n], answers[n]
        assert answers[n]["result"]["structuredContent"]["data"]["web"][0]["title"]


def test_stdio_answers_every_request_of_a_piped_batch_that_shares_an_id(tmp_path: Path) -> None:
    """Requests of a batch written with one id (``"id": 2`` on every line, or ``2`` and
    ``"2"``) were each served while stdin stayed open, but once it closed the first answer
    ended the server and the others were answered ``Connection closed``."""
    batch = [INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    batch += [
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
         "params": {"name": "web_search", "arguments": {"query": query, "limit": 1}}}
        for request_id, query in ((2, "first"), (2, "second"), ("2", "third"), (2, "fourth"))
    ]
    done, answers = stdio_session(tmp_path, batch)
    assert done.returncode == 0 and len(answers) == 5
    titles = sorted(answer["result"]["structuredContent"]["data"]["web"][0]["title"] for answer in answers[1:])
    assert titles == [f"{query} — result 1" for query in ("first", "fourth", "second", "third")]


def test_a_client_that_goes_away_ends_the_stdio_server_quietly(tmp_path: Path) -> None:
    """A client that exits (its end of stdout closed) before its answers are written made the
    server fail with exit code 1 and ``error: unhandled errors in a TaskGroup (1 sub-exception)``
    in the host's log."""
    import json

    process = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", "mcp"],
        env=server_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    try:
        process.stdout.close()
        search = {"name": "web_search", "arguments": {"query": "gone"}}
        for message in (
            INITIALIZE,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": search},
        ):
            process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        assert process.stderr.read().decode() == ""
    finally:
        stop(process)


LOUD_MANIFEST = """\
name: loud
kind: backend
description: A provider that prints, as some plugins and SDKs do.
providers:
  - name: loud
    display_name: Loud
    capabilities: [search]
    fetch: none
    auto_detect: false
"""

LOUD_CODE = """\
import sys

from webproviders import WebSearchProvider

print("loud: imported")


class Loud(WebSearchProvider):
    name = "loud"

    def is_available(self):
        return True

    async def search(self, query, limit=5, **options):
        print("loud: searching", query)
        sys.__stdout__.write("loud: progress 100%\\n")
        return [{"title": "Loud", "url": "https://loud.example.org/", "description": query}]


def register(ctx):
    print("loud: registered")
    ctx.register_web_search_provider(Loud())
"""


def test_what_a_plugin_prints_goes_to_stderr_not_the_wire(tmp_path: Path) -> None:
    """A plugin's ``print`` was held in stdout's buffer and written onto the wire, after the
    answers (when stdout is a pipe, as a client's is), where the client reads protocol only."""
    import json

    folder = tmp_path / "plugins" / "loud"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(LOUD_MANIFEST, encoding="utf-8")
    (folder / "__init__.py").write_text(LOUD_CODE, encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{tmp_path / 'plugins'}]\n  enabled: [loud]\n", encoding="utf-8")
    env = server_env(tmp_path)
    del env["PYTHONUNBUFFERED"]  # a client starts the server without it: stdout is block-buffered
    command = [sys.executable, "-m", "webproviders.cli", "--config", str(config), "mcp"]
    errlog = (tmp_path / "stderr.txt").open("w+", encoding="utf-8")
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)

    async def main() -> Any:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
            return await client.call_tool("web_search", {"query": "hello", "backend": "loud"})

    result = asyncio.run(asyncio.wait_for(main(), 120))
    assert not result.is_error and result.structured_content["data"]["web"][0]["description"] == "hello"
    call = {"name": "web_search", "arguments": {"query": "piped", "backend": "loud"}}
    batch = [INITIALIZE, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}]
    done = subprocess.run(
        command, env=env, input="".join(json.dumps(m) + "\n" for m in batch).encode(),
        capture_output=True, timeout=60,
    )
    assert [json.loads(line)["id"] for line in done.stdout.decode().splitlines()] == [1, 2]
    printed = "loud: imported\nloud: registered\nloud: searching piped\nloud: progress 100%\n"
    assert printed in done.stderr.decode()
    errlog.seek(0)
    assert "loud: searching hello" in errlog.read()


def test_stdio_refuses_a_request_line_over_the_size_limit(tmp_path: Path) -> None:
    """The stdio reader held a whole line whatever its size (a 200 MB line took 656 MB and
    18 s); the HTTP transport refuses a body over 4 MiB with 413."""
    import json

    process = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", "mcp"],
        env=server_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None

    def send(data: bytes) -> None:
        assert process.stdin is not None
        process.stdin.write(data + b"\n")
        process.stdin.flush()

    def search(request_id: int, query: str) -> bytes:
        call = {"name": "web_search", "arguments": {"query": query, "limit": 1}}
        return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": call}).encode()

    def peak_bytes() -> int:
        status = Path(f"/proc/{process.pid}/status").read_text(encoding="ascii")
        return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) * 1024  # type: ignore[union-attr]

    size = 30 * 1024 * 1024
    query = b"a" * size
    try:
        send(json.dumps(INITIALIZE).encode())
        send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        send(search(2, "warm up"))
        assert [json.loads(process.stdout.readline())["id"] for _ in range(2)] == [1, 2]
        before = peak_bytes()
        line = search(3, "QUERY").replace(b"QUERY", query)
        send(line)
        refused = json.loads(process.stdout.readline())
        assert refused["id"] == 3 and refused["error"]["code"] == -32600
        assert refused["error"]["message"] == (
            f"Request too large: its line holds {len(line) + 1} bytes, over the 4 MiB this server reads; "
            "send shorter arguments."
        )
        # the id after the arguments: not known from the line's first bytes, so not answered
        unnamed = b'{"jsonrpc": "2.0", "params": {"name": "web_search", "arguments": {"query": "'
        line = unnamed + query + b'"}}, "id": 4, "method": "tools/call"}'
        send(line)
        send(search(5, "still serving"))
        served = json.loads(process.stdout.readline())
        assert served["id"] == 5 and served["result"]["isError"] is False
        assert peak_bytes() - before < size  # the long lines were never held whole
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        assert process.stdout.read() == b""
        assert f"Dropped a {len(line) + 1}-byte line on stdin, over the 4194304 bytes" in process.stderr.read().decode()
    finally:
        stop(process)


# --- streamable HTTP ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"server exited early: {process.stderr.read().decode() if process.stderr else ''}"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("server did not start listening in time")


def start_http_server(
    tmp_path: Path, *args: str, **env: str
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "webproviders.cli", *args, "mcp", "--http", "--port", str(port)],
        env=server_env(tmp_path, **env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(port, process)
    except BaseException:
        process.kill()
        process.wait()
        raise
    return process, f"http://127.0.0.1:{port}/mcp"


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def token_server(tmp_path: Path) -> Iterator[str]:
    """A server whose bearer token comes from its config file."""
    config = tmp_path / "config.yaml"
    config.write_text("web:\n  backend: stub\nmcp:\n  token: s3cret-mcp-token\n", encoding="utf-8")
    process, url = start_http_server(tmp_path, "--config", str(config))
    yield url
    stop(process)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def http_client(token: str | None = None) -> Any:
    import httpx2

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120))


def test_http_requires_the_bearer_token(token_server: str) -> None:
    missing = httpx.post(token_server, json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    wrong = httpx.post(
        token_server,
        json=INITIALIZE,
        headers={**MCP_HEADERS, "authorization": "Bearer nope"},
        timeout=30,
    )
    assert wrong.status_code == 401
    right = httpx.post(
        token_server,
        json=INITIALIZE,
        headers={**MCP_HEADERS, "authorization": "Bearer s3cret-mcp-token"},
        timeout=30,
    )
    assert right.status_code == 200


def test_http_client_with_token_can_use_every_tool(token_server: str) -> None:
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> None:
        async with (
            http_client("s3cret-mcp-token") as http,
            Client(streamable_http_client(token_server, http_client=http)) as client,
        ):
            await exercise_tools(client)

    asyncio.run(asyncio.wait_for(main(), 120))


def test_http_announces_the_port_it_listens_on_or_why_it_cannot(tmp_path: Path) -> None:
    """--port 0 was announced as port 0, and a port in use as a server about to serve on it."""
    command = [sys.executable, "-m", "webproviders.cli", "mcp", "--http", "--port"]
    process = subprocess.Popen(
        [*command, "0"], env=server_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        assert process.stderr is not None
        assert select.select([process.stderr], [], [], 60)[0], "no announcement in 60 s"
        banner = process.stderr.readline().decode()
        found = re.match(r"webproviders MCP server on http://127\.0\.0\.1:(\d+)/mcp ", banner)
        assert found and found.group(1) != "0", banner
        port = int(found.group(1))
        answer = httpx.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
        assert answer.status_code == 200
        taken = subprocess.run(
            [*command, str(port)], env=server_env(tmp_path), capture_output=True, text=True, timeout=60
        )
    finally:
        stop(process)
    assert taken.returncode == 3
    assert taken.stderr.startswith(f"error: The MCP server cannot listen on 127.0.0.1:{port}: "), taken.stderr
    assert "server on" not in taken.stderr


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_http_announces_an_ipv6_host_given_in_brackets_as_a_url(tmp_path: Path) -> None:
    """``--host [::1]`` (an address as a URL writes it) was announced as
    ``http://[[::1]]:PORT/mcp``, an address no client can use."""
    command = [sys.executable, "-m", "webproviders.cli", "mcp", "--http", "--port", "0", "--host", "[::1]"]
    process = subprocess.Popen(command, env=server_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert process.stderr is not None
        assert select.select([process.stderr], [], [], 60)[0], "no announcement in 60 s"
        banner = process.stderr.readline().decode()
        found = re.match(r"webproviders MCP server on (http://\[::1\]:\d+/mcp) ", banner)
        assert found, banner
        answer = httpx.post(found.group(1), json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
        assert answer.status_code == 200
    finally:
        stop(process)


def test_a_stopped_http_server_ends_within_its_grace_with_a_call_in_flight(
    tmp_path: Path, probe_dir: Path
) -> None:
    """SIGTERM (docker stop, systemd) waited for every call in flight to end: with a provider
    answering in 30 s the server took 29 s to stop, and a crawl may have minutes."""
    from mcp.client.streamable_http import streamable_http_client

    from webproviders.agents.mcp_server import SHUTDOWN_GRACE

    config = tmp_path / "config.yaml"
    config.write_text(
        f"web:\n  timeout: 120\nplugins:\n  paths: [{probe_dir}]\n  enabled: [probe]\n",
        encoding="utf-8",
    )
    process, url = start_http_server(tmp_path, "--config", str(config))

    async def main() -> float:
        async with (
            http_client() as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            ready = await client.call_tool("web_search", {"query": "ready", "backend": "probe"})
            assert not ready.is_error
            slow = {"query": "slow", "backend": "probe"}
            call = asyncio.create_task(client.call_tool("web_search", slow))
            await asyncio.sleep(1)  # the call is in flight: the probe answers it in 30 s
            process.terminate()
            started = time.monotonic()
            while process.poll() is None and time.monotonic() - started < 25:
                await asyncio.sleep(0.1)
            call.cancel()
            return time.monotonic() - started

    try:
        took = asyncio.run(asyncio.wait_for(main(), 120))
        assert process.poll() is not None, "the server was still running 25 s after SIGTERM"
        assert took < SHUTDOWN_GRACE + 5
        assert process.stderr is not None
        logged = process.stderr.read().decode()
        assert "Traceback" not in logged, logged
        assert "WARNING:  Cancel 1 running task(s)" in logged and "ERROR" not in logged, logged
    finally:
        stop(process)


def test_a_stopped_http_server_ends_a_clients_event_stream(tmp_path: Path) -> None:
    """A client holding its standalone event stream open (``GET /mcp``) made every SIGTERM log
    ``ASGI callable returned without completing response`` at ERROR, and the client read a
    broken chunked body (httpx: RemoteProtocolError) instead of the stream's end."""
    process, url = start_http_server(tmp_path)
    version = {"mcp-protocol-version": "2025-06-18"}

    async def main() -> str:
        async with httpx.AsyncClient(timeout=60) as http:
            opened = await http.post(url, json=INITIALIZE, headers=MCP_HEADERS)
            session = {"mcp-session-id": opened.headers["mcp-session-id"], **version}
            ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await http.post(url, json=ready, headers={**MCP_HEADERS, **session})).status_code == 202
            listen = {"accept": "text/event-stream", **session}
            async with http.stream("GET", url, headers=listen) as stream:
                assert stream.status_code == 200
                process.terminate()
                return "".join([chunk async for chunk in stream.aiter_text()])

    try:
        assert asyncio.run(asyncio.wait_for(main(), 60)) == ""  # the stream ended, not broken
        process.wait(timeout=30)
        assert process.stderr is not None
        logged = process.stderr.read().decode()
        assert "ERROR" not in logged, logged
    finally:
        stop(process)


def test_http_without_a_configured_token_needs_none(tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    process, url = start_http_server(tmp_path)
    try:

        async def main() -> list[str]:
            async with (
                http_client() as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                result = await client.call_tool("web_search", {"query": "open", "limit": 2})
                return [hit["url"] for hit in result.structured_content["data"]["web"]]

        assert len(asyncio.run(asyncio.wait_for(main(), 60))) == 2
        rebound = httpx.post(
            url, json=INITIALIZE, headers={**MCP_HEADERS, "host": "attacker.example"}, timeout=30
        )
        assert (
            rebound.status_code == 421
        )  # a page on another site cannot reach it through DNS rebinding
        foreign = httpx.post(
            url,
            json=INITIALIZE,
            headers={**MCP_HEADERS, "origin": "http://attacker.example"},
            timeout=30,
        )
        assert foreign.status_code == 403
    finally:
        stop(process)


def test_http_takes_local_host_and_origin_headers_without_a_port(tmp_path: Path) -> None:
    """A client of a server on port 80 leaves the default port out (``Host: 127.0.0.1``,
    ``Origin: http://localhost``): the DNS-rebinding guard answered every such request 421."""
    process, url = start_http_server(tmp_path)
    try:
        for host in ("127.0.0.1", "localhost"):
            for origin in ({}, {"origin": f"http://{host}"}):
                opened = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "host": host, **origin}, timeout=30)
                assert opened.status_code == 200, (host, origin, opened.text)
        for host in ("attacker.example", "localhost.attacker.example", "127.0.0.1.attacker.example"):
            assert httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "host": host}, timeout=30).status_code == 421
        foreign = httpx.post(
            url, json=INITIALIZE, headers={**MCP_HEADERS, "host": "localhost", "origin": "http://localhost.attacker.example"},
            timeout=30,
        )
        assert foreign.status_code == 403
    finally:
        stop(process)


def test_http_answers_a_request_whose_id_is_no_string_or_integer(tmp_path: Path) -> None:
    """The package took a request with an id such as ``1.5`` for a notification: ``202
    Accepted`` and no answer, ever, to a client waiting for one."""
    process, url = start_http_server(tmp_path)
    try:
        opened = httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
        session = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-06-18"}
        for request_id, kind in BAD_IDS.items():
            body = f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/list"}}'
            refused = httpx.post(url, content=body, headers=session, timeout=30)
            assert refused.status_code == 400
            assert refused.json() == {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32600,
                "message": f"Invalid request: its id is {kind}; a JSON-RPC request id is a string or an "
                "integer, and the answer names the request by it.",
            }}
        listed = httpx.post(url, content='{"jsonrpc":"2.0","id":7,"method":"tools/list"}', headers=session, timeout=30)
        assert listed.status_code == 200 and '"id":7' in listed.text
        # the package's own header checks come first
        rebound = httpx.post(url, content='{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
                             headers={**session, "host": "attacker.example"}, timeout=30)
        assert rebound.status_code == 421
    finally:
        stop(process)


# --- the command line, without starting a server -------------------------------------------


@pytest.fixture
def no_serving(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record what the command would serve instead of serving it."""
    from webproviders.agents import mcp_server

    calls: list[dict[str, Any]] = []

    async def fake_http(server: Any, **kwargs: Any) -> None:
        calls.append({"transport": "http", **kwargs})

    async def fake_stdio(server: Any) -> None:
        calls.append({"transport": "stdio"})

    monkeypatch.setattr(mcp_server, "serve_http", fake_http)
    monkeypatch.setattr(mcp_server, "serve_stdio", fake_stdio)
    return calls


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "example.com"])
def test_non_loopback_bind_is_refused_without_the_flag(
    host: str, no_serving: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    from webproviders.cli import EXIT_USAGE, main

    assert main(["mcp", "--http", "--host", host]) == EXIT_USAGE
    assert "not a loopback address" in capsys.readouterr().err
    assert no_serving == []


def test_non_loopback_bind_with_the_flag_warns_without_a_token(
    no_serving: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    from webproviders.cli import main

    assert main(["mcp", "--http", "--host", "0.0.0.0", "--port", "9123", "--allow-remote"]) == 0
    assert no_serving == [
        {"transport": "http", "host": "0.0.0.0", "port": 9123, "tokens": {}, "user_keys": False}
    ]
    assert "without a bearer token" in capsys.readouterr().err


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.5"])
def test_loopback_binds_need_no_flag(host: str, no_serving: list[dict[str, Any]]) -> None:
    from webproviders.cli import main

    assert main(["mcp", "--http", "--host", host]) == 0
    assert no_serving[0]["host"] == host and no_serving[0]["port"] == 8000


def test_stdio_is_the_default(no_serving: list[dict[str, Any]]) -> None:
    from webproviders.cli import main

    assert main(["mcp"]) == 0
    assert no_serving == [{"transport": "stdio"}]


def test_http_options_need_http(
    no_serving: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    from webproviders.cli import EXIT_USAGE, main

    assert main(["mcp", "--port", "9000"]) == EXIT_USAGE
    assert "need --http" in capsys.readouterr().err
    assert no_serving == []


def test_env_token_wins_over_the_config_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_serving: list[dict[str, Any]]
) -> None:
    from webproviders.cli import main

    config = tmp_path / "config.yaml"
    config.write_text("mcp:\n  token: ${MCP_SECRET}\n", encoding="utf-8")
    monkeypatch.setenv("MCP_SECRET", "from-config")
    assert main(["--config", str(config), "mcp", "--http"]) == 0
    monkeypatch.setenv("WEBPROVIDERS_MCP_TOKEN", "from-env")
    assert main(["--config", str(config), "mcp", "--http"]) == 0
    assert [call["tokens"] for call in no_serving] == [{"from-config": None}, {"from-env": None}]


def test_a_configured_but_empty_token_refuses_to_start(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_serving: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    from webproviders.cli import EXIT_CONFIG, main

    config = tmp_path / "config.yaml"
    config.write_text("mcp:\n  token: ${MY_MCP_TOKEN}\n", encoding="utf-8")
    monkeypatch.delenv("MY_MCP_TOKEN", raising=False)
    assert main(["--config", str(config), "mcp", "--http"]) == EXIT_CONFIG
    err = capsys.readouterr().err
    assert "mcp.token" in err and "is empty" in err and str(config) in err
    assert no_serving == []
    assert main(["--config", str(config), "mcp"]) == 0  # stdio has no token to require
    assert no_serving == [{"transport": "stdio"}]


def test_an_empty_token_variable_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch, no_serving: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    from webproviders.cli import EXIT_CONFIG, main

    monkeypatch.setenv("WEBPROVIDERS_MCP_TOKEN", " ")
    assert main(["mcp", "--http"]) == EXIT_CONFIG
    assert "WEBPROVIDERS_MCP_TOKEN is set but empty" in capsys.readouterr().err
    assert no_serving == []


def test_the_http_app_refuses_an_empty_token() -> None:
    from webproviders.agents.mcp_server import build_server, http_app

    with pytest.raises(ValueError, match="empty bearer token"):
        http_app(build_server(), host="127.0.0.1", tokens={"": None})


# --- users: one token each, their own budgets, their own vendor keys -----------------------

ALICE, BOB = "alice-0f3c9d2e7b51", "bob-8e41a6c05d93"
SHARED = "shared-5b7e02c9a4d1"


def user_session(url: str, token: str, **headers: str) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}", **headers}, timeout=httpx2.Timeout(30, read=120)
    )
    return http, Client(streamable_http_client(url, http_client=http))


async def searches(url: str, token: str, count: int, **call: Any) -> list[Any]:
    http, client = user_session(url, token)
    async with http, client:
        return [
            await client.call_tool("web_search", {"query": f"q{n}", "limit": 1, **call})
            for n in range(count)
        ]


def test_two_users_have_separate_budgets(tmp_path: Path) -> None:
    (tmp_path / "bob.token").write_text(BOB + "\n", encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text(
        "web:\n  backend: stub\n  cache: false\n  usage: false\n"
        "  budget: {per_tag: {user: {daily_usd: 0.02}}}\n"
        "  providers: {stub: {price: {search: {usd: 0.008, per: request}}}}\n"
        "mcp:\n  users:\n    alice: ${ALICE_MCP_TOKEN}\n"
        f"    bob: {{token_file: {tmp_path / 'bob.token'}}}\n",
        encoding="utf-8",
    )
    process, url = start_http_server(tmp_path, "--config", str(config), ALICE_MCP_TOKEN=ALICE)
    try:
        alice = asyncio.run(asyncio.wait_for(searches(url, ALICE, 3), 120))
        assert [result.is_error for result in alice] == [False, False, True]
        refused = alice[2].structured_content
        assert refused["error_code"] == "budget_exceeded" and "user=alice" in refused["error"]
        bob = asyncio.run(asyncio.wait_for(searches(url, BOB, 2), 120))
        assert [result.is_error for result in bob] == [False, False]  # alice's spending is hers
        stranger = httpx.post(
            url, json=INITIALIZE, headers={**MCP_HEADERS, "authorization": f"Bearer {ALICE}x"}, timeout=30
        )
        assert stranger.status_code == 401
    finally:
        stop(process)


def test_a_session_serves_only_the_user_who_opened_it(tmp_path: Path) -> None:
    """A user holding another user's session id could send requests into that session: a
    cancellation of the other user's call in flight ended it (``-32800 Request cancelled``)."""
    config = tmp_path / "config.yaml"
    config.write_text(
        f"web:\n  backend: stub\n  cache: false\n  usage: false\nmcp:\n  users: {{alice: {ALICE}, bob: {BOB}}}\n",
        encoding="utf-8",
    )
    process, url = start_http_server(tmp_path, "--config", str(config))
    try:
        alice, bob = ({**MCP_HEADERS, "authorization": f"Bearer {token}"} for token in (ALICE, BOB))
        opened = httpx.post(url, json=INITIALIZE, headers=alice, timeout=30)
        session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
        for message in (listing, cancel):
            refused = httpx.post(url, json=message, headers={**bob, **session}, timeout=30)
            assert refused.status_code == 404 and "Session not found" in refused.text
        assert httpx.get(url, headers={**bob, **session, "accept": "text/event-stream"}, timeout=30).status_code == 404
        mine = httpx.post(url, json=listing, headers={**alice, **session}, timeout=30)
        assert mine.status_code == 200 and "web_search" in mine.text
        own = httpx.post(url, json=INITIALIZE, headers=bob, timeout=30)
        assert own.status_code == 200 and own.headers["mcp-session-id"] != session["mcp-session-id"]
    finally:
        stop(process)


def recording_tavily(http_server: Any, answer: dict[str, Any]) -> tuple[str, list[str]]:
    """A loopback Tavily search answering ``answer``, and the Authorization header of each request it got."""
    import json
    from http.server import BaseHTTPRequestHandler

    seen: list[str] = []
    body = json.dumps(answer).encode()

    class Tavily(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    return f"http://127.0.0.1:{http_server(Tavily).server_address[1]}", seen


def test_a_clients_own_vendor_key_serves_only_its_calls(tmp_path: Path, http_server: Any) -> None:
    import json

    hit = {"url": "https://docs.tavily.com/", "title": "Tavily Docs", "content": "Docs.", "score": 0.9}
    vendor, seen = recording_tavily(http_server, {"query": "own key", "results": [hit], "response_time": 0.4})
    config = tmp_path / "config.yaml"
    config.write_text(
        f"web:\n  cache: false\n  retry: {{max_retries: 0}}\n  providers: {{tavily: {{base_url: '{vendor}'}}}}\n"
        f"mcp:\n  user_keys: true\n  users: {{alice: {ALICE}, bob: {BOB}}}\n",
        encoding="utf-8",
    )
    own_key = "tvly-dev-AliceOwnKey0123456789"
    process, url = start_http_server(tmp_path, "--config", str(config))
    try:

        async def run() -> tuple[Any, Any]:
            http, client = user_session(url, ALICE, **{"X-Webproviders-Key-Tavily": own_key})
            async with http, client:
                mine = await client.call_tool("web_search", {"query": "own key", "backend": "tavily"})
            http, client = user_session(url, BOB)
            async with http, client:
                theirs = await client.call_tool("web_search", {"query": "own key", "backend": "tavily"})
            return mine, theirs

        mine, theirs = asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        stop(process)
        log = process.stderr.read().decode() if process.stderr else ""
    assert mine.is_error is False and mine.structured_content["data"]["web"][0]["title"] == "Tavily Docs"
    assert seen == [f"Bearer {own_key}"]  # bob's call never reached the vendor with alice's key
    assert theirs.is_error is True and theirs.structured_content["error_code"] == "not_configured"
    assert own_key not in log and own_key not in json.dumps(theirs.structured_content)


def test_a_clients_key_for_no_provider_is_refused_not_replaced_by_the_servers(
    tmp_path: Path, http_server: Any
) -> None:
    """A client's key sent under a misspelt provider (``X-Webproviders-Key-Tavly``) was set
    aside, and its calls went to the vendor with the server's own key."""
    vendor, seen = recording_tavily(http_server, {"query": "q", "results": [], "response_time": 0.1})
    config = tmp_path / "config.yaml"
    config.write_text(
        f"web:\n  cache: false\n  providers: {{tavily: {{base_url: '{vendor}'}}}}\n"
        f"mcp:\n  user_keys: true\n  users: {{alice: {ALICE}}}\n",
        encoding="utf-8",
    )
    own_key = "tvly-dev-AliceMisnamedKey01234"
    process, url = start_http_server(tmp_path, "--config", str(config), TAVILY_API_KEY="tvly-dev-TheServersOwnKey0123")
    try:

        async def run() -> Any:
            http, client = user_session(url, ALICE, **{"X-Webproviders-Key-Tavly": own_key})
            async with http, client:
                return await client.call_tool("web_search", {"query": "q", "backend": "tavily"})

        refused = asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        stop(process)
    assert seen == []
    assert refused.is_error and refused.structured_content["error_code"] == "invalid_input"
    assert text_of(refused) == (
        "Error [invalid_input]: X-Webproviders-Key-Tavly names no provider of this server (web_providers lists "
        "them). Did you mean 'tavily'? The call was not made, so that the server's own key does not serve it "
        "in place of yours."
    )


def test_a_clients_refused_key_is_named_as_the_key_it_sent(tmp_path: Path, http_server: Any) -> None:
    """A client's own key refused by the vendor was answered "Check TAVILY_API_KEY", which the
    client never set: the sentence names the header it sent, never the key."""
    import json
    from http.server import BaseHTTPRequestHandler

    class Refusing(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps({"detail": {"error": "Unauthorized: missing or invalid API key."}})
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: Any) -> None:
            pass

    vendor = f"http://127.0.0.1:{http_server(Refusing).server_address[1]}"
    config = tmp_path / "config.yaml"
    config.write_text(
        f"web:\n  cache: false\n  retry: {{max_retries: 0}}\n  providers: {{tavily: {{base_url: '{vendor}'}}}}\n"
        f"mcp:\n  user_keys: true\n  users: {{alice: {ALICE}}}\n",
        encoding="utf-8",
    )
    own_key = "tvly-dev-AliceRefusedKey0123456"
    process, url = start_http_server(tmp_path, "--config", str(config))
    try:

        async def run() -> Any:
            http, client = user_session(url, ALICE, **{"X-Webproviders-Key-Tavily": own_key})
            async with http, client:
                return await client.call_tool("web_search", {"query": "q", "backend": "tavily"})

        refused = asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        stop(process)
    assert refused.is_error and refused.structured_content["error_code"] == "auth_error"
    assert text_of(refused).endswith("Check the key this client sent in X-Webproviders-Key-Tavily.")
    assert "TAVILY_API_KEY" not in text_of(refused) and own_key not in json.dumps(refused.structured_content)

def test_a_clients_unsendable_key_is_named_as_the_key_it_sent(tmp_path: Path) -> None:
    """A client's own key holding a character no request can carry (a typographic quote pasted
    with it) was named as web.providers.tavily.api_key, a setting of the server's, not the
    client's to fix."""
    import json

    config = tmp_path / "config.yaml"
    config.write_text(f"mcp:\n  user_keys: true\n  users: {{alice: {ALICE}}}\n", encoding="utf-8")
    own_key = "tvly-dev-AliceQuotedKey0123456\u2019"
    process, url = start_http_server(tmp_path, "--config", str(config))
    try:

        async def run() -> Any:
            http, client = user_session(url, ALICE, **{"X-Webproviders-Key-Tavily": own_key.encode()})  # type: ignore[arg-type]
            async with http, client:
                return await client.call_tool("web_search", {"query": "q", "backend": "tavily"})

        refused = asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        stop(process)
    assert refused.is_error and refused.structured_content["error_code"] == "not_configured"
    assert "an API key in the key this client sent in X-Webproviders-Key-Tavily holds a character" in text_of(refused)
    assert "web.providers.tavily" not in text_of(refused)
    assert own_key[:-1] not in json.dumps(refused.structured_content)


def test_vendor_keys_are_refused_unless_the_server_takes_them(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f"web:\n  backend: stub\nmcp:\n  users: {{alice: {ALICE}}}\n", encoding="utf-8")
    process, url = start_http_server(tmp_path, "--config", str(config))
    try:
        headers = {**MCP_HEADERS, "authorization": f"Bearer {ALICE}", "x-webproviders-key-tavily": "tvly-x"}
        refused = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
    finally:
        stop(process)
    assert refused.status_code == 400 and "mcp.user_keys is off" in refused.json()["error_description"]


def test_an_empty_vendor_key_header_is_refused(tmp_path: Path) -> None:
    """A client whose key variable was unset sent ``X-Webproviders-Key-Tavily:`` empty; the
    header was skipped and the server's own key served the client's calls."""
    config = tmp_path / "config.yaml"
    config.write_text(f"web:\n  backend: stub\nmcp:\n  user_keys: true\n  users: {{alice: {ALICE}}}\n", encoding="utf-8")
    process, url = start_http_server(tmp_path, "--config", str(config))
    try:
        headers = {**MCP_HEADERS, "authorization": f"Bearer {ALICE}", "x-webproviders-key-tavily": ""}
        refused = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
    finally:
        stop(process)
    assert refused.status_code == 400 and refused.json()["error_description"] == (
        "X-Webproviders-Key-Tavily is empty; send the key in it, or leave the header out to use the server's own key."
    )


@pytest.mark.parametrize(
    ("users", "message"),
    [
        ("{alice: '${UNSET_MCP_TOKEN}'}", "mcp.users.alice"),
        ("{alice: {token_file: /nonexistent/alice.token}}", "cannot be read"),
        ("{alice: same-token, bob: same-token}", "same token as another user"),
        # a file that is not text raised UnicodeDecodeError out of the CLI, and /dev/zero read
        # until memory ran out
        ("{alice: {token_file: /dev/zero}}", "the token file /dev/zero is larger than 64 KiB"),
        ("{alice: {token_file: TOKEN_FILE}}", "is not UTF-8 text (byte 1 cannot be read)"),
        # it said only "error: embedded null byte"
        ('{alice: {token_file: "/tmp/alice\\0.token"}}',
         "'mcp.users.alice.token_file' (line 2): a file's path cannot hold a NUL character"),
    ],
)
def test_bad_user_tokens_refuse_to_start(
    users: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_serving: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    from webproviders.cli import main

    monkeypatch.delenv("UNSET_MCP_TOKEN", raising=False)
    (tmp_path / "binary.token").write_bytes(b"\xff\xfeT\x00O\x00K\x00")
    config = tmp_path / "config.yaml"
    config.write_text(f"mcp:\n  users: {users.replace('TOKEN_FILE', str(tmp_path / 'binary.token'))}\n", encoding="utf-8")
    assert main(["--config", str(config), "mcp", "--http"]) != 0
    assert message in capsys.readouterr().err and no_serving == []


def test_users_are_handed_to_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_serving: list[dict[str, Any]]
) -> None:
    from webproviders.cli import main

    monkeypatch.setenv("WEBPROVIDERS_MCP_TOKEN", SHARED)
    config = tmp_path / "config.yaml"
    config.write_text(f"mcp:\n  user_keys: true\n  users: {{alice: {ALICE}}}\n", encoding="utf-8")
    assert main(["--config", str(config), "mcp", "--http"]) == 0
    assert no_serving[0]["tokens"] == {SHARED: None, ALICE: "alice"} and no_serving[0]["user_keys"] is True


def test_the_providers_list_keeps_to_max_chars(make_config: Any) -> None:
    """Every other tool's text was cut to ``--max-chars``; the providers list was not."""
    from webproviders.agents.mcp_server import build_server

    async def providers(max_chars: int) -> Any:
        async with Client(build_server(make_config(web={"backend": "stub"}), max_chars=max_chars)) as client:
            return await client.call_tool("web_providers", {})

    whole = asyncio.run(providers(20_000))
    assert "- stub (search, extract, crawl): configured" in text_of(whole)
    assert len(text_of(whole)) > 300
    cut = asyncio.run(providers(300))
    assert len(text_of(cut)) <= 300 and text_of(cut).endswith("…")
    assert json_chars(cut.structured_content) <= 300 and cut.structured_content["truncated"] is True
    rows = whole.structured_content["providers"]
    kept = cut.structured_content["providers"]
    assert kept == rows[: len(kept)] and cut.structured_content["omitted"] == len(rows) - len(kept)
    assert "truncated" not in whole.structured_content


def test_structured_content_keeps_to_max_chars(make_config: Any, http_server: Any) -> None:
    """The text was cut to ``--max-chars`` while the structured content beside it carried the
    whole page (twice: content and raw_content), hundreds of kilobytes to the client."""
    from http.server import BaseHTTPRequestHandler

    from webproviders.agents.mcp_server import build_server

    paragraph = "words and more words " * 40
    paragraphs = "".join(f"<p>Paragraph {n}: {paragraph}</p>" for n in range(200))
    page = f"<html><head><title>Big</title></head><body><article>{paragraphs}</article></body></html>"
    body = page.encode()

    class Site(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = self.path == "/big"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body) if found else 0))
            self.end_headers()
            if found:
                self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    site = f"http://127.0.0.1:{http_server(Site).server_address[1]}"
    url = f"{site}/big"
    config = make_config(
        web={"allow_private_networks": True, "cache": False, "usage": False, "retry": {"max_retries": 0}}
    )

    async def call(name: str, arguments: dict[str, Any], max_chars: int = 2000) -> Any:
        async with Client(build_server(config, max_chars=max_chars)) as client:
            return await client.call_tool(name, arguments)

    big = asyncio.run(call("web_extract", {"urls": [url], "backend": "http"}))
    assert not big.is_error and len(text_of(big)) <= 2000
    content = big.structured_content
    assert json_chars(content) <= 2000 and content["truncated"] is True
    assert content["success"] is True and content["data"][0]["url"] == url
    assert "characters cut ...]" in content["data"][0]["content"]
    small = asyncio.run(call("web_search", {"query": "fits", "limit": 1, "backend": "stub"}))
    assert "truncated" not in small.structured_content and "meta" in small.structured_content
    missing = [f"{site}/missing-page-number-{n}" for n in range(20)]
    failed = asyncio.run(call("web_extract", {"urls": missing, "backend": "http"}, max_chars=400))
    content = failed.structured_content
    assert failed.is_error and json_chars(content) <= 400 and content["truncated"] is True
    assert content["success"] is False and content["error_code"] == "not_found"


def test_a_provider_is_ready_only_once_its_code_has_loaded(tmp_path: Path, make_config: Any) -> None:
    """Listing reads manifests only; a plugin whose module fails to import was listed as
    ready until something used it."""
    from webproviders.agents.mcp_server import build_server

    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "plugin.yaml").write_text(
        "name: broken\nkind: backend\ndescription: Fails to import.\nproviders:\n"
        "  - name: broken\n    capabilities: [search]\n    fetch: none\n    auto_detect: false\n",
        encoding="utf-8",
    )
    (folder / "__init__.py").write_text("import not_a_module_of_anyone\n", encoding="utf-8")
    config = make_config(
        web={"backend": "stub", "cache": False, "usage": False},
        plugins={"paths": [str(tmp_path)], "enabled": ["broken"]},
    )

    async def session() -> tuple[Any, Any, Any]:
        async with Client(build_server(config)) as client:
            before = await client.call_tool("web_providers", {})
            await client.call_tool("web_search", {"query": "x", "backend": "stub"})
            await client.call_tool("web_search", {"query": "x", "backend": "broken"})
            after = await client.call_tool("web_providers", {})
            return before, after, text_of(after)

    before, after, text = asyncio.run(session())
    assert "- broken (search): ready" not in text_of(before)
    assert "- broken (search): configured (its code loads on first use)" in text_of(before)
    rows = {row["name"]: row for row in before.structured_content["providers"]}
    assert rows["broken"]["available"] is True and rows["broken"]["loaded"] is False
    rows = {row["name"]: row for row in after.structured_content["providers"]}
    assert rows["broken"]["available"] is False and "not_a_module_of_anyone" in rows["broken"]["reason"]
    assert rows["stub"]["loaded"] is True and "- stub (search, extract, crawl): ready" in text


def test_the_providers_list_says_what_a_provider_cannot_do_without_its_key(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """jina reads pages without a key but searches only with one: it was listed as ready for
    both, and a model sent it searches that could only fail."""
    from webproviders.agents.mcp_server import build_server

    monkeypatch.delenv("JINA_API_KEY", raising=False)

    async def jina(**settings: Any) -> tuple[str, dict[str, Any]]:
        config = make_config(web={"backend": "stub", "providers": {"jina": settings}})
        async with Client(build_server(config)) as client:
            listed = await client.call_tool("web_providers", {})
        line = next(line for line in text_of(listed).splitlines() if line.startswith("- jina "))
        return line, next(row for row in listed.structured_content["providers"] if row["name"] == "jina")

    line, row = asyncio.run(jina())
    assert line == (
        "- jina (search, extract): configured (its code loads on first use); not for search: "
        "JINA_API_KEY is not set (or web.providers.jina.api_key)"
    )
    assert row["available"] is True and set(row["unavailable_for"]) == {"search"}
    line, row = asyncio.run(jina(api_key="jina_0123456789abcdef"))
    assert line == "- jina (search, extract): configured (its code loads on first use)"
    assert row["unavailable_for"] == {}
