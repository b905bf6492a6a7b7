"""An event stream the MCP app leaves open when the HTTP server stops, ended as a stream ends.

A client that keeps its standalone event stream open (``GET /mcp``, as MCP clients do to hear
from the server) made every stop of the server an error: on shutdown ``sse-starlette`` cancels
the stream without writing its last chunk, so uvicorn logged ``ASGI callable returned without
completing response`` at ERROR and the client read a broken chunked body. Here the stream is
given its end, which the client reads as the server closing the stream.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from .mcp_server import ASGIApp, Receive, Scope, Send

Message = MutableMapping[str, Any]

_EVENT_STREAM = b"text/event-stream"


def _is_event_stream(start: Message) -> bool:
    return any(
        name.lower() == b"content-type" and value.lower().startswith(_EVENT_STREAM)
        for name, value in start.get("headers", [])
    )


class EndedStreams:
    """ASGI middleware: an event stream the app returns from without its last chunk gets it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        open_stream = False

        async def noting(message: Message) -> None:
            nonlocal open_stream
            if message["type"] == "http.response.start":
                open_stream = _is_event_stream(message)
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                open_stream = False
            await send(message)

        await self.app(scope, receive, noting)
        if open_stream:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
