"""The ``{success, data}`` envelope: building it, and normalising what providers return.

Providers may return a full envelope, ``{"web": [...]}``, a bare list of dicts or of
pydantic models; alternative keys (``href``/``link``, ``snippet``/``body``/``content``)
are accepted. What comes out is always the public shape in DESIGN.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .context import warn
from .errors import ERROR_CODES, ParseError, WebProviderError, bounded, error_for_code
from .redact import mask_userinfo
from .surrogates import sound
from .urls import MAX_URL_CHARS, is_http_url

_URL_KEYS = ("url", "href", "link", "uri")
_TITLE_KEYS = ("title", "name")
_DESCRIPTION_KEYS = ("description", "snippet", "body", "content", "text", "summary")
_PAGE_CONTENT_KEYS = ("content", "markdown", "text", "body")
#: A hit's URL starts with one of these (in any case).
_SCHEMES = ("http://", "https://")
#: What the dispatcher writes on an item: the provider that answered it (a plugin's own
#: ``provider: google`` named a backend that never ran, and the page index filed the page
#: under it), and a fusion's members and score.
_DISPATCH_ITEM = {"provider", "providers", "fusion_score"}
_SEARCH_SKIP = {"position", *_URL_KEYS, *_TITLE_KEYS, *_DESCRIPTION_KEYS, *_DISPATCH_ITEM}
#: A search hit's title and its description are each cut to this many characters, and its
#: other fields together held to it: a snippet is a few hundred, and a plugin's hit (never
#: read under a byte cap) with a 200 MB description went whole into the envelope and the cache.
MAX_HIT_CHARS = 100_000
#: The ``meta`` a provider returns in its own envelope, as :data:`MAX_HIT_CHARS` counts a hit's
#: fields: it says how a request went (usage, an id), and is carried into the answer whole.
MAX_META_CHARS = 100_000
_PAGE_SKIP = {
    "error", "error_code", "detail", "retry_after", *_URL_KEYS, *_TITLE_KEYS, *_PAGE_CONTENT_KEYS, *_DISPATCH_ITEM
}


def _as_mapping(item: Any) -> Mapping[str, Any] | None:
    if type(item) is dict or isinstance(item, Mapping):  # the exact check first: it is the hot path
        return item
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        try:
            dumped = dump()
        except Exception:  # noqa: BLE001 - a model that cannot dump is skipped
            return None
        return dumped if isinstance(dumped, Mapping) else None
    return None


def _text(value: Any) -> str:
    if type(value) is str:
        return sound(value.strip())
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):  # a body handed on undecoded: its text, not "b'...'"
        return str(_decoded(value)).strip()
    return sound((value if isinstance(value, str) else str(value)).strip())


_DROP = object()


_PLAIN = frozenset({str, int, bool, type(None)})


def _jsonable(value: Any, depth: int = 0) -> Any:
    """``value`` if it survives ``json.dumps`` and UTF-8 (dates become ISO strings, lone
    surrogates U+FFFD), else ``_DROP``."""
    kind = type(value)
    if kind is str:  # exact types first: what JSON decodes to is the hot path
        return sound(value)
    if kind is int or kind is bool or value is None:
        return value
    if kind is dict or kind is list:
        if depth > 8:
            return _DROP
        # Plain loops: on the few keys of a provider's ``meta`` a comprehension's own call costs
        # more than the work, and every answer's ``meta`` comes through here.
        if kind is list:
            items: list[Any] = []
            for item in value:
                item = sound(item) if type(item) is str else _jsonable(item, depth + 1)
                if item is not _DROP:
                    items.append(item)
            return items
        pairs: dict[str, Any] = {}
        for key, item in value.items():
            item = _jsonable(item, depth + 1)
            if item is not _DROP:
                pairs[sound(key) if type(key) is str else sound(str(key))] = item
        return pairs
    if isinstance(value, str):
        return sound(value)
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _DROP
    if depth > 8:
        return _DROP
    if isinstance(value, (list, tuple)):
        items = [_jsonable(v, depth + 1) for v in value]
        return [v for v in items if v is not _DROP]
    if isinstance(value, Mapping):
        pairs = {sound(str(k)): _jsonable(v, depth + 1) for k, v in value.items()}
        return {k: v for k, v in pairs.items() if v is not _DROP}
    isoformat = getattr(value, "isoformat", None)
    return isoformat() if callable(isoformat) else _DROP


def _extras(mapping: Mapping[str, Any], skip: set[str]) -> dict[str, Any]:
    if mapping.keys() <= skip:
        return {}
    extras: dict[str, Any] = {}
    for key, value in mapping.items():
        if key in skip or value is None or not isinstance(key, str):
            continue
        if type(value) in _PLAIN:
            extras[sound(key)] = sound(value) if type(value) is str else value
            continue
        clean = _jsonable(value)
        if clean is not _DROP:
            extras[sound(key)] = clean
    return extras


def _held_extras(mapping: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """A hit's other fields, their keys and texts together within :data:`MAX_HIT_CHARS`, and
    True when some did not fit (see :func:`_held`)."""
    kept = _held(mapping, _SEARCH_SKIP, MAX_HIT_CHARS)
    return _extras(mapping if kept is None else kept, _SEARCH_SKIP), kept is not None


def _held(mapping: Mapping[str, Any], skip: set[str], most: int) -> dict[str, Any] | None:
    """None when the fields of ``mapping`` not in ``skip``, their keys and texts together, fit
    within ``most`` characters (the common case: one length check a field); else the fields
    kept: the shorter first, a text that passes what is left cut there, any other value left out."""
    sizes: dict[str, int | None] = {}
    total = 0
    for key, value in mapping.items():
        if key in skip or value is None or not isinstance(key, str):
            continue
        size = len(value) if type(value) is str else 1 if type(value) in _PLAIN else _size(value, most)
        sizes[key] = size
        total += len(key) + (most if size is None else size)
    if total <= most:
        return None
    budget, kept = most, {}
    for key in sorted(sizes, key=lambda key: (sizes[key] is None, sizes[key] or 0)):
        budget -= len(key)
        size, value = sizes[key], mapping[key]
        if size is None or size > budget:
            if type(value) is not str or budget <= 0:
                continue
            value = truncate(value, budget)
            size = len(value)
        budget -= size
        kept[key] = value
    return {key: kept[key] for key in sizes if key in kept}


def _size(value: Any, budget: int) -> int | None:
    """About the characters ``value`` takes as JSON (a text its length, anything else one), or
    None as soon as that passes ``budget``: a container longer than what is left stops the walk
    before its items are gone through, whatever it holds."""
    size = 0
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str:  # exact types first: a provider's meta is a few of them
            size += len(item)
        elif kind is dict or (kind is not list and kind is not tuple and isinstance(item, Mapping)):
            size += 1 + len(item)  # each key counts one at least
            if size > budget:
                return None
            pending += item.keys()
            pending += item.values()
        elif kind is list or kind is tuple or isinstance(item, (list, tuple)):
            size += 1 + len(item)
            if size > budget:
                return None
            pending += item
        else:
            size += 1
        if size > budget:
            return None
    return size


def _first(item: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = item.get(key)
        if value is not None and value != "":
            return value
    return None


def _failure_from(raw: Mapping[str, Any]) -> WebProviderError:
    """The error a provider's own failure envelope describes (odd field types are dropped)."""
    code = raw.get("error_code")
    message = _text(raw.get("error")) or "The provider reported a failure without a message."
    detail = raw.get("detail")
    return error_for_code(
        code if isinstance(code, str) else "provider_error",
        message,
        detail=detail if isinstance(detail, str) else None,
        retry_after=_wait(raw.get("retry_after")),
    )


