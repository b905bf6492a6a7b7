"""Secrets × every outward channel: nothing a vendor or a failure echoes reaches anyone.

A loopback server plays a SearXNG instance reached through ``user:password@`` in its
``base_url`` and the xAI Responses API; each scenario makes it answer the way real ones do
(401, 403, the bot limiter's 429, an HTML login page, a 400 that echoes the Authorization
header, a 502 that quotes the key and password in other case, xAI's masked key echo, a
success whose content quotes the credentials). Every
channel a person or a model reads is then searched for every form of every secret: the
envelope (sync and async), ``WebSearchError``, reprs, log records at DEBUG (httpx's and
httpcore's included), ``run_tool`` text, cached data, the CLI's stderr and JSON, and the
MCP server's tool results through the real ``mcp`` client.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import yaml

from webproviders import adispatch_search, dispatch_search, run_tool
from webproviders.agents.search_contract import WebSearchContract, WebSearchError
from webproviders.config import Config, config_from_dict
from webproviders.registry.providers import get_registry

from .bodies import SEARX_SUCCESS, XAI_BAD_KEY_OLD

USER = "searx-user"
PASSWORD = "S3cret-Pass/9876+x"
XAI_KEY = "xai-Te5tKey/with+chars=0123456789ABCDEF"
SEARX_KEY = "searx-proxy-Key=0123456789ab"
CRLF_KEY = "tok-Crlf\r\nX-Evil: 0123456789abcdef"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
MASKED = {f"{key[:2]}***{key[-2:]}" for key in (XAI_KEY, SEARX_KEY)}


def forms(secret: str) -> set[str]:
    """How a secret can show up: raw, URL-encoded, JSON-escaped (once and twice), and its tail."""
    once = json.dumps(secret)[1:-1]
    return {secret, quote(secret, safe=""), once, json.dumps(once)[1:-1], secret[-10:]}


SECRET_FORMS = sorted(
    forms(PASSWORD) | forms(XAI_KEY) | forms(SEARX_KEY) | forms("X-Evil: 0123456789abcdef")
    | {BASIC, quote(PASSWORD)} | MASKED
    | {case(secret) for secret in (PASSWORD, XAI_KEY, SEARX_KEY) for case in (str.upper, str.lower)}
)


def leaks(text: str) -> list[str]:
    return [form for form in SECRET_FORMS if form in text]


class Vendor(BaseHTTPRequestHandler):
    """SearXNG at ``GET /search`` and xAI at ``POST /v1/responses``; the query picks the answer."""

    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
        auth = self.headers.get("Authorization", "")
        if query in ("s401", "s403"):
            self.answer(int(query[1:]), b"", "text/html")
        elif query == "s429":
            self.answer(429, b"Too Many Requests", "text/plain")
        elif query == "shtml":
            self.answer(200, b"<!doctype html><html><body><form>Sign in</form></body></html>", "text/html")
        elif query == "smask":  # an authenticating proxy in front, answering like OpenAI-style APIs
            key = self.headers.get("X-Api-Key", "")
            body = {"error": f"Incorrect API key provided: {key[:2]}***{key[-2:]}. Check your key."}
            self.answer(400, json.dumps(body).encode(), "application/json")
        elif query == "supper":  # a gateway that quotes what it was sent in capitals, and in small letters
            key = self.headers.get("X-Api-Key", "")
            body = f"UPSTREAM REFUSED KEY {key.upper()} FOR USER {USER.upper()}:{PASSWORD.upper()}; retry with {key.lower()}"
            self.answer(502, body.encode(), "text/plain")
        elif query == "secho":
            body = {"error": f"Invalid request: headers {{'Authorization': '{auth}', 'Host': '127.0.0.1'}}"}
            self.answer(400, json.dumps(body).encode(), "application/json")
        else:  # sdata: an engine that quotes what it was sent
            result = dict(SEARX_SUCCESS["results"][0], content=f"Seen: {auth} and {PASSWORD}")
            self.answer(200, json.dumps({**SEARX_SUCCESS, "results": [result]}).encode(), "application/json")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        if "xmask" in raw:
            body = {**XAI_BAD_KEY_OLD, "error": XAI_BAD_KEY_OLD["error"].replace("xa***AB", f"{key[:2]}***{key[-2:]}")}
        else:  # xecho: the key percent-encoded and JSON-escaped, as a gateway might quote it
            body = {
                "code": "invalid-argument",
                "error": f"Bad request to /v1/responses?api_key={quote(key, safe='')}: "
                f"{json.dumps({'authorization': 'Bearer ' + key})}",
            }
        self.answer(400, json.dumps(body).encode(), "application/json")

    def answer(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


#: (backend, query, error_code) — ``None``: a success whose data quoted the secrets.
SCENARIOS = [
    ("searxng", "s401", "auth_error"),
    ("searxng", "s403", "not_configured"),
    ("searxng", "s429", "rate_limited"),
    ("searxng", "shtml", "parse_error"),
    ("searxng", "secho", "invalid_input"),
    ("searxng", "supper", "bad_gateway"),
    ("searxng", "smask", "auth_error"),
    ("searxng", "sdata", None),
    ("xai", "xmask", "auth_error"),
    ("xai", "xecho", "auth_error"),
]


def web_settings(port: int, searxng_key: str = SEARX_KEY, cache: Any = False) -> dict[str, Any]:
    searxng: dict[str, Any] = {
        "base_url": f"http://{USER}:{quote(PASSWORD, safe='')}@127.0.0.1:{port}/",
        "api_key": searxng_key,
        "api_key_header": "X-Api-Key",  # the URL's user:password goes as Basic auth beside it
    }
    return {
        "cache": cache,
        "retry": {"max_retries": 0},
        # Every scenario must reach the vendor: no cool-down may hide one.
        "health": {"failures": 1000, "cooldown": 0, "rate_limit_cooldown": 0},
        "providers": {"searxng": searxng, "xai": {"api_key": XAI_KEY, "base_url": f"http://127.0.0.1:{port}"}},
    }


@pytest.fixture
def port(http_server: Callable[..., Any]) -> int:
    return int(http_server(Vendor).server_address[1])


@pytest.fixture
def config(port: int) -> Config:
    return config_from_dict({"web": web_settings(port)}, source="<test>")


@pytest.mark.parametrize(("backend", "query", "code"), SCENARIOS)
def test_no_secret_in_any_in_process_channel(
    config: Config, backend: str, query: str, code: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    texts: dict[str, str] = {}
    with caplog.at_level(logging.DEBUG):
        envelope = dispatch_search(query, backend=backend, config=config)
        texts["envelope"] = json.dumps(envelope)
        texts["async envelope"] = json.dumps(asyncio.run(adispatch_search(query, backend=backend, config=config)))
        texts["run_tool"] = run_tool("web_search", {"query": query, "backend": backend}, config=config)
        texts["run_tool json"] = run_tool("web_search", {"query": query, "backend": backend}, config=config, style="json")
        contract = WebSearchContract(config, environ={"WEB_SEARCH_BACKEND": backend})
        try:
            texts["web.search"] = json.dumps(contract.run({"query": query}))
        except WebSearchError as error:
            texts["WebSearchError"] = f"{error.message}|{error}|{error!r}|{error.to_dict()}"
    texts["logs"] = "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert envelope.get("error_code") == code, envelope
    assert caplog.records, "the scenario logged nothing at DEBUG"
    assert {channel: leaks(text) for channel, text in texts.items() if leaks(text)} == {}


def test_a_key_with_cr_lf_is_refused_before_anything_is_sent_and_never_shown(
    port: int, caplog: pytest.LogCaptureFixture
) -> None:
    config = config_from_dict({"web": web_settings(port, searxng_key=CRLF_KEY)}, source="<test>")
    with caplog.at_level(logging.DEBUG):
        envelope = dispatch_search("s401", backend="searxng", config=config)
    # The key cannot go in a header: the provider is unavailable (the operator's to fix), and
    # the sentence names where the key came from, not the key.
    assert envelope["error_code"] == "not_configured", envelope
    assert "web.providers.searxng.api_key holds a character a request cannot carry" in envelope["error"]
    logs = "\n".join(r.getMessage() for r in caplog.records)
    assert leaks(json.dumps(envelope)) == [] and leaks(logs) == []


def test_a_token_written_as_the_url_s_user_is_masked_as_the_basic_credential_it_is_sent_as(
    http_server: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    token = "gw-token-0123456789abcdef"  # https://<token>@gateway/: sent as Basic "<token>:"
    sent = base64.b64encode(f"{token}:".encode()).decode()

    class Gateway(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # a gateway quoting the credential it refused, in its body and a header
            credential = self.headers.get("Authorization", "").removeprefix("Basic ")
            body = json.dumps({"error": f"credential {credential} is not valid here"}).encode()
            self.send_response(400)
            self.send_header("WWW-Authenticate", f'Basic realm="gw", error="{credential} expired"')
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    port = http_server(Gateway).server_address[1]
    config = config_from_dict(
        {"web": {"retry": {"max_retries": 0}, "providers": {"searxng": {"base_url": f"http://{token}@127.0.0.1:{port}/"}}}},
        source="<test>",
    )
    with caplog.at_level(logging.DEBUG):
        envelope = dispatch_search("status", backend="searxng", config=config)
    assert envelope["success"] is False and "credential *** is not valid here" in envelope["error"], envelope
    logs = "\n".join(r.getMessage() for r in caplog.records)
    assert "WWW-Authenticate" in logs or "www-authenticate" in logs
    assert [text for text in (json.dumps(envelope), logs) if sent in text or token in text] == []


def test_reprs_and_httpx_request_logs_show_no_credentials(config: Config, port: int, caplog: pytest.LogCaptureFixture) -> None:
    import httpx

    registry = get_registry(config)  # remembers the config's secrets
    providers = [registry.get(name).provider for name in ("searxng", "xai")]  # type: ignore[union-attr]
    texts = [repr(config), str(config), repr(config.provider("searxng")), *map(repr, providers)]
    with caplog.at_level(logging.DEBUG):
        with httpx.Client() as client:  # httpx logs each request's URL, userinfo and all
            client.get(f"http://{USER}:{quote(PASSWORD, safe='')}@127.0.0.1:{port}/search?q=s401")
    httpx_lines = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert httpx_lines and "HTTP Request: GET http://***@127.0.0.1" in httpx_lines[0]
    assert [leaks(text) for text in [*texts, *httpx_lines] if leaks(text)] == []


def test_cached_data_holds_no_secret(port: int, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    config = config_from_dict({"web": web_settings(port, cache={"backend": "sqlite", "path": str(path)})}, source="<test>")
    first = dispatch_search("sdata", backend="searxng", config=config)
    assert first["success"] is True and "Seen: Basic ***" in first["data"]["web"][0]["description"]
    again = dispatch_search("sdata", backend="searxng", config=config)
    assert again["meta"].get("cached") is True
    assert leaks(json.dumps(again)) == []
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("cache.sqlite3*"))
    assert b"Seen: Basic ***" in stored
    assert [form for form in SECRET_FORMS if form.encode() in stored] == []


@pytest.mark.parametrize(
    "settings",
    [
        {"api_key": XAI_KEY},  # a key without the provider it is for
        {"provider": "xai", "api_key": 12345678901234},  # a key of the wrong type
        {"provider": "searxng", "base_url": [f"http://{USER}:{PASSWORD}@127.0.0.1/"]},
        {"provider": "not a name", "api_key": XAI_KEY},
    ],
)
def test_web_tool_config_errors_do_not_quote_the_key(settings: dict[str, Any]) -> None:
    from pydantic import ValidationError

    from webproviders import WebToolConfig

    with pytest.raises(ValidationError) as caught:
        WebToolConfig(**settings)
    text = f"{caught.value}|{caught.value!r}"
    assert leaks(text) == [] and "12345678901234" not in text


# --- other processes: the CLI and the MCP server ---------------------------------------------


def write_config(tmp_path: Path, web: dict[str, Any], name: str = "config.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"web": web}), encoding="utf-8")
    return path


def child_env(home: Path) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "VIRTUAL_ENV", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    return {**env, "HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}


def test_the_cli_prints_no_secret_on_stderr_or_in_json(port: int, tmp_path: Path) -> None:
    plain = write_config(tmp_path, web_settings(port))
    crlf = write_config(tmp_path, web_settings(port, searxng_key=CRLF_KEY), "crlf.yaml")
    runs = [(plain, backend, query, json_flag) for backend, query, _ in SCENARIOS for json_flag in ([], ["--json"])]
    runs += [(crlf, "searxng", "s401", []), (crlf, "searxng", "s401", ["--json"])]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "webproviders.cli", "--debug", "--config", str(path), "search", query,
             "--backend", backend, *json_flag],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(tmp_path),
        )
        for path, backend, query, json_flag in runs
    ]
    found = {}
    for (path, backend, query, json_flag), process in zip(runs, processes, strict=True):
        out, err = process.communicate(timeout=120)
        if path == crlf:  # refused before anything is sent: the plan says why
            assert "holds a character a request cannot carry" in (out if json_flag else err)
        elif json_flag:
            assert json.loads(out)["provider"] == backend
        else:
            assert "debug: attempt:" in err  # the call's decisions, with the vendor's error, went to stderr
        if leaks(out + err):
            found[(path.name, query, bool(json_flag))] = leaks(out + err)
    assert found == {}


def test_the_mcp_server_hands_the_model_no_secret(port: int, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import Client, StdioServerParameters

    config = write_config(tmp_path, web_settings(port))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "webproviders.cli", "--config", str(config), "mcp"],
        env=child_env(tmp_path),
    )

    async def main() -> dict[str, str]:
        seen: dict[str, str] = {}
        async with Client(params, read_timeout_seconds=60) as client:
            for backend, query, code in SCENARIOS:
                result = await client.call_tool("web_search", {"query": query, "backend": backend})
                text = "\n".join(block.text for block in result.content if block.type == "text")
                assert result.is_error is (code is not None)
                seen[query] = text + json.dumps(result.structured_content)
        return seen

    seen = asyncio.run(asyncio.wait_for(main(), 120))
    assert {query: leaks(text) for query, text in seen.items() if leaks(text)} == {}
