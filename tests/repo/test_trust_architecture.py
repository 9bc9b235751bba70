"""One trust decision (PRODUCT §4.8): only infx.trust reads a workflow run's workflow path or head
repository, so no consumer can decide "is this run ours" with a rule of its own."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "infx"
TRUST = ROOT / "trust.py"
# names under which infx code holds a workflow run (a PR's `head_repo` is another object)
RUN_NAMES = frozenset({"run", "record", "workflow_run", "candidate", "newest"})
# where run models are built from GitHub's JSON (they read the JSON keys, never a decision)
BUILDERS = frozenset({"infx/github/models.py", "infx/github/fake/shapes.py"})


def _readers(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if node.attr == "head_repo" and not (isinstance(node.value, ast.Name)
                                                 and node.value.id in {"pr", "pull", "self", "pull_facts"}):
                found.append((node.lineno, f"reads .head_repo of {ast.unparse(node.value)}"))
            if node.attr == "path" and isinstance(node.value, ast.Name) and node.value.id in RUN_NAMES:
                found.append((node.lineno, f"reads the workflow path {ast.unparse(node)}"))
        # a workflow path's `@ref` suffix cut off: how a run's path is read, whatever the name
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "@"
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "path"):
            found.append((node.lineno, f"cuts the ref off a workflow path: {ast.unparse(node)}"))
        # `for r in runs` (a loop or a comprehension over runs): `r.path` reads a run's path
        loops = node.generators if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp,
                                                     ast.DictComp)) else [node] if isinstance(node, ast.For) else []
        for loop in loops:
            if (isinstance(loop.iter, ast.Name) and "run" in loop.iter.id and isinstance(loop.target, ast.Name)
                    and loop.target.id not in RUN_NAMES):
                found += [(n.lineno, f"reads the workflow path {ast.unparse(n)} of a run")
                          for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr == "path"
                          and isinstance(n.value, ast.Name) and n.value.id == loop.target.id]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in ("head_repo", "path")):
            found.append((node.lineno, f"getattr(..., {node.args[1].value!r})"))
    return found


def test_only_the_trust_module_reads_a_runs_path_or_head_repository() -> None:
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).as_posix()
        if path == TRUST or rel in BUILDERS:
            continue
        offenders += [f"{rel}:{line}: {what}" for line, what in _readers(ast.parse(path.read_text()))]
    assert not offenders, "decide through infx.trust instead:\n" + "\n".join(offenders)


def test_the_scan_finds_a_reader() -> None:
    """The scan is not vacuous: each way of reading the fields is caught."""
    sample = ast.parse("a = run.path\nb = r.head_repo\nc = getattr(x, 'head_repo', None)\n"
                       "d = pull.head_repo\ne = x.path.split('@', 1)[0]\nf = r.path\n"
                       "g = [r for r in runs if r.path == p]\nh = [r for r in recipes if r.path]\n")
    assert sorted(line for line, _ in _readers(sample)) == [1, 2, 3, 5, 7]


def test_the_model_builders_only_build() -> None:
    """The modules allowed to name the fields only construct run models from GitHub's JSON:
    none of them compares a run's head repository or path with anything."""
    for rel in sorted(BUILDERS):
        tree = ast.parse((ROOT.parent / rel).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                names = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
                assert not names & {"head_repo"}, f"{rel}:{node.lineno} compares head_repo"
