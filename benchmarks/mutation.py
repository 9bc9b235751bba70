"""Mutation testing of the trust-critical modules: does each module's own test selection kill every mutant?

Not part of ``.ci/run`` (CPU heavy). Run it niced, from the repository root::

    nice -n 15 python benchmarks/mutation.py                 # every target, 2 workers
    nice -n 15 python benchmarks/mutation.py --module sweeps --jobs 1
    python benchmarks/mutation.py --list --module grammar    # the mutants, without running
    python benchmarks/mutation.py --show 'infx/commands/grammar.py:22:14 regex'  # one mutant's diff

Why a mutator of our own and not mutmut (checked with mutmut 3.8): mutmut only mutates code
inside functions, so module-level tables and compiled regexes (the catch-all spellings, the
BAD conclusions, the owner and command regexes) are never mutated, and it has no operators
for the fail-open mistakes issue 12 names (any/all, min/max, newest/oldest, regex anchors and
ASCII-only classes). This mutator works on the ``ast`` of one module at a time and runs the
module's test selection with the mutated module imported in its place (an import hook in a
process forked from a warm parent, so a mutant costs a pytest run, not an interpreter start).

Operators (each mutant changes one node):
  compare  == <-> !=, < -> <=, <= -> <, > -> >=, >= -> >, in <-> not in, is <-> is not
  boolop   and <-> or;  not-drop: ``not x`` -> ``x``;  neg-drop: ``-x`` -> ``x``
  binop    + <-> -, * <-> /, // -> /, % -> / (not on string operands: that only crashes)
  cond     the test of if / while / ternary / comprehension filter -> True, -> False
  const    True <-> False, int n -> n+1 (-n -> -n+1), a short string -> '' ('' -> 'XX')
  element  drop one member of a literal set/tuple/list of constants (``{"a", "b"}``)
  regex    in a regex literal: drop ^ or $, [0-9] -> \\d, [ \\t] -> \\s, + -> *
  call     any <-> all, min <-> max, reversed(x) -> x, sorted(x) -> x, x.lower()/upper()/
           strip() -> x, startswith <-> endswith, drop the flags argument of re.*
  index    x[0] <-> x[-1]
  return   ``return <expr>`` -> ``return None``
  flow     continue <-> break
Not mutated: docstrings, annotations, decorators, f-strings outside regex calls and string
literals of three or more words (message wording, not logic: reported as a count).

Equivalent mutants are listed, each with its reason, in benchmarks/mutation_equivalents.md
(lines ``- `KEY` — reason``); the kill rate excludes them and the script reports stale keys.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.abc
import importlib.util
import json
import os
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "benchmarks" / "mutation_equivalents.md"

# module path -> the fast test modules that decide it (its own test module first)
TARGETS: dict[str, tuple[str, ...]] = {
    "infx/signoff/verdict.py": ("tests/unit/signoff/test_signoff_verdict.py",),
    "infx/signoff/checks/codeowner.py": ("tests/unit/signoff/test_signoff_check_codeowner.py",),
    "infx/signoff/trigger/codeowners.py": ("tests/unit/signoff/test_signoff_codeowners.py",),
    "infx/signoff/checks/sweep.py": ("tests/unit/signoff/test_signoff_check_sweep.py",),
    "infx/signoff/rules/sweeps.py": ("tests/unit/signoff/test_signoff_sweeps.py", "tests/unit/signoff/test_signoff_check_sweep.py"),
    "infx/signoff/rules/provenance.py": ("tests/unit/signoff/test_signoff_provenance.py", "tests/unit/signoff/test_signoff_check_sweep.py"),
    "infx/commands/authorization.py": ("tests/unit/commands/test_reuse_authorization.py",),
    "infx/commands/grammar.py": ("tests/unit/commands/test_reuse_grammar.py",),
    "infx/changelog/strict.py": ("tests/unit/changelog/test_changelog_strict.py",),
    "infx/signoff/trigger/binding.py": ("tests/unit/signoff/test_signoff_binding.py",),
    "infx/reuse/posted_head.py": ("tests/unit/reuse/test_reuse_binding.py",),
    "infx/plan/benchmark_content.py": ("tests/unit/plan/test_benchmark_content.py",),
    "infx/signoff/trigger/scope.py": ("tests/unit/signoff/test_signoff_scope.py",),
    "infx/signoff/checks/reuse.py": ("tests/unit/signoff/test_signoff_check_reuse.py",),
}

# third-party imports the parent makes once so that every forked child starts warm
WARM = ("pytest", "hypothesis", "yaml", "github", "jsonschema", "cmarkgfm", "requests", "click")

_COMPARE_SWAPS = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
                  ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In,
                  ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_BINOP_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
                ast.FloorDiv: ast.Div, ast.Mod: ast.Div}
_NAME_SWAPS = {"any": "all", "all": "any", "min": "max", "max": "min"}
_UNWRAP_CALLS = ("reversed", "sorted")
_UNWRAP_METHODS = ("lower", "upper", "strip", "lstrip", "rstrip", "casefold")
_METHOD_SWAPS = {"startswith": "endswith", "endswith": "startswith"}
_RE_FUNCS = ("compile", "match", "fullmatch", "search", "finditer", "findall", "sub", "split")
_REGEX_EDITS = ((r"^\^", "", "drop ^"), (r"\$$", "", "drop $"), (r"\[0-9\]", r"\\d", "[0-9]->\\d"),
                (r"\[ \\t\]", r"\\s", "[ \\t]->\\s"), (r"(?<!\\)\+", "*", "+->*"))


# --- mutant generation (pure) ---------------------------------------------------------------

@dataclass(frozen=True)
class Mutant:
    path: str
    index: int  # position of the node in the walk
    line: int
    col: int
    op: str
    description: str

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.col} {self.op} {self.description}"


@dataclass
class Site:
    node: ast.AST
    parent: ast.AST | None
    field: str
    slot: int | None  # index within a list field


@dataclass
class Generation:
    mutants: list[Mutant] = field(default_factory=list)
    prose_skipped: int = 0


def _is_docstring(node: ast.AST, parent: ast.AST | None) -> bool:
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Constant):
        return False
    if not isinstance(node.value.value, str):
        return False
    body = getattr(parent, "body", None)
    return isinstance(body, list) and bool(body) and body[0] is node


def _is_prose(text: str) -> bool:
    return len(text.split()) >= 3


def walk(tree: ast.AST) -> list[Site]:
    """Every mutable node in a fixed order, with where it hangs (skips docstrings,
    annotations, decorators, imports and f-strings outside regex calls)."""
    sites: list[Site] = []

    def visit(node: ast.AST, parent: ast.AST | None, name: str, slot: int | None,
              regex: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom) or _is_docstring(node, parent):
            return
        if isinstance(node, ast.JoinedStr) and not regex:
            return
        sites.append(Site(node, parent, name, slot))
        in_regex = regex or _is_regex_call(node)
        for child_field, value in ast.iter_fields(node):
            if child_field in ("annotation", "returns", "decorator_list", "type_comment"):
                continue
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        visit(child, node, child_field, i, in_regex and _regex_operand(node, child))
            elif isinstance(value, ast.AST):
                visit(value, node, child_field, None, in_regex and _regex_operand(node, value))

    visit(tree, None, "", None, False)
    return sites


def _is_regex_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
            and node.func.attr in _RE_FUNCS)


def _regex_operand(parent: ast.AST, child: ast.AST) -> bool:
    """The pattern argument of a re.* call, or anything inside it."""
    if _is_regex_call(parent):
        return bool(parent.args) and parent.args[0] is child
    return True


def _regex_context(sites: list[Site], index: int) -> bool:
    """Is the site (a string constant) the pattern of a re.* call (or a part of it)?"""
    node = sites[index].node
    for site in sites:
        if _is_regex_call(site.node) and site.node.args:
            for inner in ast.walk(site.node.args[0]):
                if inner is node:
                    return True
    return False


def _const_collection(node: ast.AST) -> bool:
    return (isinstance(node, ast.Set | ast.Tuple | ast.List) and len(node.elts) >= 2
            and all(isinstance(e, ast.Constant) for e in node.elts))


def _candidates(sites: list[Site], index: int, regex_nodes: set[int],
                element_nodes: set[int]) -> list[tuple[str, str]]:
    """(op, description) of every mutation of one site."""
    site = sites[index]
    node = site.node
    out: list[tuple[str, str]] = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            new = _COMPARE_SWAPS.get(type(op))
            if new:
                out.append(("compare", f"#{i} {type(op).__name__}->{new.__name__}"))
    elif isinstance(node, ast.BoolOp):
        out.append(("boolop", "and->or" if isinstance(node.op, ast.And) else "or->and"))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        out.append(("not-drop", "not x->x"))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        if isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
            out.append(("const", f"-{node.operand.value}->{1 - node.operand.value}"))
        else:
            out.append(("neg-drop", "-x->x"))
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
        if not any(_stringish(side) for side in (node.left, node.right)):
            out.append(("binop", f"{type(node.op).__name__}->{_BINOP_SWAPS[type(node.op)].__name__}"))
    elif isinstance(node, ast.AugAssign) and type(node.op) in _BINOP_SWAPS:
        out.append(("binop", f"{type(node.op).__name__}=->{_BINOP_SWAPS[type(node.op)].__name__}="))
    elif isinstance(node, ast.Constant) and not _negated(site):
        out.extend(_constant_mutations(sites, index, regex_nodes, element_nodes))
    elif isinstance(node, ast.Call):
        out.extend(_call_mutations(node))
    elif isinstance(node, ast.Subscript):
        idx = node.slice
        if isinstance(idx, ast.Constant) and idx.value == 0 and type(idx.value) is int:
            out.append(("index", "[0]->[-1]"))  # [-1] -> [0] is the constant -1 -> 0
    elif isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            out.append(("return", "->None"))
    elif isinstance(node, ast.Continue):
        out.append(("flow", "continue->break"))
    elif isinstance(node, ast.Break):
        out.append(("flow", "break->continue"))
    if _const_collection(node):
        for i, elt in enumerate(node.elts):
            out.append(("element", f"drop {elt.value!r}"[:60] + f" #{i}"))
    if _is_condition(site):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, bool)):
            out.append(("cond", "->True"))
            out.append(("cond", "->False"))
    return out


def _negated(site: Site) -> bool:
    """A literal under unary minus: the minus site mutates the number (-n -> -n+1)."""
    return isinstance(site.parent, ast.UnaryOp) and isinstance(site.parent.op, ast.USub)


def _is_condition(site: Site) -> bool:
    parent = site.parent
    return ((isinstance(parent, ast.If | ast.While | ast.IfExp) and site.field == "test")
            or (isinstance(parent, ast.comprehension) and site.field == "ifs"))


def _stringish(node: ast.AST) -> bool:
    return (isinstance(node, ast.JoinedStr)
            or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)))


def _constant_mutations(sites: list[Site], index: int, regex_nodes: set[int],
                        element_nodes: set[int]) -> list[tuple[str, str]]:
    node = sites[index].node
    value = node.value
    if isinstance(value, bool):
        return [("const", f"{value}->{not value}")]
    if isinstance(value, int):
        return [("const", f"{value}->{value + 1}")]
    if not isinstance(value, str | bytes):
        return []
    if index in regex_nodes and isinstance(value, str):
        muts = []
        for pattern, _repl, label in _REGEX_EDITS:
            for k, _m in enumerate(re.finditer(pattern, value)):
                muts.append(("regex", f"{label} #{k}"))
        return muts
    if index in element_nodes:
        return []  # dropping the element covers it
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    if _is_prose(text):
        return []
    return [("const", "str->''" if value else "''->'XX'")]


def _re_positional(func: str) -> int:
    """How many leading positional arguments of a re.* call are not its flags (kept)."""
    return {"compile": 1, "sub": 3}.get(func, 2)  # search(pattern, string, flags), ...


def _call_mutations(node: ast.Call) -> list[tuple[str, str]]:
    out = []
    func = node.func
    if isinstance(func, ast.Name):
        if func.id in _NAME_SWAPS:
            out.append(("call", f"{func.id}->{_NAME_SWAPS[func.id]}"))
        if func.id in _UNWRAP_CALLS and len(node.args) == 1:
            out.append(("call", f"{func.id}(x)->x"))
    elif isinstance(func, ast.Attribute):
        if func.attr in _UNWRAP_METHODS and not node.args:
            out.append(("call", f"x.{func.attr}()->x"))
        if func.attr in _METHOD_SWAPS:
            out.append(("call", f"{func.attr}->{_METHOD_SWAPS[func.attr]}"))
        if _is_regex_call(node) and (len(node.args) > _re_positional(func.attr)
                                     or any(k.arg == "flags" for k in node.keywords)):
            out.append(("call", "drop re flags"))
    return out


def generate(path: str, source: str) -> Generation:
    tree = ast.parse(source, filename=path)
    sites = walk(tree)
    regex_nodes = {i for i, s in enumerate(sites)
                   if isinstance(s.node, ast.Constant) and isinstance(s.node.value, str)
                   and _regex_context(sites, i)}
    element_nodes = {i for i, s in enumerate(sites) if _const_collection(s.parent)}
    gen = Generation()
    for index, site in enumerate(sites):
        node = site.node
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_prose(node.value)
                and index not in regex_nodes and index not in element_nodes):
            gen.prose_skipped += 1
        for op, description in _candidates(sites, index, regex_nodes, element_nodes):
            gen.mutants.append(Mutant(path, index, getattr(node, "lineno", 0),
                                      getattr(node, "col_offset", 0), op, description))
    return gen


def apply(source: str, mutant: Mutant) -> ast.Module:
    """The module's tree with one mutant applied (a fresh parse, so nothing is shared)."""
    tree = ast.parse(source, filename=mutant.path)
    site = walk(tree)[mutant.index]
    node = site.node
    new = _mutated(node, mutant)
    if new is not node:
        if site.slot is None:
            setattr(site.parent, site.field, new)
        else:
            getattr(site.parent, site.field)[site.slot] = new
    ast.fix_missing_locations(tree)
    return tree


