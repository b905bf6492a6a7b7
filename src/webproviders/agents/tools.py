"""Tool definitions for agent hosts, and running the calls a model makes.

The argument models below are the single source of the tool input schemas: their
constraints are the limits in :mod:`webproviders.validate`, their JSON Schema is what
OpenAI, Anthropic, MCP and LangChain see, and ``run_tool`` validates a model's arguments
with them before dispatching. No model accepts an API key or any unknown argument: keys
belong to the host's configuration, never to a tool call. An argument sent as ``null`` counts
as left out (OpenAI's strict mode makes a model send every argument, ``null`` for the ones
it means to omit). ``tags`` (who the call is for: ``{"user": "alice"}``) come from the host
too, never from the model: they select per-tag budgets and label the usage ledger.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..accounting.tags import check_tags
from ..config import Config
from ..envelope import failure
from ..errors import InvalidInputError, WebProviderError
from ..validate import (
    COUNTRY_PATTERN,
    LANG_PATTERN,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_URL_CHARS,
    MAX_URLS,
    MIN_LIMIT,
    SAFE_SEARCH,
    TIME_RANGES,
    check_crawl_options,
    check_limit,
    check_query,
    check_search_options,
    check_url,
)
from .formatting import Style, format_results

#: The text handed back to a model is cut to this many characters unless the host says otherwise.
DEFAULT_MAX_CHARS = 20_000
#: Crawl bounds a model may ask for.
MAX_CRAWL_PAGES = 100
MAX_CRAWL_DEPTH = 5
#: A provider id as used in config: lowercase letters, digits, hyphens and underscores.
BACKEND_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
#: Matches http:// or https:// in any case, in both pydantic's and JSON Schema's regex dialects,
#: after any leading whitespace, which the URL check trims as it trims trailing whitespace.
HTTP_URL_PATTERN = r"^\s*[hH][tT][tT][pP][sS]?://"
_SECRET_WORDS = ("key", "token", "secret", "password", "auth", "credential")

HttpUrl = Annotated[str, Field(max_length=MAX_URL_CHARS, pattern=HTTP_URL_PATTERN)]


def _reraise(check: Any, value: Any, *args: Any) -> Any:
    """Run a ``validate.check_*`` and turn its error into the ValueError pydantic reports."""
    try:
        return check(value, *args)
    except InvalidInputError as exc:
        raise ValueError(exc.message) from None


def _count(check: Callable[[Any], Any], value: Any) -> Any:
    """A count: ``true``, which pydantic would read as 1, is refused by ``check`` with
    dispatch's sentence. A count a model sent as text (``"5"``) is read as its number, as
    every surface has always read it, though the schema asks for a JSON number. A whole
    number written with an exponent (``1e20``, as JavaScript writes a large one) is that
    number, so it is held to the count's range: pydantic said "Unable to parse input string
    as an integer, exceeded maximum size" of it."""
    if isinstance(value, bool):
        _reraise(check, value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _listed(value: Any) -> Any:
    """A list argument a model sent as text: a JSON array written out as a string is read as
    that array (as a count sent as ``"5"`` is read as 5), any other string as a list of one."""
    if not isinstance(value, str):
        return value
    if value.lstrip().startswith("["):
        try:
            decoded = json.loads(value)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, list):
            return decoded
    return [value]


