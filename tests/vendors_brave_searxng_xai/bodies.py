"""Vendor responses shaped exactly as Brave, SearXNG and xAI send them (values invented)."""

from __future__ import annotations

import copy
import json
from typing import Any

# ---------------------------------------------------------------- Brave ---------------

BRAVE_QUERY = {
    "original": "rust async runtime",
    "show_strict_warning": False,
    "is_navigational": False,
    "is_news_breaking": False,
    "spellcheck_off": True,
    "country": "us",
    "bad_results": False,
    "should_fallback": False,
    "postal_code": "",
    "city": "",
    "header_country": "",
    "more_results_available": True,
    "state": "",
}

BRAVE_SUCCESS: dict[str, Any] = {
    "type": "search",
    "query": BRAVE_QUERY,
    "mixed": {
        "type": "mixed",
        "main": [
            {"type": "web", "index": 0, "all": False},
            {"type": "web", "index": 1, "all": False},
        ],
        "top": [],
        "side": [],
    },
    "web": {
        "type": "search",
        "family_friendly": True,
        "results": [
            {
                "title": "Tokio - An <strong>asynchronous</strong> Rust runtime",
                "url": "https://tokio.rs/",
                "is_source_local": False,
                "is_source_both": False,
                "description": "Tokio is an <strong>asynchronous</strong> <strong>runtime</strong> for the "
                "<strong>Rust</strong> programming language &amp; its ecosystem.",
                "page_age": "2026-09-01T10:00:00",
                "page_fetched": "2026-09-20T03:11:09Z",
                "profile": {
                    "name": "Tokio",
                    "url": "https://tokio.rs/",
                    "long_name": "tokio.rs",
                    "img": "https://imgs.search.brave.com/aaa/favicon.png",
                },
                "language": "en",
                "family_friendly": True,
                "type": "search_result",
                "subtype": "generic",
                "is_live": False,
                "meta_url": {
                    "scheme": "https",
                    "netloc": "tokio.rs",
                    "hostname": "tokio.rs",
                    "favicon": "https://imgs.search.brave.com/aaa/favicon.png",
                    "path": "",
                },
                "thumbnail": {
                    "src": "https://imgs.search.brave.com/bbb/thumb.jpg",
                    "original": "https://tokio.rs/img/og.png",
                    "logo": False,
                },
                "age": "September 1, 2026",
                "extra_snippets": [
                    "Tokio provides the building blocks needed for writing <strong>network</strong> applications."
                ],
            },
            {
                "title": "async-std",
                "url": "https://async.rs/",
                "is_source_local": False,
                "is_source_both": False,
                "description": "Async version of the Rust standard library.",
                "language": "en",
                "family_friendly": True,
                "type": "search_result",
                "subtype": "generic",
                "is_live": False,
                "meta_url": {
                    "scheme": "https",
                    "netloc": "async.rs",
                    "hostname": "async.rs",
                    "favicon": "https://imgs.search.brave.com/ccc/favicon.png",
                    "path": "",
                },
                "age": "2 weeks ago",
            },
        ],
    },
}

#: A query with no web hits: Brave leaves the ``web`` section out entirely.
BRAVE_EMPTY: dict[str, Any] = {
    "type": "search",
    "query": {**BRAVE_QUERY, "original": "zxqv nonexistent term", "more_results_available": False},
    "mixed": {"type": "mixed", "main": [], "top": [], "side": []},
}

BRAVE_RATE_HEADERS_OK = {
    "X-RateLimit-Limit": "1, 15000",
    "X-RateLimit-Policy": "1;w=1, 15000;w=2592000",
    "X-RateLimit-Remaining": "0, 14000",
    "X-RateLimit-Reset": "1, 1419704",
}


