"""Input checks shared by dispatch, the CLI and the agent tools.

Each check raises :class:`~webproviders.errors.InvalidInputError` with a sentence that
says what was wrong and what is allowed; ``check_urls`` returns the malformed URLs of a
batch with their errors instead (they fail only their own items), unless all are malformed.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import urlsplit

from .context import warn
from .countries import alpha2
from .errors import InvalidInputError
from .redact import mask_url, mask_userinfo
from .surrogates import is_sound
from .urls import MAX_URL_CHARS, host_of, is_http_url, shorten

MAX_QUERY_CHARS = 2_000
MIN_LIMIT, MAX_LIMIT = 1, 50
MAX_URLS = 20
#: Domains an ``include_domains`` or ``exclude_domains`` list may hold: more than any vendor
#: takes (Exa 1,200; Tavily, Parallel, Perplexity, xAI far fewer), and few enough to check at once.
MAX_DOMAINS = 2_000

TIME_RANGES = ("day", "week", "month", "year")
SAFE_SEARCH = ("off", "moderate", "strict")
#: A language code: ``en``, ``pt-BR``, ``zh-Hans-CN``, ``es-419`` (ASCII, as every API takes it).
LANG_PATTERN = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}")
#: A country code: ISO 3166-1 alpha-2 (``us``) or alpha-3 (``deu``), in either case.
COUNTRY_PATTERN = re.compile(r"[A-Za-z]{2,3}")
#: Names a ``backend=`` argument may list.
MAX_BACKENDS = 32
#: The longest provider name a ``backend=`` argument may hold.
MAX_BACKEND_CHARS = 64
#: The search options every provider is asked to map to its own parameters.
COMMON_SEARCH_OPTIONS = frozenset(
    {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
)


def shown(value: Any, most: int = 40) -> str:
    """A refused value as a sentence quotes it: its repr, cut short (a megabyte string passed
    as ``limit=`` came back whole in the error), or its type where it has none to give (an int
    of thousands of digits refuses to be written out)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - ValueError for a huge int, anything for a caller's object
        return f"a value of type {type(value).__name__}"
    return shorten(text, most)


