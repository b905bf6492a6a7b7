"""The ``web.search`` tool contract, as a thin adapter over dispatch.

Input ``{"query": str (at least 1 character), "max_results": 1-10}``; output
``{"items": [{"title", "url", "snippet", "provider", "rank"}]}`` where only http(s) URLs
survive and ``rank`` is 1-based, written after filtering and de-duplication. Failures raise
:class:`WebSearchError` whose ``code`` is one of ``InvalidInput``, ``WebProviderError``,
``Timeout``, ``WebBlocked`` (with ``detail_code`` ``captcha_required``, ``http_403`` or
``http_429``), ``WebParseError``, ``NetworkError``, ``AuthError``, ``BadGateway``.

Settings come from the environment, so CI and offline runs never touch the network:
``WEB_SEARCH_BACKEND`` (default ``stub``; an unknown name is answered by ``stub``),
``WEB_SEARCH_TIMEOUT_MS``, and for SearXNG ``SEARXNG_BASE_URL``, ``SEARXNG_API_KEY``,
``SEARXNG_TIMEOUT_MS``. Nothing of an upstream response reaches the caller except those
five fields per item, one error sentence, and ``meta.warnings`` when there is something the
caller must know: that the stub answered (no real backend is configured), or that
``WEB_SEARCH_BACKEND`` named a backend that does not exist.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from ..config import BackendSpec, Config, default_config
from ..errors import InvalidInputError
from ..redact import get_logger, scrub
from ..urls import is_http_url
from ..validate import MAX_QUERY_CHARS, MAX_URL_CHARS
from .formatting import cut_end
from .tools import decode_arguments, tidy_schema

log = get_logger("webproviders.agents.search_contract")

TOOL_NAME = "web.search"
MIN_RESULTS, MAX_RESULTS, DEFAULT_MAX_RESULTS = 1, 10, 5
DEFAULT_BACKEND = "stub"
BACKEND_ENV = "WEB_SEARCH_BACKEND"
TIMEOUT_ENV = "WEB_SEARCH_TIMEOUT_MS"
SEARXNG_BASE_URL_ENV, SEARXNG_API_KEY_ENV, SEARXNG_TIMEOUT_ENV = (
    "SEARXNG_BASE_URL",
    "SEARXNG_API_KEY",
    "SEARXNG_TIMEOUT_MS",
)
#: Longest field values handed out; longer titles and snippets are cut, longer URLs dropped.
TITLE_MAX, SNIPPET_MAX, PROVIDER_MAX, MESSAGE_MAX = 512, 4096, 64, 500

#: Our envelope error codes in the contract's vocabulary; anything else is ``WebProviderError``.
CONTRACT_CODES: dict[str, str] = {
    "invalid_input": "InvalidInput",
    "unsafe_url": "InvalidInput",
    "timeout": "Timeout",
    "blocked": "WebBlocked",
    "rate_limited": "WebBlocked",
    "parse_error": "WebParseError",
    "network_error": "NetworkError",
    "auth_error": "AuthError",
    "not_configured": "AuthError",
    "bad_gateway": "BadGateway",
}
DETAIL_CODES = ("captcha_required", "http_403", "http_429")


class WebSearchError(Exception):
    """A ``web.search`` failure: ``code`` from the contract, a sentence, maybe a ``detail_code``."""

    def __init__(
        self, code: str, message: str, *, detail_code: str | None = None, retryable: bool = False
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail_code = detail_code
        self.retryable = retryable

    def to_dict(self) -> dict[str, Any]:
        """``{"code", "message", "retryable"}`` plus ``detail_code`` when there is one."""
        out: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
        }
        if self.detail_code:
            out["detail_code"] = self.detail_code
        return out


class WebSearchInput(BaseModel):
    """The contract's input; keys it reserves for later (``lang``, ``time_range``, ...) are ignored."""

    model_config = ConfigDict(extra="ignore")

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to search for.")
    max_results: int = Field(
        default=DEFAULT_MAX_RESULTS,
        ge=MIN_RESULTS,
        le=MAX_RESULTS,
        description="How many results (1-10).",
    )

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query is blank; pass at least one non-space character")
        return value.strip()

    @field_validator("max_results", mode="before")
    @classmethod
    def _whole(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("max_results must be a whole number")  # noqa: TRY004 - pydantic needs ValueError
        if isinstance(value, float) and value.is_integer():  # 1e20: held to the range, not "unable to parse"
            return int(value)
        return value


def _detail_code(envelope: Mapping[str, Any]) -> str | None:
    if envelope.get("error_code") == "rate_limited":
        return "http_429"
    detail = str(envelope.get("detail") or "").lower()
    if detail in DETAIL_CODES:
        return detail
    for code, hint in (("http_429", "429"), ("http_403", "403"), ("captcha_required", "captcha")):
        if hint in detail:
            return code
    return None


def error_from_envelope(envelope: Mapping[str, Any]) -> WebSearchError:
    """The contract error for a failure envelope."""
    code = CONTRACT_CODES.get(str(envelope.get("error_code")), "WebProviderError")
    message = cut_end(str(envelope.get("error") or "The search failed."), MESSAGE_MAX)
    detail = _detail_code(envelope) if code == "WebBlocked" else None
    return WebSearchError(
        code, message, detail_code=detail, retryable=bool(envelope.get("retryable"))
    )


def items_from_envelope(envelope: Mapping[str, Any], max_results: int) -> list[dict[str, Any]]:
    """Contract items from a search envelope: http(s) only, de-duplicated, ranked from 1."""
    hits = (envelope.get("data") or {}).get("web") or []
    default_provider = str(envelope.get("provider") or "")
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for hit in hits:
        if not isinstance(hit, Mapping):
            continue
        url = str(hit.get("url") or "").strip()
        if not is_http_url(url) or len(url) > MAX_URL_CHARS or url in seen:
            continue
        seen.add(url)
        items.append(
            {
                "title": cut_end(str(hit.get("title") or ""), TITLE_MAX),
                "url": url,
                "snippet": cut_end(str(hit.get("description") or ""), SNIPPET_MAX),
                "provider": str(hit.get("provider") or default_provider)[:PROVIDER_MAX],
                "rank": len(items) + 1,
            }
        )
        if len(items) >= max_results:
            break
    return items


def _milliseconds(environ: Mapping[str, str], name: str) -> float | None:
    """Seconds from a ``*_MS`` variable; a bad value is logged and ignored."""
    raw = (environ.get(name) or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3_600_000:
        log.warning("%s=%r is not a number of milliseconds from 1 to 3600000; ignored.", name, raw)
        return None
    return value / 1000


@dataclass(frozen=True)
class WebSearchSettings:
    """What the environment asked for: the backend (or chain), the call's time budget, and
    what is wrong with the choice (an unknown name), said in every answer."""

    backend: BackendSpec
    timeout: float | None
    warnings: tuple[str, ...] = ()


def contract_backend(config: Config, environ: Mapping[str, str]) -> tuple[BackendSpec, list[str]]:
    """The backend ``WEB_SEARCH_BACKEND`` selects for ``config``, and warnings about the choice.

    Unset means ``stub``; unknown names are left out of a chain, and a chain with no known
    name is answered by ``stub``. The CLI's ``config`` command shows the same.
    """
    from ..registry.providers import get_registry

    raw = (environ.get(BACKEND_ENV) or "").strip()
    if not raw:
        return DEFAULT_BACKEND, []
    registry = get_registry(config)
    names = [part.strip() for part in raw.split(",") if part.strip()]
    known = [
        n.lower()
        for n in names
        if (entry := registry.get(n.lower())) is not None and registry.supports(entry, "search")
    ]
    # Named as written, and scrubbed: a key set here by mistake is then recognised and masked.
    unknown = [n for n in names if n.lower() not in known]
    warnings: list[str] = []
    if unknown:
        fallback = "" if known else f"; answering with '{DEFAULT_BACKEND}'"
        able = ", ".join(e.manifest.name for e in registry.entries() if registry.supports(e, "search"))
        warnings.append(
            scrub(
                f"{BACKEND_ENV} names unknown search backend(s) {', '.join(repr(n) for n in unknown)}"
                f"{fallback}. Known: {able}."
            )
        )
    if not known:
        return DEFAULT_BACKEND, warnings
    return (known[0] if len(known) == 1 else known), warnings


def _searxng_config(base: Config, environ: Mapping[str, str]) -> Config:
    """``base`` with web.providers.searxng filled from SEARXNG_* (settings already there win)."""
    current = base.provider("searxng")
    updates: dict[str, Any] = {}
    url = (environ.get(SEARXNG_BASE_URL_ENV) or "").strip()
    if url and not current.base_url:
        updates["base_url"] = url
    key = (environ.get(SEARXNG_API_KEY_ENV) or "").strip()
    if key and current.api_key is None:
        updates["api_key"] = SecretStr(key)
    timeout = _milliseconds(environ, SEARXNG_TIMEOUT_ENV) or _milliseconds(environ, TIMEOUT_ENV)
    if timeout and current.timeout is None:
        updates["timeout"] = timeout
    if not updates:
        return base
    settings = current.model_copy(update=updates)
    web = base.web.model_copy(update={"providers": {**base.web.providers, "searxng": settings}})
    return base.model_copy(update={"web": web})


class WebSearchContract:
    """``web.search``: ``run({"query": ..., "max_results": ...})`` → ``{"items": [...]}``.

    Settings are read from the environment (or ``environ``) when the tool is built.
    """

    name = TOOL_NAME
    description = "Search the web; returns items with title, url, snippet, provider and rank."

    def __init__(
        self, config: Config | None = None, *, environ: Mapping[str, str] | None = None
    ) -> None:
        env = os.environ if environ is None else environ
        self.config = _searxng_config(config if config is not None else default_config(), env)
        backend, warnings = contract_backend(self.config, env)
        for warning in warnings:
            log.warning("%s", warning)
        self.settings = WebSearchSettings(backend, _milliseconds(env, TIMEOUT_ENV), tuple(warnings))

    @staticmethod
    def input_schema() -> dict[str, Any]:
        """JSON Schema of the input (from the same model that validates it)."""
        schema = tidy_schema(WebSearchInput.model_json_schema())
        schema["description"] = "Search the web for a query."
        return schema

    def _parse(self, arguments: Mapping[str, Any] | str) -> WebSearchInput:
        raw: Any = arguments
        if isinstance(raw, str):
            try:
                raw = decode_arguments(TOOL_NAME, raw)
            except InvalidInputError as exc:
                raise WebSearchError("InvalidInput", exc.message) from None
        if not isinstance(raw, Mapping):
            raise WebSearchError("InvalidInput", "The arguments must be an object with 'query'.")
        try:
            return WebSearchInput.model_validate(dict(raw))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: "
                f"{err.get('ctx', {}).get('error', err['msg'])}"
                for err in exc.errors()
            )
            raise WebSearchError("InvalidInput", f"Invalid web.search input: {problems}.") from None

    def _answer(self, envelope: Mapping[str, Any], request: WebSearchInput) -> dict[str, Any]:
        if not envelope.get("success"):
            raise error_from_envelope(envelope)
        result: dict[str, Any] = {"items": items_from_envelope(envelope, request.max_results)}
        meta = envelope.get("meta")
        said = meta.get("warnings") if isinstance(meta, Mapping) else None
        warnings = [*self.settings.warnings, *(str(w) for w in said or [] if str(w) not in self.settings.warnings)]
        if warnings:
            result["meta"] = {"warnings": warnings}
        return result

    def run(self, arguments: Mapping[str, Any] | str) -> dict[str, Any]:
        """Search; returns ``{"items": [...]}`` or raises :class:`WebSearchError`."""
        from ..dispatch.api import dispatch_search

        request = self._parse(arguments)
        envelope = dispatch_search(
            request.query,
            request.max_results,
            backend=self.settings.backend,
            config=self.config,
            timeout=self.settings.timeout,
        )
        return self._answer(envelope, request)

    async def arun(self, arguments: Mapping[str, Any] | str) -> dict[str, Any]:
        """Async twin of :meth:`run`."""
        from ..dispatch.api import adispatch_search

        request = self._parse(arguments)
        envelope = await adispatch_search(
            request.query,
            request.max_results,
            backend=self.settings.backend,
            config=self.config,
            timeout=self.settings.timeout,
        )
        return self._answer(envelope, request)
