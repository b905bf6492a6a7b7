"""The public surface: what ``webproviders`` and ``webproviders.kit`` export, and who imports what.

``__all__`` is derived from each package's lazy export table, so the two cannot disagree;
these tests check that every listed name resolves, that type checkers see the same names,
that built-in plugins use nothing else (they get nothing a third-party plugin cannot have),
and that the subpackages depend on each other in one direction only.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType

import pytest

import webproviders
import webproviders.kit

SRC = Path(webproviders.__file__).resolve().parent
PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
PUBLIC = {"webproviders": webproviders, "webproviders.kit": webproviders.kit}


def _type_checking_names(package: ModuleType) -> set[str]:
    """Names imported under ``if TYPE_CHECKING:`` in the package's ``__init__``."""
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    blocks = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
    return {alias.name for block in blocks for node in block.body for alias in node.names}


@pytest.mark.parametrize("package", PUBLIC.values(), ids=PUBLIC.keys())
def test_all_is_the_export_table_and_every_name_resolves(package: ModuleType) -> None:
    exported = set(package._EXPORTS)
    assert set(package.__all__) - {"__version__"} == exported
    assert len(package.__all__) == len(set(package.__all__))
    for name in package.__all__:
        value = getattr(package, name)
        source = importlib.import_module(f"webproviders.{package._EXPORTS[name]}") if name in exported else package
        assert getattr(source, name) is value, name
    assert _type_checking_names(package) == exported
    assert sorted(dir(package)) == sorted(package.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        webproviders.kit.not_a_name  # noqa: B018


def test_every_error_class_is_exported_at_the_top() -> None:
    from webproviders.errors import ERROR_CLASSES, WebProviderError

    for cls in [WebProviderError, *ERROR_CLASSES.values()]:
        assert getattr(webproviders, cls.__name__) is cls


def _webproviders_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """``(line, module, names)`` for every import of a ``webproviders`` module in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "webproviders":
                found.append((node.lineno, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name, []) for a in node.names if a.name.split(".")[0] == "webproviders"]
    return found


def test_built_in_plugins_import_only_public_names() -> None:
    files = sorted(PLUGINS.rglob("*.py"))
    assert len(files) > 40
    problems = []
    for path in files:
        for line, module, names in _webproviders_imports(path):
            where = f"{path.relative_to(PLUGINS)}:{line}"
            if module not in PUBLIC:
                problems.append(f"{where} imports {module} (only webproviders and webproviders.kit)")
                continue
            problems += [f"{where} imports {n!r}, not in {module}.__all__" for n in names if n not in PUBLIC[module].__all__]
    assert not problems, "\n".join(problems)


def _subpackage_imports() -> dict[str, set[str]]:
    """Which subpackages each subpackage's modules import (relative imports, TYPE_CHECKING too)."""
    edges: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).parts
        if len(parts) == 1:
            continue  # top-level modules are what everything uses
        package = list(parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            base = package[: len(package) - (node.level - 1)]
            target = base + (node.module.split(".") if node.module else [])
            names = [a.name for a in node.names]
            if not target:  # "from .. import x": x may be a subpackage
                target = names[:1]
            if target and (SRC / target[0]).is_dir() and target[0] != parts[0]:
                edges.setdefault(parts[0], set()).add(target[0])
    return edges


def test_fetching_imports_no_vendor_or_toolkit_module() -> None:
    assert _subpackage_imports().get("fetching", set()) == set()


def test_subpackages_depend_on_each_other_in_one_direction() -> None:
    edges = _subpackage_imports()
    seen: list[str] = []

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, f"import cycle: {' -> '.join((*path, node))}"
        for nxt in sorted(edges.get(node, ())):
            visit(nxt, (*path, node))
        seen.append(node)

    for start in sorted(edges):
        visit(start, ())
    assert edges.get("registry", set()) == set()  # the registry needs nothing but the top level


def test_registry_modules_import_each_other_without_a_cycle() -> None:
    imports: dict[str, set[str]] = {}
    for path in (SRC / "registry").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports[path.stem] = {
            (node.module or alias.name).split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1
            for alias in node.names
        }

    def reaches(start: str, goal: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in imports.get(start, ()))

    assert "registration" in imports["hookspecs"]
    for module in imports:
        assert not reaches(module, module), f"registry/{module}.py imports itself through a cycle"
