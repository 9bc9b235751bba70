"""Layering rules of the package, read from the source: sign-off checks are leaves, no package cycles."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from infx.signoff.table import load_table

ROOT = Path(__file__).resolve().parents[2] / "infx"
CHECKS = ROOT / "signoff" / "checks"


_TREES: dict[str, tuple[ast.Module, tuple[ast.AST, ...]]] = {}  # source -> (tree, its nodes)


def parsed(source: str, where: str = "<unknown>") -> ast.Module:
    """The syntax tree of a source text, parsed once per session (``where`` names the text
    in a syntax error): many tests read the same package files, and none changes a tree."""
    return _tree_and_nodes(source, where)[0]


def nodes_of(source: str, where: str = "<unknown>") -> tuple[ast.AST, ...]:
    """Every node of the text's tree, in `ast.walk` order (walked once per session)."""
    return _tree_and_nodes(source, where)[1]


def _tree_and_nodes(source: str, where: str) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    known = _TREES.get(source)
    if known is None:
        tree = ast.parse(source, where)
        known = _TREES[source] = (tree, tuple(ast.walk(tree)))
    return known


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every infx module a file imports, anywhere in it (top level or inside a function),
    except under `if TYPE_CHECKING:`."""
    source = path.read_text(encoding="utf-8")
    skipped = {id(node) for block in nodes_of(source, str(path)) if isinstance(block, ast.If)
               and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
               for node in ast.walk(block)}
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in nodes_of(source, str(path)):
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


@cache
def module_imports() -> dict[str, set[str]]:
    """Module -> the infx modules it imports; read when a test first asks (not at collection)."""
    return {name: {i for i in imports_of(path) if i in MODULES} for name, path in MODULES.items()}


def check_modules() -> set[str]:
    return {name for name, path in MODULES.items()
            if path.parent == CHECKS and path.name != "__init__.py"}


def test_the_import_reader_sees_imports_inside_functions_too() -> None:
    assert "infx.signoff.model" in module_imports()["infx.signoff.checks.sweep"]
    assert module_imports()["infx.signoff.verdict"] >= {"infx.signoff.table", "infx.signoff.model"}


def test_check_table_rows_and_check_modules_correspond_one_to_one() -> None:
    rows = [spec.module for spec in load_table().checks]
    assert len(rows) == len(set(rows))
    assert set(rows) == check_modules()


@pytest.mark.parametrize("check", sorted(check_modules()))
def test_no_check_imports_another_check(check: str) -> None:
    assert not (module_imports()[check] & (check_modules() - {check}))


def test_nothing_outside_the_checks_folder_imports_a_check() -> None:
    offenders = {name: sorted(module_imports()[name] & check_modules()) for name in MODULES
                 if name not in check_modules() and module_imports()[name] & check_modules()}
    assert offenders == {}


def test_checks_read_their_settings_from_the_argument_not_the_table() -> None:
    for check in check_modules():
        source = MODULES[check].read_text(encoding="utf-8")
        assert "load_table" not in source, check


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def package_of(module: str) -> str:
    """The node a module counts as in the package graph: its top-level package, a root module
    itself (infx.errors), and every `__main__` the command layer (an entry point like the CLI's)."""
    parts = module.split(".")
    if parts[-1] == "__main__":
        return "cli"
    if len(parts) == 1:
        return "infx"
    if len(parts) == 2 and not (ROOT / parts[1]).is_dir():
        return module
    return parts[1]


def layout_cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """Groups of packages (root modules counted on their own) that import each other, directly
    or through other packages, counting imports inside functions too."""
    graph: dict[str, set[str]] = {}
    for module, targets in imports.items():
        source = package_of(module)
        graph.setdefault(source, set()).update(
            t for t in map(package_of, targets) if t != source and t != "infx")
    groups = []
    for start in sorted(graph):
        reach = _reach(graph, start)
        group = sorted(p for p in reach if p != start and start in _reach(graph, p))
        if group and start < group[0]:
            groups.append([start, *group])
    return groups


def test_no_import_cycle_between_packages_or_root_modules() -> None:
    assert layout_cycles(module_imports()) == []


def test_the_layout_cycle_finder_sees_root_modules_and_function_imports() -> None:
    trial = {name: set(targets) for name, targets in module_imports().items()}
    trial["infx.errors"].add("infx.plan.planner")  # a foundation reaching up into the plan path
    assert any("infx.errors" in group and "plan" in group for group in layout_cycles(trial))
    trial = {name: set(targets) for name, targets in module_imports().items()}
    trial["infx.plan.generate"].add("infx.cli.matrix")  # the old generate.main -> CLI import
    assert any({"cli", "plan"} <= set(group) for group in layout_cycles(trial))


PACKAGES = sorted(p for p in ROOT.rglob("__init__.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("init", PACKAGES, ids=lambda p: str(p.parent.relative_to(ROOT.parent)))
def test_every_package_says_what_it_owns(init: Path) -> None:
    doc = ast.get_docstring(parsed(init.read_text(encoding="utf-8"))) or ""
    assert len(doc.split()) >= 5, f"{init}: open the package with a docstring saying what it owns"


def repeated_module_names() -> dict[str, list[str]]:
    """Module basenames used in more than one package (package markers and the check modules,
    which are named for their check ids, excepted)."""
    seen: dict[str, list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py") or path.parent == CHECKS or "__pycache__" in path.parts:
            continue
        seen.setdefault(path.stem, []).append(module_name(path))
    return {name: modules for name, modules in seen.items() if len(modules) > 1}


def test_module_names_repeat_across_packages_only_where_the_readme_says_why() -> None:
    readme = (ROOT.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    unexplained = {name: modules for name, modules in repeated_module_names().items()
                   if f"`{name}.py`" not in section}
    assert unexplained == {}, "rename one, or say in README's Layout why the name repeats"


def test_no_test_module_imports_another_test_module() -> None:
    """Shared test data and helpers live in tests/lib: importing `test_x` from another test
    works only when pytest happened to put test_x's folder on sys.path first, so the importer
    fails when run alone or in another order."""
    tests = ROOT.parent / "tests"
    offenders = []
    for path in tests.rglob("test_*.py"):
        for node in nodes_of(path.read_text(encoding="utf-8"), str(path)):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(tests)}:{node.lineno} imports {name}"
                          for name in names if name.split(".")[0].startswith("test_")]
    assert not offenders, "move what they share into tests/lib:\n" + "\n".join(offenders)


# GitHub's REST roots: a string starting with one is a request path (or a piece of one)
REST_ROOTS = ("/repos/", "/user", "/orgs/", "/installation", "/app/", "/search/", "/graphql")
GITHUB = ROOT / "github"


def rest_paths(source: str) -> list[tuple[int, str]]:
    """Line and text of every string literal, and every literal piece of an f-string, that
    starts with a REST root."""
    found = []
    for node in nodes_of(source):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.startswith(REST_ROOTS):
            found.append((node.lineno, node.value))
    return sorted(found)


def test_the_rest_path_finder_sees_literals_and_f_string_pieces() -> None:
    source = ('a = "/repos/o/r/pulls"\nb = f"/repos/{repo}/issues/{n}"\nc = f"{base}/orgs/{org}"\n'
              'd = "/user"\ne = "see /repos/ in the docs"\nf = f"{x}/pulls/{n}"\n')
    assert sorted(line for line, _ in rest_paths(source)) == [1, 2, 3, 4]


def test_no_rest_path_outside_the_github_package() -> None:
    """Only infx/github/ names GitHub's endpoints: everything else calls a typed method of
    the client, which keeps the budget, the completeness checks and the permission hints."""
    offenders = [f"{path.relative_to(ROOT.parent)}:{line} {text[:60]!r}"
                 for path in sorted(ROOT.rglob("*.py")) if GITHUB not in path.parents
                 for line, text in rest_paths(path.read_text(encoding="utf-8"))]
    assert not offenders, "add an endpoint method to its resource's module in infx/github/endpoints/:\n" + "\n".join(offenders)


# the class names that model each GitHub object, wherever they are defined in infx/
GITHUB_OBJECTS = {
    "comment": {"Comment", "IssueComment"},
    "review": {"Review", "PullReview"},
    "review comment": {"ReviewComment", "PullReviewComment"},
    "pull request": {"PullRequest", "PullInfo", "PullFacts", "ForkPull", "Pull"},
    "workflow run": {"WorkflowRun", "RunFacts"},
    "job": {"Job", "RunJob", "JobFacts"},
    "check run": {"CheckRun", "CheckRunInfo"},
    "artifact": {"Artifact", "ArtifactInfo"},
    "changed file": {"ChangedFile"},
    "permission": {"Permission"},
}
# kinds of one class that model another object too (Comment stands for reviews and review comments)
ALSO_MODELS = {"review": {"Comment"}, "review comment": {"Comment"}}
MODELS_MODULE = "infx.github.models"


def class_definitions(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Class name -> the modules (as module.Class) that define a class of that name."""
    found: dict[str, set[str]] = {}
    for name, path in modules.items():
        for node in nodes_of(path.read_text(encoding="utf-8"), str(path)):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, set()).add(f"{name}.{node.name}")
    return found


def github_models(defined: dict[str, set[str]]) -> dict[str, set[str]]:
    """GitHub object -> every class that models it, for the objects modelled more than once."""
    models = {obj: {c for n in names | ALSO_MODELS.get(obj, set()) for c in defined.get(n, ())}
              for obj, names in GITHUB_OBJECTS.items()}
    return {obj: classes for obj, classes in models.items() if len(classes) > 1}


def record_fields(source: str, where: str) -> dict[str, tuple[str, ...]]:
    """Class name -> its field names, for every dataclass or NamedTuple defined in `source`
    (`where`.Class; ClassVar annotations are not fields)."""
    found: dict[str, tuple[str, ...]] = {}
    for node in nodes_of(source, where):
        if not isinstance(node, ast.ClassDef):
            continue
        marks = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
        bases = [ast.unparse(b) for b in node.bases]
        if not any(m.split(".")[-1] == "dataclass" for m in marks) and "NamedTuple" not in bases:
            continue
        found[f"{where}.{node.name}"] = tuple(
            item.target.id for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            and "ClassVar" not in ast.unparse(item.annotation))
    return found


# the names a copy gives a model's field (a name that is itself the model's field counts as it is)
FIELD_ALIASES = {"author": "user", "login": "user", "url": "html_url", "source_id": "id",
                 "comment_id": "id", "job_id": "id", "run_id": "id", "artifact_id": "id",
                 "pr_number": "issue_number", "sha": "head_sha", "commit": "commit_id"}
MIN_SHARED = 4  # fewer shared fields than this is a coincidence of common names (id, name, ...)


def shared_fields(fields: tuple[str, ...], model: tuple[str, ...]) -> set[str]:
    """The model's fields a record carries, under the model's name or an alias of it."""
    return {name if name in model else FIELD_ALIASES[name] for name in fields
            if name in model or FIELD_ALIASES.get(name) in model}


def field_copies(records: dict[str, tuple[str, ...]],
                 models: dict[str, tuple[str, ...]]) -> dict[str, set[str]]:
    """Record -> the models whose fields it mostly repeats: more than half of its fields, and
    at least MIN_SHARED, are that model's (by name or alias). A record that holds the model
    (`comment: Comment`) and adds its own facts shares none."""
    copies: dict[str, set[str]] = {}
    for record, fields in records.items():
        for model, mine in models.items():
            common = shared_fields(fields, mine)
            if len(common) >= MIN_SHARED and 2 * len(common) > len(fields):
                copies.setdefault(record, set()).add(model)
    return copies


def app_modules() -> dict[str, Path]:
    return {name: path for name, path in MODULES.items() if not name.startswith("infx.github.fake")}


def github_model_fields() -> dict[str, tuple[str, ...]]:
    """Model name -> fields, of the models in infx.github.models."""
    path = MODULES[MODELS_MODULE]
    return {name.rpartition(".")[2]: fields
            for name, fields in record_fields(path.read_text(encoding="utf-8"), MODELS_MODULE).items()}


def app_records() -> dict[str, tuple[str, ...]]:
    """Every dataclass or NamedTuple of the package outside infx.github.models (and the fake)."""
    found: dict[str, tuple[str, ...]] = {}
    for name, path in app_modules().items():
        if name != MODELS_MODULE:
            found |= record_fields(path.read_text(encoding="utf-8"), name)
    return found


def test_one_class_per_github_object() -> None:
    """Issue 19: each GitHub object has one model, in infx.github.models, built from GitHub's
    JSON there; a consumer that needs more composes it (the sign-off's ArtifactMembers). A
    second model is found by its name, or by its fields: a record that mostly repeats a
    model's fields under their names or aliases (the old sign-off model, author, body, url,
    source_id, ... of a Comment)."""
    assert github_models(class_definitions(app_modules())) == {}, "use (or compose) the model in infx.github.models"
    copies = field_copies(app_records(), github_model_fields())
    assert copies == {}, "hold (or use) the model of infx.github.models instead of copying its fields"


def test_the_model_finder_sees_a_second_copy() -> None:
    defined = class_definitions({MODELS_MODULE: MODULES[MODELS_MODULE]})
    assert github_models(defined) == {}
    defined["Comment"] = defined["Comment"] | {"infx.signoff.model.Comment"}
    assert github_models(defined)["comment"] == {"infx.github.models.Comment",
                                                  "infx.signoff.model.Comment"}


# the sign-off's second model of a comment, as infx.signoff.model defined it before issue 19
OLD_SIGNOFF = """
from dataclasses import dataclass
from typing import ClassVar

@dataclass(frozen=True)
class SignOff:
    KINDS: ClassVar[tuple[str, ...]] = ("issue_comment", "review", "review_comment")
    author: str
    body: str
    url: str | None
    source_id: int | None
    kind: str
    created_at: str | None = None
    pr_number: int | None = None
    commit_id: str | None = None
    state: str = ""

@dataclass(frozen=True)
class Verified:
    comment: Comment
    pr_number: int | None
    reason: str = ""
"""


def test_the_field_finder_sees_the_old_signoff_and_not_a_composition() -> None:
    models = github_model_fields()
    assert set(models) == {"Comment", "Artifact", "Job", "CheckRun", "WorkflowRun", "PullRequest"}
    assert all(len(fields) >= MIN_SHARED for fields in models.values())
    records = record_fields(OLD_SIGNOFF, "old")
    assert records["old.SignOff"][0] == "author" and len(records["old.SignOff"]) == 9  # no ClassVar
    assert field_copies(records, models) == {"old.SignOff": {"Comment"}}
    # its fields under other names than the model's still count: what makes it a copy
    assert shared_fields(records["old.SignOff"], models["Comment"]) == {
        "user", "body", "html_url", "id", "kind", "created_at", "issue_number", "commit_id", "state"}


def test_the_field_finder_reads_the_whole_package() -> None:
    records = app_records()
    assert len(records) > 50
    assert records["infx.signoff.model.ArtifactMembers"] == ("artifact", "files")
    assert "infx.signoff.model.Evidence" in records and "infx.github.models.Comment" not in records


def test_the_field_finder_sees_the_copies_this_issue_removed() -> None:
    """The report's job row and the ack path's comment, as they were before they used the
    models (SweepJob: name, conclusion, status, url; CommentEvent: the comment's id, body,
    updated_at, html_url beside the issue's facts): both are still found as copies."""
    models = github_model_fields()
    old = {"infx.report.build.SweepJob": ("name", "conclusion", "status", "url"),
           "infx.reuse.ack.CommentEvent": ("action", "issue_number", "is_pull_request", "comment_id",
                                           "body", "updated_at", "html_url")}
    found = field_copies(old, models)
    assert "Job" in found["infx.report.build.SweepJob"] and found["infx.reuse.ack.CommentEvent"] == {"Comment"}


# The plan's JSON shape has one owner: only the Plan type reads the plan's top-level keys.
PLAN_TYPE = "infx.plan.sweep_plan"


def plan_keys() -> tuple[frozenset[str], frozenset[str]]:
    """The plan's top-level keys, and the names the Plan module gives them (SINGLE_NODE, ...)."""
    from infx.plan import sweep_plan

    keys = frozenset((*sweep_plan.NODES, *sweep_plan.EVAL_BUCKETS, sweep_plan.METADATA))
    names = frozenset(name for name, value in vars(sweep_plan).items()
                      if name.isupper() and isinstance(value, str) and value in keys)
    return keys, names


def plan_key_reads(source: str) -> list[tuple[int, str]]:
    """Line and text of every place a module reads a plan's top-level key by hand: a subscript
    or a get/pop/setdefault with the key (spelt out or by its Plan constant), or the key spelt
    out at all (a string equal to one; plain "evals" only in a subscript or get, as other
    things are called evals too)."""
    keys, names = plan_keys()

    def names_a_key(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in keys
        return (isinstance(node, ast.Name) and node.id in names) or (
            isinstance(node, ast.Attribute) and node.attr in names)

    found = []
    for node in nodes_of(source):
        if isinstance(node, ast.Subscript) and names_a_key(node.slice):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "pop", "setdefault") and node.args and names_a_key(node.args[0]):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Constant) and node.value in keys - {"evals"}:
            found.append((node.lineno, repr(node.value)))
    return sorted(set(found))


def test_the_plan_key_finder_sees_subscripts_gets_constants_and_spelt_out_keys() -> None:
    planted = ('a = plan["single_node"]["1k1k"]\nb = plan.get("changelog_metadata") or {}\n'
               'c = doc[EVALS]\nd = doc[sweep_plan.MULTI_NODE]\ne = {"multinode_evals": []}\n'
               'f = plan.bucket(path)\ng = row["conc"]\nh = "evals of the plan"\ni = plan.rows()\n'
               'j = plan.pop("evals", [])\n')
    assert sorted({line for line, _ in plan_key_reads(planted)}) == [1, 2, 3, 4, 5, 10]
    # the Plan type itself reads them, so the rule below is not vacuous
    assert plan_key_reads(MODULES[PLAN_TYPE].read_text(encoding="utf-8"))


def test_only_the_plan_type_reads_the_plans_top_level_keys() -> None:
    """Every other module asks the Plan (rows(), bucket(), buckets(), map_rows(), metadata, ...)
    instead of walking the plan's dict, so the shape is decided in one place."""
    offenders = [f"{path.relative_to(ROOT.parent)}:{line} {text[:70]}"
                 for name, path in sorted(MODULES.items()) if name != PLAN_TYPE
                 for line, text in plan_key_reads(path.read_text(encoding="utf-8"))]
    assert not offenders, "ask infx.plan.sweep_plan.Plan instead:\n" + "\n".join(offenders)


# The evidence layer reads what the checks declare (checks.yaml `needs`); it knows no check.
def is_gatherer(source: str) -> bool:
    """A module that reads evidence for the verdict: it registers piece readers (`@piece(...)`)
    or defines the evidence Reader."""
    for node in nodes_of(source):
        if isinstance(node, ast.ClassDef) and node.name == "Reader":
            return True
        if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", None) == "piece"
                for d in node.decorator_list):
            return True
    return False


def check_mentions(source: str, module: str = "") -> list[tuple[int, str]]:
    """Line and text of every place a source names a check of the table: a string equal to a
    check's id or name, `Check <number>` or Check `<id>` in any text (comments too), or an
    import of a check module, of the verdict engine or of the table loader. A key of GitHub's
    JSON (`item.get("patch")`, `data["draft"]`) is not a check's name."""
    table = load_table()
    ids = {spec.id for spec in table.checks}
    words = ids | {spec.name for spec in table.checks}
    nodes = nodes_of(source)
    keys = {id(node.slice) for node in nodes if isinstance(node, ast.Subscript)} | {
        id(node.args[0]) for node in nodes if isinstance(node, ast.Call) and node.args
        and isinstance(node.func, ast.Attribute) and node.func.attr == "get"}
    found = []
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in words \
                and id(node) not in keys:
            found.append((node.lineno, repr(node.value)))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                ("infx.signoff.checks", "infx.signoff.verdict")) or isinstance(node, ast.ImportFrom) \
                and any(alias.name == "load_table" for alias in node.names):
            found.append((node.lineno, ast.unparse(node)))
    numbers = "|".join(str(spec.number) for spec in table.checks)
    named = re.compile(rf"\bChecks? (?:(?:{numbers})\b|`(?:{'|'.join(ids)})`)")
    for line_no, line in enumerate(source.splitlines(), 1):
        found += [(line_no, hit.group(0)) for hit in named.finditer(line)]
    return sorted(set(found))


def test_the_check_mention_finder_sees_ids_names_prose_and_imports() -> None:
    planted = ('if spec.id == "sweep":\n    pass\n# for Check `reuse` only\nx = "Evals pass"\n'
               '"""Check 14 reads it."""\nfrom infx.signoff.checks import evals\n'
               'from infx.signoff.table import load_table\ny = "sweep runs"  # a sweep run\n'
               'z = item.get("patch") or pull["draft"]\n')
    assert [line for line, _ in check_mentions(planted)] == [1, 3, 4, 5, 6, 7]
    assert is_gatherer("@piece('x', fills=())\ndef read(reader, evidence, settings):\n    pass\n")
    assert not is_gatherer("class Context:\n    pass\n")


def test_no_evidence_gatherer_names_checks() -> None:
    """Issue 19: which evidence a check needs is the check's own declaration (`needs:` in
    checks.yaml); the layer that reads it names pieces of evidence, never the checks that use
    them, so adding a check or a need touches the table, not the gatherer."""
    gatherers = [name for name, path in sorted(MODULES.items())
                 if is_gatherer(path.read_text(encoding="utf-8"))]
    assert "infx.signoff.evidence" in gatherers  # the rule is not vacuous
    offenders = [f"{MODULES[name].relative_to(ROOT.parent)}:{line} {text[:70]}"
                 for name in gatherers
                 for line, text in check_mentions(MODULES[name].read_text(encoding="utf-8"))]
    assert not offenders, "declare the need in checks.yaml instead:\n" + "\n".join(offenders)
