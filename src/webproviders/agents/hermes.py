"""A drop-in provider object for frameworks built on the Hermes-style provider contract.

Such frameworks hold one object per backend and never expect an exception from it:

- ``search(query, limit)`` returns ``{"success": True, "data": {"web": [...]}}`` or
  ``{"success": False, "error": ...}`` (our envelope, which is that shape);
- ``extract(urls)`` returns the per-URL list Hermes' ``web_extract`` reads: one page per URL
  (``url``, ``title``, ``content``, ``raw_content``, ``metadata``), a URL that could not be
  read being a page with ``error`` (and ``error_code``); a failed call fails every URL;
- ``crawl(url)`` returns ``{"results": [pages]}``, pages as for extract;
- ``get_setup_schema()`` gives the setup picker's entry from the provider's manifest.

``raw_content`` is always text, the same markdown as ``content``: Hermes hands the model
``raw_content`` before ``content``. ``aextract`` / ``acrawl`` are the async twins. Every
call goes through dispatch, so it gets retries, the answer cache, cool-downs and URL safety
like any other; ``tags`` (given once, or per call) label the calls for per-tag budgets and
usage. :mod:`webproviders.agents.hermes_plugin` registers these objects into Hermes itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..config import Config, config_from_dict
from ..envelope import failure
from ..errors import InvalidInputError, WebProviderError
from ..manifest import Capability
from ..redact import mask_url
from ..urls import url_key

if TYPE_CHECKING:
    from ..registry.loader import ProviderEntry
    from ..registry.providers import Registry

T = TypeVar("T")

#: The most search results the contract hands out; a larger ``limit`` is clamped, not refused.
MAX_RESULTS = 20
#: Extract keywords Hermes passes that have no meaning here (content is always markdown).
_HERMES_ONLY = ("format", "include_raw")
#: Dispatch keywords the object sets itself: its backend and configuration are chosen when it
#: is made, so a call naming them is refused with a sentence rather than a ``TypeError``.
_FIXED = ("backend", "config")
Tags = Mapping[str, Any]


class HermesProvider:
    """One backend (a provider name as in the config) behind the Hermes-style contract."""

    def __init__(
        self, name: str, config: Config | Mapping[str, Any] | None = None, *, tags: Tags | None = None
    ) -> None:
        self._name = str(name)
        self._tags = dict(tags) if isinstance(tags, Mapping) else tags
        self._config: Config | None = None
        self._config_error: WebProviderError | None = None
        if isinstance(config, Config) or config is None:
            self._config = config
        else:
            try:
                self._config = config_from_dict(dict(config), source="<hermes config>")
            except Exception as exc:  # noqa: BLE001 - reported by every call, never raised
                self._config_error = InvalidInputError(f"The configuration is invalid: {exc}")

    @property
    def name(self) -> str:
        return self._name

    @property
    def display_name(self) -> str:
        return self._safely(lambda: str(self._entry()[1].provider.display_name), self._name)

    def get_setup_schema(self) -> dict[str, Any]:
        """The setup picker's entry, ``{"name", "badge", "tag", "env_vars": [...]}``, from the
        provider's manifest (no network)."""
        empty = {"name": self.display_name, "badge": "", "tag": "", "env_vars": []}
        return self._safely(lambda: dict(self._entry()[1].provider.get_setup_schema()), empty)

    def _entry(self) -> tuple[Registry, ProviderEntry]:
        """The registry entry of this backend; raises when it is unknown or the config is bad."""
        from ..registry.providers import get_registry

        if self._config_error is not None:
            raise self._config_error
        registry = get_registry(self._config)
        entry = registry.get(registry.named(self._name))  # ``Brave`` is brave, as in a call
        if entry is None:
            raise LookupError(self._name)
        return registry, entry

    def _safely(self, work: Callable[[], T], default: T) -> T:
        try:
            return work()
        except Exception:  # noqa: BLE001 - the contract never raises
            return default

    def is_available(self) -> bool:
        """Whether the backend can run now (key, package, URL present); no network."""

        def check() -> bool:
            registry, entry = self._entry()
            return registry.availability(entry)[0]

        return self._safely(check, False)

    def is_keyless_available(self) -> bool:
        """Whether the backend can run now without any API key.

        True for backends that need none (ddgs, http, a SearXNG URL) and for one that is
        available with no key set (a self-hosted Firecrawl); False when a key is what makes
        it available.
        """

        def check() -> bool:
            registry, entry = self._entry()
            if not registry.availability(entry)[0]:
                return False
            secrets = [var for var in entry.manifest.env if var.secret]
            if not any(var.required for var in secrets):
                return True
            keys = registry.config.provider(entry.manifest.name).api_keys()
            return not keys and not any(var.value() for var in secrets)

        return self._safely(check, False)

    def _supports(self, capability: Capability) -> bool:
        """Whether the backend does ``capability`` as configured: not a capability that needs a
        value not set (jina searches only with its key, though it reads pages without one)."""

        def check() -> bool:
            registry, entry = self._entry()
            needs = entry.manifest.unavailable_for(registry.config.provider(entry.manifest.name))
            return registry.supports(entry, capability) and capability not in needs

        return self._safely(check, False)

    def supports_search(self) -> bool:
        return self._supports("search")

    def supports_extract(self) -> bool:
        return self._supports("extract")

    def supports_crawl(self) -> bool:
        return self._supports("crawl")

    def _meta(self) -> dict[str, Any]:
        return {"requested_backend": self._name, "served_by": None, "latency_ms": 0.0, "attempts": []}

    def _run(self, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A dispatch call's envelope; a bad config or anything unforeseen is a failure one."""
        if self._config_error is not None:
            return failure(self._config_error, None, self._meta())
        try:
            return call()
        except InvalidInputError as exc:  # a keyword the object sets itself (_options)
            return failure(exc, None, self._meta())
        except Exception as exc:  # noqa: BLE001 - the contract never raises
            return self._crashed(exc)

    async def _arun(self, call: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """Async twin of :meth:`_run`."""
        if self._config_error is not None:
            return failure(self._config_error, None, self._meta())
        try:
            return await call()
        except InvalidInputError as exc:  # a keyword the object sets itself (_options)
            return failure(exc, None, self._meta())
        except Exception as exc:  # noqa: BLE001 - the contract never raises
            return self._crashed(exc)

    def _crashed(self, exc: Exception) -> dict[str, Any]:
        from ..errors import to_provider_error

        return failure(to_provider_error(exc, self._name), self._name, self._meta())

    def _options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Dispatch keywords: Hermes-only ones dropped, unset ones left out, tags added; raises
        :class:`InvalidInputError` for ``backend`` or ``config``, which the object sets itself."""
        fixed = [key for key in _FIXED if options.get(key) is not None]  # None: left out, as any
        if fixed:
            raise InvalidInputError(
                f"{' and '.join(repr(key) for key in fixed)} cannot be given to a call: this "
                f"object is the {self._name!r} backend with the configuration it was made with; "
                "make another with as_hermes_provider(name, config)."
            )
        given = {k: v for k, v in options.items() if k not in _HERMES_ONLY and v is not None}
        given.setdefault("tags", self._tags)
        return given

    def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
        """``{"success": True, "data": {"web": [...]}}``; a ``limit`` above 20 is clamped."""
        from ..dispatch.api import dispatch_search

        clamped = isinstance(limit, int) and not isinstance(limit, bool) and limit > MAX_RESULTS
        asked = MAX_RESULTS if clamped else limit
        envelope = self._run(
            lambda: dispatch_search(
                query, asked, backend=self._name, config=self._config, **self._options(options)
            )
        )
        if clamped and envelope.get("success"):
            note = f"limit {limit} is above {MAX_RESULTS}; at most {MAX_RESULTS} results were asked for."
            envelope["meta"].setdefault("warnings", []).append(note)
        return envelope

    def extract(self, urls: str | list[str], **kwargs: Any) -> list[dict[str, Any]]:
        """One page per URL; a URL that could not be read is a page with ``error``."""
        from ..dispatch.api import dispatch_extract

        envelope = self._run(
            lambda: dispatch_extract(urls, backend=self._name, config=self._config, **self._options(kwargs))
        )
        return hermes_pages(envelope, _asked(urls))

    async def aextract(self, urls: str | list[str], **kwargs: Any) -> list[dict[str, Any]]:
        """Async twin of :meth:`extract`."""
        from ..dispatch.api import adispatch_extract

        envelope = await self._arun(
            lambda: adispatch_extract(urls, backend=self._name, config=self._config, **self._options(kwargs))
        )
        return hermes_pages(envelope, _asked(urls))

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        """``{"results": [pages]}`` reached from ``url``; a failed crawl is one page with ``error``."""
        from ..dispatch.api import dispatch_crawl

        envelope = self._run(
            lambda: dispatch_crawl(url, backend=self._name, config=self._config, **self._options(kwargs))
        )
        return {"results": hermes_pages(envelope, _asked(url))}

    async def acrawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        """Async twin of :meth:`crawl`."""
        from ..dispatch.api import adispatch_crawl

        envelope = await self._arun(
            lambda: adispatch_crawl(url, backend=self._name, config=self._config, **self._options(kwargs))
        )
        return {"results": hermes_pages(envelope, _asked(url))}

    def __repr__(self) -> str:
        return f"HermesProvider({self._name!r})"


def _asked(urls: Any) -> list[Any] | None:
    """The URLs a call was given, each as given, for the pages of a failed call; None when it
    was given neither a URL nor a list of them."""
    if isinstance(urls, str):
        return [urls]
    if isinstance(urls, (list, tuple)):
        return list(urls)
    return None


def _hermes_page(item: Mapping[str, Any]) -> dict[str, Any]:
    content = item.get("content")
    text = content if isinstance(content, str) else ""
    page: dict[str, Any] = {
        "url": str(item.get("url") or ""),
        "title": item.get("title") if isinstance(item.get("title"), str) else "",
        "content": text,
        "raw_content": text,
        "metadata": dict(item.get("metadata") or {}),
    }
    if item.get("error"):
        page["error"] = str(item["error"])
        page["error_code"] = item.get("error_code")
    return page


def _failure_key(url: Any) -> str:
    """How a URL asked for finds its item in ``meta.failures``, whose URLs are trimmed and
    have their credentials masked (``user:password@``, ``?api_key=``): the dispatcher's
    :func:`~webproviders.urls.url_key` of the masked URL."""
    return url_key(mask_url(str(url)))


def hermes_pages(envelope: Mapping[str, Any], asked: list[Any] | None) -> list[dict[str, Any]]:
    """An extract or crawl envelope as Hermes' per-URL page list; a failed call is one error
    page per URL asked for (its own item in ``meta.failures``, else the sentence the input
    check gives that URL, else the call's sentence and code), its URL with any
    ``user:password@`` and credential in its query masked, as the dispatcher gives it back.
    What is no URL at all (``None`` in a list, a number) is a page with an empty URL, as is the
    one error page of a call given no URL or list of them (``asked`` None: ``extract(None)``):
    its text is no address asked for."""
    if envelope.get("success"):
        data = [item for item in envelope.get("data") or [] if isinstance(item, Mapping)]
        pages = [_hermes_page(item) for item in data]
        if asked is not None and len(asked) == len(pages):  # an extract: one item per URL, in order
            for page, url in zip(pages, asked, strict=True):
                if not isinstance(url, str):
                    page["url"] = ""
        return pages
    by_url: dict[str, list[Mapping[str, Any]]] = {}
    for item in (envelope.get("meta") or {}).get("failures") or []:
        if isinstance(item, Mapping):
            by_url.setdefault(_failure_key(item.get("url")), []).append(item)
    failed = {"error": envelope.get("error") or "The call failed.", "error_code": envelope.get("error_code")}
    if asked is None:  # not URLs at all (None): one page with no URL says so, as Hermes' tool does
        return [_hermes_page({"url": "", **failed})]
    return [_failed_page(url, by_url, failed) for url in asked]


def _failed_page(
    url: Any, by_url: dict[str, list[Mapping[str, Any]]], failed: Mapping[str, Any]
) -> dict[str, Any]:
    """The page of ``url`` in a failed call. A call whose every URL was refused names only the
    first one's problem (``None of the 2 URLs is usable: ...``), which was given to each URL.
    URLs that differ only in a masked credential (``?api_key=***``) share a key: their items
    are taken in the order asked, the last one kept for a URL asked again."""
    if not isinstance(url, str):
        return _hermes_page({"url": "", **failed, **_refusal(url)})
    own = by_url.get(_failure_key(url))
    if own:
        return _hermes_page(own.pop(0) if len(own) > 1 else own[0])
    refusal = _refusal(url) if failed.get("error_code") == "invalid_input" else {}
    return _hermes_page({"url": mask_url(url.strip()), **failed, **refusal})


def _refusal(url: Any) -> dict[str, Any]:
    """What the input check says of ``url`` (error and code), or nothing when it passes."""
    from ..validate import check_url

    try:
        check_url(url)
    except InvalidInputError as exc:
        return {"error": exc.message, "error_code": exc.code}
    return {}


def as_hermes_provider(
    name: str, config: Config | Mapping[str, Any] | None = None, *, tags: Tags | None = None
) -> HermesProvider:
    """The backend ``name`` as a Hermes-style provider; ``config`` is a ``Config``, a config
    mapping (as in ``config.yaml``), or None for the process-wide configuration; ``tags``
    label every call it makes."""
    return HermesProvider(name, config, tags=tags)


__all__ = ["MAX_RESULTS", "HermesProvider", "as_hermes_provider", "hermes_pages"]
