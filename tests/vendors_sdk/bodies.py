"""Vendor responses as the vendors send them (field names and nesting from the reference and
the SDK sources), including fields the providers ignore, and the vendors' real error bodies."""

from __future__ import annotations

from typing import Any

# --- Tavily ------------------------------------------------------------------------------

TAVILY_SEARCH: dict[str, Any] = {
    "query": "who won the 2026 tour de france",
    "follow_up_questions": None,
    "answer": None,
    "images": [],
    "results": [
        {
            "url": "https://www.letour.fr/en/",
            "title": "Tour de France 2026",
            "content": "Short query-relevant snippet about the winner.",
            "score": 0.91,
            "raw_content": None,
            "favicon": "https://www.letour.fr/favicon.ico",
        },
        {
            "url": "https://en.wikipedia.org/wiki/2026_Tour_de_France",
            "title": "2026 Tour de France - Wikipedia",
            "content": "The 2026 Tour de France was the 113th edition.",
            "score": 0.84,
            "raw_content": None,
        },
    ],
    "response_time": 1.21,
    "usage": {"credits": 1},
    "request_id": "123e4567-e89b-12d3-a456-426614174111",
}
TAVILY_NEWS: dict[str, Any] = {
    "query": "grid transformer shortage",
    "results": [
        {
            "url": "https://www.reuters.com/business/energy/transformers",
            "title": "Utilities wait for transformers",
            "content": "Lead times stretched to two years.",
            "score": 0.77,
            "raw_content": None,
            "published_date": "Sun, 30 Aug 2026 09:12:00 GMT",
        },
    ],
    "response_time": 0.9,
    "request_id": "9a1c",
}
TAVILY_EMPTY: dict[str, Any] = {
    "query": "zzzz",
    "follow_up_questions": None,
    "answer": None,
    "images": [],
    "results": [],
    "response_time": 0.4,
    "request_id": "e0",
}
TAVILY_EXTRACT: dict[str, Any] = {
    "results": [
        {
            "url": "https://example.com/a",
            "raw_content": "# Title A\n\nBody of page A.",
            "images": [],
            "favicon": "https://example.com/favicon.ico",
        }
    ],
    "failed_results": [{"url": "https://example.com/missing", "error": "Failed to fetch url"}],
    "response_time": 0.83,
    "usage": {"credits": 1},
    "request_id": "f1",
}
TAVILY_CRAWL: dict[str, Any] = {
    "base_url": "docs.tavily.com",
    "results": [
        {
            "url": "https://docs.tavily.com/welcome",
            "raw_content": "# Welcome\n\nTavily docs.",
            "favicon": "https://docs.tavily.com/favicon.ico",
        },
        {
            "url": "https://docs.tavily.com/sdk",
            "raw_content": "# SDK\n\nPython and JS.",
            "favicon": "https://docs.tavily.com/favicon.ico",
        },
    ],
    "response_time": 9.4,
    "usage": {"credits": 2},
    "request_id": "c1",
}


def tavily_error(message: str) -> dict[str, Any]:
    """Tavily's FastAPI-style error body."""
    return {"detail": {"error": message}}


TAVILY_UNAUTHORIZED = tavily_error("Unauthorized: missing or invalid API key.")
TAVILY_TOO_MANY = tavily_error(
    "Your request has been blocked due to excessive requests. Please reduce rate of requests."
)
TAVILY_PLAN_LIMIT = tavily_error(
    "This request exceeds your plan's set usage limit. "
    "Please upgrade your plan or contact support@tavily.com"
)
TAVILY_PAYGO_LIMIT = tavily_error(
    "This request exceeds the pay-as-you-go limit. You can increase your limit."
)
TAVILY_FORBIDDEN = tavily_error("Forbidden: this endpoint is not included in your plan.")
TAVILY_BAD_TOPIC = tavily_error("Invalid topic. Must be 'general', 'news' or 'finance'.")

# --- Exa ---------------------------------------------------------------------------------

