"""Reading a vendor's HTTP response: its JSON body, and the error it means.

Every vendor call reads its answer here, whether it went through the shared client
(:func:`webproviders.kit.request_json`), an SDK's client (:func:`webproviders.kit.response_error`)
or a store's own client: the vendor's classifier first, then the status table of
:mod:`webproviders.errors`, then ``parse_error`` for a body that is not JSON.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Callable, Mapping
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from .errors import QUOTE_READ, ParseError, WebProviderError, error_for_status, quote

if TYPE_CHECKING:
    import httpx

#: Looks at a vendor response (status, headers, parsed body) before the generic mapping and
#: returns an error for vendor-specific failures (a 200 with an error object, a 400 that
#: means "bad key"), or None.
Classifier = Callable[["httpx.Response", Any], "WebProviderError | None"]


#: Bytes of a vendor's JSON answer parsed at once (a few milliseconds' work); a bigger answer
#: is parsed in steps of ``PARSE_STEP``, with the event loop's turn between them.
PARSE_AT_ONCE = 256 * 1024
PARSE_STEP = 64 * 1024
#: The deepest nesting a big answer is read at: what ``json.loads`` reads at Python's default
#: recursion limit before 3.13 (3.13 reads some thousands of levels more, 3.14 tens of
#: thousands). The stepped parser keeps the path to each value it reads, which grows as the
#: square of the depth: 10,000 nested lists in a 332 KB answer took 300 MB.
MAX_NESTING = 1_000


def _decode(response: httpx.Response, provider: str) -> Any:
    if not response.content:
        return None
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise _unreadable(response, provider, exc) from None


async def _decode_in_steps(response: httpx.Response, provider: str) -> Any:
    """:func:`_decode`, in steps for a big body, so that parsing it neither holds the event
    loop nor runs past the call's deadline: ``json.loads`` is C code that no timer or thread
    can interrupt, and 31 MiB of small values took it 0.5-2 s; ijson's parser (yajl) is fed
    the body a step at a time, and a cancelled call stops between steps."""
    content = response.content
    if len(content) <= PARSE_AT_ONCE:
        return _decode(response, provider)
    import asyncio

    import ijson  # here: only a big answer needs it

    parsed: list[Any] = []
    parser = ijson.items_coro(_Collect(parsed), "", use_float=True)
    nesting = _Nesting()
    held: list[bytes] = []  # a string not yet closed, as far as it has come
    try:
        encoding = json.detect_encoding(content)
        if encoding != "utf-8":  # yajl reads UTF-8 only: UTF-16 and -32, or a byte-order mark
            content = content.decode(encoding, "surrogatepass").encode("utf-8", "surrogatepass")
        for start in range(0, len(content), PARSE_STEP):
            step = content[start : start + PARSE_STEP]
            if nesting.deepest(step) > MAX_NESTING:
                raise _unreadable(response, provider, RecursionError())
            if step.isdigit():
                # One number longer than a step: yajl reads a number cut between steps again
                # from its start, so each step costs more (a 10 MB number took 5 s); json.loads
                # reads it, or refuses it, at once
                return _decode(response, provider)
            # A string is sent whole, for the same reason: yajl read one cut between steps
            # again from its start at each step (a 20 MB string of \u escapes took 23 s)
            cut = nesting.open_from if nesting.in_string else len(step)
            if cut:
                parser.send(b"".join((*held, step[:cut])))
                held.clear()
            if cut < len(step):
                held.append(step[cut:])
            await asyncio.sleep(0)
        if held:  # a string never closed: yajl says what is wrong with it
            parser.send(b"".join(held))
        parser.close()
    except (ijson.JSONError, UnicodeError):
        # yajl refuses what Python reads (integers past 64 bits, NaN, 1e400): rare, read at
        # once; and what neither reads gets json.loads' verdict, so both say the same
        return _decode(response, provider)
    return parsed[0]


class _Collect:
    """Where ijson hands the parsed top-level value."""

    def __init__(self, into: list[Any]) -> None:
        self.send = into.append


#: A JSON escape (a backslash and the character after it): once these are gone, every
#: double quote opens or closes a string.
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
#: Every byte but double quotes and brackets, which are all that tell the nesting.
_NOT_STRUCTURE = bytes(set(range(256)) - set(b'"[{]}'))
#: Brackets as steps of depth, read as signed bytes: ``[`` and ``{`` +1, ``]`` and ``}`` -1.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


class _Nesting:
    """How deeply a JSON text nests, read a step at a time with ``bytes`` methods (about
    2.5 ms a MiB): brackets are counted outside strings, once escapes are taken out.
    Exact for valid JSON, which yajl checks as it is fed the same steps; UTF-8 needs no care,
    since no byte of a multi-byte character is ASCII."""

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False
        self.carry = b""  # a backslash the step's end cut from the character it escapes
        #: Where, in the last step, the string still open at its end opened (0: before it).
        self.open_from = 0

    def deepest(self, step: bytes) -> int:
        """The deepest the text nests within ``step``, which follows the steps given before."""
        carried = len(self.carry)
        text = _ESCAPE.sub(b"__", self.carry + step)  # blanked, not removed: quotes keep their places
        self.carry = b""
        if text.endswith(b"\\"):  # pairs were taken from the left: this one escapes what comes next
            self.carry, text = b"\\", text[:-1]
        # Two quotes side by side close a string and open the next (or open and close an
        # empty one): taking them out leaves every bracket inside or outside as it was, and
        # leaves only the quotes around strings that hold brackets (few) to split on.
        parts = text.translate(None, _NOT_STRUCTURE).replace(b'""', b"").split(b'"')
        outside = parts[1::2] if self.in_string else parts[::2]
        if len(parts) % 2 == 0:  # an odd number of quotes: a string opened or closed for good
            self.in_string = not self.in_string
        self.open_from = max(0, text.rfind(b'"') - carried) if self.in_string else 0
        depths = list(accumulate(array("b", b"".join(outside).translate(_STEPS)), initial=self.depth))
        self.depth = depths[-1]
        return max(depths)


def _unreadable(response: httpx.Response, provider: str, exc: BaseException) -> ParseError:
    kind = response.headers.get("content-type", "unknown content type").split(";")[0]
    why = "it is nested too deeply to read" if isinstance(exc, RecursionError) else "the body is not valid JSON"
    return ParseError(
        f"{provider} answered HTTP {response.status_code} with {kind} where JSON was expected ({why}).",
        provider=provider,
        status_code=response.status_code,
    )


def read_response(
    response: httpx.Response, provider: str, classify: Classifier | None = None
) -> tuple[Any, WebProviderError | None]:
    """The parsed JSON body, and the error the response means (None for a good answer).

    The order: the vendor classifier's verdict first, then the status (any status outside
    2xx is an error: 401/403 auth, 402 quota, 429 rate limit with ``retry_after``, 5xx bad
    gateway, a redirect ``provider_error``), then ``parse_error`` for a body that is not
    JSON, or for a 2xx answer with an empty body or JSON ``null`` (no vendor answers with
    nothing). An error answered with a text body that is not JSON quotes it. A body never
    read (an SDK's streamed response) counts as empty, and is no error.
    """
    import httpx  # loaded already: the response is one of its objects

    try:
        body = _decode(response, provider)
    except httpx.ResponseNotRead:
        return _verdict(response, provider, classify, None, None)
    except ParseError as exc:
        return _verdict(response, provider, classify, None, exc)
    return _verdict(response, provider, classify, body, _empty(response, provider, body))


async def aread_response(
    response: httpx.Response, provider: str, classify: Classifier | None = None
) -> tuple[Any, WebProviderError | None]:
    """:func:`read_response`, awaited: a big body is parsed in steps, each call's deadline
    and the event loop's other work going on between them."""
    import httpx  # loaded already: the response is one of its objects

    try:
        body = await _decode_in_steps(response, provider)
    except httpx.ResponseNotRead:
        return _verdict(response, provider, classify, None, None)
    except ParseError as exc:
        return _verdict(response, provider, classify, None, exc)
    return _verdict(response, provider, classify, body, _empty(response, provider, body))


def _verdict(
    response: httpx.Response,
    provider: str,
    classify: Classifier | None,
    body: Any,
    parse_failure: ParseError | None,
) -> tuple[Any, WebProviderError | None]:
    """What the parsed ``body`` (or the ``parse_failure``) of ``response`` means."""
    error = classify(response, body) if classify is not None else None
    if error is not None:
        error.provider = error.provider or provider
        error.status_code = error.status_code or response.status_code
    elif not 200 <= response.status_code < 300:  # a redirect is not an answer either
        error = error_for_status(response.status_code, provider, response.headers)
    else:
        return body, parse_failure
    if parse_failure is not None:
        _quote_text_body(error, response)
    return body, error


def _empty(response: httpx.Response, provider: str, body: Any) -> ParseError | None:
    """A 2xx answer with nothing in it (an empty body, JSON ``null``): no vendor answers so."""
    if body is not None or not 200 <= response.status_code < 300:
        return None
    return ParseError(
        f"{provider} answered HTTP {response.status_code} with no JSON in the body where an answer was expected.",
        provider=provider,
        status_code=response.status_code,
    )


def _quote_text_body(error: WebProviderError, response: httpx.Response) -> None:
    """End an error's message with what a text body said, so no vendor's plain-text answer
    ("Too many requests", a proxy's "upstream connect error") is lost; an HTML page is not
    quoted (its markup says nothing a person can act on)."""
    kind = response.headers.get("content-type", "").lower()
    if "html" in kind:
        return
    text = quote(_head_text(response))
    if not text or text.startswith("<") or text in error.message:
        return
    error.message = f'{error.message} The response said: "{text}".'
    error.args = (error.message,)


def _head_text(response: httpx.Response) -> str:
    """The start of a body as text, all a quote reads: an error body of megabytes decoded
    whole is as much again in memory, up to four times as much. Its charset label is read as
    browsers read it (:func:`~webproviders.fetching.charset.decode`): Python's own names
    include codecs that fail whatever the error handler (``undefined``, ``idna``), whose
    ``UnicodeError`` turned a vendor's 500 or 429 into ``provider_error``."""
    from .fetching.charset import decode

    return decode(response.content[: 4 * QUOTE_READ], response.headers.get("content-type"))[0]


def answer_list(value: Any, field: str, vendor: str, provider: str | None = None) -> list[Any]:
    """``value``, a list a vendor's answer holds at ``field``: absent is none, and anything but
    a list is the answer out of shape (``parse_error``), never read as an empty success."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ParseError(f"{vendor} sent '{field}' that is not a list.", provider=provider)
    return value


def answer_objects(
    value: Any, field: str, vendor: str, provider: str | None = None, kind: type = Mapping
) -> list[Any]:
    """The objects of ``value``, a list of them a vendor's answer holds at ``field`` (read as
    :func:`answer_list` reads it; ``kind`` is what an object is: an SDK's model class). An
    item that is not one is skipped, so one stray item costs only itself; but items none of
    which is an object are the answer out of shape (``parse_error``): read as holding
    nothing, they would tell the caller that the web has nothing for the query."""
    items = answer_list(value, field, vendor, provider)
    objects = [item for item in items if isinstance(item, kind)]
    if items and not objects:
        raise ParseError(
            f"{vendor} sent '{field}' with {len(items)} item(s), none of them an object; "
            "its answer is not in the shape it documents.",
            provider=provider,
        )
    return objects


def answer_texts(value: Any) -> list[str]:
    """The strings of a list of text inside a hit (its excerpts, highlights): anything but a
    list holds none, and an item that is not text is skipped, so a malformed field costs the
    hit that field, never the answer (a ``TypeError`` read as the provider's own bug)."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