def _wait(value: Any) -> float | None:
    """A provider's ``retry_after``: seconds as a finite number from 0, else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf"):
        return float(value)
    return None


def _page_failure(page: dict[str, Any], mapping: Mapping[str, Any]) -> None:
    """A failed item's fields in the envelope's terms: ``error_code`` one of the library's
    (callers switch on the closed set, and the envelope models refuse another), ``detail``
    text and ``retry_after`` seconds, whatever the provider wrote."""
    page["error"] = bounded(_text(mapping.get("error"))) or "The provider reported a failure without a message."
    code = mapping.get("error_code")
    page["error_code"] = code if code in ERROR_CODES else "provider_error"
    detail = mapping.get("detail")
    if isinstance(detail, str) and detail:
        page["detail"] = bounded(sound(detail))
    wait = _wait(mapping.get("retry_after"))
    if wait is not None:
        page["retry_after"] = wait


#: The ``meta`` keys the dispatcher writes about the call: a provider's own under these names
#: reached the envelope when the call had none to write (``failed: 99`` beside every page read,
#: a ``cost`` of a free call), so they are left out of what a provider adds.
_DISPATCH_META = frozenset(
    {"requested_backend", "served_by", "latency_ms", "attempts", "cached", "failures", "failed", "cost", "fused"}
)


def _own_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """A provider's ``meta`` without the dispatcher's keys, its ``warnings`` a list of
    sentences (one given as text was said a character at a time)."""
    if not _DISPATCH_META.isdisjoint(meta):
        meta = {key: value for key, value in meta.items() if key not in _DISPATCH_META}
    said = meta.get("warnings")
    if said is not None and type(said) is not list:
        meta["warnings"] = [str(said)] if said != "" else []
    return meta


def _unwrap(raw: Any, list_key: str | None) -> tuple[Any, dict[str, Any]]:
    """Strip an envelope or ``{list_key: [...]}`` wrapper; returns the items and extra meta."""
    meta: dict[str, Any] = {}
    if type(raw) is dict or isinstance(raw, Mapping):  # the exact check first: it is the hot path
        if raw.get("success") is False:
            raise _failure_from(raw)
        given = raw.get("meta")
        if given is not None and isinstance(given, Mapping):
            if _size(given, MAX_META_CHARS) is None:
                warn(f"The provider's meta was larger than {MAX_META_CHARS:,} characters; it was left out.")
            else:
                meta = _own_meta(_jsonable(given))  # the envelope is JSON: a NaN or an object() would break it
        if "data" in raw:
            raw = raw["data"]
    if list_key and (type(raw) is dict or isinstance(raw, Mapping)) and list_key in raw:
        raw = raw[list_key]
    return raw, meta


def _decoded(value: Any) -> Any:
    """Text handed on as bytes, as the text it encodes, so that it is measured and read as text
    is; any other value as it is."""
    return value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else value


def _pick(mapping: Mapping[str, Any], keys: tuple[str, ...], most: int | None = None) -> tuple[str, bool]:
    """The text of the first of ``keys`` that is set, stripped, and whether it was cut: with
    ``most``, a longer one is cut to about that many characters first (at a break, so that
    cleaning it costs no more), and so is the rendering of a value that is not text (a list of
    snippets given as a description read as its 100 MB ``repr``)."""
    value = _decoded(_first(mapping, keys))
    if type(value) is str:
        if most is not None and len(value) > most:
            return sound(truncate(value, most).strip()), True
        return sound(value.strip()), False
    text = _text(value)
    if most is not None and len(text) > most:
        return truncate(text, most), True
    return text, False


def _unrecognised(what: str, given: Any, wanted: str, *, of: Any = None) -> str:
    """Say what came instead (a generator, a string, a list of strings): that is what a
    plugin's author must change."""
    import inspect  # here: only a wrong shape needs it

    if inspect.iscoroutine(given):  # an async method that returned a call instead of awaiting it
        given.close()  # never to be awaited: closed here, not warned about when collected
        return f"The provider returned {what} as a coroutine it did not await; await it and return its result."
    shape = type(given).__name__
    if of is not None and _as_mapping(of) is not None:
        # Results as objects, none with a URL: most often a vendor's answer mapped as it came,
        # so the sentence says what is missing before what a plugin returns.
        return (
            f"The provider returned {what} none of which has a URL as text ({len(given)} item(s), "
            f"a {shape} of {type(of).__name__}), so none can be given; a provider returns {wanted}."
        )
    if of is not None:
        shape = f"a {shape} of {type(of).__name__}"
    return f"The provider returned {what} in an unrecognised shape ({shape}); return {wanted}."