EXA_SEARCH: dict[str, Any] = {
    "requestId": "b5947044c4b78efa9552a7c89b306d95",
    "resolvedSearchType": "neural",
    "results": [
        {
            "id": "https://example.com/supplier",
            "url": "https://example.com/supplier",
            "title": "Transformer supplier doubles capacity",
            "publishedDate": "2026-08-30T00:00:00.000Z",
            "author": "A Reporter",
            "score": 0.71,
            "image": "https://example.com/og.png",
            "favicon": "https://example.com/favicon.ico",
            "highlights": ["capacity is sold out through 2028", "a second plant opens in 2027"],
            "highlightScores": [0.42, 0.31],
        },
        {
            "id": "https://example.org/b",
            "url": "https://example.org/b",
            "title": "Second",
            "publishedDate": None,
            "author": None,
            "text": "Plain page text used when there are no highlights.",
        },
        {
            "id": "https://example.net/report.pdf",
            "url": "https://example.net/report.pdf",
            "title": None,
            "publishedDate": None,
            "author": None,
            "highlights": ["Annual transformer capacity report."],
        },
    ],
    "searchTime": 812.4,
    "costDollars": {"total": 0.007, "search": {"neural": 0.005}, "contents": {"highlights": 0.002}},
}
EXA_EMPTY: dict[str, Any] = {
    "requestId": "e0",
    "resolvedSearchType": "neural",
    "results": [],
    "searchTime": 120.0,
    "costDollars": {"total": 0.005},
}
EXA_CONTENTS: dict[str, Any] = {
    "requestId": "c0ffee",
    "results": [
        {
            "id": "https://example.com",
            "url": "https://example.com",
            "title": "Example",
            "publishedDate": "2026-01-02T00:00:00.000Z",
            "author": None,
            "text": "Example Domain. This domain is for use in illustrative examples.",
        }
    ],
    "statuses": [
        {"id": "https://example.com", "status": "success", "source": "cached"},
        {
            "id": "https://gone.example",
            "status": "error",
            "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404},
        },
        {
            "id": "https://slow.example",
            "status": "error",
            "error": {"tag": "CRAWL_TIMEOUT", "httpStatusCode": 408},
        },
    ],
    "costDollars": {"total": 0.001},
}


def exa_error(message: str, tag: str) -> dict[str, Any]:
    return {"requestId": "a1b2c3", "error": message, "tag": tag}


EXA_INVALID_KEY = exa_error("Invalid API key", "INVALID_API_KEY")
EXA_NO_CREDITS = exa_error(
    "You have run out of credits. Add credits at dashboard.exa.ai.", "NO_MORE_CREDITS"
)
EXA_RATE_LIMITED = exa_error("Rate limit exceeded: 10 requests per second.", "RATE_LIMITED")
EXA_OVERLOADED = exa_error("Service overloaded, please retry.", "SERVICE_OVERLOADED")
EXA_BAD_BODY = exa_error(
    'Invalid request body | Validation error: Required at "query"', "INVALID_REQUEST_BODY"
)

# --- Firecrawl ---------------------------------------------------------------------------

FIRECRAWL_SEARCH: dict[str, Any] = {
    "success": True,
    "data": {
        "web": [
            {
                "url": "https://www.firecrawl.dev/",
                "title": "Firecrawl - The Web Data API for AI",
                "description": "The web crawling, scraping, and search API for AI.",
                "position": 1,
            },
            {
                "url": "https://github.com/firecrawl/firecrawl",
                "title": "firecrawl/firecrawl - GitHub",
                "description": "Turn entire websites into LLM-ready markdown.",
                "position": 2,
                "category": "github",
            },
        ]
    },
    "creditsUsed": 2,
}
FIRECRAWL_EMPTY: dict[str, Any] = {"success": True, "data": {"web": []}, "creditsUsed": 1}
#: A search with ``scrapeOptions``: each result also carries the page as ``markdown``; the
#: second one came back without ``metadata`` (the page's own metadata was not gathered).
FIRECRAWL_SEARCH_SCRAPED: dict[str, Any] = {
    "success": True,
    "data": {
        "web": [
            {
                "url": "https://docs.firecrawl.dev/introduction",
                "title": "Quickstart | Firecrawl",
                "description": "Firecrawl crawls and converts any website into clean markdown.",
                "position": 1,
                "markdown": "# Quickstart\n\nWelcome to Firecrawl.",
                "metadata": {
                    "title": "Quickstart - Firecrawl Docs",
                    "description": "Firecrawl documentation home page.",
                    "sourceURL": "https://docs.firecrawl.dev/introduction",
                    "url": "https://docs.firecrawl.dev/introduction",
                    "statusCode": 200,
                    "contentType": "text/html; charset=utf-8",
                    "scrapeId": "0198a6b3",
                    "creditsUsed": 1,
                },
            },
            {
                "url": "https://github.com/firecrawl/firecrawl",
                "title": "firecrawl/firecrawl - GitHub",
                "description": "Turn entire websites into LLM-ready markdown.",
                "position": 2,
                "markdown": "# Firecrawl\n\nEmpower your AI apps with clean data.",
            },
        ]
    },
    "creditsUsed": 3,
}


def firecrawl_document(url: str, title: str, markdown: str, status: int = 200) -> dict[str, Any]:
    """A scraped page as ``data`` of ``/v2/scrape`` and items of a crawl's ``data``."""
    return {
        "markdown": markdown,
        "metadata": {
            "title": title,
            "description": f"About {title}",
            "language": "en",
            "sourceURL": url,
            "url": url,
            "statusCode": status,
            "contentType": "text/html; charset=UTF-8",
            "proxyUsed": "basic",
            "cacheState": "miss",
            "scrapeId": "0198a6b2",
            "creditsUsed": 1,
        },
    }


