"""LangChain tools for web search, page extraction and crawling (extra ``langchain``).

Only ``langchain_core`` is imported. The tools validate arguments with the same models as
every other integration and run sync (``invoke``) or async (``ainvoke``). The library
configuration is ``config=`` on the tools and on :func:`create_langchain_tools` alike; a
keyword the tool does not know is an error, never silently ignored.

A failed call raises :class:`~langchain_core.tools.ToolException` with the envelope's
sentence. The tools are built with ``handle_tool_error=True``, so, as LangChain documents, a
tool call comes back as a ``ToolMessage`` with ``status="error"`` carrying that sentence (the
model can read it and try something else); ``handle_tool_error=False`` lets the exception
through. ``response_format="content_and_artifact"`` returns the text for the model and the
whole envelope as the message's ``artifact``. ``web_tags`` labels every call for per-tag
budgets and usage (LangChain's own ``tags`` are its callback tags).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

try:
    from langchain_core.tools import BaseTool, ToolException
except ImportError as missing:  # say which extra, as a provider with a missing package does
    raise ImportError(
        "webproviders.agents.langchain needs the 'langchain-core' package: pip install 'webproviders[langchain]'"
    ) from missing
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..config import Config
from ..errors import InvalidInputError
from .formatting import Style, format_results
from .tools import (
    DEFAULT_MAX_CHARS,
    TOOLS,
    acall_tool,
    call_tool,
    decode_arguments,
    explain,
    host_config,
    host_tags,
    invalid_call,
)

__all__ = ["WebCrawlTool", "WebExtractTool", "WebSearchTool", "create_langchain_tools"]


class _ExplainInvalid:
    """A tool's ``handle_validation_error``: when LangChain's own check of the arguments
    fails, the sentence every surface gives, in the tool's style and within its
    ``max_chars``. Its repr names the tool only (a bound method's repr holds the tool's,
    which holds this field's: printing the tool never ended)."""

    def __init__(self, tool: _WebTool) -> None:
        self._tool = tool

    def __call__(self, error: ValidationError) -> str:
        tool = self._tool
        sentence = explain(tool.tool, error, TOOLS[tool.tool].arguments)
        return format_results(invalid_call(sentence), tool.style, tool.max_chars)

    def __repr__(self) -> str:
        return f"<{self._tool.tool} invalid-arguments answer>"


class _WebTool(BaseTool):
    """Shared plumbing: the tool's name picks its :data:`webproviders.agents.tools.TOOLS` entry."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, hide_input_in_errors=True)

    tool: ClassVar[str]
    #: The library configuration (None: the process-wide one).
    config: Config | None = None
    #: The longest text handed to the model (None: no limit); checked when the tool is built.
    max_chars: int | None = Field(default=DEFAULT_MAX_CHARS, ge=1, strict=True)
    style: Style = "markdown"
    #: Labels for every call (``{"user": "alice"}``): per-tag budgets and the usage ledger.
    web_tags: dict[str, Any] | None = None

    @field_validator("web_tags")
    @classmethod
    def _web_tags(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return host_tags(value)

    @field_validator("config", mode="before")
    @classmethod
    def _config(cls, value: Any) -> Any:
        return host_config(value)

    def __init__(self, **data: Any) -> None:
        spec = TOOLS[self.tool]
        data.setdefault("name", spec.name)
        data.setdefault("description", spec.describe())
        data.setdefault("args_schema", spec.arguments)
        data.setdefault("handle_validation_error", _ExplainInvalid(self))
        data.setdefault("handle_tool_error", True)
        super().__init__(**data)

    def _input(self, tool_input: Any) -> Any:
        """Text that is a JSON object is the arguments (ReAct-style agents write a tool's input
        as text, often as JSON); any other text is the tool's first argument."""
        if isinstance(tool_input, str) and tool_input.lstrip().startswith("{"):
            try:
                decoded = decode_arguments(self.tool, tool_input)
            except InvalidInputError:
                return tool_input
            if isinstance(decoded, dict):
                return decoded
        return tool_input

    def _tool_call(self, value: Any) -> Any:
        """A tool call whose ``args`` is no dict (the JSON text a model API gives as a call's
        arguments, ``None``, or left out) with its arguments read as :meth:`_input` reads text,
        ``None`` as none: LangChain copies ``args`` as a dict, so an ``AttributeError`` escaped
        where a ``ToolMessage`` the model can read belongs."""
        if not isinstance(value, dict) or value.get("type") != "tool_call" or isinstance(value.get("args"), dict):
            return value
        given = value.get("args")
        arguments = dict(given) if isinstance(given, Mapping) else self._input(given) if given is not None else {}
        if not isinstance(arguments, dict):
            arguments = {next(iter(TOOLS[self.tool].arguments.model_fields)): arguments}
        return {**value, "args": arguments}

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return super().invoke(self._tool_call(input), config, **kwargs)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return await super().ainvoke(self._tool_call(input), config, **kwargs)

    def run(self, tool_input: str | dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        return super().run(self._input(tool_input), *args, **kwargs)

    async def arun(self, tool_input: str | dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        return await super().arun(self._input(tool_input), *args, **kwargs)

    def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """A bare string input arrives positionally; it fills the tool's first argument."""
        kwargs.pop("run_manager", None)
        schema: type[BaseModel] = TOOLS[self.tool].arguments
        if args:
            kwargs = {next(iter(schema.model_fields)): args[0], **kwargs}
        return kwargs

    def _answer(self, envelope: dict[str, Any]) -> str | tuple[str, dict[str, Any]]:
        """The text (and the envelope as artifact); a failure raises ``ToolException``."""
        text = format_results(envelope, self.style, self.max_chars)
        if not envelope.get("success"):
            raise ToolException(text)
        return (text, envelope) if self.response_format == "content_and_artifact" else text

    def _run(self, *args: Any, **kwargs: Any) -> str | tuple[str, dict[str, Any]]:
        arguments = self._arguments(args, kwargs)
        return self._answer(call_tool(self.tool, arguments, config=self.config, tags=self.web_tags))

    async def _arun(self, *args: Any, **kwargs: Any) -> str | tuple[str, dict[str, Any]]:
        arguments = self._arguments(args, kwargs)
        envelope = await acall_tool(self.tool, arguments, config=self.config, tags=self.web_tags)
        return self._answer(envelope)


class WebSearchTool(_WebTool):
    """``web_search``: numbered results with title, URL and snippet."""

    tool = "web_search"


class WebExtractTool(_WebTool):
    """``web_extract``: pages by URL as markdown."""

    tool = "web_extract"


class WebCrawlTool(_WebTool):
    """``web_crawl``: a site's pages from a start URL."""

    tool = "web_crawl"


def create_langchain_tools(
    config: Config | Mapping[str, Any] | None = None,
    *,
    max_chars: int | None = DEFAULT_MAX_CHARS,
    crawl: bool = False,
    **settings: Any,
) -> list[BaseTool]:
    """The search and extract tools (and crawl with ``crawl=True``), sharing one ``config``;
    ``settings`` (``web_tags``, ``style``, ``response_format``, ``handle_tool_error``, ...)
    go to every tool, and an unknown one is an error."""
    kinds: list[type[_WebTool]] = [WebSearchTool, WebExtractTool] + (
        [WebCrawlTool] if crawl else []
    )
    shared = host_config(config)  # a mapping read once: one Config, so one cache, health and budget
    return [kind(config=shared, max_chars=max_chars, **settings) for kind in kinds]