def brave_error(
    status: int, code: str, detail: str, meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Brave's live error envelope (a single ``error`` object)."""
    return {
        "type": "ErrorResponse",
        "error": {
            "id": "5d832250-9396-4f6e-b84a-2a1fe524cd7d",
            "status": status,
            "code": code,
            "detail": detail,
            "meta": meta or {"component": "authentication"},
        },
        "time": 1663072993,
    }


BRAVE_TOKEN_INVALID = brave_error(
    422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid."
)
#: The shape in Brave's API reference: a list under ``errors``.
BRAVE_TOKEN_INVALID_DOCS_SHAPE = {
    "type": "ErrorResponse",
    "errors": [
        {
            "id": "0b7a7c36-3c71-4d0b-9c0e-1c5b4f4a8e21",
            "status": 422,
            "code": "SUBSCRIPTION_TOKEN_INVALID",
            "detail": "The provided subscription token is invalid.",
            "meta": {"component": "authentication"},
        }
    ],
    "time": 1663072993,
}
BRAVE_TOKEN_MISSING = brave_error(
    422,
    "VALIDATION",
    "Unable to validate request parameter(s)",
    {
        "errors": [
            {
                "type": "missing",
                "loc": ["header", "x-subscription-token"],
                "msg": "Field required",
                "input": None,
            }
        ]
    },
)
BRAVE_BAD_COUNTRY = brave_error(
    422,
    "VALIDATION",
    "Unable to validate request parameter(s)",
    {
        "errors": [
            {
                "type": "enum",
                "loc": ["query", "country"],
                "msg": "Input should be 'AR', 'AU', 'AT', 'BE', 'BR', 'CA', 'CL', 'DK', 'FI', 'FR', 'DE', 'US' or 'ALL'",
                "input": "XX",
                "ctx": {"expected": "'AR', 'AU', ... or 'ALL'"},
            }
        ]
    },
)
BRAVE_NOT_IN_PLAN = brave_error(
    400,
    "OPTION_NOT_IN_PLAN",
    "The option is not subscribed in the plan.",
    {"component": "api", "plan": "Free"},
)
BRAVE_NO_SUBSCRIPTION = brave_error(
    404, "SUBSCRIPTION_NOT_FOUND", "The subscription could not be found."
)
BRAVE_RATE_LIMITED = brave_error(
    429,
    "RATE_LIMITED",
    "Request rate limit exceeded for plan.",
    {
        "plan": "Free",
        "rate_limit": 1,
        "rate_current": 2,
        "quota_limit": 2000,
        "quota_current": 418,
        "component": "rate_limiter",
    },
)
#: What the free plan answers once the month's 2,000 requests are spent: Brave still says
#: RATE_LIMITED; the counters (and the monthly header window) tell the quota is gone.
_FREE_PLAN_QUOTA_SPENT = {
    "plan": "Free",
    "rate_limit": 1,
    "rate_current": 1,
    "quota_limit": 2000,
    "quota_current": 2000,
    "component": "rate_limiter",
}
BRAVE_RATE_LIMITED_QUOTA_SPENT = brave_error(
    429, "RATE_LIMITED", "Request rate limit exceeded for plan", _FREE_PLAN_QUOTA_SPENT
)
#: The paid Search plan: 50 requests per second and no monthly cap (``quota_limit: 0``).
BRAVE_SEARCH_PLAN_RATE_LIMITED = brave_error(
    429,
    "RATE_LIMITED",
    "Request rate limit exceeded for plan",
    {
        "plan": "Search",
        "rate_limit": 50,
        "rate_current": 50,
        "quota_limit": 0,
        "quota_current": 14,
        "component": "rate_limiter",
    },
)
BRAVE_QUOTA_LIMITED = brave_error(
    429, "QUOTA_LIMITED", "Request quota limit exceeded for plan.", _FREE_PLAN_QUOTA_SPENT
)


def brave_rate_headers(
    remaining: str,
    limit: str = "1, 2000",
    reset: str = "1, 1419704",
    policy: str = "1;w=1, 2000;w=2592000",
) -> dict[str, str]:
    """Brave's rate-limit headers: one value per window, per second then per month."""
    return {
        "X-RateLimit-Limit": limit,
        "X-RateLimit-Policy": policy,
        "X-RateLimit-Remaining": remaining,
        "X-RateLimit-Reset": reset,
    }


#: The paid Search plan's headers: 50 per second, and a monthly window with no cap (0).
BRAVE_SEARCH_PLAN_HEADERS = brave_rate_headers("0, 0", limit="50, 0", policy="50;w=1, 0;w=2678400")

# ---------------------------------------------------------------- SearXNG -------------


def _searx_result(
    url: str, title: str, content: str, engines: list[str], score: float, **extra: Any
) -> dict[str, Any]:
    from urllib.parse import urlsplit

    parts = urlsplit(url) if url.startswith("http") else None
    return {
        "url": url,
        "title": title,
        "content": content,
        "engine": engines[0],
        "engines": engines,
        "positions": list(range(1, len(engines) + 1)),
        "score": score,
        "category": "general",
        "template": "default.html",
        "parsed_url": [parts.scheme, parts.netloc, parts.path, "", "", ""]
        if parts
        else ["", "", "", "", "", ""],
        "publishedDate": None,
        "pubdate": "",
        "thumbnail": "",
        "img_src": "",
        "priority": "",
        **extra,
    }


SEARX_SUCCESS: dict[str, Any] = {
    "query": "searxng",
    "number_of_results": 0,
    "results": [
        # Deliberately not in score order: the provider must sort.
        _searx_result(
            "https://docs.searxng.org/",
            "Welcome to SearXNG",
            "SearXNG is a free internet metasearch engine.",
            ["brave"],
            0.5,
            publishedDate="2026-05-01T00:00:00",
        ),
        _searx_result(
            "https://github.com/searxng/searxng",
            "searxng/searxng: SearXNG is a free internet metasearch engine",
            "SearXNG is a free internet metasearch engine which aggregates results from …",
            ["duckduckgo", "brave", "startpage"],
            6.0,
        ),
        # No usable URL: a torrent magnet link and a result with no url at all.
        _searx_result(
            "magnet:?xt=urn:btih:abc",
            "searxng torrent",
            "…",
            ["piratebay"],
            9.0,
            template="torrent.html",
            seed=3,
            leech=1,
        ),
        {"title": "broken result without url", "content": "…", "engine": "wikipedia", "score": 8.0},
        _searx_result(
            "https://en.wikipedia.org/wiki/SearXNG",
            "SearXNG - Wikipedia",
            "SearXNG is a fork of Searx.",
            ["wikipedia", "duckduckgo"],
            3.0,
            iframe_src="",
            author="",
            metadata="",
        ),
    ],
    "answers": [
        {
            "answer": "SearXNG is a metasearch engine",
            "url": None,
            "engine": "wikidata",
            "template": "answer/legacy.html",
        }
    ],
    "corrections": [],
    "infoboxes": [
        {
            "infobox": "SearXNG",
            "id": "https://www.wikidata.org/wiki/Q1",
            "content": "Free metasearch engine",
            "img_src": None,
            "urls": [
                {"title": "Official website", "url": "https://searxng.org/", "official": True}
            ],
            "engine": "wikidata",
            "engines": ["wikidata"],
            "attributes": [{"label": "License", "value": "AGPL-3.0"}],
        }
    ],
    "suggestions": ["searxng docker", "searxng settings"],
    "unresponsive_engines": [["google", "CAPTCHA"], ["bing", "timeout"]],
}

SEARX_EMPTY: dict[str, Any] = {
    "query": "zxqv nonexistent term",
    "results": [],
    "answers": [],
    "corrections": [],
    "infoboxes": [],
    "suggestions": [],
    "unresponsive_engines": [],
}

SEARX_403_HTML = (
    "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n"
    "<p>You don&#x27;t have the permission to access the requested resource. It is either "
    "read-protected or not readable by the server.</p>\n"
)

# ---------------------------------------------------------------- xAI -----------------

XAI_USAGE = {
    "input_tokens": 7583,
    "input_tokens_details": {"cached_tokens": 3072},
    "output_tokens": 792,
    "output_tokens_details": {"reasoning_tokens": 310},
    "total_tokens": 8375,
    "num_sources_used": 0,
    "num_server_side_tools_used": 1,
    "cost_in_usd_ticks": 292331500,
    "server_side_tool_usage_details": {
        "web_search_calls": 1,
        "x_search_calls": 0,
        "code_interpreter_calls": 0,
        "file_search_calls": 0,
        "mcp_calls": 0,
        "document_search_calls": 0,
    },
}

XAI_JSON_TEXT = (
    "Here are the results I found:\n\n```json\n"
    + json.dumps(
        {
            "results": [
                {
                    "title": "xAI News",
                    "url": "https://x.ai/news",
                    "description": "xAI released a new model this week.",
                    "published_at": "2026-10-06",
                },
                {
                    "title": "Release notes | xAI Docs",
                    "url": "https://docs.x.ai/developers/release-notes",
                    "description": "The API gained new server-side tools.",
                    "published_at": None,
                },
                {
                    "title": "A page the model made up",
                    "url": "https://example.com/invented",
                    "description": "Not among the tool's sources.",
                },
                {"title": "no url here", "description": "skipped"},
            ]
        },
        indent=2,
    )
    + "\n```\nLet me know if you need more."
)


def xai_response(
    text: str,
    annotations: list[dict[str, Any]] | None = None,
    citations: list[Any] | None = None,
    **top: Any,
) -> dict[str, Any]:
    """A Responses API object with one web_search_call and one assistant message."""
    body: dict[str, Any] = {
        "id": "d194be71-ee59-f9dd-3fa6-6b2e0b87ef14",
        "object": "response",
        "created_at": 1767095508,
        "model": "grok-4-1-fast-reasoning",
        "status": "completed",
        "output": [
            {
                "type": "web_search_call",
                "id": "ws_01",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "xAI announcement October 2026",
                    "sources": [{"type": "url", "url": "https://x.ai/news"}],
                },
            },
            {
                "type": "custom_tool_call",
                "id": "ctc_01",
                "name": "x_keyword_search",
                "input": '{"query": "xai"}',
                "status": "completed",
            },
            {
                "type": "message",
                "id": "msg_01",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": text,
                        "annotations": annotations or [],
                        "logprobs": [],
                    }
                ],
            },
        ],
        "usage": copy.deepcopy(XAI_USAGE),
        "tools": [{"type": "web_search"}],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "temperature": None,
        "top_p": None,
        "store": True,
        "metadata": {},
    }
    if citations is not None:
        body["citations"] = citations
    body.update(top)
    return body


