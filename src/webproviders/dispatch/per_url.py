"""Extract and crawl answers judged per URL: a call that read no page is a failure.

A provider answers with one item per URL (or page), a failed one being an item with
``error`` and ``error_code``. Some items read is a success that counts its failures in
``meta.failed``; no item read is a call-level failure with the most telling code, so it is
retried and failed over like any other, its items kept in ``meta.failures``. URLs set
aside before any provider saw them join the answer here, in place: malformed ones in a batch
as failed items, and a URL asked for twice (read and paid for once) as a copy of its answer.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from ..envelope import page_error
from ..errors import InvalidInputError, ProviderError, WebProviderError, error_for_code
from ..redact import mask_url

#: Which per-URL code speaks for a call that read no page. First the codes about the backend
#: (another backend can help), then transient ones (trying again can help), then those that
#: say exactly why the page is not there, then the generic code, then our own input refusals.
PRECEDENCE: tuple[str, ...] = (
    "auth_error",
    "quota_exceeded",
    "not_configured",
    "rate_limited",
    "bad_gateway",
    "timeout",
    "network_error",
    "parse_error",
    "blocked",
    "too_large",
    "unsupported",
    "not_found",
    "unsafe_url",
    "provider_error",
    "invalid_input",
)
_RANK = {code: rank for rank, code in enumerate(PRECEDENCE)}


def _rank(code: str) -> int:
    """Place of ``code`` in :data:`PRECEDENCE` (a code outside the closed set comes last)."""
    return _RANK.get(code, len(PRECEDENCE))

#: An input URL refused before the provider: its position in the input and its error item.
Refused = tuple[int, dict[str, Any]]
#: An input URL set aside before the provider, by its position in the input: its error item
#: when it was refused, or the URL itself when an earlier position asks for it already.
SetAside = tuple[int, "dict[str, Any] | str"]


def is_failed(item: Any) -> bool:
    return isinstance(item, dict) and bool(item.get("error"))


def failed_count(data: Any) -> int:
    return sum(1 for item in data if is_failed(item)) if isinstance(data, list) else 0


def summary(item: dict[str, Any]) -> dict[str, Any]:
    """What ``meta.failures`` keeps of a failed item."""
    kept = {"url": item.get("url"), "error": item["error"], "error_code": item.get("error_code") or "provider_error"}
    if isinstance(item.get("detail"), str):
        kept["detail"] = item["detail"]
    if _number(item.get("retry_after")) is not None:
        kept["retry_after"] = item["retry_after"]
    return kept


def _number(value: Any) -> float | None:
    """``value`` when it is a number (not a bool), else None: items come from any provider."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _message(failures: list[dict[str, Any]], first: dict[str, Any], what: str) -> str:
    if len(failures) == 1:
        return str(first["error"])
    counts = Counter(f["error_code"] for f in failures)
    tally = ", ".join(f"{n} {code}" for code, n in sorted(counts.items(), key=lambda kv: _rank(kv[0])))
    return f"None of the {len(failures)} {what} could be read ({tally}); {first['url']}: {first['error']}"


def nothing_read(data: Any, capability: str, provider: str | None) -> WebProviderError | None:
    """The call-level error for an extract or crawl answer without a single page read, else None.

    ``provider`` is None for URLs refused before any provider was asked.
    """
    if capability == "search" or not isinstance(data, list):
        return None
    if not data:
        asked = "the URLs asked for" if capability == "extract" else "the crawl"
        return ProviderError(f"{provider or 'The provider'} returned no page for {asked}.", provider=provider)
    if not all(is_failed(item) for item in data):
        return None
    return all_failed(data, capability, provider)


def all_failed(items: list[dict[str, Any]], capability: str, provider: str | None) -> WebProviderError:
    """The call-level error for items that all failed: the most telling item's code, ``detail``,
    ``retry_after`` and HTTP status (so retries follow the documented rules), each in ``failures``."""
    failures = [summary(item) for item in items]
    telling = min(range(len(items)), key=lambda i: _rank(failures[i]["error_code"]))
    first, metadata = failures[telling], items[telling].get("metadata")
    status = _number(metadata.get("status_code")) if isinstance(metadata, dict) else None
    what = "URLs" if capability == "extract" else "pages"
    error = error_for_code(
        first["error_code"],
        _message(failures, first, what),
        provider=provider,
        detail=first.get("detail"),
        retry_after=first.get("retry_after"),
        status_code=int(status) if status is not None else None,
    )
    error.failures = failures
    return error


def refused_item(position: int, url: Any, error: InvalidInputError) -> Refused:
    """An input URL refused before any provider saw it, as the item it becomes."""
    return position, page_error(url if isinstance(url, str) else repr(url), error)


def set_apart_repeats(urls: list[str], refused: list[Refused]) -> tuple[list[str], list[SetAside]]:
    """The distinct URLs of a batch's well-formed ``urls``, and each repeat's position: a page
    asked for twice in one call is read, and charged, once."""
    taken = {position for position, _ in refused}
    positions = (position for position in range(len(urls) + len(taken)) if position not in taken)
    distinct: list[str] = []
    repeats: list[SetAside] = []
    for position, url in zip(positions, urls, strict=True):
        if url in distinct:
            repeats.append((position, url))
        else:
            distinct.append(url)
    return distinct, repeats


def merge_set_aside(envelope: dict[str, Any], set_aside: list[SetAside]) -> None:
    """Put the URLs set aside back in their places: among the pages, or among the failures."""
    if not set_aside:
        return
    meta = envelope.setdefault("meta", {})
    succeeded = bool(envelope.get("success"))
    items: list[dict[str, Any]] = envelope["data"] if succeeded else meta.setdefault("failures", [])
    for position, entry in sorted(set_aside, key=lambda aside: aside[0]):
        if isinstance(entry, str):  # a repeat: its first answer is in place already
            first = next((item for item in items if item.get("url") == entry), None)
            if first is None:
                continue
            entry = copy.deepcopy(first)
        elif not succeeded:
            entry = summary(entry)
        items.insert(position, entry)
    meta["failed"] = failed_count(items) if succeeded else len(items)


def mask_urls(envelope: dict[str, Any]) -> None:
    """Mask the credentials in the URLs an extract or crawl envelope gives back (``url``,
    ``metadata.final_url`` and ``metadata.canonical_url``, ``meta.failures[].url``): a
    caller's ``?api_key=`` is masked there as in its error sentence, since envelopes reach
    models and logs (a page's canonical link often repeats the URL it was asked by). Done
    once the call is over: the URLs a chain passes on to its next provider, and a repeat's
    match to its first answer, use them as asked. Items keep their places, one per URL
    asked, in order; a changed item is a copy (the one a cache holds stays as it is)."""
    if isinstance(envelope.get("data"), list):
        envelope["data"] = [_masked(item) for item in envelope["data"]]
    meta = envelope.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("failures"), list):
        meta["failures"] = [_masked(item) for item in meta["failures"]]


#: The URLs of a page's metadata that can carry the credential of the URL asked for.
_METADATA_URLS = ("final_url", "canonical_url")


def _masked(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    url, metadata = item.get("url"), item.get("metadata")
    shown = mask_url(url) if isinstance(url, str) else url
    changed: dict[str, str] = {}
    for key in _METADATA_URLS if isinstance(metadata, dict) else ():
        value = metadata.get(key)
        if isinstance(value, str) and mask_url(value) != value:
            changed[key] = mask_url(value)
    if shown == url and not changed:
        return item
    masked = {**item, "url": shown}
    if changed:
        masked["metadata"] = {**metadata, **changed}
    return masked
