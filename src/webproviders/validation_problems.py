"""Validation errors of a config file or a ``plugin.yaml`` as sentences a person can act on.

pydantic reports a value that fits no member of a union once per member, each under a tag
made from the member's schema (``'web.backend.list[str]'``, or for an API key
``'…api_key.lax-or-strict[lax=json-or-python[…]]'``), and a section given as something other
than a mapping as "a valid dictionary or instance of CacheSettings". Here each union field
gets one sentence naming the forms it takes, at the key the file spells, and a section one
that says a mapping is wanted. Imported only when a validation has failed.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, SecretStr, ValidationError

from .suggest import closest

__all__ = ["problems"]

_NONE = type(None)


def _bare(annotation: Any) -> Any:
    """``annotation`` without ``Optional`` and ``Annotated``; a lazily loaded section (an
    ``Annotated`` whose marker has a ``model``, see :mod:`webproviders.config`) as its model."""
    while typing.get_origin(annotation) is typing.Annotated:
        marker = next((item for item in annotation.__metadata__ if hasattr(item, "model")), None)
        annotation = marker.model if marker is not None else typing.get_args(annotation)[0]
    if _is_union(annotation):
        members = [member for member in typing.get_args(annotation) if member is not _NONE]
        if len(members) == 1:
            return _bare(members[0])
    return annotation


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _step(annotation: Any, part: Any) -> Any:
    """The annotation one key or index below ``annotation`` (None when there is none); a
    model is told by its metaclass, as ``list[str]`` is a ``type`` on Python 3.10."""
    origin = typing.get_origin(annotation)
    if isinstance(annotation, type(BaseModel)) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(str(part))
        if field is None:
            return None
        return field.annotation if not field.metadata else typing.Annotated[(field.annotation, *field.metadata)]
    if origin is dict:
        return typing.get_args(annotation)[1]
    if origin in (list, tuple, set, frozenset):
        return typing.get_args(annotation)[0]
    return None


def _union_at(model: type[BaseModel], loc: tuple[Any, ...]) -> tuple[int, list[Any]] | None:
    """Where along ``loc`` a field that is a union ends, and its members (None: no union)."""
    annotation: Any = model
    for depth, part in enumerate(loc):
        annotation = _bare(annotation)
        if _is_union(annotation):
            return depth, [member for member in typing.get_args(annotation) if member is not _NONE]
        annotation = _step(annotation, part)
        if annotation is None:
            return None
    return None


def _form(annotation: Any) -> str:
    """How a config file writes a value of ``annotation``."""
    annotation = _bare(annotation)
    origin = typing.get_origin(annotation)
    if annotation in (str, SecretStr):
        return "text"
    if annotation is bool:
        return "true or false"
    if annotation is int:
        return "a whole number"
    if annotation is float:
        return "a number"
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(value) for value in typing.get_args(annotation))
    if origin in (list, tuple, set, frozenset):
        inner = _form(typing.get_args(annotation)[0])
        return "a list" + (" of text" if inner == "text" else "")
    return "a mapping"


def _either(members: list[Any]) -> str:
    """The forms of a union's members, as one phrase (``text, true or false``)."""
    forms: list[str] = []
    for member in members:
        forms.extend(("true", "false") if _bare(member) is bool else (_form(member),))
    unique = list(dict.fromkeys(forms))
    return unique[0] if len(unique) == 1 else ", ".join(unique[:-1]) + " or " + unique[-1]


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model whose mapping sits at ``loc`` (None when something else does)."""
    annotation: Any = model
    for part in loc:
        annotation = _step(_bare(annotation), part)
        if annotation is None:
            return None
    annotation = _bare(annotation)
    return annotation if isinstance(annotation, type(BaseModel)) and issubclass(annotation, BaseModel) else None


def _unknown_key(model: type[BaseModel], loc: tuple[Any, ...]) -> str:
    """A key the mapping at ``loc[:-1]`` does not take, with the one it was likely meant to be."""
    owner = _model_at(model, loc[:-1])
    close = closest(str(loc[-1]), owner.model_fields if owner is not None else ())
    return "is not a key this takes" + (f" (did you mean '{close}'?)" if close else "")


def _message(err: Any, model: type[BaseModel]) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        return _unknown_key(model, tuple(err["loc"]))
    if kind == "value_error":  # our own validators' sentences, without pydantic's "Value error, "
        return str(err.get("ctx", {}).get("error", err["msg"]))
    if kind == "model_type":
        return "should be a mapping of settings (key: value lines indented beneath it)"
    if kind == "dict_type":
        return "should be a mapping (name: value lines indented beneath it)"
    if kind == "list_type":  # ``enabled: myplugin``: one item is a list too
        return "should be a list, such as [a, b] (a single item too: [a]), or one '- item' line each"
    if kind == "missing":
        return "is required"
    if kind == "string_type":
        return "should be text"
    return str(err["msg"])


#: Said of text YAML read as something else: a key of digits, a name such as ``yes`` or ``off``.
_QUOTE = ": YAML reads this value as a number or as true or false, so put it in quotes"


def problems(
    exc: ValidationError, model: type[BaseModel], prefix: tuple[str, ...] = (), *, lines: Mapping[str, int] | None = None
) -> list[str]:
    """Each problem of ``exc`` (raised validating ``model``) as ``'key.path': sentence``, or
    ``'key.path' (line 7): sentence`` where ``lines`` says which line of a file sets it."""
    said: dict[tuple[str, str], None] = {}
    unquoted: set[str] = set()
    for err in exc.errors():
        loc = tuple(err["loc"])
        union = _union_at(model, loc)
        if union is not None:
            depth, members = union
            key, sentence = loc[:depth], "should be " + _either(members)
        else:
            key, sentence = loc, _message(err, model)
        path = ".".join(str(part) for part in (*prefix, *key))
        said[path, sentence] = None  # a union's members all land here once
        if err["type"] == "string_type" and isinstance(err.get("input"), (bool, int, float)):
            unquoted.add(path)  # ``api_key: 12345``: YAML read it as a number; quoted, it is text
    lines = lines or {}
    return [
        f"'{path}'{on_line(lines, path)}: {sentence}{_QUOTE if path in unquoted else ''}" if path else sentence
        for path, sentence in said
    ]


def on_line(lines: Mapping[str, int], path: str) -> str:
    """`` (line 7)`` where a config file sets ``path``; ``""`` for a key of no file (a dict,
    the environment)."""
    line = lines.get(path)
    return f" (line {line})" if line else ""
