"""A question as an FTS5 ``MATCH`` expression: each term quoted, so no word is syntax."""

from __future__ import annotations

from .question import question_terms


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def query_terms(query: str) -> list[str]:
    """The quoted FTS5 terms (phrases first, then words) a question asks for."""
    return [_quoted(term) for term in question_terms(query)]


def match_expression(query: str) -> str | None:
    """The ``MATCH`` expression for ``query`` (any term), or None when it holds no word at all."""
    return " OR ".join(query_terms(query)) or None