def host_tags(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """Tags a host gives a tool, checked when the tool is built as every call would check
    them: a bad tag is the host's mistake, never an ``invalid_input`` answer to a model that
    did not send it. Raises ``ValueError``, for a pydantic validator."""
    try:
        check_tags(value)
    except InvalidInputError as exc:
        raise ValueError(exc.message) from None
    return value


def host_config(value: Any) -> Any:
    """A configuration a host gives a tool as a mapping, read as :func:`config_from_dict` reads
    one (``${VAR}`` interpolation, environment overrides); pydantic alone made a ``Config`` of
    it that sent ``${BRAVE_API_KEY}`` to the vendor as the key. A ``Config`` passes as it is;
    a bad mapping raises ``ConfigError``, a ``ValueError``, for a pydantic validator."""
    if isinstance(value, Mapping):
        from ..config import config_from_dict

        return config_from_dict(dict(value), source="the tool's config")
    return value


def _code_field(pattern: re.Pattern[str], description: str) -> Any:
    """An optional country or language code whose schema states the pattern
    :func:`~webproviders.validate.check_search_options` checks it with (surrounding spaces
    are trimmed there), so the schema allows exactly what a call accepts."""
    return Field(
        default=None,
        description=description,
        json_schema_extra={"pattern": rf"^\s*(?:{pattern.pattern})\s*$"},
    )


class ToolArguments(BaseModel):
    """Base of every tool's arguments: unknown keys (an ``api_key`` above all) are refused,
    and an argument sent as ``null`` (or an optional one as blank text) is left out.

    Each tool declares its own arguments first (a bare string input fills the first one)
    and the optional ``backend`` last.
    """

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _null_is_left_out(cls, data: Any) -> Any:
        """Drop ``null`` arguments, so every surface (LangChain validates with these models
        itself) reads a strict-mode model's ``null`` as the default; and optional ones sent
        as blank text (``"country": ""``), how models often leave one out, which refused would
        have them pick a country or a backend nobody asked for."""
        if isinstance(data, Mapping):
            return {key: value for key, value in data.items() if not cls._left_out(key, value)}
        return data

    @classmethod
    def _left_out(cls, key: Any, value: Any) -> bool:
        if value is None:
            return True
        field = cls.model_fields.get(key) if isinstance(key, str) else None
        blank = isinstance(value, str) and not value.strip()
        return blank and field is not None and not field.is_required()


def _backend_field() -> Any:
    return Field(
        default=None,
        pattern=BACKEND_PATTERN,
        description=(
            "Provider to use for this call, by name (e.g. 'brave'); an unknown name is answered "
            "with the names there are. Omit to use the configured one."
        ),
    )


class SearchArguments(ToolArguments):
    query: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, description="What to search the web for."
    )
    limit: int = Field(
        default=5,
        ge=MIN_LIMIT,
        le=MAX_LIMIT,
        description=f"How many results to return ({MIN_LIMIT}-{MAX_LIMIT}).",
    )
    time_range: Literal[TIME_RANGES] | None = Field(  # type: ignore[valid-type]
        default=None, description="Only results from the last day, week, month or year."
    )
    include_domains: list[Annotated[str, Field(min_length=1)]] | None = Field(
        default=None, description="Only results from these domains, e.g. ['python.org']."
    )
    exclude_domains: list[Annotated[str, Field(min_length=1)]] | None = Field(
        default=None, description="No results from these domains."
    )
    country: str | None = _code_field(COUNTRY_PATTERN, "Country code, e.g. 'us'.")
    lang: str | None = _code_field(LANG_PATTERN, "Language code, e.g. 'en' or 'pt-BR'.")
    safe_search: Literal[SAFE_SEARCH] | None = Field(  # type: ignore[valid-type]
        default=None, description="Filtering of adult content."
    )
    backend: str | None = _backend_field()

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        return _reraise(check_query, value)

    @field_validator("limit", mode="before")
    @classmethod
    def _limit(cls, value: Any) -> Any:
        return _count(check_limit, value)

    @field_validator("include_domains", "exclude_domains", mode="before")
    @classmethod
    def _domain_list(cls, value: Any) -> Any:
        return _listed(value)

    def options(self) -> dict[str, Any]:
        """The common search options that were given, checked as dispatch checks them."""
        given = self.model_dump(exclude={"query", "limit", "backend"}, exclude_none=True)
        return check_search_options(given)


class ExtractArguments(ToolArguments):
    urls: list[HttpUrl] = Field(
        min_length=1,
        max_length=MAX_URLS,
        description=f"The http(s) URLs of the pages to read (1-{MAX_URLS}).",
    )
    backend: str | None = _backend_field()

    @field_validator("urls", mode="before")
    @classmethod
    def _one_url(cls, value: Any) -> Any:
        return _listed(value)

    @field_validator("urls")
    @classmethod
    def _urls(cls, value: list[str]) -> list[str]:
        return [_reraise(check_url, url) for url in value]