def encodable(text: str, what: str) -> str:
    """``text`` if it can be sent as UTF-8; a lone surrogate (half a UTF-16 pair) cannot."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"The {what} contains a lone surrogate (U+{ord(text[exc.start]):04X} at position {exc.start}), "
            "which is not valid Unicode text; decode the input properly or drop that character."
        ) from None
    return text


def check_query(query: Any) -> str:
    if not isinstance(query, str):
        raise InvalidInputError(f"The query must be a string, not {type(query).__name__}.")
    text = encodable(query, "query").strip()
    if not text:
        raise InvalidInputError("The query is empty; pass the words to search for.")
    if not text.isprintable() and not any(unicodedata.category(char)[0] not in "CZ" for char in text):
        # isprintable() first: a query of words never gets here
        raise InvalidInputError(
            "The query has no character to search for, only control or invisible ones (a NUL, a "
            "zero-width space, a byte-order mark); pass the words to search for."
        )
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidInputError(
            f"The query is {len(text)} characters long; the limit is {MAX_QUERY_CHARS}."
        )
    return text


def check_limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InvalidInputError(
            f"limit must be a whole number from {MIN_LIMIT} to {MAX_LIMIT}, not {shown(limit)}."
        )
    if not MIN_LIMIT <= limit <= MAX_LIMIT:
        raise InvalidInputError(f"limit must be from {MIN_LIMIT} to {MAX_LIMIT}; got {shown(limit)}.")
    return limit


#: Another address after a space or line break: several URLs pasted into one string, which
#: would otherwise be fetched as one URL (and be "not found") or refused as unparsable.
_SEVERAL_URLS = re.compile(r"\s[hH][tT][tT][pP][sS]?://")


#: A host name and maybe a path, without a scheme (``example.com/docs``): typed as a browser takes it.
_SCHEMELESS = re.compile(r"(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?::\d+)?(?:[/?#]\S*)?$")


def check_url(url: Any, what: str = "URL", *, single: bool = False) -> str:
    """The URL, trimmed; ``single`` when the caller takes exactly one URL (a crawl's start,
    ``webread``), so the advice for several pasted addresses is one call each, not a list."""
    if not isinstance(url, str):
        raise InvalidInputError(f"Each {what} must be a string, not {type(url).__name__}.")
    text = encodable(url, what).strip()
    if not text:
        raise InvalidInputError(f"The {what} is empty.")
    if len(text) > MAX_URL_CHARS:
        raise InvalidInputError(
            f"The {what} is {len(text)} characters long; the limit is {MAX_URL_CHARS}."
        )
    if not is_http_url(text) or not host_of(text):
        shown = shorten(mask_url(text), 80)  # a scheme left out still leaves ``user:password@``
        hint = f": write it with its scheme, {shorten('https://' + text, 88)!r}" if _SCHEMELESS.match(text) else ""
        raise InvalidInputError(f"The {what} {shown!r} is not an http:// or https:// address{hint}.")
    if _SEVERAL_URLS.search(text):
        shown = shorten(mask_userinfo(text), 80)
        advice = (
            "this takes one URL: make one call per address"
            if single
            else "give each URL on its own, as a list of URL strings"
        )
        raise InvalidInputError(f"The {what} {shown!r} holds several addresses; {advice}.")
    if not _port_usable(text):
        shown = shorten(mask_userinfo(text), 80)
        raise InvalidInputError(f"The {what} {shown!r} has a port that is not a number from 1 to 65535.")
    return text


def _port_usable(url: str) -> bool:
    """Whether the URL's port, if it names one, is one a connection can be made to (the
    socket layer would refuse 0 or 99999 with an error naming nothing the caller wrote)."""
    try:
        port = urlsplit(url).port
    except ValueError:
        return False
    return port is None or 0 < port < 65536


def check_urls(urls: Any) -> tuple[list[str], list[tuple[int, Any, InvalidInputError]]]:
    """The well-formed URLs of a batch, and each malformed one with its position and why.

    One bad URL fails only its own item; the batch is refused as a whole when the list itself
    is wrong or when not a single URL in it is well-formed.
    """
    items = [urls] if isinstance(urls, str) else urls
    if not isinstance(items, (list, tuple)):
        raise InvalidInputError("urls must be one URL string or a list of 1 to 20 URL strings.")
    if not items:
        raise InvalidInputError("urls is empty; pass at least one http(s) URL.")
    if len(items) > MAX_URLS:
        raise InvalidInputError(f"{len(items)} URLs were given; at most {MAX_URLS} per call.")
    good: list[str] = []
    bad: list[tuple[int, Any, InvalidInputError]] = []
    for position, item in enumerate(items):
        try:
            good.append(check_url(item))
        except InvalidInputError as error:
            bad.append((position, item, error))
    if not good:
        first = bad[0][2]
        if len(bad) == 1:
            raise first
        raise InvalidInputError(f"None of the {len(bad)} URLs is usable: {first.message}")
    return good, bad


#: A host a domain filter may name: letters (any script), digits, dots, hyphens, a port.
_FILTER_HOST = re.compile(r"[^\W_](?:[\w.-]*[^\W_])?(?::\d{1,5})?")


def _within_dns_lengths(host: str) -> bool:
    """Whether ``host`` keeps to DNS's lengths: at most 253 characters, 63 a label (no name
    longer is any site's, and a vendor refusing it would be blamed)."""
    return len(host) <= 253 and all(len(label) <= 63 for label in host.split("."))


def _domain(name: str, position: int, given: str) -> str:
    """``given`` as a domain filter: a URL pasted for its site (``https://docs.python.org/``)
    is its host and path without the scheme, as vendors' filters and the local index read
    them; text that names no site is the caller's mistake, refused before a vendor is asked
    (and blamed for it)."""
    text = encodable(given, name).strip()
    text = text.split("://", 1)[1] if "://" in text else text
    host, slash, path = text.rstrip("/").partition("/")
    # A leading "." or "*." is kept: some vendors read ".gov" as every domain under it.
    bare = host.removeprefix("*").removeprefix(".")
    if (
        not _FILTER_HOST.fullmatch(bare)
        or not _within_dns_lengths(bare.rsplit(":", 1)[0] if ":" in bare else bare)
        or any(char.isspace() or not char.isprintable() for char in path)
    ):
        several = _several_domains(name, position, given)
        if several:
            raise InvalidInputError(
                f"{name} item {position} holds several domain names; give each as its own list item: "
                f"{shorten(repr(several), 200)}."
            )
        raise InvalidInputError(
            f"{name} item {position} is not a domain name; give names such as 'example.com' or 'docs.example.com'."
        )
    return host.lower() + slash + path


