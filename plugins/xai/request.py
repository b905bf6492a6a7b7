"""Building the Responses API request: the prompt, the ``web_search`` tool and its filters.

xAI has no count, freshness, region or language parameter for web search; those are asked
for in the prompt, which the model may or may not follow. Domain filters are real tool
parameters, limited to five domains and only one kind (allowed or excluded) per request.
"""

from __future__ import annotations

from typing import Any

from webproviders import InvalidInputError

#: xAI's limit on ``allowed_domains`` / ``excluded_domains`` (each).
MAX_DOMAINS = 5

_TIME_WORDS = {
    "day": "the last 24 hours",
    "week": "the last 7 days",
    "month": "the last 31 days",
    "year": "the last 365 days",
}

SYSTEM_PROMPT = (
    "You are a web search backend. Search the web with the web_search tool, then reply with "
    "only one JSON object and nothing else, shaped exactly like "
    '{"results": [{"title": "...", "url": "...", "description": "...", "published_at": null}]}. '
    "List up to {limit} distinct pages you actually opened or saw in search results, most "
    "relevant first. Use each page's own title and its exact URL as returned by the tool; "
    "never invent or guess a URL. description: one or two factual sentences from the page. "
    "published_at: the page's publication date as ISO 8601 if known, else null. "
    'If nothing relevant is found, reply {"results": []}.'
)


def domain_filters(name: str, options: dict[str, Any]) -> dict[str, list[str]]:
    """``allowed_domains`` / ``excluded_domains`` for the tool; raises for what xAI refuses."""
    include = list(options.get("include_domains") or [])
    exclude = list(options.get("exclude_domains") or [])
    if include and exclude:
        raise InvalidInputError(
            f"{name} cannot combine include_domains and exclude_domains in one search; "
            "pass one of them.",
            provider=name,
        )
    for option, domains in (("include_domains", include), ("exclude_domains", exclude)):
        if len(domains) > MAX_DOMAINS:
            raise InvalidInputError(
                f"{name} accepts at most {MAX_DOMAINS} domains in {option}; "
                f"{len(domains)} were given.",
                provider=name,
            )
    if include:
        return {"allowed_domains": include}
    if exclude:
        return {"excluded_domains": exclude}
    return {}


def user_prompt(query: str, options: dict[str, Any]) -> str:
    """The query, plus the wishes xAI has no parameter for."""
    lines = [f"Search query: {query}"]
    if options.get("time_range"):
        lines.append(f"Only include pages published in {_TIME_WORDS[options['time_range']]}.")
    if options.get("lang"):
        lines.append(f"Prefer pages written in the language with code '{options['lang']}'.")
    if options.get("country"):
        lines.append(
            f"Prefer pages relevant to the country with code '{options['country'].upper()}'."
        )
    return "\n".join(lines)


def build_body(
    model: str, query: str, limit: int, options: dict[str, Any], name: str, max_tool_calls: Any
) -> dict[str, Any]:
    """The JSON body for ``POST /v1/responses``."""
    tool: dict[str, Any] = {"type": "web_search", **domain_filters(name, options)}
    body: dict[str, Any] = {
        "model": model,
        "input": [
            {"role": "system", "content": SYSTEM_PROMPT.replace("{limit}", str(limit))},
            {"role": "user", "content": user_prompt(query, options)},
        ],
        "tools": [tool],
        "include": ["no_inline_citations"],
        "stream": False,
    }
    if max_tool_calls:
        body["max_tool_calls"] = int(max_tool_calls)
    return body
