"""Answering the stdio requests the ``mcp`` package cannot read, instead of dropping them.

The package reads each stdin line with pydantic's strict JSON parser, which refuses a string
holding half of a UTF-16 pair (``"\\ud800"``, what a model may emit for a cut emoji), and
hands the server the failure, which only logs it: the client would wait for its answer
forever. Python's own ``json`` reads such a line, so its request id is known and an error
can be sent back under it (the HTTP transport answers the same line with a parse error); read
leniently, it finds the id of a line refused for a raw control character in a string or a
leading byte-order mark as well.
JSON the package reads but will not take (a batch, which this protocol version dropped; an
object without ``"jsonrpc": "2.0"``) was dropped the same way: each request in it is answered
with an invalid-request error (the HTTP transport answers it with one under a null id).

A line too long to read (see :mod:`.mcp_wire`) is answered from its first bytes when they
hold its request id and method, else dropped with a log line.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..redact import get_logger
from ..surrogates import sound
from .mcp_ids import invalid_request, reply_id
from .mcp_wrap import ReaderAround

log = get_logger("webproviders.mcp")

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream
    from mcp.shared.message import SessionMessage

_BLANK = " \t\r\n"


def _lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in ``value``'s strings (keys included), as ``\\udXXX``."""
    if isinstance(value, str):
        if sound(value) == value:
            return None
        return next(f"\\u{ord(c):04x}" for c in value if "\ud800" <= c <= "\udfff")
    items: list[Any] = []
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    return next((found for item in items if (found := _lone_surrogate(item))), None)


def _invalid(problems: list[Any]) -> list[Any]:
    """The errors answering the requests in JSON the transport read but would not take: a
    batch (a JSON array, which this protocol version dropped), or an object that is not a
    JSON-RPC 2.0 message (``"jsonrpc"`` missing, ``params`` not an object, ...)."""
    # The message itself is the input of a problem with the whole of it: its type (a batch), or
    # a field missing from it. Not that of any problem: ``params`` given as a list (by position,
    # as JSON-RPC allows and MCP does not) was taken for a batch holding no request, unanswered.
    whole = next((p["input"] for p in problems if _of_the_whole(p) and isinstance(p.get("input"), (dict, list))), None)
    if isinstance(whole, list):
        text = (
            "Invalid request: this server reads one JSON-RPC message per line, not a batch "
            "(a JSON array); send each request on its own line."
        )
        messages = whole
    elif isinstance(whole, dict) and whole.get("jsonrpc") != "2.0":
        text = 'Invalid request: a JSON-RPC request holds "jsonrpc": "2.0".'
        messages = [whole]
    else:
        found = next((p for p in problems if p.get("loc", ())[:1] == ("JSONRPCRequest",)), problems[0])
        where = ".".join(str(part) for part in found.get("loc", ())[1:])
        text = f"Invalid request: {where + ': ' if where else ''}{found.get('msg')}."
        messages = [whole]
    return [invalid_request(request_id, text) for is_request, request_id in map(reply_id, messages) if is_request]


def _of_the_whole(problem: Any) -> bool:
    """Whether a problem pydantic found (under the name of the message model it tried) is
    about the message as a whole: its own type, or a field missing from it."""
    depth = len(problem.get("loc", ()))
    return depth == 1 or (depth == 2 and problem.get("type") == "missing")


def refusals(exc: Exception) -> list[Any]:
    """The JSON-RPC errors answering the requests on a line the transport could not read or
    would not take; empty when the line held no request (a notification, a response, no
    JSON at all)."""
    problems = exc.errors() if isinstance(exc, ValidationError) else []
    if not problems:
        return []
    if problems[0].get("type") != "json_invalid":
        return _invalid(problems)
    reply = _parse_refusal(problems)
    return [] if reply is None else [reply]


def _parse_refusal(problems: list[Any]) -> Any:
    """The JSON-RPC parse error answering a request on a line that is not JSON to the
    transport's parser, or None when Python's own reading of it finds no request."""
    from mcp import types

    line = problems[0].get("input")
    if not isinstance(line, (str, bytes)):
        return None
    try:
        # lenient where the transport's parser is strict, so the id of such a request is read
        # too: a raw control character in a string (a NUL, a tab), a byte-order mark before it
        text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
        message = json.loads(text.removeprefix("\ufeff"), strict=False)
        surrogate = _lone_surrogate(message)
    except ValueError:
        return None
    except RecursionError:  # nested deeper than Python reads: its leading members may say
        message = _leading_members(line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line)
        surrogate = None
    is_request, request_id = reply_id(message)
    if not is_request:
        return None
    if surrogate is None:
        text = f"Parse error: {problems[0]['msg']}"
    else:
        text = (
            f"Parse error: the request holds a lone surrogate ({surrogate}, half of a UTF-16 "
            "pair), which is not text; send whole characters."
        )
    error = types.ErrorData(code=types.PARSE_ERROR, message=text)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def _leading_members(head: str) -> dict[str, Any]:
    """The top-level members of a JSON object that come whole in ``head``, the start of it,
    up to the first one that does not (a long ``params``); empty when it is no object or a
    name comes twice (which of the two counts cannot be known from a part)."""
    decoder = json.JSONDecoder()
    members: dict[str, Any] = {}
    at = len(head) - len(head.lstrip(_BLANK))
    if not head.startswith("{", at):
        return members
    at += 1
    try:
        while True:
            while head[at] in _BLANK:
                at += 1
            name, at = decoder.raw_decode(head, at)
            while head[at] in _BLANK:
                at += 1
            if not isinstance(name, str) or head[at] != ":" or name in members:
                return {}
            at += 1
            while head[at] in _BLANK:
                at += 1
            value, at = decoder.raw_decode(head, at)
            while head[at] in _BLANK:
                at += 1
            if head[at] not in ",}":  # a value cut where the part ends (a number) is not whole
                return members
            members[name] = value
            if head[at] == "}":
                return members
            at += 1
    except (ValueError, IndexError, RecursionError):  # the part ends here, or nests too deep to read
        return members


def oversized_refusal(head: bytes, size: int, limit: int) -> Any:
    """The JSON-RPC error answering a request on a line over ``limit`` bytes, read from the
    line's first bytes, or None when they do not say it is a request and under which id."""
    is_request, request_id = reply_id(_leading_members(head.decode("utf-8", errors="replace")))
    if not is_request:
        return None
    return invalid_request(
        request_id,
        f"Request too large: its line holds {size} bytes, over the {limit // (1024 * 1024)} MiB this "
        "server reads; send shorter arguments.",
    )


async def refuse_oversized(replies: WriteStream[SessionMessage], head: bytes, size: int, limit: int) -> None:
    """Answer a request on a line too long to read, or log that it was dropped."""
    from mcp.shared.message import SessionMessage

    reply = oversized_refusal(head, size, limit)
    if reply is None:
        log.warning(
            "Dropped a %d-byte line on stdin, over the %d bytes this server reads; its first bytes hold "
            "no request id, so it is not answered.", size, limit,
        )
        return
    await replies.send(SessionMessage(reply))


class AnsweringReader(ReaderAround):
    """The transport's read stream, with each unreadable request answered on the write
    stream (and not passed on) rather than logged and dropped by the server."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
    ) -> None:
        super().__init__(inner)
        self._replies = replies

    async def receive(self) -> SessionMessage | Exception:
        from mcp.shared.message import SessionMessage

        while True:
            item = await self._inner.receive()
            replies = refusals(item) if isinstance(item, Exception) else []
            if not replies:
                return item
            for reply in replies:
                await self._replies.send(SessionMessage(reply))