#: What separates names written into one string: ``"python.org, docs.python.org"``.
_NAME_SEPARATORS = re.compile(r"[\s,;]+")


def _several_domains(name: str, position: int, given: str) -> list[str]:
    """The domain names a string holds when it is several of them written together (the way
    a model often writes a list), else nothing; each must have a dot (``exa mple.com`` is a
    typo, not the names ``exa`` and ``mple.com``)."""
    parts = [part for part in _NAME_SEPARATORS.split(given) if part]
    if len(parts) < 2 or not all("." in part for part in parts):
        return []
    try:
        return [_domain(name, position, part) for part in parts]
    except InvalidInputError:
        return []


def _domains(name: str, value: Any) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if isinstance(items, (list, tuple)) and len(items) > MAX_DOMAINS:  # refused before any is read
        raise InvalidInputError(
            f"{name} lists {len(items):,} domains; at most {MAX_DOMAINS:,} are taken (no search vendor takes "
            "more): keep the sites that matter most, or leave the filter out."
        )
    if not isinstance(items, (list, tuple)) or not all(isinstance(d, str) and d.strip() for d in items):
        raise InvalidInputError(f"{name} must be a list of domain names such as ['example.com'].")
    return [_domain(name, position, item) for position, item in enumerate(items, 1)]


#: How deep into an option's value its text is looked at (a list of mappings of lists...).
_OPTION_DEPTH = 16


def check_option_values(options: dict[str, Any]) -> None:
    """Refuse, as the caller's ``invalid_input`` before any provider sees them, an option named
    ``self`` (its method's own object: a second one failed the provider as it was called) and
    text in an option that is not valid Unicode (a lone surrogate no request, cache or
    envelope can hold: a vendor failed building its request, counted against it for every
    caller). Any other value is the provider's to judge (:func:`check_kinds` for a vendor's):
    a plugin of one's own may take objects."""
    for name, value in options.items():
        if name == "self":
            raise InvalidInputError("No option is named 'self'; leave it out.")
        if _broken_text(value, 0):
            raise InvalidInputError(
                f"The option {name} holds text that is not valid Unicode (a lone surrogate, half a UTF-16 "
                "pair); decode the input properly or drop that character."
            )


def _broken_text(value: Any, depth: int) -> bool:
    """Whether ``value`` holds a string with a lone surrogate (looked for :data:`_OPTION_DEPTH` deep)."""
    if isinstance(value, str):
        return not is_sound(value)
    if depth >= _OPTION_DEPTH:
        return False
    if isinstance(value, (list, tuple)):
        return any(_broken_text(item, depth + 1) for item in value)
    if isinstance(value, Mapping):
        return any(_broken_text(key, depth + 1) or _broken_text(item, depth + 1) for key, item in value.items())
    return False


def check_search_options(options: dict[str, Any]) -> dict[str, Any]:
    """Validate and tidy the common search options; other options pass through untouched."""
    if not options:
        return {}
    clean = dict(options)
    for key, choices in (("time_range", TIME_RANGES), ("safe_search", SAFE_SEARCH)):
        value = clean.get(key)
        if value is None:
            continue
        # text first: ``in`` compares with ``==``, which an array-like answers with no truth value
        if not isinstance(value, str) or str.__str__(value) not in choices:
            raise InvalidInputError(f"{key} must be one of {', '.join(choices)}; got {shown(value)}.")
        clean[key] = str.__str__(value)
    for key in ("include_domains", "exclude_domains"):
        if clean.get(key) is not None:
            clean[key] = _domains(key, clean[key])
    for key, pattern, example in (("country", COUNTRY_PATTERN, "'us' or 'de'"), ("lang", LANG_PATTERN, "'en' or 'pt-BR'")):
        if clean.get(key) is not None:
            clean[key] = _code(key, clean[key], pattern, example)
    if clean.get("country") is not None:
        clean["country"] = alpha2(clean["country"])
    return {key: value for key, value in clean.items() if value is not None}


