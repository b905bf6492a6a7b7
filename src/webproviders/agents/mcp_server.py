"""``webproviders mcp``: the tools as a Model Context Protocol server, over stdio or HTTP.

Tools: ``web_search``, ``web_extract``, ``web_crawl`` (schemas from :mod:`webproviders.agents.tools`)
and ``web_providers``. A result carries the envelope as structured content and a short
markdown rendering as text, both within ``max_chars``; a failure is a tool error (``isError``) whose text is the
envelope's sentence. No schema has a key field, and unknown arguments are refused.

Over HTTP every request carries a bearer token. ``mcp.users`` maps tokens to user ids (the
tokens written in the config, from the environment or read from files, and compared in
constant time): a user's calls are tagged ``{mcp.user_tag: <user id>}``, so per-tag budgets
and usage reports are per user, and a session serves only the user who opened it. With ``mcp.user_keys``, a client may send its own vendor
keys as ``X-Webproviders-Key-<provider>`` headers: they serve that client's calls only (a
copy of the server's configuration with those keys), are kept out of every log line and
error text, and are not stored anywhere else.

The ``mcp`` package (extra ``mcp``) is imported here only, when a server is built.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import ipaddress
import logging
import os
import re
import socket
import sys
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from .._version import __version__
from ..config import Config, ConfigError, ProviderSettings, default_config
from ..homedir import expand_user, require_home
from ..redact import get_logger, remember
from .bounded import bounded_envelope, bounded_rows
from .formatting import cut_end, format_results
from .tools import BACKEND_PATTERN, DEFAULT_MAX_CHARS, TOOLS, acall_tool, input_schema, invalid_call

if TYPE_CHECKING:
    from mcp.server import Server

log = get_logger("webproviders.mcp")

PROVIDERS_TOOL = "web_providers"
TOKEN_ENV = "WEBPROVIDERS_MCP_TOKEN"
HTTP_PATH = "/mcp"
#: Header prefix of a client's own vendor key: ``X-Webproviders-Key-Tavily: tvly-...``.
KEY_HEADER_SHOWN = "X-Webproviders-Key-"
KEY_HEADER = KEY_HEADER_SHOWN.lower()  # as ASGI gives header names
#: Where the gate leaves the caller for the tool handlers, in the ASGI scope's ``state``.
CALLER_STATE = "webproviders.caller"
#: Configurations built for clients' own keys, kept for reuse (each has its own registry).
MAX_KEYED_CONFIGS = 32
#: Sessions whose opener is remembered, the most recent kept (the ``mcp`` package's own cap on
#: open sessions).
MAX_SESSION_OWNERS = 10_000
_SESSION_HEADER = b"mcp-session-id"
_PROVIDER_FIELDS = ("name", "display_name", "capabilities", "available", "loaded", "reason", "unavailable_for")
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


def _unknown_key_providers(config: Config, keys: Mapping[str, str]) -> str | None:
    """Why a client's keys are refused: a header naming no installed provider (a typo, such as
    ``X-Webproviders-Key-Tavly``) would leave the server's own key to serve its calls."""
    from ..registry.providers import get_registry
    from ..suggest import did_you_mean

    known = {entry.manifest.name for entry in get_registry(config).entries()}
    unknown = sorted(name for name in keys if name not in known)
    if not unknown:
        return None
    named = ", ".join(f"{KEY_HEADER_SHOWN}{name.title()}" for name in unknown)
    hints = "".join(did_you_mean(name, known) for name in unknown)
    return (
        f"{named} names no provider of this server (web_providers lists them).{hints} The call was not "
        "made, so that the server's own key does not serve it in place of yours."
    )


def _providers(config: Config | None) -> list[dict[str, Any]]:
    from ..registry.providers import list_providers

    return [
        {key: row[key] for key in _PROVIDER_FIELDS}
        for row in list_providers(config)
        if row.get("load_error") is None or row.get("capabilities")
    ]


def _state(row: Mapping[str, Any]) -> str:
    """Ready only once the provider's code has loaded and agreed; before that the listing is
    its manifest's view (listing imports no provider code), and says so."""
    if not row["available"]:
        return f"not available: {row['reason']}"
    state = "ready" if row["loaded"] else "configured (its code loads on first use)"
    # a provider that runs without a key may need one for part of what it does (jina's search)
    return state + "".join(f"; not for {capability}: {why}" for capability, why in row["unavailable_for"].items())


def _providers_text(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        state = _state(row)
        lines.append(
            f"- {row['name']} ({', '.join(row['capabilities']) or 'no capabilities'}): {state}"
        )
    return "\n".join(lines) or "No providers are installed."


@dataclass(frozen=True)
class Caller:
    """Who sent an HTTP request: a user id (None for the shared token or no token) and the
    vendor keys they sent (never shown in a repr)."""

    user: str | None = None
    keys: Mapping[str, str] = field(default_factory=dict, repr=False)


def _caller(ctx: Any) -> Caller:
    request = getattr(ctx, "request", None)
    state = getattr(request, "scope", {}).get("state") or {}
    found = state.get(CALLER_STATE)
    return found if isinstance(found, Caller) else Caller()


class KeyedConfigs:
    """The server's configuration with a client's own vendor keys in place of its own, one
    per set of keys, the most recent :data:`MAX_KEYED_CONFIGS` kept (each has its own
    registry, so cache and health are not rebuilt on every call)."""

    def __init__(self) -> None:
        self._configs: OrderedDict[str, Config] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, base: Config, keys: Mapping[str, str]) -> Config:
        digest = hashlib.sha256(repr(sorted(keys.items())).encode()).hexdigest()
        with self._lock:
            found = self._configs.get(digest)
            if found is not None:
                self._configs.move_to_end(digest)
                return found
        providers = dict(base.web.providers)
        for name, key in keys.items():
            settings: ProviderSettings = base.provider(name)
            origin = f"the key this client sent in {KEY_HEADER_SHOWN}{name.title()}"
            providers[name] = settings.with_key(SecretStr(key), origin)
        web = base.web.model_copy(update={"providers": providers})
        keyed = base.model_copy(update={"web": web})
        keyed.source = base.source
        with self._lock:
            self._configs[digest] = keyed
            while len(self._configs) > MAX_KEYED_CONFIGS:
                self._configs.popitem(last=False)
        return keyed


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
            description=spec.describe(),
            input_schema=input_schema(spec.name),
            annotations=annotations,
        )
        for spec in TOOLS.values()
    ]
    tools.append(
        types.Tool(
            name=PROVIDERS_TOOL,
            description=(
                "List the web providers this server can use, what each can do and whether it is "
                "ready, configured (not used yet) or not available and why."
            ),
            input_schema={"type": "object", "properties": {}, "additionalProperties": False},
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        )
    )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    keyed = KeyedConfigs()

    def answer(envelope: dict[str, Any]) -> types.CallToolResult:
        """An envelope as a tool result: structured content, its markdown (both within
        ``max_chars``), a failure an error."""
        return types.CallToolResult(
            content=[types.TextContent(text=format_results(envelope, "markdown", max_chars))],
            structured_content=bounded_envelope(envelope, max_chars),
            is_error=not envelope.get("success"),
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        caller = _caller(ctx)
        base = config if config is not None else default_config()
        used = keyed.get(base, caller.keys) if caller.keys else config
        tags = {base.mcp.user_tag: caller.user} if caller.user is not None else None
        if caller.keys and params.name in TOOLS:
            refused = await anyio.to_thread.run_sync(_unknown_key_providers, base, caller.keys)
            if refused is not None:
                return answer(invalid_call(refused))
        if params.name == PROVIDERS_TOOL:
            if arguments:
                return answer(invalid_call(f"{PROVIDERS_TOOL} takes no arguments."))
            rows = await anyio.to_thread.run_sync(_providers, used)
            return types.CallToolResult(
                content=[types.TextContent(text=cut_end(_providers_text(rows), max_chars))],
                structured_content=bounded_rows("providers", rows, max_chars),
            )
        if params.name not in TOOLS:
            known = ", ".join([*TOOLS, PROVIDERS_TOOL])
            raise MCPError(
                types.INVALID_PARAMS, f"Unknown tool '{params.name}'. Known tools: {known}."
            )
        return answer(await acall_tool(params.name, arguments, config=used, tags=tags))

    return Server(
        "webproviders",
        version=__version__,
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


# --- transports ---------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1); names are not resolved."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _shared_token(config: Config) -> str | None:
    """The token of no user in particular: ``$WEBPROVIDERS_MCP_TOKEN``, else ``mcp.token``.

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


#: The most a ``token_file`` may hold: a bearer token is a line of text.
MAX_TOKEN_FILE_BYTES = 64 * 1024


def _user_token(config: Config, user: str) -> str:
    """A user's token, from the config or their ``token_file``; empty or unreadable is an error."""
    settings = config.mcp.users[user]
    where = f"mcp.users.{user} in {config.source or 'the configuration'}"
    if settings.token_file is not None:
        try:
            path = require_home(expand_user(settings.token_file))
        except OSError as exc:
            raise ConfigError(f"{where}: the token file {exc.filename} cannot be read ({exc.strerror}).") from None
        try:
            with path.open("rb") as file:  # a bounded read: a path naming /dev/zero never ends
                raw = file.read(MAX_TOKEN_FILE_BYTES + 1)
        except OSError as exc:
            raise ConfigError(f"{where}: the token file {path} cannot be read ({exc.strerror}).") from None
        if len(raw) > MAX_TOKEN_FILE_BYTES:
            raise ConfigError(
                f"{where}: the token file {path} is larger than {MAX_TOKEN_FILE_BYTES // 1024} KiB; it should "
                "hold the token alone."
            )
        try:
            token = raw.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{where}: the token file {path} is not UTF-8 text (byte {exc.start + 1} cannot be read)."
            ) from None
    else:
        token = settings.token.get_secret_value().strip() if settings.token is not None else ""
    if not token:
        raise ConfigError(
            f"{where}: the token is empty (a ${{VARIABLE}} that is not set becomes empty, or the "
            "token file is empty), so the HTTP server will not start without it."
        )
    return token


def http_tokens(config: Config) -> dict[str, str | None]:
    """Every bearer token the HTTP server accepts, mapped to its user id (None for the shared
    token); empty when none is configured (the server is then open)."""
    tokens: dict[str, str | None] = {}
    shared = _shared_token(config)
    if shared is not None:
        tokens[shared] = None
    for user in config.mcp.users:
        token = _user_token(config, user)
        if token in tokens:
            raise ConfigError(
                f"mcp.users.{user} has the same token as another user (or the shared token); "
                "every user needs a token of their own."
            )
        tokens[token] = user
    remember(*tokens)  # a token never shows in a log line or an error, whoever reads it
    return tokens


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>`` of a
    known user (when tokens are configured), and may carry the client's own vendor keys
    (when ``user_keys`` allows it). The caller is left in the scope's ``state``."""

    def __init__(
        self, app: ASGIApp, tokens: Mapping[str, str | None], *, user_keys: bool = False
    ) -> None:
        self.app = app
        self._tokens = [(token.encode("utf-8"), user) for token, user in tokens.items()]
        self._user_keys = user_keys
        #: Who opened each session: a request of another user naming it is refused.
        self._owners: OrderedDict[bytes, str | None] = OrderedDict()

    def _user(self, scope: Scope) -> tuple[bool, str | None]:
        """``(known, user)``: every token is compared, in constant time, whatever matches."""
        presented = b""
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                scheme, _, credentials = value.partition(b" ")
                presented = credentials.strip() if scheme.lower() == b"bearer" else b""
                break
        known, found = False, None
        for token, user in self._tokens:
            if hmac.compare_digest(presented, token):
                known, found = True, user
        return known, found

    def _keys(self, scope: Scope) -> dict[str, str] | str:
        """The vendor keys sent, or why they are refused."""
        keys: dict[str, str] = {}
        for name, value in scope.get("headers", []):
            lowered = name.decode("latin-1").lower()
            if not lowered.startswith(KEY_HEADER):
                continue
            provider = lowered[len(KEY_HEADER):]
            if not self._user_keys:
                return "This server does not take vendor keys from clients (mcp.user_keys is off)."
            if not re.match(BACKEND_PATTERN, provider):
                return f"'{provider}' in a {KEY_HEADER}<provider> header is not a provider name."
            key = value.decode("latin-1").strip()
            if not key:  # a client's ${VARIABLE} that is not set: the server's key must not serve instead
                return (
                    f"{KEY_HEADER_SHOWN}{provider.title()} is empty; send the key in it, or leave the header "
                    "out to use the server's own key."
                )
            keys[provider] = key
        return keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        known, user = self._user(scope) if self._tokens else (True, None)
        if not known:
            await _refuse(send, 401, "unauthorized", "A valid bearer token is required.")
            return
        keys = self._keys(scope)
        if isinstance(keys, str):
            await _refuse(send, 400, "invalid_request", keys)
            return
        scope.setdefault("state", {})[CALLER_STATE] = Caller(user, keys)
        session = next((value for name, value in scope.get("headers", []) if name.lower() == _SESSION_HEADER), None)
        if session is None:
            await self.app(scope, receive, functools.partial(self._note_owner, send, user))
            return
        if session in self._owners and self._owners[session] != user:
            # another user's session: its requests (a cancellation of theirs) are not this caller's
            await _refuse(send, 404, "not_found", "Session not found: no session of this caller has that id.")
            return
        await self.app(scope, receive, send)

    async def _note_owner(self, send: Send, user: str | None, message: MutableMapping[str, Any]) -> None:
        """Remember who opened the session an answer names, as the MCP spec advises (a session
        bound to its user), so that a session id another user learns serves them nothing."""
        if message["type"] == "http.response.start":
            for name, value in message.get("headers", []):
                if name.lower() == _SESSION_HEADER:
                    self._owners[bytes(value)] = user
                    while len(self._owners) > MAX_SESSION_OWNERS:
                        self._owners.popitem(last=False)
        await send(message)


async def _refuse(send: Send, status: int, error: str, description: str) -> None:
    import json

    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="webproviders"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def serve_stdio(server: Server) -> None:
    """Serve one client over this process's stdin and stdout; a request the transport cannot
    read (a lone surrogate) is answered with a parse error, and one whose id no answer can carry
    (``1.5``) with an invalid-request error, not left without an answer, the
    requests read before stdin ends are answered before the server stops, and Ctrl-C stops
    the server without waiting for the client's next line. What plugin or vendor code prints
    while serving goes to stderr: the real stdout carries protocol messages alone."""
    from mcp.server.stdio import stdio_server
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    from ..printsaside import prints_aside
    from .mcp_drain import DrainingReader, NotingWriter, Unanswered
    from .mcp_ids import ScreenedLines
    from .mcp_stdin import AnsweringReader, refuse_oversized
    from .mcp_wire import wire_lines

    try:
        async with wire_lines(DEFAULT_MAX_REQUEST_BODY_SIZE) as lines:
            screened = ScreenedLines(lines)
            async with stdio_server(stdin=screened) as (read_stream, write_stream):  # type: ignore[arg-type]
                lines.on_oversized = functools.partial(refuse_oversized, write_stream)
                screened.replies = write_stream
                # the transport holds the real stdout from here on: sys.stdout may be put aside
                with prints_aside():
                    unanswered = Unanswered()
                    reader = DrainingReader(AnsweringReader(read_stream, write_stream), unanswered)
                    writer = NotingWriter(write_stream, unanswered)
                    await server.run(reader, writer, server.create_initialization_options())
    except Exception as exc:
        if not _client_gone(exc):
            raise


def _client_gone(exc: BaseException) -> bool:
    """Whether stdout failing is all that went wrong (a group of them, as the transport's task
    group raises it): the client has exited, so there is no one left to answer and no fault."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, tuple):
        return all(_client_gone(error) for error in inner)
    return isinstance(exc, (BrokenPipeError, ConnectionResetError))


def _local_only(host: str) -> Any:
    """DNS-rebinding guard for a loopback bind: only local Host and Origin headers pass, with
    a port or without one (a client of a server on port 80 leaves the default port out)."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = ["127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[form for name in names for form in (name, f"{name}:*")],
        allowed_origins=[form for name in names for form in (f"http://{name}", f"http://{name}:*")],
    )