def _number(description: str, marker: str) -> int:
    return int(description.rsplit(marker, 1)[1])


def _mutated(node: ast.AST, mutant: Mutant) -> ast.AST:  # noqa: C901 - one branch per operator
    op, d = mutant.op, mutant.description
    if op == "compare":
        i = int(d[1:d.index(" ")])
        node.ops[i] = _COMPARE_SWAPS[type(node.ops[i])]()
        return node
    if op == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return node
    if op in ("not-drop", "neg-drop"):
        return node.operand
    if op == "binop":
        node.op = _BINOP_SWAPS[type(node.op)]()
        return node
    if op == "const":
        if isinstance(node, ast.UnaryOp):
            return ast.copy_location(ast.Constant(1 - node.operand.value), node)
        value = node.value
        if isinstance(value, bool):
            new = not value
        elif isinstance(value, int):
            new = value + 1
        elif isinstance(value, bytes):
            new = b"" if value else b"XX"
        else:
            new = "" if value else "XX"
        return ast.copy_location(ast.Constant(new), node)
    if op == "regex":
        label, k = d.rsplit(" #", 1)
        pattern, repl, _ = next(e for e in _REGEX_EDITS if e[2] == label)
        matches = list(re.finditer(pattern, node.value))
        m = matches[int(k)]
        text = node.value[:m.start()] + re.sub(pattern, repl, m.group(0)) + node.value[m.end():]
        return ast.copy_location(ast.Constant(text), node)
    if op == "element":
        i = _number(d, "#")
        node.elts = node.elts[:i] + node.elts[i + 1:]
        return node
    if op == "cond":
        return ast.copy_location(ast.Constant(d == "->True"), node)
    if op == "call":
        return _mutated_call(node, d)
    if op == "index":
        node.slice = ast.UnaryOp(ast.USub(), ast.Constant(1))
        return node
    if op == "return":
        node.value = None
        return node
    if op == "flow":
        return ast.copy_location(ast.Break() if isinstance(node, ast.Continue) else ast.Continue(),
                                 node)
    raise ValueError(f"unknown operator {op}")