class CrawlArguments(ToolArguments):
    url: HttpUrl = Field(description="The http(s) URL to start crawling from.")
    max_pages: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CRAWL_PAGES,
        description=f"Stop after this many pages (1-{MAX_CRAWL_PAGES}).",
    )
    max_depth: int | None = Field(
        default=None,
        ge=0,
        le=MAX_CRAWL_DEPTH,
        description=f"How many links deep to follow (0-{MAX_CRAWL_DEPTH}).",
    )
    backend: str | None = _backend_field()

    @field_validator("max_pages", "max_depth", mode="before")
    @classmethod
    def _counts(cls, value: Any, info: ValidationInfo) -> Any:
        return _count(lambda given: check_crawl_options({info.field_name: given}), value)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return _reraise(lambda url: check_url(url, single=True), value)


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, what the model is told, and its argument model; ``next_step``
    (another tool's name and a sentence naming it) is told only beside that tool."""

    name: str
    capability: Literal["search", "extract", "crawl"]
    description: str
    arguments: type[ToolArguments]
    next_step: tuple[str, str] | None = None

    def describe(self, offered: list[str] | tuple[str, ...] | None = None) -> str:
        """The description for a model given ``offered`` (None: every tool)."""
        if self.next_step is None or (offered is not None and self.next_step[0] not in offered):
            return self.description
        return f"{self.description} {self.next_step[1]}"


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "web_search",
            "search",
            "Search the web. Returns numbered results with title, URL and a short snippet.",
            SearchArguments,
            ("web_extract", "Read a result in full with web_extract."),
        ),
        ToolSpec(
            "web_extract",
            "extract",
            "Read web pages by URL and return their main content as markdown.",
            ExtractArguments,
        ),
        ToolSpec(
            "web_crawl",
            "crawl",
            "Crawl a website from a start URL, following its links, and return the pages found as markdown.",
            CrawlArguments,
        ),
    )
}


def tidy_schema(node: Any) -> Any:
    """Pydantic's schema made plain: no titles, optional fields without a ``null`` branch."""
    if isinstance(node, list):
        return [tidy_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: tidy_schema(prop) for name, prop in value.items()}
        else:
            out[key] = tidy_schema(value)
    branches = out.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        rest = [b for b in branches if b != {"type": "null"}]
        if len(rest) == 1:
            out.pop("anyOf")
            out = {**rest[0], **out}
        else:
            out["anyOf"] = rest
        if out.get("default", ...) is None:
            out.pop("default")
    return out


