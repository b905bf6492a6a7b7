"""Extract along a chain: the URLs one provider could not answer go to the next one.

A chain ``[local, http]`` reads what the local index holds and fetches only the rest. A URL
is passed on when its item failed with an error the chain would fail over for (``not_found``,
a retryable error, a missing key); the answers are put back in the caller's order, each item
naming the provider that produced it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dependable.fusion import same_page_key
from ..envelope import page_error
from ..errors import WebProviderError, error_for_code


def missing(items: list[dict[str, Any]], fails_over: Callable[[WebProviderError], bool]) -> list[str]:
    """The URLs of failed items that another provider might answer, first spelling once each."""
    urls: list[str] = []
    for item in items:
        if item.get("error") and fails_over(error_for_code(str(item.get("error_code")), "")):
            if item["url"] not in urls:
                urls.append(item["url"])
    return urls


def failed_items(failures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items of a follow-up that read none of its URLs (its ``meta.failures``): the later
    provider's error is the one a URL no provider could read keeps."""
    return [
        page_error(
            str(failure["url"]),
            error_for_code(
                str(failure["error_code"]),
                str(failure["error"]),
                detail=failure.get("detail"),
                retry_after=failure.get("retry_after"),
            ),
        )
        for failure in failures
    ]


def merge(
    items: list[dict[str, Any]], asked: list[str], filled: list[dict[str, Any]], served_by: str, filler: str
) -> list[dict[str, Any]]:
    """``items`` with the failed ones for ``asked`` replaced by their ``filled`` answers.

    ``filled`` is matched to ``asked`` by position when it has one item per URL (the extract
    contract), else by canonical URL. Every item gains ``provider``.
    """
    if len(filled) == len(asked):
        answers = {url: item for url, item in zip(asked, filled, strict=True)}
    else:
        by_key = {same_page_key(item["url"]): item for item in filled}
        answers = {url: by_key[same_page_key(url)] for url in asked if same_page_key(url) in by_key}
    merged: list[dict[str, Any]] = []
    for item in items:
        answer = answers.get(item["url"]) if item.get("error") else None
        if answer is None:
            merged.append({**item, "provider": item.get("provider") or served_by})
        else:
            merged.append({**answer, "provider": answer.get("provider") or filler})
    return merged