def _mutated_call(node: ast.Call, d: str) -> ast.AST:
    func = node.func
    if d == "drop re flags":
        node.args = node.args[:_re_positional(func.attr)]
        node.keywords = [k for k in node.keywords if k.arg != "flags"]
        return node
    if d.endswith("(x)->x"):
        return node.args[0]
    if d.startswith("x.") and d.endswith("()->x"):
        return func.value
    if isinstance(func, ast.Name):
        func.id = _NAME_SWAPS[func.id]
        return node
    func.attr = _METHOD_SWAPS[func.attr]
    return node


# --- equivalents list -----------------------------------------------------------------------

_EQUIV_LINE = re.compile(r"^- `(?P<key>[^`]+)` — (?P<why>.+)$")


def read_equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """KEY -> reason, from lines ``- `KEY` — reason`` of the equivalents file."""
    if not path.is_file():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _EQUIV_LINE.match(line.strip())
        if m:
            found[m.group("key")] = m.group("why")
    return found


# --- running (imperative shell) -------------------------------------------------------------

def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def _import_graph() -> dict[str, set[str]]:
    """infx module -> the infx modules it imports (anywhere in its body, package inits too)."""
    modules = {module_name(str(p.relative_to(ROOT)).removesuffix("/__init__.py") + ".py")
               if p.name == "__init__.py" else module_name(str(p.relative_to(ROOT))): p
               for p in (ROOT / "infx").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, p in modules.items():
        deps: set[str] = set()
        parts = name.split(".")
        deps.update(".".join(parts[:i]) for i in range(1, len(parts)))
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                deps.add(node.module)
                deps.update(f"{node.module}.{a.name}" for a in node.names)
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def independent_modules(target: str) -> list[str]:
    """infx modules that never import the target (directly or not): safe to import warm."""
    graph = _import_graph()
    tainted = {target}
    changed = True
    while changed:
        changed = False
        for name, deps in graph.items():
            if name not in tainted and deps & tainted:
                tainted.add(name)
                changed = True
    return sorted(n for n in graph if n not in tainted)


class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, name: str, path: Path, tree: ast.Module) -> None:
        self.name, self.path, self.code = name, path, compile(tree, str(path), "exec")

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001 - importlib protocol
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):  # noqa: ANN001
        return None

    def exec_module(self, module) -> None:  # noqa: ANN001
        exec(self.code, module.__dict__)