#: Keywords OpenAI's strict mode does not accept; ``run_tool`` still checks them.
_NOT_STRICT = ("default", "minLength", "maxLength")


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` that also accepts ``null``."""
    out = dict(node)
    if "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    kind = out.get("type")
    out["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def strict_schema(node: Any) -> Any:
    """A schema in OpenAI's strict form: every property required, the optional ones
    nullable, no unknown properties, and none of the keywords strict mode refuses."""
    if isinstance(node, list):
        return [strict_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: strict_schema(value) for key, value in node.items() if key not in _NOT_STRICT}
    properties = out.get("properties")
    if isinstance(properties, dict):
        required = set(node.get("required", []))
        out["properties"] = {
            name: prop if name in required else _nullable(prop) for name, prop in properties.items()
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def input_schema(name: str, *, strict: bool = False) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments (an object that refuses unknown properties);
    ``strict=True`` gives it in OpenAI's strict-mode form (:func:`strict_schema`)."""
    spec = _spec(name)
    schema = tidy_schema(spec.arguments.model_json_schema())
    schema["additionalProperties"] = False
    return strict_schema(schema) if strict else schema


def _spec(name: str) -> ToolSpec:
    try:
        return TOOLS[name]
    except KeyError:
        raise KeyError(f"Unknown tool {name!r}; known tools: {', '.join(TOOLS)}.") from None


def _names(names: list[str] | tuple[str, ...] | str | None) -> list[str]:
    """The tools offered; one name given as text is that tool (it was read letter by letter:
    ``Unknown tool 'w'``)."""
    if isinstance(names, str):
        names = [names]
    return list(TOOLS) if names is None else [_spec(n).name for n in names]


def openai_tools(
    names: list[str] | tuple[str, ...] | str | None = None,
    *,
    api: Literal["chat", "responses"] = "chat",
    strict: bool = False,
) -> list[dict[str, Any]]:
    """OpenAI function-calling definitions (Chat Completions shape, or the flat Responses
    shape); ``strict=True`` marks them ``strict`` with strict-mode schemas."""
    tools = []
    offered = _names(names)
    for name in offered:
        function: dict[str, Any] = {
            "name": name,
            "description": TOOLS[name].describe(offered),
            "parameters": input_schema(name, strict=strict),
        }
        if strict:
            function["strict"] = True
        tools.append(
            {"type": "function", "function": function}
            if api == "chat"
            else {"type": "function", **function}
        )
    return tools


def anthropic_tools(names: list[str] | tuple[str, ...] | str | None = None) -> list[dict[str, Any]]:
    """Anthropic Messages API tool definitions."""
    offered = _names(names)
    return [
        {
            "name": name,
            "description": TOOLS[name].describe(offered),
            "input_schema": input_schema(name),
        }
        for name in offered
    ]


# --- running a call -----------------------------------------------------------------------


def invalid_call(message: str) -> dict[str, Any]:
    """The ``invalid_input`` envelope of a call refused before any backend was asked, so a bad
    call reads the same on every surface."""
    meta: dict[str, Any] = {
        "requested_backend": None,
        "served_by": None,
        "latency_ms": 0.0,
        "attempts": [],
    }
    return failure(InvalidInputError(message), None, meta)


_PATTERN_HINTS = {
    HTTP_URL_PATTERN: "{} must be an http:// or https:// address.",
    BACKEND_PATTERN: "{} must be a provider name such as 'brave' (lowercase letters, digits, - and _).",
}


def _looks_secret(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _SECRET_WORDS)


def explain(tool: str, exc: ValidationError, model: type[BaseModel]) -> str:
    """One sentence per problem, never echoing a value (it could be a key)."""
    problems: list[str] = []
    for err in exc.errors():
        field = ".".join(str(part) for part in err["loc"]) or "arguments"
        kind = err["type"]
        if kind == "extra_forbidden":
            if _looks_secret(field):
                problems.append(
                    f"'{field}' is not accepted: API keys and tokens are never tool arguments, "
                    "the host configures them."
                )
            else:
                allowed = ", ".join(model.model_fields)
                problems.append(f"'{field}' is not an argument of {tool} (allowed: {allowed}).")
        elif kind == "value_error":
            problems.append(str(err.get("ctx", {}).get("error", err["msg"])))
        elif kind == "missing":
            problems.append(f"'{field}' is required.")
        elif kind == "model_type" and not err["loc"]:
            problems.append(f"The arguments must be a JSON object, not {_json_kind(err['input'])}.")
        elif kind == "string_pattern_mismatch":
            pattern = str(err.get("ctx", {}).get("pattern"))
            hint = _PATTERN_HINTS.get(pattern, "{} has the wrong form.")
            problems.append(hint.format(f"'{field}'"))
        else:
            problems.append(f"{field}: {err['msg']}.")
    return f"Invalid arguments for {tool}: " + " ".join(problems)


def _json_int(digits: str) -> int | float:
    """A JSON integer; one too long for Python's ``int`` (over 4300 digits) is read as a
    float, infinite, as JavaScript reads it, so it is refused as any number out of range
    (``Input should be a finite number``), where the decoder said the arguments were not
    valid JSON and told the model to call ``sys.set_int_max_str_digits()``."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def decode_arguments(name: str, text: str | bytes) -> Any:
    """Arguments a model sent as JSON text, decoded; JSON that is not valid, or nested too
    deeply to decode, raises :class:`InvalidInputError` saying so (never ``RecursionError``).
    Text encoded twice (a JSON string holding the JSON object, as some model servers send
    arguments) is decoded twice."""
    try:
        decoded = json.loads(text or "{}", parse_int=_json_int)
        if isinstance(decoded, str) and decoded.lstrip().startswith("{"):
            decoded = json.loads(decoded, parse_int=_json_int)
        return decoded
    except ValueError as exc:
        raise InvalidInputError(f"The arguments for {name} are not valid JSON: {exc}.") from None
    except RecursionError:
        raise InvalidInputError(
            f"The arguments for {name} are nested too deeply to be tool arguments."
        ) from None


def _json_kind(value: Any) -> str:
    """What a value is, in the words of JSON, which is what the model wrote."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    return type(value).__name__


def parse_arguments(
    name: str, arguments: Mapping[str, Any] | str | None
) -> ToolArguments | dict[str, Any]:
    """The validated arguments of a call, or a failure envelope that says what is wrong."""
    spec = TOOLS.get(name)
    if spec is None:
        return invalid_call(f"Unknown tool '{name}'. Known tools: {', '.join(TOOLS)}.")
    raw: Any = arguments if arguments is not None else {}
    if isinstance(raw, (str, bytes)):
        try:
            raw = decode_arguments(name, raw)
        except InvalidInputError as exc:
            return invalid_call(exc.message)
    if not isinstance(raw, Mapping):
        return invalid_call(
            f"The arguments for {name} must be a JSON object, not {_json_kind(raw)}."
        )
    try:
        return spec.arguments.model_validate(raw)
    except ValidationError as exc:
        return invalid_call(explain(name, exc, spec.arguments))


def _dispatch_call(args: ToolArguments) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Positional and keyword arguments of the ``dispatch_*`` call for a tool call."""
    if isinstance(args, SearchArguments):
        return (args.query, args.limit), {"backend": args.backend, **args.options()}
    if isinstance(args, ExtractArguments):
        return (args.urls,), {"backend": args.backend}
    assert isinstance(args, CrawlArguments)
    extra = args.model_dump(include={"max_pages", "max_depth"}, exclude_none=True)
    return (args.url,), {"backend": args.backend, **extra}


def _prepare(
    name: str, arguments: Mapping[str, Any] | str | None
) -> tuple[str, tuple[Any, ...], dict[str, Any]] | dict[str, Any]:
    """``(capability, positional, keywords)`` for dispatch, or a failure envelope."""
    parsed = parse_arguments(name, arguments)
    if isinstance(parsed, dict):
        return parsed
    try:
        positional, keywords = _dispatch_call(parsed)
    except WebProviderError as exc:
        return invalid_call(exc.message)
    return TOOLS[name].capability, positional, keywords


Tags = Mapping[str, Any]


def call_tool(
    name: str,
    arguments: Mapping[str, Any] | str | None,
    *,
    config: Config | None = None,
    tags: Tags | None = None,
) -> dict[str, Any]:
    """Execute a tool call and return the envelope (never raises for bad arguments);
    ``tags`` are the host's labels for the call (per-tag budgets, the usage ledger)."""
    from .. import dispatch

    prepared = _prepare(name, arguments)
    if isinstance(prepared, dict):
        return prepared
    capability, positional, keywords = prepared
    run = getattr(dispatch, f"dispatch_{capability}")
    return run(*positional, config=config, tags=_tags(tags), **keywords)


async def acall_tool(
    name: str,
    arguments: Mapping[str, Any] | str | None,
    *,
    config: Config | None = None,
    tags: Tags | None = None,
) -> dict[str, Any]:
    """Async twin of :func:`call_tool`."""
    from .. import dispatch

    prepared = _prepare(name, arguments)
    if isinstance(prepared, dict):
        return prepared
    capability, positional, keywords = prepared
    run = getattr(dispatch, f"adispatch_{capability}")
    return await run(*positional, config=config, tags=_tags(tags), **keywords)


def _tags(tags: Tags | None) -> Any:
    """A mapping as the plain dict dispatch checks (anything else goes on, to be refused there)."""
    return dict(tags) if isinstance(tags, Mapping) else tags


def run_tool(
    name: str,
    arguments: Mapping[str, Any] | str | None,
    *,
    config: Config | None = None,
    style: Style = "markdown",
    max_chars: int | None = DEFAULT_MAX_CHARS,
    tags: Tags | None = None,
) -> str:
    """Execute a model's tool call; returns the text to hand back to the model."""
    return format_results(call_tool(name, arguments, config=config, tags=tags), style, max_chars)


async def arun_tool(
    name: str,
    arguments: Mapping[str, Any] | str | None,
    *,
    config: Config | None = None,
    style: Style = "markdown",
    max_chars: int | None = DEFAULT_MAX_CHARS,
    tags: Tags | None = None,
) -> str:
    """Async twin of :func:`run_tool`."""
    envelope = await acall_tool(name, arguments, config=config, tags=tags)
    return format_results(envelope, style, max_chars)
