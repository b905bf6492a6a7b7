"""A language tag (``pt-BR``, ``zh-Hans-CN``) as the bare ISO 639-1 code some vendors take.

The dispatcher accepts BCP 47 tags; Perplexity's language filter, Mojeek's language boost
and Google's ``lr`` take two letters only, and refuse or ignore a tag with a region.
"""

from __future__ import annotations


def language_code(lang: str) -> str:
    """The primary language subtag of ``lang``, lowercase: ``pt-BR`` is ``pt``."""
    return lang.strip().replace("_", "-").split("-", 1)[0].lower()
