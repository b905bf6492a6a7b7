"""Requests whose ``params`` the ``mcp`` package refuses, answered with what was wrong.

The package checks a request's params against the protocol's models and answers a failure
with -32602 ``Invalid request parameters`` and nothing else: a client that sent a tool call's
``arguments`` as a list, a string or a number could not tell what to change. A tool call of
one of this server's tools whose ``arguments`` is not an object gets a tool error, as any bad
argument does (the model that wrote them reads it and can try again), in the words every
surface uses; other params the package refuses get -32602 naming the field and what it
should be.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any

from pydantic import ValidationError

from ..surrogates import sound

#: How many characters of a field's path and of pydantic's sentence an error repeats at most.
_SAID_CHARS = 200


def _problem(method: str, exc: ValidationError) -> str:
    """The first problem pydantic found with ``method``'s params, in one sentence."""
    found = exc.errors()[0] if exc.errors() else {}
    loc = found.get("loc", ())
    where = ".".join(str(part) for part in loc[1:] or loc)[:_SAID_CHARS]  # past "params", unless it is the problem
    said = str(found.get("msg", "not what the protocol takes"))[:_SAID_CHARS]
    return sound(f"Invalid params for {method[:_SAID_CHARS]}: {where + ': ' if where else ''}{said}.")


class SayingWhatParams:
    """Server middleware (``Server.middleware``): a refusal of a request's params says what
    was wrong. ``refuse(name, arguments)`` is the error result of a call of tool ``name``
    (one of ``tools``) whose arguments are not an object."""

    def __init__(self, tools: Collection[str], refuse: Callable[[str, Any], Any]) -> None:
        self._tools = tools
        self._refuse = refuse

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        try:
            return await call_next(ctx)
        except ValidationError as exc:
            from mcp import types
            from mcp.shared.exceptions import MCPError

            params = ctx.params
            # a tool answers only once the client has said who it is (``initialize``), as the package has it
            greeted = getattr(ctx.session, "client_params", None) is not None
            if ctx.method == "tools/call" and isinstance(params, Mapping) and greeted:
                name, arguments = params.get("name"), params.get("arguments")
                if name in self._tools and arguments is not None and not isinstance(arguments, Mapping):
                    return self._refuse(name, arguments)
            raise MCPError(types.INVALID_PARAMS, _problem(str(ctx.method), exc)) from None
