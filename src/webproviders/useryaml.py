"""YAML a user wrote (a config file, a ``plugin.yaml``), read so that its shape cannot take
the process down: aliases that would expand a tiny file into billions of values, and
nesting deep enough to overflow a C stack, are refused before anything is built from them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

#: How many more values YAML aliases may add to a file than the file itself writes.
MAX_ALIAS_EXPANSION = 10_000
#: The most a YAML file a user wrote may hold: the fully commented ``config.example.yaml`` is
#: 14 KB and a built-in ``plugin.yaml`` 2 KB, and the pure-Python parser takes about 0.8 s
#: per 256 KiB (a 10 MB file pointed at by mistake held the first call 8 s and more).
MAX_YAML_BYTES = 256 * 1024


class YAMLShapeError(ValueError):
    """A file that parses but is shaped to exhaust the process. Its text completes a
    sentence that names the file: ``f"{file} {error}"``."""


class TooLarge(YAMLShapeError):
    """The file holds more than :data:`MAX_YAML_BYTES`; the rest is not read."""


class NotAName(YAMLShapeError):
    """A key YAML does not read as text, or a value of a type no setting takes. Its text names
    the key and its line; it completes a sentence such as ``f"Invalid configuration in {file}: {error}."``."""


#: The tag of YAML's merge key (``<<: *defaults``), which may be given more than once.
MERGE_TAG = "tag:yaml.org,2002:merge"
_TEXT_TAG = "tag:yaml.org,2002:str"
#: What YAML reads a key as, by its tag, where every key of a file a user writes is a name,
#: and how to write it as one.
_KEY_KINDS = {
    "tag:yaml.org,2002:int": ("a number", "put it in quotes"),
    "tag:yaml.org,2002:float": ("a number", "put it in quotes"),
    "tag:yaml.org,2002:bool": ("true or false", "put it in quotes"),
    "tag:yaml.org,2002:null": ("null", "put it in quotes"),
    "tag:yaml.org,2002:timestamp": ("a date", "put it in quotes"),
    "tag:yaml.org,2002:binary": ("binary data (!!binary)", "write the name as text"),
}
#: Values of a YAML type no setting takes, by tag, with what to write instead.
_VALUE_KINDS = {
    "tag:yaml.org,2002:binary": "binary data (!!binary), not text: write it as text",
    "tag:yaml.org,2002:set": "a set (!!set), which keeps no order: write a list",
}


def read_bytes(path: Path) -> bytes:
    """The bytes of the YAML file at ``path``, refused (:class:`TooLarge`) before the process
    fills its memory (a path that names ``/dev/zero`` never ends); ``OSError`` as ``open``
    raises it. A pipe is read as a file is (``--config <(...)``)."""
    with path.open("rb") as file:
        raw = file.read(MAX_YAML_BYTES + 1)
    if len(raw) > MAX_YAML_BYTES:
        raise TooLarge(f"is larger than {MAX_YAML_BYTES // 1024} KiB")
    return raw


def compose(loader: Any) -> yaml.Node | None:
    """The loader's single document as nodes, refused (:class:`YAMLShapeError`) when its
    aliases expand too far or its nesting is too deep for Python's recursion limit, and
    (:class:`NotAName`) when a key is not text or a value is of a type no setting takes."""
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_aliases(node)
            _check_kinds(node)
    except RecursionError:
        raise YAMLShapeError("is nested too deeply to be read") from None
    return node  # type: ignore[no-any-return]


def load(text: str) -> Any:
    """``text`` parsed as :func:`yaml.safe_load` would, through :func:`compose`'s checks.

    The events come from libyaml (its parser keeps its own stack on the heap) when it is
    installed; the nodes are built in Python, which raises :class:`RecursionError` where
    libyaml's own composer recursed in C and crashed the process on a file nested 200,000
    levels deep. Raises :class:`yaml.YAMLError` for a file that does not parse.
    """
    loader = _Loader(text)
    try:
        node = compose(loader)
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()


try:
    from yaml.cyaml import CParser

    class _Loader(Composer, CParser, SafeConstructor, Resolver):  # type: ignore[misc]
        """libyaml's events, composed and constructed in Python (Composer first in the MRO)."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

except ImportError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader  # type: ignore[misc,assignment]


def _check_kinds(root: yaml.Node) -> None:
    """Refuse a key YAML does not read as text (``1:``, ``yes:``, ``!!binary ...:``) and a value
    of a type no setting takes (``!!binary``, ``!!set``), naming the key and its line: such a
    key was dropped as unknown, taken as the name it decodes to, or refused under a path such
    as ``'providers.0.1'``; a binary value was decoded into text."""
    seen: set[int] = set()
    pending: list[tuple[yaml.Node, str]] = [(root, "")]
    while pending:
        node, where = pending.pop()
        if id(node) in seen:  # an alias's node, checked where its anchor is
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            items = [(item, f"{where}.{index}" if where else str(index)) for index, item in enumerate(node.value)]
            pending += reversed(items)  # taken in the file's order
            continue
        if not isinstance(node, yaml.MappingNode):
            continue
        values: list[tuple[yaml.Node, str]] = []
        for key, value in node.value:
            line = key.start_mark.line + 1
            if isinstance(key, yaml.ScalarNode) and key.tag not in (_TEXT_TAG, MERGE_TAG):
                kind, fix = _KEY_KINDS.get(key.tag, ("not text", "write it as text"))
                place = f"under '{where}'" if where else "at the top level"
                raise NotAName(f"a key {place} (line {line}) is read by YAML as {kind}, not text; every key is a name: {fix}")
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            path = f"{where}.{name}" if where else str(name)
            if value.tag in _VALUE_KINDS:
                raise NotAName(f"'{path}' (line {line}) is {_VALUE_KINDS[value.tag]}")
            values.append((value, path))
        pending += reversed(values)


def _check_aliases(root: yaml.Node) -> None:
    """Refuse a file whose aliases expand into far more values than it writes (a billion laughs)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        if id(node) in open_nodes:
            raise YAMLShapeError("has a YAML alias that refers to its own anchor")
        open_nodes.add(id(node))
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = node.value
        total = 1 + sum(size(child) for child in children)
        open_nodes.discard(id(node))
        sizes[id(node)] = total
        return total

    added = size(root) - len(sizes)
    if added > MAX_ALIAS_EXPANSION:
        raise YAMLShapeError(
            f"uses YAML aliases that would add {added:,} values to what it writes "
            f"(at most {MAX_ALIAS_EXPANSION:,} are accepted); write the values out instead"
        )