#: The crawl options every crawling backend reads (``limit`` is an alias of ``max_pages``),
#: with the least each may be; each backend applies its own ceiling.
CRAWL_COUNTS = {"max_pages": 1, "limit": 1, "max_depth": 0}
#: The most pages a crawl returns when the call sets no ``max_pages``, whichever provider
#: crawled: the most ``http`` ever crawls. A plugin's crawl of 100,000 pages was kept whole.
MAX_CRAWL_PAGES = 1000


#: Page options the dispatcher applies itself, to whichever provider's pages.
DISPATCH_PAGE_OPTIONS = frozenset({"max_chars"})


#: What a vendor's own option may be (:func:`check_kinds`), by the words its sentence uses.
TEXT, TEXTS, WHOLE, NUMBER, SWITCH, LIST, SWITCH_OR_TEXT = (
    "text", "text or a list of text", "a whole number", "a number", "true or false", "a list", "true or false, or text"
)


def _json_value(value: Any, depth: int = 0) -> bool:
    """Whether a request's JSON can carry ``value`` (bytes, a set or an object it cannot)."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if depth >= _OPTION_DEPTH:
        return False
    if isinstance(value, (list, tuple)):
        return all(_json_value(item, depth + 1) for item in value)
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and _json_value(item, depth + 1) for key, item in value.items())
    return False


_KIND_TESTS: dict[str, Any] = {
    TEXT: lambda v: isinstance(v, str),
    TEXTS: lambda v: isinstance(v, str) or (isinstance(v, (list, tuple)) and all(isinstance(i, str) for i in v)),
    WHOLE: lambda v: isinstance(v, int) and not isinstance(v, bool),
    NUMBER: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    SWITCH: lambda v: isinstance(v, bool),
    LIST: lambda v: isinstance(v, (list, tuple)) and _json_value(v),
    SWITCH_OR_TEXT: lambda v: isinstance(v, (bool, str)),
}


def check_kinds(provider: str, options: dict[str, Any], kinds: dict[str, str]) -> None:
    """Refuse a vendor's own option given as the wrong kind of value (``queries=5``) as the
    caller's ``invalid_input``, before the request: the SDK would fail on it as if the vendor
    were broken, and cool it down for every caller."""
    for name, kind in kinds.items():
        value = options.get(name)
        if value is not None and not _KIND_TESTS[kind](value):
            if kind == LIST and isinstance(value, (list, tuple)):  # a list, holding what JSON cannot
                held = next((type(i).__name__ for i in value if not _json_value(i)), "values nested too deep")
                raise InvalidInputError(
                    f"{provider}'s option {name} must be a list of text, numbers, true or false, and lists "
                    f"and mappings of them, not a list holding {held}."
                )
            raise InvalidInputError(f"{provider}'s option {name} must be {kind}, not {type(value).__name__}.")


def warn_unknown(
    provider: str, options: dict[str, Any], known: Collection[str], *, search: bool = False
) -> None:
    """Say in ``meta.warnings`` which options ``provider`` does not read (a typo such as
    ``max_char`` would otherwise do nothing unsaid). Left out: for a search the common options,
    which the dispatcher reports against ``search_options``; for a page read, the options the
    dispatcher applies itself (``max_chars``)."""
    unknown = sorted(set(options).difference(known, COMMON_SEARCH_OPTIONS if search else DISPATCH_PAGE_OPTIONS))
    if unknown:
        warn(f"{provider} ignored the option(s) {', '.join(unknown)}: it does not know them.")


#: The ``format`` a page is given back in, by every provider that reads it.
PAGE_FORMATS = ("markdown", "text")


def check_page_options(options: dict[str, Any]) -> dict[str, Any]:
    """Refuse, for every extract and crawl, a ``max_chars`` that is no count of characters (the
    dispatcher cuts each page to it, whichever provider read the page), and a ``format`` or
    ``include_raw`` no provider reads. Checked before any URL is screened: a provider checking
    them itself came after the screen, so on a machine without DNS a bad ``format`` was the
    host's ``network_error``."""
    value = options.get("max_chars")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise InvalidInputError(f"max_chars must be a whole number above 0, not {shown(value)}.")
    fmt = options.get("format")
    if fmt is not None and fmt != "" and not (isinstance(fmt, str) and str.__str__(fmt) in PAGE_FORMATS):
        raise InvalidInputError(f"format must be 'markdown' or 'text', not {shown(fmt)}.")
    raw = options.get("include_raw")
    if raw is not None and not isinstance(raw, bool):
        raise InvalidInputError(f"include_raw must be true or false, not {shown(raw)}.")
    return dict(options)