def _child(target: str, tree: ast.Module | None, tests: tuple[str, ...]) -> None:
    """In the forked child: import the mutant in the target's place, run the tests, exit."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    code = 3
    try:
        if tree is not None:
            sys.meta_path.insert(0, _MutantFinder(module_name(target), ROOT / target, tree))
        from hypothesis import settings

        settings.register_profile("mutation", database=None, deadline=None, derandomize=True,
                                  print_blob=False)
        settings.load_profile("mutation")
        import pytest

        code = int(pytest.main([*tests, "-x", "-q", "-p", "no:cacheprovider", "--no-header",
                                "-o", "addopts="]))
    finally:
        os._exit(code)


@dataclass
class Outcome:
    mutant: Mutant | None
    result: str  # killed | survived | timeout | error
    seconds: float


def _fork(target: str, tree: ast.Module | None, tests: tuple[str, ...]) -> int:
    pid = os.fork()
    if pid == 0:
        _child(target, tree, tests)
    return pid


def _verdict(status: int) -> str:
    if os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
        return {0: "survived", 1: "killed", 2: "killed"}.get(code, "error")
    return "killed"  # killed by a signal inside the tests (e.g. a recursion crash)


def run_target(target: str, mutants: list[Mutant], jobs: int, timeout: float) -> list[Outcome]:
    source = (ROOT / target).read_text(encoding="utf-8")
    tests = TARGETS[target]
    running: dict[int, tuple[Mutant, float]] = {}
    outcomes: list[Outcome] = []
    queue = list(mutants)
    while queue or running:
        while queue and len(running) < jobs:
            mutant = queue.pop(0)
            running[_fork(target, apply(source, mutant), tests)] = (mutant, time.monotonic())
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            now = time.monotonic()
            for child, (mutant, started) in list(running.items()):
                if now - started > timeout:
                    _kill(child)
                    os.waitpid(child, 0)
                    del running[child]
                    outcomes.append(Outcome(mutant, "timeout", now - started))
            time.sleep(0.02)
            continue
        if pid in running:
            mutant, started = running.pop(pid)
            outcomes.append(Outcome(mutant, _verdict(status), time.monotonic() - started))
            _kill(pid)  # anything the tests left running in the child's session
    return outcomes


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def baseline(target: str) -> float:
    """The unmutated module must pass its selection; returns the time it took."""
    started = time.monotonic()
    _, status = os.waitpid(_fork(target, None, TARGETS[target]), 0)
    if _verdict(status) != "survived":
        raise SystemExit(f"{target}: its tests fail without any mutant "
                         f"({' '.join(TARGETS[target])}); fix that first")
    return time.monotonic() - started


def _warm(target: str) -> None:
    for name in WARM:
        importlib.import_module(name)
    for name in independent_modules(module_name(target)):
        if name.endswith("__main__"):
            continue
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - warming is an optimisation only
            pass


def _select(args: argparse.Namespace) -> list[str]:
    if not args.module:
        return list(TARGETS)
    chosen = [t for t in TARGETS if any(m in t for m in args.module)]
    if not chosen:
        raise SystemExit(f"no target matches {args.module}; targets: {', '.join(TARGETS)}")
    return chosen


def _show(key: str) -> None:
    path = key.split(":", 1)[0]
    source = (ROOT / path).read_text(encoding="utf-8")
    for mutant in generate(path, source).mutants:
        if mutant.key.startswith(key):
            before = ast.unparse(ast.parse(source)).splitlines()
            after = ast.unparse(apply(source, mutant)).splitlines()
            import difflib

            print(mutant.key)
            print("\n".join(difflib.unified_diff(before, after, lineterm="", n=1)))
            return
    raise SystemExit(f"no mutant starts with {key!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--module", action="append", help="substring of a target path (repeatable)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--show", help="print the diff of the mutant whose key starts with this")
    parser.add_argument("--json", type=Path, help="write every outcome to this file")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    if args.show:
        _show(args.show)
        return 0
    equivalents = read_equivalents()
    seen_keys: set[str] = set()
    totals = {"mutants": 0, "killed": 0, "survived": 0, "equivalent": 0}
    records = []
    print(f"{'module':34} {'mutants':>7} {'killed':>6} {'equiv':>5} {'surv':>4} {'kill %':>6} "
          f"{'prose':>5} {'secs':>6}", flush=True)
    for target in _select(args):
        gen = generate(target, (ROOT / target).read_text(encoding="utf-8"))
        if args.list:
            for mutant in gen.mutants:
                print(mutant.key)
            continue
        pid = os.fork()  # each target warms its own parent: the target must not be imported
        if pid == 0:
            _warm(target)
            base = baseline(target)
            outcomes = run_target(target, gen.mutants, args.jobs, timeout=max(30.0, 10 * base))
            payload = [{"key": o.mutant.key, "result": o.result, "seconds": round(o.seconds, 2)}
                       for o in outcomes]
            Path(f"/tmp/mutation-{os.getpid()}.json").write_text(json.dumps(payload))
            os._exit(0)
        started = time.monotonic()
        _, status = os.waitpid(pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            print(f"{target}: the run failed (status {status})")
            return 2
        result_file = Path(f"/tmp/mutation-{pid}.json")
        payload = json.loads(result_file.read_text())
        result_file.unlink()
        by_key = {m.key: m for m in gen.mutants}
        killed = sum(1 for p in payload if p["result"] in ("killed", "timeout"))
        errors = [p for p in payload if p["result"] == "error"]
        live = [p for p in payload if p["result"] == "survived"]
        equivalent = [p for p in live if p["key"] in equivalents]
        seen_keys.update(p["key"] for p in payload)
        surviving = [by_key[p["key"]] for p in live if p["key"] not in equivalents]
        counted = len(payload) - len(equivalent)
        rate = 100.0 * killed / counted if counted else 100.0
        print(f"{target:34} {len(payload):7} {killed:6} {len(equivalent):5} {len(surviving):4} "
              f"{rate:6.1f} {gen.prose_skipped:5} {time.monotonic() - started:6.0f}", flush=True)
        for p in errors:
            print(f"  error (neither pass nor fail): {p['key']}")
        for mutant in surviving:
            print(f"  survived: {mutant.key}", flush=True)
        totals["mutants"] += len(payload)
        totals["killed"] += killed
        totals["survived"] += len(surviving) + len(errors)
        totals["equivalent"] += len(equivalent)
        records.extend(payload)
    if args.list:
        return 0
    counted = totals["mutants"] - totals["equivalent"]
    overall = 100.0 * totals["killed"] / counted if counted else 100.0
    print(f"{'overall':34} {totals['mutants']:7} {totals['killed']:6} {totals['equivalent']:5} "
          f"{totals['survived']:4} {overall:6.1f}")
    print(f"kill rate of non-equivalent mutants: {totals['killed']}/{counted} = {overall:.1f}%")
    stale = sorted(k for k in equivalents if k not in seen_keys
                   and any(k.startswith(t) for t in _select(args)))
    for key in stale:
        print(f"  stale equivalent (no such mutant now): {key}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0 if overall >= 95.0 else 1


if __name__ == "__main__":
    sys.exit(main())
