"""Layering rules of the package, read from the source: sign-off checks are leaves, no package cycles."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from infx.signoff.table import load_table

ROOT = Path(__file__).resolve().parent.parent / "infx"
CHECKS = ROOT / "signoff" / "checks"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every infx module a file imports, anywhere in it (top level or inside a function),
    except under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
               and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
               for node in ast.walk(block)}
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in found if name == "infx" or name.startswith("infx.")}


MODULES = {module_name(path): path for path in ROOT.rglob("*.py")}
IMPORTS = {name: {i for i in imports_of(path) if i in MODULES} for name, path in MODULES.items()}


def check_modules() -> set[str]:
    return {name for name, path in MODULES.items()
            if path.parent == CHECKS and path.name != "__init__.py"}


def test_the_import_reader_sees_imports_inside_functions_too() -> None:
    assert "infx.signoff.model" in IMPORTS["infx.signoff.checks.sweep"]
    assert IMPORTS["infx.signoff.verdict"] >= {"infx.signoff.table", "infx.signoff.model"}


def test_check_table_rows_and_check_modules_correspond_one_to_one() -> None:
    rows = [spec.module for spec in load_table().checks]
    assert len(rows) == len(set(rows))
    assert set(rows) == check_modules()


@pytest.mark.parametrize("check", sorted(check_modules()))
def test_no_check_imports_another_check(check: str) -> None:
    assert not (IMPORTS[check] & (check_modules() - {check}))


def test_nothing_outside_the_checks_folder_imports_a_check() -> None:
    offenders = {name: sorted(IMPORTS[name] & check_modules()) for name in MODULES
                 if name not in check_modules() and IMPORTS[name] & check_modules()}
    assert offenders == {}


def test_checks_read_their_settings_from_the_argument_not_the_table() -> None:
    for check in check_modules():
        source = MODULES[check].read_text(encoding="utf-8")
        assert "load_table" not in source, check


def subpackage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (ROOT / parts[1]).is_dir()) else None


def package_cycles() -> list[list[str]]:
    """Strongly connected groups of more than one subpackage in the import graph."""
    graph: dict[str, set[str]] = {}
    for module, targets in IMPORTS.items():
        source = subpackage(module)
        if source is None:
            continue
        graph.setdefault(source, set()).update(
            t for t in map(subpackage, targets) if t is not None and t != source)
    cycles = []
    for start in sorted(graph):
        reach = _reach(graph, start)
        group = sorted(p for p in reach if p != start and start in _reach(graph, p))
        if group and start < group[0]:
            cycles.append([start, *group])
    return cycles


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_import_cycle_between_subpackages() -> None:
    assert package_cycles() == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    IMPORTS["infx.matrix.generate"].add("infx.changelog.plan")
    try:
        assert ["changelog", "matrix"] in package_cycles()
    finally:
        IMPORTS["infx.matrix.generate"].discard("infx.changelog.plan")
