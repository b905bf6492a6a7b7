"""``webproviders mcp``: the tools as a Model Context Protocol server, over stdio or HTTP.

Tools: ``web_search``, ``web_extract``, ``web_crawl`` (schemas from :mod:`webproviders.agents.tools`)
and ``web_providers``. A result carries the envelope as structured content and a short
markdown rendering as text; a failure is a tool error (``isError``) whose text is the
envelope's sentence. Keys come from the server's configuration only: no schema has a key
field, and unknown arguments are refused.

The ``mcp`` package (extra ``mcp``) is imported here only, when a server is built.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..config import Config, ConfigError
from ..redact import get_logger
from .formatting import format_results
from .tools import DEFAULT_MAX_CHARS, TOOLS, acall_tool, input_schema

if TYPE_CHECKING:
    from mcp.server import Server

log = get_logger("webproviders.mcp")

PROVIDERS_TOOL = "web_providers"
TOKEN_ENV = "WEBPROVIDERS_MCP_TOKEN"
HTTP_PATH = "/mcp"
_PROVIDER_FIELDS = ("name", "display_name", "capabilities", "available", "reason")
_INSTRUCTIONS = (
    "Web access: web_search finds pages, web_extract reads pages by URL, web_crawl follows a "
    "site's links, web_providers lists the search backends this server can use."
)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def mcp_missing_reason() -> str | None:
    """Why the server cannot start (the ``mcp`` package is missing), or None."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        return "The MCP server needs the 'mcp' package: pip install 'webproviders[mcp]'."
    return None


def _providers(config: Config | None) -> list[dict[str, Any]]:
    from ..registry.providers import list_providers

    return [
        {key: row[key] for key in _PROVIDER_FIELDS}
        for row in list_providers(config)
        if row.get("load_error") is None or row.get("capabilities")
    ]


def _providers_text(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        state = "ready" if row["available"] else f"not available: {row['reason']}"
        lines.append(
            f"- {row['name']} ({', '.join(row['capabilities']) or 'no capabilities'}): {state}"
        )
    return "\n".join(lines) or "No providers are installed."


def build_server(config: Config | None = None, *, max_chars: int = DEFAULT_MAX_CHARS) -> Server:
    """An MCP server answering with ``config`` (the default config when None)."""
    import anyio
    from mcp import types
    from mcp.server import Server
    from mcp.shared.exceptions import MCPError

    annotations = types.ToolAnnotations(read_only_hint=True, open_world_hint=True)
    tools = [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=input_schema(spec.name),
            annotations=annotations,
        )
        for spec in TOOLS.values()
    ]
    tools.append(
        types.Tool(
            name=PROVIDERS_TOOL,
            description="List the web providers this server can use, what each can do and whether it is ready.",
            input_schema={"type": "object", "properties": {}, "additionalProperties": False},
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        )
    )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == PROVIDERS_TOOL:
            if arguments:
                return _error_result(types, f"{PROVIDERS_TOOL} takes no arguments.")
            rows = await anyio.to_thread.run_sync(_providers, config)
            return types.CallToolResult(
                content=[types.TextContent(text=_providers_text(rows))],
                structured_content={"providers": rows},
            )
        if params.name not in TOOLS:
            known = ", ".join([*TOOLS, PROVIDERS_TOOL])
            raise MCPError(
                types.INVALID_PARAMS, f"Unknown tool '{params.name}'. Known tools: {known}."
            )
        envelope = await acall_tool(params.name, arguments, config=config)
        return types.CallToolResult(
            content=[types.TextContent(text=format_results(envelope, "markdown", max_chars))],
            structured_content=envelope,
            is_error=not envelope.get("success"),
        )

    return Server(
        "webproviders",
        version=__version__,
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _error_result(types: Any, message: str) -> Any:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


# --- transports ---------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1); names are not resolved."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def http_token(config: Config) -> str | None:
    """The bearer token HTTP clients must send: ``$WEBPROVIDERS_MCP_TOKEN``, else ``mcp.token``.

    A token that is configured but empty (``mcp.token: ${MY_MCP_TOKEN}`` with the variable
    unset, or the environment variable set to nothing) raises :class:`ConfigError`: serving
    without the token the operator meant to require would be silently open.
    """
    from_env = os.environ.get(TOKEN_ENV)
    if from_env is not None and from_env.strip():
        return from_env.strip()
    configured = config.mcp.token
    if configured is not None:
        token = configured.get_secret_value().strip()
        if token:
            return token
        raise ConfigError(
            f"mcp.token in {config.source or 'the configuration'} is empty (a ${{VARIABLE}} that is not "
            "set becomes empty), so the HTTP server will not start without the token it was meant to "
            "require. Set the variable it names, or remove mcp.token to serve without a token."
        )
    if from_env is not None:
        raise ConfigError(
            f"${TOKEN_ENV} is set but empty, so the HTTP server will not start without the token it was "
            f"meant to require. Give it a value, or unset it to serve without a token."
        )
    return None


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode("utf-8")

    def _authorised(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                scheme, _, credentials = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(
                    credentials.strip(), self._token
                )
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            body = (
                b'{"error":"unauthorized","error_description":"A valid bearer token is required."}'
            )
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="webproviders"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


async def serve_stdio(server: Server) -> None:
    """Serve one client over this process's stdin and stdout."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _local_only(host: str) -> Any:
    """DNS-rebinding guard for a loopback bind: only local Host and Origin headers pass."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = ["127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names],
    )


def http_app(server: Server, *, host: str, token: str | None) -> ASGIApp:
    """The streamable HTTP app at ``/mcp``, behind the bearer check when a token is set."""
    if token is not None and not token.strip():
        raise ValueError("An empty bearer token would leave the server open; pass None to serve without one.")
    security = _local_only(host) if is_loopback(host) else None
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=host, transport_security=security
    )
    return BearerAuth(app, token) if token else app


async def serve_http(server: Server, *, host: str, port: int, token: str | None) -> None:
    """Serve streamable HTTP on ``host:port`` until interrupted."""
    import uvicorn

    app = http_app(server, host=host, token=token)
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(
        f"webproviders MCP server on http://{shown}:{port}{HTTP_PATH}"
        f" ({'bearer token required' if token else 'no token'})\n"
    )
    sys.stderr.flush()
    settings = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    await uvicorn.Server(settings).serve()
