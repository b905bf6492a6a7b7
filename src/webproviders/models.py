"""Typed views of the envelope, for users who want pydantic models instead of dicts.

Dispatch returns plain dicts (the public, JSON-able contract); validate one with
``SearchEnvelope.model_validate(envelope)`` and the like.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .errors import ErrorCode
from .pydanticplugins import look_up_plugins

look_up_plugins()  # before the first model: another package's broken entry points fail it


class _Open(BaseModel):
    """Extra keys are allowed beside the contract's, never instead of them."""

    model_config = ConfigDict(extra="allow")


class SearchHit(_Open):
    title: str
    url: str
    description: str
    position: int = Field(ge=1)


class Page(_Open):
    url: str
    title: str
    content: str
    raw_content: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    error_code: ErrorCode | None = None
    detail: str | None = None
    retry_after: float | None = None


class Cost(_Open):
    """What a call (or one request) cost; ``unit`` is ``mixed`` when units differ."""

    usd: float
    units: float
    unit: str | None = None
    estimated: bool = False


class Attempt(_Open):
    provider: str
    outcome: Literal["ok", "error", "skipped"]
    latency_ms: float | None = None
    error_code: ErrorCode | None = None
    cost: Cost | None = None


class PageFailure(_Open):
    """One URL (or crawled page) that could not be read, as ``meta.failures`` lists it."""

    url: str
    error: str
    error_code: ErrorCode
    detail: str | None = None
    retry_after: float | None = None


class Meta(_Open):
    requested_backend: Any = None
    served_by: str | None = None
    latency_ms: float
    attempts: list[Attempt] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    #: Extract and crawl: how many items failed (present when any did).
    failed: int | None = Field(default=None, ge=1)
    #: A failed extract or crawl that read no page: why each URL failed.
    failures: list[PageFailure] = Field(default_factory=list)
    cost: Cost | None = None


class SearchData(_Open):
    web: list[SearchHit]


class SearchEnvelope(_Open):
    success: Literal[True]
    data: SearchData
    provider: str | None = None
    meta: Meta


class PagesEnvelope(_Open):
    """The success envelope of extract and crawl."""

    success: Literal[True]
    data: list[Page]
    provider: str | None = None
    meta: Meta


class FailureEnvelope(_Open):
    success: Literal[False]
    error: str
    error_code: ErrorCode
    retryable: bool = False
    detail: str | None = None
    retry_after: float | None = None
    provider: str | None = None
    meta: Meta


Envelope = SearchEnvelope | PagesEnvelope | FailureEnvelope
