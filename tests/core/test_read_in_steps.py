"""A big vendor answer is parsed in steps: the caller's event loop runs between them, a
cancelled call stops there, and the answer read is the one ``json.loads`` would give."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from webproviders.kit import aread_response, read_response
from webproviders.responses import MAX_NESTING, PARSE_AT_ONCE, PARSE_STEP


def hits_answer(count: int) -> dict[str, Any]:
    return {
        "query": "q",
        "results": [
            {"url": f"https://site{i}.example/{i}", "title": f"Result {i}", "score": 1.0 / (i + 1), "rank": i, "tags": ["a", None, True]}
            for i in range(count)
        ],
    }


BIG = hits_answer(40_000)


def response(content: bytes, status: int = 200) -> httpx.Response:
    return httpx.Response(status, content=content, headers={"Content-Type": "application/json"})


def read_in_steps(content: bytes, status: int = 200) -> tuple[Any, Any]:
    return asyncio.run(aread_response(response(content, status), "searxng"))


def test_a_big_answer_reads_as_json_loads_reads_it() -> None:
    content = json.dumps(BIG).encode()
    assert len(content) > 4 * PARSE_AT_ONCE
    body, error = read_in_steps(content)
    assert error is None
    assert body == json.loads(content)
    assert type(body["results"][3]["score"]) is float  # not the Decimal a streaming parser makes


def test_the_event_loop_runs_while_a_big_answer_is_parsed() -> None:
    """Before, the whole body was parsed in one C call: nothing else on the loop ran."""
    content = json.dumps(BIG).encode()
    turns = 0

    async def main() -> tuple[Any, Any]:
        nonlocal turns
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal turns
            while not done.is_set():
                turns += 1
                await asyncio.sleep(0)

        ticking = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        turns = 0
        try:
            return await aread_response(response(content), "searxng")
        finally:
            done.set()
            await ticking

    body, error = asyncio.run(main())
    assert error is None and len(body["results"]) == 40_000
    assert turns >= len(content) // PARSE_STEP - 1


def test_a_cancelled_call_stops_between_steps() -> None:
    """A call whose deadline ends while its answer is parsed ends there, not after the parse."""
    content = json.dumps(hits_answer(200_000)).encode()

    async def main() -> int:
        task = asyncio.create_task(aread_response(response(content), "searxng"))
        for _ in range(3):  # a few steps in
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return 0

    asyncio.run(main())


@pytest.mark.parametrize("coding", ["utf-16", "utf-8-sig", "utf-32"])
def test_a_big_answer_in_another_unicode_coding_reads_as_json_loads_reads_it(coding: str) -> None:
    content = json.dumps({"text": "déjà vu ✓ 😀", "results": BIG["results"]}).encode(coding)
    body, error = read_in_steps(content)
    assert error is None and body == json.loads(content)


def test_what_the_stepped_parser_refuses_and_python_reads_is_still_read() -> None:
    """Integers past 64 bits, NaN and an overflowing exponent: read at once instead."""
    filler = json.dumps(BIG["results"])
    content = f'{{"id": 123456789012345678901234567890, "score": NaN, "big": 1e400, "results": {filler}}}'.encode()
    body, error = read_in_steps(content)
    assert error is None
    assert body["id"] == 123456789012345678901234567890
    assert body["score"] != body["score"] and body["big"] == float("inf")
    assert len(body["results"]) == 40_000


def test_a_big_answer_that_is_not_json_is_a_parse_error_as_a_small_one_is() -> None:
    content = json.dumps(BIG).encode()[:-1]  # cut short
    body, error = read_in_steps(content)
    small_body, small_error = read_response(response(b'{"results": ['), "searxng")
    assert body is None and small_body is None
    assert error is not None and error.code == "parse_error"
    assert str(error) == str(small_error) == (
        "searxng answered HTTP 200 with application/json where JSON was expected (the body is not valid JSON)."
    )


def test_a_big_error_answer_is_the_status_error() -> None:
    content = json.dumps({"error": "x" * (2 * PARSE_AT_ONCE)}).encode()
    body, error = read_in_steps(content, status=503)
    assert body == json.loads(content)
    assert error is not None and error.code == "bad_gateway" and error.status_code == 503


def test_an_empty_answer_is_still_a_parse_error() -> None:
    for content in (b"", b"null"):
        body, error = read_in_steps(content)
        assert body is None and error is not None and error.code == "parse_error"
        assert "no JSON in the body" in str(error)


def test_a_big_answer_in_broken_utf_16_is_a_parse_error() -> None:
    content = json.dumps(BIG).encode("utf-16")[:-1]  # an odd number of bytes
    body, error = read_in_steps(content)
    assert body is None and error is not None and error.code == "parse_error"


def test_a_body_never_read_is_no_error_as_with_read_response() -> None:
    """An SDK's streamed response that was never read counts as empty, and is no error."""

    async def main() -> tuple[Any, Any]:
        unread = httpx.Response(200, stream=httpx.ByteStream(b'{"a": 1}'))
        return await aread_response(unread, "tavily")

    assert asyncio.run(main()) == (None, None)
    assert read_response(httpx.Response(200, stream=httpx.ByteStream(b'{"a": 1}')), "tavily") == (None, None)


