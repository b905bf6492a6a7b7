"""A sync provider whose calls never return cannot take every worker thread.

Each of its calls keeps a worker thread after the call's deadline (a thread cannot be
stopped). Once a provider keeps ``MAX_HUNG`` of them it is not called again until one
returns: before, its hung calls took all 64 threads, and every other sync provider's calls
waited in the queue until their own deadlines, reported as their own timeouts.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from webproviders import adispatch_search, dispatch_search
from webproviders.dispatch.hung import MAX_HUNG

PAIR = """
class Fine(WebSearchProvider):
    name = "fine"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        return [{"title": query, "url": "https://fine.example/"}]


def register(ctx):
    ctx.register_web_search_provider(Stuck())
    ctx.register_web_search_provider(Fine())
"""


def test_a_provider_that_hangs_leaves_threads_for_the_others(
    write_plugin: Any, make_config: Any, stuck_provider: tuple[str, Any]
) -> None:
    code, release = stuck_provider
    root = write_plugin("sync-pair", code + PAIR)
    config = make_config(
        plugins={"paths": [str(root)], "enabled": ["sync-pair"]},
        web={"cache": False, "health": {"failures": 1000}, "retry": {"max_retries": 0}},
    )

    async def waves() -> list[dict[str, Any]]:
        answers: list[dict[str, Any]] = []
        for wave in range(9):  # calls keep coming while the provider hangs: 72 in all
            answers += await asyncio.gather(
                *(
                    adispatch_search(f"q{wave}-{i}", backend="stuck", config=config, timeout=0.5)
                    for i in range(8)
                )
            )
        return answers

    try:
        answers = asyncio.run(waves())
        fine = dispatch_search("q", backend="fine", config=config, timeout=5)
    finally:
        release.touch()
    assert {answer["error_code"] for answer in answers} == {"timeout"}
    refused = [answer["error"] for answer in answers if "still running" in answer["error"]]
    assert refused[0] == (
        f"stuck has {MAX_HUNG} calls still running past their deadlines; it is not called again "
        "until one of them returns."
    )
    assert len(refused) == len(answers) - MAX_HUNG
    assert fine["success"] is True, fine


def test_calls_their_callers_cancelled_are_not_counted_as_hung(
    write_plugin: Any, make_config: Any, stuck_provider: tuple[str, Any]
) -> None:
    """A caller that stops waiting (``asyncio.wait_for`` with a short bound) leaves the sync
    call's thread running, well within the call's deadline: not hung, so later callers still
    reach the provider instead of a ``timeout`` refusal that counts against its health."""
    code, release = stuck_provider
    root = write_plugin("sync-pair", code + PAIR)
    config = make_config(
        plugins={"paths": [str(root)], "enabled": ["sync-pair"]}, web={"cache": False, "retry": {"max_retries": 0}}
    )

    async def impatient() -> list[dict[str, Any]]:
        answered = []
        for i in range(MAX_HUNG + 2):
            with contextlib.suppress(asyncio.TimeoutError):
                answered.append(
                    await asyncio.wait_for(adispatch_search(f"q{i}", backend="stuck", config=config, timeout=30), 0.2)
                )
        return answered

    try:
        answered = asyncio.run(impatient())
    finally:
        release.touch()
    assert answered == []  # each call was still waiting on the provider when its caller left
    assert dispatch_search("q", backend="stuck", config=config, timeout=30)["success"] is True
