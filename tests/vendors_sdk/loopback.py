"""A vendor on 127.0.0.1 that answers every request with JSON (the test says which)."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any


class JsonVendor(BaseHTTPRequestHandler):
    """Reads each request's body, then sends what :meth:`reply` gives, as JSON."""

    protocol_version = "HTTP/1.1"

    def reply(self) -> tuple[int, bytes]:
        """The status and body for the request just read."""
        raise NotImplementedError

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, raw = self.reply()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass
