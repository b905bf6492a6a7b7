"""How one call runs: validate, plan, run each candidate provider, return one envelope."""

from .api import (
    adispatch_crawl,
    adispatch_extract,
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
)

__all__ = [
    "adispatch_crawl",
    "adispatch_extract",
    "adispatch_search",
    "dispatch_crawl",
    "dispatch_extract",
    "dispatch_search",
]