FIRECRAWL_SCRAPE: dict[str, Any] = {
    "success": True,
    "data": firecrawl_document(
        "https://example.com",
        "Example Domain",
        "# Example Domain\n\nThis domain is for use in illustrative examples.",
    ),
}
FIRECRAWL_SCRAPE_404: dict[str, Any] = {
    "success": True,
    "data": {
        "markdown": "# Not Found",
        "metadata": {
            "title": "404",
            "sourceURL": "https://example.com/nope",
            "url": "https://example.com/nope",
            "statusCode": 404,
            "error": "Not Found",
            "creditsUsed": 1,
        },
    },
}
FIRECRAWL_CRAWL_STARTED: dict[str, Any] = {
    "success": True,
    "id": "a1b2c3d4-0000-4000-8000-000000000001",
    "url": "https://api.firecrawl.dev/v2/crawl/a1b2c3d4-0000-4000-8000-000000000001",
}
CRAWL_ID = FIRECRAWL_CRAWL_STARTED["id"]


def firecrawl_status(
    status: str, documents: list[dict[str, Any]], total: int = 3
) -> dict[str, Any]:
    """``GET /v2/crawl/{id}`` while scraping or once ended."""
    return {
        "success": True,
        "status": status,
        "total": total,
        "completed": len(documents),
        "creditsUsed": len(documents),
        "expiresAt": "2026-10-02T10:00:00.000Z",
        "data": documents,
    }


def firecrawl_error(message: str, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error": message, **extra}


FIRECRAWL_UNAUTHORIZED = firecrawl_error("Unauthorized: Invalid token")
FIRECRAWL_NO_CREDITS = firecrawl_error(
    "Insufficient credits to perform this request. For more credits, you can upgrade your plan at "
    "https://firecrawl.dev/pricing."
)
FIRECRAWL_RATE_LIMITED = firecrawl_error(
    "Rate limit exceeded. Consumed (req/min): 11, Remaining (req/min): 0. Upgrade your plan at "
    "https://firecrawl.dev/pricing for increased rate limits or please retry after 42s, resets at "
    "Sun Aug 30 2026 10:01:00 GMT+0000 (Coordinated Universal Time)"
)
FIRECRAWL_SERVER_ERROR = firecrawl_error("An unexpected error occurred on the server.")
FIRECRAWL_NOT_SUPPORTED = firecrawl_error(
    "This website is no longer supported, please reach out to help@firecrawl.com for more info "
    "on how to activate it on your account."
)
FIRECRAWL_BAD_REQUEST = firecrawl_error(
    "Bad Request",
    code="BAD_REQUEST",
    details=[{"code": "invalid_type", "path": ["limit"], "message": "Expected number"}],
)

# --- Parallel ----------------------------------------------------------------------------

PARALLEL_SEARCH: dict[str, Any] = {
    "search_id": "search_cad0a6d2dec046bd95ae900527d880e7",
    "session_id": "sess_0f8e7c",
    "results": [
        {
            "url": "https://www.reuters.com/business/energy/transformers",
            "title": "Utilities face two-year wait",
            "publish_date": "2026-08-30",
            "excerpts": [
                "Lead times for large power transformers have stretched to two years.",
                "Utilities are rationing spares.",
            ],
        },
        {
            "url": "https://www.energy.gov/lpt",
            "title": "Large Power Transformer Resilience",
            "publish_date": None,
            "excerpts": ["The department studies transformer supply."],
        },
    ],
    "warnings": None,
    "usage": [{"name": "sku_search", "count": 1}],
}
PARALLEL_EMPTY: dict[str, Any] = {
    "search_id": "search_e0",
    "session_id": "sess_e0",
    "results": [],
    "warnings": None,
    "usage": [{"name": "sku_search", "count": 1}],
}
PARALLEL_EXTRACT: dict[str, Any] = {
    "extract_id": "extract_cad0a6d2dec046bd95ae900527d880e7",
    "session_id": "sess_0f8e7c",
    "results": [
        {
            "url": "https://example.com/a",
            "title": "A",
            "publish_date": "2026-02-01",
            "excerpts": ["An excerpt."],
            "full_content": "# A\n\nThe whole page A.",
        }
    ],
    "errors": [
        {
            "url": "https://example.com/404",
            "error_type": "http_error",
            "http_status_code": 404,
            "content": None,
        }
    ],
    "warnings": [
        {
            "type": "input_validation_warning",
            "message": "objective was empty; excerpts are generic.",
            "detail": None,
        }
    ],
    "usage": [{"name": "sku_extract_excerpts", "count": 1}],
}


def parallel_error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"ref_id": "ref_9f2c", "message": message, "detail": None}}


PARALLEL_UNAUTHORIZED = parallel_error("Invalid API key.")
PARALLEL_NO_CREDITS = parallel_error("Insufficient credit balance. Add credits to continue.")
PARALLEL_RATE_LIMITED = parallel_error("Rate limit exceeded.")
PARALLEL_SERVER_ERROR = parallel_error("Internal server error.")
PARALLEL_BAD_REQUEST = parallel_error("search_queries: at least one query is required.")