def normalise_search(raw: Any, limit: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Search hits in the public shape, filtered, de-duplicated, capped and numbered.

    Returns ``(hits, meta)`` where ``meta`` is whatever the provider put in its own
    envelope's ``meta``. A hit written in the public shape already (``url``, ``title``,
    ``description`` as text) takes the short way; any other is read key by key.
    """
    if raw is None:  # a method that ended without ``return``: no answer, not "nothing found"
        raise ParseError("The provider returned None for search results; return a list of results ([] for none).")
    items, meta = _unwrap(raw, "web")
    if items is None:
        items = []
    if not isinstance(items, (list, tuple)):
        raise ParseError(_unrecognised("search results", items, "a list of results or {'web': [...]}"))
    hits: list[dict[str, Any]] = []
    seen: set[str] = set()
    held = 0
    for item in items:
        mapping = item if type(item) is dict else _as_mapping(item)
        if mapping is None:
            continue
        url, title, description = mapping.get("url"), mapping.get("title"), mapping.get("description")
        if (
            type(url) is str and url and type(title) is str and title and type(description) is str and description
            and len(url) + len(title) + len(description) <= MAX_URL_CHARS  # longer: held on the long way
        ):
            # ASCII holds no surrogate: only other text is checked
            url = url.strip() if url.isascii() else sound(url.strip())
            title = title.strip() if title.isascii() else sound(title.strip())
            description = description.strip() if description.isascii() else sound(description.strip())
            plain, cut = len(mapping) == 3, False  # exactly these three keys: nothing else to carry over
        else:
            url = _decoded(_first(mapping, _URL_KEYS))
            if type(url) is str and len(url) > MAX_URL_CHARS:  # no URL a caller could read next: left out
                held += 1
                continue
            url = _pick(mapping, _URL_KEYS)[0]
            title, long_title = _pick(mapping, _TITLE_KEYS, MAX_HIT_CHARS)
            description, cut = _pick(mapping, _DESCRIPTION_KEYS, MAX_HIT_CHARS)
            cut, plain = cut or long_title, False
        if url in seen or not (url.startswith(_SCHEMES) or url[:8].lower().startswith(_SCHEMES)):
            continue
        seen.add(url)
        hit: dict[str, Any] = {"title": title, "url": url, "description": description, "position": len(hits) + 1}
        if not plain:
            if not mapping.keys() <= _SEARCH_SKIP:
                extras, over = _held_extras(mapping)
                hit.update(extras)
                cut = cut or over
            held += cut
        hits.append(hit)
        if len(hits) >= limit:
            break
    if not hits and items and not any(_a_result(item) for item in items):
        raise ParseError(_unrecognised("search results", items, _RESULT, of=items[0]))
    if held:
        warn(
            f"{held} search result(s) held more text than is kept ({MAX_HIT_CHARS:,} characters for a title, "
            f"a description, and the other fields together; {MAX_URL_CHARS:,} for a URL): cut there, "
            "or left out where a URL or a value that is not text was longer."
        )
    return hits, meta


#: What a search result is, in the words a plugin's author reads.
_RESULT = "a list of results, each a mapping with a 'url' (or 'href', 'link', 'uri'), 'title' and 'description'"


def _a_result(item: Any) -> bool:
    """Whether ``item`` is written as a search result: a mapping (or model) with a URL as text.
    A result whose URL is not ``http(s)`` is one, dropped on purpose; a string, a nested
    list or a mapping without a URL is not: a list of those is a shape its provider got wrong."""
    mapping = _as_mapping(item)
    return mapping is not None and isinstance(_first(mapping, _URL_KEYS), str)


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a paragraph or word break if one is near."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for sep in ("\n\n", "\n", " "):
        at = cut.rfind(sep)
        if at >= limit * 0.8:
            return cut[:at].rstrip()
    return cut


def cut_page(page: dict[str, Any], max_chars: int) -> None:
    """A page's ``content`` (and ``raw_content``) held to ``max_chars``, saying so in its metadata.
    A page cut already keeps what its first cut said: a reader that cuts its pages as it reads
    them (so that a crawl holds no more than it returns) agrees with the dispatcher's cut."""
    content = page["content"]
    if len(content) > max_chars:
        page["content"] = truncate(content, max_chars)
        page["metadata"]["truncated"] = True
        page["metadata"]["content_chars"] = len(content)
    raw = page["raw_content"]
    if raw is not None and len(raw) > max_chars:
        page["raw_content"] = truncate(raw, max_chars)