def http_app(
    server: Server, *, host: str, tokens: Mapping[str, str | None] | None, user_keys: bool = False
) -> ASGIApp:
    """The streamable HTTP app at ``/mcp``, behind the bearer check when tokens are set
    (``{token: user id or None}``)."""
    from .mcp_ids import AnsweringBadIds
    from .mcp_streams import EndedStreams

    if tokens and any(not token.strip() for token in tokens):
        raise ValueError("An empty bearer token would leave the server open; pass no tokens to serve without one.")
    security = _local_only(host) if is_loopback(host) else None
    app: ASGIApp = EndedStreams(
        AnsweringBadIds(
            server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host, transport_security=security),
            path=HTTP_PATH,
            security=security,
        )
    )
    return BearerAuth(app, tokens or {}, user_keys=user_keys) if tokens or user_keys else app


#: Connections held until the server accepts them (uvicorn's own default).
_BACKLOG = 2048
#: Seconds a stopped HTTP server (Ctrl-C, SIGTERM) gives the calls in flight before it cancels
#: them: uvicorn's default waits for every one to end, a crawl's whole deadline.
SHUTDOWN_GRACE = 5.0


#: uvicorn's line when :data:`SHUTDOWN_GRACE` is over and it cancels the calls still running.
_CANCEL_LINE = "Cancel %s running task(s)"