def _nested_inside_big_answer(depth: int) -> bytes:
    """A big answer whose last hit holds ``depth`` lists inside one another."""
    hits = json.dumps(hits_answer(3_000)["results"])[1:-1]
    return f'{{"results": [{hits}, {"[" * depth}{"]" * depth}]}}'.encode()


def test_a_big_answer_nested_past_what_json_loads_reads_is_refused_in_little_memory() -> None:
    """The stepped parser keeps the path to each value it reads, whose size grows with the
    square of the depth: 10,000 nested lists in a 332 KB answer took 300 MB, 100,000 took
    the process down. Such an answer is now refused as ``json.loads`` refuses it."""
    import tracemalloc

    content = _nested_inside_big_answer(5_000)
    assert len(content) > PARSE_AT_ONCE
    tracemalloc.start()
    try:
        body, error = read_in_steps(content)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert body is None and error is not None and error.code == "parse_error"
    assert str(error) == (
        "searxng answered HTTP 200 with application/json where JSON was expected (it is nested too deeply to read)."
    )
    assert peak < 30 * 2**20, f"{peak / 2**20:.0f} MiB held to read a {len(content) / 2**10:.0f} KiB answer"
    # the sentence a small answer gets (read at once; json.loads refuses 5,000 levels before
    # Python 3.13, and 100,000 on every version)
    _, small_error = read_response(response(b"[" * 100_000 + b"]" * 100_000), "searxng")
    assert str(small_error) == str(error)


def test_a_big_answer_nested_within_reach_is_read() -> None:
    content = _nested_inside_big_answer(MAX_NESTING - 5)
    body, error = read_in_steps(content)
    assert error is None
    assert len(body["results"]) == 3_001
    deepest, depth = body["results"][-1], 1
    while deepest:
        deepest, depth = deepest[0], depth + 1
    assert depth == MAX_NESTING - 5


def test_brackets_and_escaped_quotes_inside_strings_do_not_count_as_nesting() -> None:
    """A code snippet full of brackets, cut by the steps anywhere, is text, not depth."""
    snippet = '[[[{"quote \\" [[["' * 200 + "\\\\" + "]" * 900
    hits = [{"url": f"https://code{i}.example/", "title": "Snippet", "content": snippet} for i in range(150)]
    content = json.dumps({"results": hits}).encode()
    assert len(content) > 2 * PARSE_STEP and content.count(b"[") > 10 * MAX_NESTING
    body, error = read_in_steps(content)
    assert error is None and body == json.loads(content)


@pytest.mark.parametrize("unit", ["é", '<a href="/x">\\</a> '])
def test_a_long_string_is_read_within_a_call_s_time(unit: str) -> None:
    """A page's text (or its HTML) in one field, 30 MB as Python's ``json.dumps`` escapes it
    (within the 32 MiB cap): yajl read a string cut between steps again from its start at
    every step, and 20 MB of ``\\u`` escapes took 23 s, a timeout blamed on a vendor that had
    answered."""
    text = unit * (30_000_000 // (len(json.dumps(unit)) - 2))
    content = json.dumps({"results": [{"url": "https://a.example/", "content": text}]}).encode()
    assert 29_000_000 < len(content) < 32 * 2**20

    async def main() -> tuple[Any, Any]:
        return await asyncio.wait_for(aread_response(response(content), "searxng"), 10)

    body, error = asyncio.run(main())
    assert error is None and body["results"][0]["content"] == text