def normalise_pages(
    raw: Any, max_chars: int | None = None, *, most_chars: int | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Extract / crawl pages in the public shape; per-URL failures keep ``error``. With
    ``max_chars`` (the call's option), each page's text is cut to it here, whichever provider
    read it: a vendor that returns whole pages is held to it as a local reader is. Without it,
    to ``most_chars`` (the dispatcher gives ``web.max_response_bytes``, the bytes a page read
    here may have), with a warning: a plugin's 50 MB page went whole into the envelope and the cache.
    A page's title, ``metadata`` and other fields are held as a hit's are, whatever the call."""
    if raw is None:  # a method that ended without ``return``, as a search's None is
        raise ParseError("The provider returned None for pages; return a list of pages ([] for none).")
    items, meta = _unwrap(raw, "pages")
    if isinstance(items, Mapping) and items:
        items = [items] if _first(items, _URL_KEYS) else items.get("results", [])
    if items is None:
        items = []
    if not isinstance(items, (list, tuple)):
        raise ParseError(_unrecognised("pages", items, "a list of pages or {'pages': [...]}"))
    pages: list[dict[str, Any]] = []
    held = 0
    for item in items:
        mapping = _as_mapping(item)
        if mapping is None:
            continue
        url = _decoded(_first(mapping, _URL_KEYS))
        if type(url) is str and len(url) > MAX_URL_CHARS:  # no URL a caller could read again: left out
            held += 1
            continue
        url = _text(url)
        if not is_http_url(url):
            continue
        page, cut = _page(mapping, url)
        if max_chars is not None:
            cut_page(page, max_chars)
        elif most_chars is not None and (
            len(page["content"]) > most_chars or len(page["raw_content"] or "") > most_chars
        ):
            cut_page(page, most_chars)
            cut = True
        held += cut
        pages.append(page)
    if not pages and items and not any(_a_result(item) for item in items):
        raise ParseError(_unrecognised("pages", items, _PAGE, of=items[0]))
    if held:
        most = (
            f"{max_chars:,} (max_chars)" if max_chars is not None
            else f"{most_chars:,} (web.max_response_bytes)" if most_chars is not None else "all"
        )
        warn(
            f"{held} page(s) held more text than is kept, and were cut there (or left out, where a URL or a "
            f"value that is not text was longer): a page keeps {most} characters of its content and of its "
            "raw content (metadata.truncated says so; pass max_chars to choose), "
            f"{MAX_HIT_CHARS:,} of its title, of its metadata and of its other fields together, "
            f"and a URL of {MAX_URL_CHARS:,}."
        )
    return pages, meta


def _page(mapping: Mapping[str, Any], url: str) -> tuple[dict[str, Any], bool]:
    """The page ``mapping`` describes, its title, metadata and other fields held as a hit's are,
    and whether any of them was cut."""
    title, cut = _pick(mapping, _TITLE_KEYS, MAX_HIT_CHARS)
    metadata = mapping.get("metadata")
    if isinstance(metadata, Mapping):
        kept = _held(metadata, set(), MAX_META_CHARS)
        cut = cut or kept is not None
        metadata = _jsonable(metadata if kept is None else kept)
    page: dict[str, Any] = {
        "url": url,
        "title": title,
        "content": _text(_first(mapping, _PAGE_CONTENT_KEYS)),
        "raw_content": _text(mapping.get("raw_content")) or None,
        "metadata": dict(metadata) if isinstance(metadata, Mapping) else {},
    }
    if _failed(mapping):
        _page_failure(page, mapping)
    skip = _PAGE_SKIP | page.keys()
    if not mapping.keys() <= skip:
        extras = _held(mapping, skip, MAX_HIT_CHARS)
        cut = cut or extras is not None
        page.update(_extras(mapping if extras is None else extras, skip))
    return page, cut


def _failed(mapping: Mapping[str, Any]) -> bool:
    """Whether an item says its URL failed: an ``error`` key is the mark (the envelope's
    contract), an empty sentence too (``"error": ""`` was served as a page read, with no
    text); ``None``, ``False`` or an empty list or mapping there, as a model dumped whole
    writes, says there was none."""
    error = mapping.get("error")
    return isinstance(error, str) or bool(error) or bool(mapping.get("error_code"))


#: What a page is, in the words a plugin's author reads.
_PAGE = "a list of pages, each a mapping with a 'url' (or 'href', 'link', 'uri') and its 'content'"


def success(data: Any, provider: str | None, meta: dict[str, Any]) -> dict[str, Any]:
    return {"success": True, "data": data, "provider": provider, "meta": meta}


def failure(error: WebProviderError, provider: str | None, meta: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = {"success": False, **error.envelope_fields()}
    envelope["provider"] = provider
    if error.failures is not None:
        meta = {**meta, "failures": list(error.failures), "failed": len(error.failures)}
    envelope["meta"] = meta
    return envelope


def page_error(url: str, error: WebProviderError) -> dict[str, Any]:
    """A per-URL failure item for extract results, with the error's ``detail`` and
    ``retry_after`` when known, so a call that read no page can still say them. Its URL is given
    back as its error names it: a ``user:password@`` in it (refused: pages are never fetched
    with one) is masked."""
    item: dict[str, Any] = {
        "url": mask_userinfo(url),
        "title": "",
        "content": "",
        "raw_content": None,
        "metadata": {},
        "error": error.message,
        "error_code": error.code,
    }
    fields = error.envelope_fields()
    item.update((key, fields[key]) for key in ("detail", "retry_after") if key in fields)
    return item