class _CancelledAtShutdown(logging.Filter):
    """Leaves out uvicorn's traceback for a call it cancelled past :data:`SHUTDOWN_GRACE`,
    and gives its line saying how many at WARNING, not ERROR: a stop that cuts calls short is
    what the grace is for, no fault to page anyone about."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, asyncio.CancelledError):
            return False
        if record.levelno > logging.WARNING and str(record.msg).startswith(_CANCEL_LINE):
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        return True


def _listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound and listening before the server is announced: a port in use or an
    address this machine does not have is a :class:`ConfigError` saying so, and port 0 is
    announced as the port it got."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(_BACKLOG)  # a client that connects once the server is announced waits, not refused
    except OSError as exc:
        sock.close()
        shown = f"[{host}]" if ":" in host else host
        raise ConfigError(
            f"The MCP server cannot listen on {shown}:{port}: {exc.strerror or exc}. "
            "Choose another --port (0: any free one) or --host."
        ) from None
    return sock


async def serve_http(
    server: Server,
    *,
    host: str,
    port: int,
    tokens: Mapping[str, str | None] | None,
    user_keys: bool = False,
) -> None:
    """Serve streamable HTTP on ``host:port`` until interrupted. An IPv6 address may be given
    as a URL writes it (``[::1]``): the server line brackets it once."""
    import uvicorn

    host = host.strip("[]")
    app = http_app(server, host=host, tokens=tokens, user_keys=user_keys)
    sock = _listen(host, port)
    shown = f"[{host}]" if ":" in host else host
    users = sum(1 for user in (tokens or {}).values() if user is not None)
    required = f"bearer token required, {users} user(s)" if tokens else "no token"
    bound = sock.getsockname()[1]
    sys.stderr.write(f"webproviders MCP server on http://{shown}:{bound}{HTTP_PATH} ({required})\n")
    sys.stderr.flush()
    settings = uvicorn.Config(
        app,
        host=host,
        port=bound,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )
    logging.getLogger("uvicorn.error").addFilter(_CancelledAtShutdown())
    await uvicorn.Server(settings).serve(sockets=[sock])