def check_crawl_options(options: dict[str, Any]) -> dict[str, Any]:
    """Refuse a crawl's page and depth counts that no backend can take, before any is asked:
    a vendor SDK that refuses ``limit=0`` itself would otherwise look like a failing provider."""
    check_page_options(options)
    for key, low in CRAWL_COUNTS.items():
        value = options.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise InvalidInputError(f"{key} must be a whole number of at least {low}, not {shown(value)}.")
    return dict(options)


def _code(key: str, value: Any, pattern: re.Pattern[str], example: str) -> str:
    """A language or country code, checked before any provider puts it into a request."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{key} must be a code such as {example} (a string), not {type(value).__name__}.")
    text = value.strip()
    if not pattern.fullmatch(text):
        shown = shorten(encodable(value, key), 40)
        raise InvalidInputError(f"{key} must be a code such as {example} in ASCII letters, not {shown!r}.")
    return text


_BACKEND_FORMS = "a provider name, a list of names, or {'fuse': [names]}"
#: ``backend=`` strings that passed :func:`check_backend` (bounded).
_good_backends: set[str] = set()


def check_backend(backend: Any) -> str | list[str] | dict[str, list[str]] | None:
    """A call's ``backend=``: a name (or ``"a,b"``), a list of names, or ``{"fuse": [names]}``.

    Anything else is refused with its type named, before any provider is asked. None or ``""``
    (an unset variable's) is None: the configured backend applies. An empty list is refused:
    a list the caller built that came out empty, answered by whatever the config chooses,
    would be another vendor than any it listed (as ``search_backend: []`` is refused).
    """
    # Kinds first: ``==`` on whatever was given (an array-like) may raise instead of answering.
    if backend is None:
        return None
    if isinstance(backend, str):
        backend = str.__str__(backend)  # a subclass's own methods (a StrEnum's) are not called
        if not backend:
            return None
        if backend not in _good_backends:  # a name checked once is good for every call
            parts = [part for part in backend.split(",") if part.strip()]
            if not parts:
                raise InvalidInputError(f"backend={shorten(backend, 40)!r} names no provider.")
            _backend_names(parts, "backend")
            if len(_good_backends) >= 256:
                _good_backends.clear()
            _good_backends.add(backend)
        return backend
    if isinstance(backend, (list, tuple)):
        if not backend:
            raise InvalidInputError(
                f"backend={shown(backend)} names no provider: list at least one, or leave backend out "
                "(None) for the configured choice."
            )
        return _backend_names(backend, "backend")
    if isinstance(backend, dict):
        if set(backend) != {"fuse"}:
            keys = ", ".join(repr(shorten(str(k), 20)) for k in backend) or "none"
            raise InvalidInputError(f"A backend mapping must be {{'fuse': [names]}}; it has the key(s) {keys}.")
        names = backend["fuse"]
        if not isinstance(names, (list, tuple)) or not names:
            raise InvalidInputError(
                f"backend={{'fuse': ...}} needs a non-empty list of provider names, not {type(names).__name__}."
            )
        return {"fuse": _backend_names(names, "backend['fuse']")}
    raise InvalidInputError(f"backend must be {_BACKEND_FORMS}, not {type(backend).__name__}.")


def _backend_names(items: Any, what: str) -> list[str]:
    if len(items) > MAX_BACKENDS:
        raise InvalidInputError(f"{what} names {len(items)} providers; at most {MAX_BACKENDS}.")
    names: list[str] = []
    for position, item in enumerate(items, 1):
        if not isinstance(item, str):
            raise InvalidInputError(f"{what} must list provider names; item {position} is {type(item).__name__}.")
        name = str.__str__(item).strip()
        if not name or len(name) > MAX_BACKEND_CHARS or not name.isprintable():
            raise InvalidInputError(
                f"{what} item {position} is not a provider name (1 to {MAX_BACKEND_CHARS} printable characters)."
            )
        names.append(name)
    return names