XAI_CITATIONS = [
    "https://x.ai/news",
    "https://docs.x.ai/developers/release-notes",
    "https://x.com/i/status/1975607901571199086",
]
#: With ``no_inline_citations`` the annotations point at offset 0.
XAI_ANNOTATIONS = [
    {
        "type": "url_citation",
        "url": "https://x.ai/news",
        "title": "1",
        "start_index": 0,
        "end_index": 0,
    },
    {
        "type": "url_citation",
        "url": "https://docs.x.ai/developers/release-notes",
        "title": "https://docs.x.ai/developers/release-notes",
        "start_index": 0,
        "end_index": 0,
    },
    {
        "type": "url_citation",
        "url": "https://status.x.ai/",
        "title": "xAI Status",
        "start_index": 0,
        "end_index": 0,
    },
]
XAI_PROSE = "xAI released a new model and expanded its API this week."

XAI_BAD_KEY = {
    "code": "invalid-argument",
    "error": "Incorrect API key provided. You can obtain an API key from https://console.x.ai.",
}
XAI_BAD_KEY_OLD = {
    "code": "Client specified an invalid argument",
    "error": "Incorrect API key provided: xa***AB. You can obtain an API key from https://console.x.ai.",
}
XAI_NO_CREDITS = {
    "code": "permission-denied",
    "error": "Your newly created team doesn't have any credits yet. You can purchase credits on "
    "https://console.x.ai/team/0000. The team has either used all available credits or reached "
    "its monthly spending limit.",
}
XAI_RATE_LIMITED = {
    "code": "resource-exhausted",
    "error": "Too many requests: your team has exceeded its requests per minute rate limit for model grok-4-1-fast-reasoning.",
}
XAI_UNKNOWN_MODEL = {
    "code": "not-found",
    "error": "The model grok-9 does not exist or your team 0000 does not have access to it.",
}
XAI_BAD_SCHEMA = {
    "code": "invalid-argument",
    "error": "Failed to deserialize the JSON body into the target type: tools[0]: unknown variant `web_serch`",
}
XAI_INTERNAL = {
    "code": "internal",
    "error": "Service temporarily unavailable. Please try again later.",
}
