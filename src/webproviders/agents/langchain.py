"""LangChain tools for web search, page extraction and crawling (extra ``langchain``).

Only ``langchain_core`` is imported. The tools validate arguments with the same models as
every other integration, run sync (``invoke``) or async (``ainvoke``), and return the text
for the model; a failure comes back as one readable line, never as an exception.
"""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ValidationError

from ..config import Config
from .formatting import Style
from .tools import DEFAULT_MAX_CHARS, TOOLS, arun_tool, explain, run_tool

__all__ = ["WebCrawlTool", "WebExtractTool", "WebSearchTool", "create_langchain_tools"]


class _WebTool(BaseTool):
    """Shared plumbing: the tool's name picks its :data:`webproviders.agents.tools.TOOLS` entry."""

    tool: ClassVar[str]
    web_config: Config | None = None
    max_chars: int | None = DEFAULT_MAX_CHARS
    style: Style = "markdown"

    def __init__(self, **data: Any) -> None:
        spec = TOOLS[self.tool]
        data.setdefault("name", spec.name)
        data.setdefault("description", spec.description)
        data.setdefault("args_schema", spec.arguments)
        data.setdefault("handle_validation_error", self._explain_invalid)
        super().__init__(**data)

    @classmethod
    def _explain_invalid(cls, error: ValidationError) -> str:
        return f"Error [invalid_input]: {explain(cls.tool, error, TOOLS[cls.tool].arguments)}"

    def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """A bare string input arrives positionally; it fills the tool's first argument."""
        kwargs.pop("run_manager", None)
        schema: type[BaseModel] = TOOLS[self.tool].arguments
        if args:
            kwargs = {next(iter(schema.model_fields)): args[0], **kwargs}
        return kwargs

    def _run(self, *args: Any, **kwargs: Any) -> str:
        arguments = self._arguments(args, kwargs)
        return run_tool(
            self.tool, arguments, config=self.web_config, style=self.style, max_chars=self.max_chars
        )

    async def _arun(self, *args: Any, **kwargs: Any) -> str:
        arguments = self._arguments(args, kwargs)
        return await arun_tool(
            self.tool, arguments, config=self.web_config, style=self.style, max_chars=self.max_chars
        )


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
    config: Config | None = None,
    *,
    max_chars: int | None = DEFAULT_MAX_CHARS,
    crawl: bool = False,
) -> list[BaseTool]:
    """The search and extract tools (and crawl with ``crawl=True``), sharing one config."""
    kinds: list[type[_WebTool]] = [WebSearchTool, WebExtractTool] + (
        [WebCrawlTool] if crawl else []
    )
    return [kind(web_config=config, max_chars=max_chars) for kind in kinds]
