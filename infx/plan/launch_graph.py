"""The launch graph of a config key: exactly the files its jobs execute, each with its role.

A job of a config key runs on a runner of the key's label (``configs/runners.yaml``), whose
name before the first ``_`` selects the launcher ``runners/launch_<name>.sh``. The launcher
runs a benchmark script named by the naming rule below, or, for a multi-node row naming a
recipe with ``CONFIG_FILE=`` (``EVAL_CONFIG_FILE=`` for its eval-only run), hands that
srt-slurm recipe (``recipes/<x>`` = ``benchmarks/multi_node/srt-slurm-recipes/<x>``) to
``srtctl``. Launchers and scripts source helpers (``benchmarks/benchmark_lib.sh``,
``runners/slurm_utils.sh``) and start further files of the tree (``bash <path>``).

Script naming rule (the reference's and ours; first existing candidate wins):

- single-node: ``benchmarks/single_node/<agentic|fixed_seq_len>/<prefix>_<precision>_<sku>``
  + ``_<framework>`` + ``_mtp`` (spec-decoding ``mtp`` only), then the same without
  ``_<framework>`` (the historical name; ``_trt`` for trt), then without ``_mtp``;
- multi-node: ``benchmarks/multi_node/[agentic/]<prefix>_<precision>_<sku>_<framework>.sh``
  (or ``…_<framework>-disagg.sh``);

where ``<sku>`` is the runner name before its first ``-`` (``b200-cw_00`` -> ``b200``).

Conditional code: ``branch_lines`` keeps, of a file's ``if … fi`` blocks whose condition
tests only ``EVAL_ONLY``, ``IS_MTP`` or ``SPEC_DECODING``, the side the row's ``Branch``
takes; every other condition keeps both sides.

Pure: trees are path -> text mappings (None = deleted), as in infx.plan.benchmark_content.
"""

from __future__ import annotations

import bisect
import fnmatch
import functools
import operator
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Tree = Mapping[str, "str | None"]

LAUNCHER = "launcher"
SCRIPT = "script"
RECIPE = "recipe"
HELPER = "helper"
ROLES = (LAUNCHER, SCRIPT, RECIPE, HELPER)

RUNNERS_PATH = "configs/runners.yaml"
RECIPES_ROOT = "benchmarks/multi_node/srt-slurm-recipes/"
AGENTIC = "agentic-coding"
_SETTING = re.compile(r"^\s*(EVAL_CONFIG_FILE|CONFIG_FILE)\s*=\s*[\"']?([^\"'\s]+)")
# `source X` / `. X` / `bash X` / `exec bash X` naming a file path (the path may use
# $(dirname "$0"), $(dirname "${BASH_SOURCE[0]}"), $SCRIPT_DIR, /workspace, $GITHUB_WORKSPACE)
_INVOKE = re.compile(r"(?:^|[;&|(`]|\bthen|\bdo|\bexec|\bnohup|^\s*command:\s*[\"']?)\s*(source|\.|bash|sh)\s+"
                     r"\"?([^\s\"';)]+\.(?:sh|bash|slurm))")
_MAY_INVOKE = re.compile(r"\.(?:sh|bash|slurm)\b")  # a line naming no shell file starts none
# "$(dirname "$0")/job.slurm" (after _DIRNAME: "<folder>/job.slurm") anywhere on a line
_SIBLING = re.compile(r"(?:^|[\s\"'=(])\"?([\w./-]+\.(?:sh|bash|slurm))\"?(?=[\s\"');]|$)")
# RUN_FILE="server.sh": a bare file name kept in a variable
_NAMED_FILE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=[\"']?([\w.-]+\.(?:sh|bash|slurm))[\"']?\s*$")
_CD = re.compile(r"^\s*(?:cd|pushd)\s+\"?([^\s\"';|&]+)\"?\s*(?:\|\|.*|&&.*|;.*)?$")
_UNKNOWN_FOLDER = re.compile(r"^\$\{?\w+\}?/(?=[\w.-]+$)")
_TOP_ASSIGN = re.compile(r"^(?:export\s+)?([A-Za-z_]\w*)=(\S*|\".*\"|'[^']*')\s*;?$")
# "${VAR:-…}" with any default (nested ones too): the environment's VAR when it is set
_OWN_OR_WHOLE_REF = re.compile(r"\$\{(\w+)(?::-.*)?\}|\$(\w+)")
_OPENS = re.compile(r"^(?:if|case|for|while|until|select)\b|^(?:function\s+)?[\w-]+\s*\(\)\s*\{?$|^\{$")
_ONE_LINE_BLOCK = re.compile(r"\b(?:fi|esac|done)\s*;?\s*$|\}\s*;?\s*$")
_CLOSES = re.compile(r"^(?:fi|esac|done)\b|^\}")
# any other write of a variable: NAME= anywhere on a line, declare/local/readonly/typeset,
# ${NAME:=x}, read NAME, for NAME in, and the names unset lists
_WRITES = re.compile(r"(?:^|[\s;&|(`{])(?:(?:export|local|readonly|typeset|declare(?:\s+-\w+)*)\s+)?"
                     r"([A-Za-z_]\w*)\+?=|\$\{([A-Za-z_]\w*):?=|\bread\s+(?:-\w+\s+)*([A-Za-z_]\w*)"
                     r"|\bfor\s+([A-Za-z_]\w*)\s+in\b|\bprintf\s+-v\s+([A-Za-z_]\w*)")
# arithmetic that assigns, inside (( )), $(( )) or let: NAME = / += / ++ / --NAME (not == or <=)
_ARITHMETIC_WRITES = re.compile(r"([A-Za-z_]\w*)\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)")
_ARITHMETIC = re.compile(r"\(\(|\blet\s")
# commands that read words into names: every name-like word of their arguments may be one
_READS_INTO = re.compile(r"\b(?:read|mapfile|readarray|getopts)\b([^;&|<>]*)")
# commands that may write any variable: eval, and sourcing another file
_WRITES_ANY = re.compile(r"(?:^|[\s;&|(`{])(?:eval|source|\.)\s+\S")
# a command after the first on a line (`echo x; AL=3`, `test -f x && AL=3`): not the redirections
# `2>&1` / `&>`, nor a pipe (its commands run in subshells)
_NEXT_COMMAND = re.compile(r";|&&|\|\||(?<![<>&])&(?![>&])")
_QUOTED_WORD = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'")
ANY_VARIABLE = "*"  # shell_writes' name for the lines that may write every variable
_UNSETS = re.compile(r"\bunset\s+(?:-[vf]\s+)?((?:[A-Za-z_]\w*\s*)+)")
_EXPORTS = re.compile(r"^export\s+([A-Za-z_]\w*)\s*$")
_PRINTS = re.compile(r"^\s*(?:echo|printf(?!\s+-v)|cat|ls|logger|test|\[)\b")
# a shell function's first line, `name() {` (its name: group 1)
FUNCTION_OPEN = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\s*\)\s*\{?\s*$")
# variables that tell a node of a multi-node job its place (head, prefill or decode node)
NODE_ROLE_VARIABLES = frozenset({"NODE_RANK", "NODE_OFFSET", "RANK", "LOCAL_RANK", "SLURM_NODEID",
                                 "SLURM_PROCID", "SLURM_LOCALID"})
_DIRNAME = re.compile(r"\$\(\s*dirname\s+\"?\$(?:0|\{0\}|\{BASH_SOURCE\[0\]\}|BASH_SOURCE)\"?\s*\)")
# where a launch names the repository's root: the runner's checkout, and the folder the
# multi-node launchers mount it at in the job's containers (an srt-slurm recipe's benchmark
# ``command: bash /infmax-workspace/benchmarks/…``)
_ROOTS = re.compile(r"^(?:/workspace/|/infmax-workspace/|\$\{?(?:GITHUB_WORKSPACE|INFERENCEX_ROOT|REPO_ROOT"
                    r"|INFMAX_WORKSPACE|INFMAX_CONTAINER_WORKSPACE)\}?/)")
_MAX_FILES = 400


class LaunchGraphError(ValueError):
    """The launch of a config key cannot be resolved (message names the key and the file).

    ``no_launcher``: the tree holds no launcher of the key's runner at all (a trimmed tree),
    as opposed to a launcher that would fail to find what to run."""

    def __init__(self, message: str, no_launcher: bool = False) -> None:
        super().__init__(message)
        self.no_launcher = no_launcher


@dataclass(frozen=True)
class Branch:
    """Which side of the launch's conditionals a row takes."""

    eval_only: bool = False
    spec: bool = False
    # the row's own variables the launch tests (MODEL_PREFIX, PRECISION, FRAMEWORK, …)
    row: tuple[tuple[str, str], ...] = ()

    def label(self) -> str:
        return f"{'eval-only' if self.eval_only else 'throughput'}, {'spec' if self.spec else 'no-spec'}"

    @functools.cached_property
    def values(self) -> dict[str, str]:
        """``row`` as a mapping (worked out once per branch)."""
        return dict(self.row)



# the side a spec-decode config's benchmark (throughput) rows take
SPEC_THROUGHPUT = Branch(eval_only=False, spec=True)

@dataclass(frozen=True)
class LaunchFile:
    path: str
    role: str  # one of ROLES
    named_by: str  # the file (or master config) that names it
    branches: tuple[Branch, ...]  # the branches of the key's rows that execute it


@dataclass(frozen=True)
class Run:
    """What one launcher runs for one lane kind: the script or recipe it hands over."""

    launcher: str
    scenario: str  # scenario kind of the lane (fixed-seq-len, agentic-coding)
    spec: str  # the lane's spec-decoding (none, mtp, …)
    eval_only: bool
    path: str  # the script or recipe (external recipes included)


@dataclass(frozen=True)
class LaunchGraph:
    key: str
    files: tuple[LaunchFile, ...]
    branches: tuple[Branch, ...]
    runs: tuple[Run, ...] = ()
    # CONFIG_FILE recipes not checked in: the launcher takes them from the srt-slurm checkout
    external: tuple[str, ...] = ()

    def paths(self, role: str | None = None) -> tuple[str, ...]:
        return tuple(f.path for f in self.files if role is None or f.role == role)

    def runs_of(self, launcher: str, scenario: str, spec: str) -> tuple[str, ...]:
        """The scripts or recipes ``launcher`` runs for lanes of this kind and spec-decoding."""
        return tuple(dict.fromkeys(r.path for r in self.runs if (r.launcher, r.scenario, r.spec)
                                   == (launcher, scenario, spec)))

    def role_of(self, path: str) -> str | None:
        return next((f.role for f in self.files if f.path == path), None)


def runner_names(label: str, runners: Any) -> list[str]:
    """Runner names carrying ``label`` (runners.yaml ``labels``); an unlisted label stands for
    a runner of that name (``cluster:x`` -> ``x``)."""
    labels = runners.get("labels") if isinstance(runners, Mapping) else None
    names = labels.get(label) if isinstance(labels, Mapping) else None
    if isinstance(names, list) and names:
        return [str(n) for n in names]
    return [label.split(":", 1)[-1]]


def launcher_path(runner_name: str) -> str:
    return f"runners/launch_{runner_name.split('_', 1)[0]}.sh"


def _follow_link(tree: Tree, path: str) -> str:
    """A launcher stored as a git symlink (its text is the target's name) -> the target."""
    for _ in range(4):
        text = tree.get(path)
        if text is None or "\n" in text.strip() or not text.strip().endswith(".sh"):
            return path
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), text.strip()))
        if tree.get(target) is None:
            return path
        path = target
    return path


def lanes(entry: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(scenario kind, search-space entry) for every lane of a master-config entry."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    scenarios = entry.get("scenarios")
    if not isinstance(scenarios, Mapping):
        return out
    for kind, items in scenarios.items():
        for item in items if isinstance(items, list) else []:
            if isinstance(item, Mapping):
                out += [(str(kind), lane) for lane in item.get("search-space") or [] if isinstance(lane, Mapping)]
    return out


def lane_settings(lane: Mapping[str, Any]) -> list[str]:
    settings = [str(s) for s in lane.get("additional-settings") or []]
    for role in ("prefill", "decode", "worker"):
        if isinstance(lane.get(role), Mapping):
            settings += [str(s) for s in lane[role].get("additional-settings") or []]
    return settings


def lane_spec(lane: Mapping[str, Any]) -> str:
    value = lane.get("spec-decoding")
    return "none" if value in (None, "", False) else str(value).lower()


_NAMED_SETTING = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def setting_variables(settings: Iterable[str]) -> dict[str, str]:
    """The ``NAME=value`` items of additional-settings as the launch exports them (later wins;
    surrounding quotes removed; items of another form export nothing)."""
    found: dict[str, str] = {}
    for setting in settings:
        match = _NAMED_SETTING.match(str(setting))
        if match:
            found[match.group(1)] = match.group(2).strip().strip("\"'")
    return found


def exported_variables(row: Mapping[str, Any]) -> dict[str, str]:
    """What a row's launch exports besides its own fields, as the reference's workflow templates
    and launchers do (recipe scripts written for the reference read them): ``IS_AGENTIC`` (1 for
    agentic-coding rows, else 0), ``SCENARIO_SUBDIR`` (``agentic/`` or ``fixed_seq_len/``),
    ``IS_MULTINODE`` and, for a multi-node row, ``MODEL_NAME`` (the model id's last path part).

    ``row``: a planned row, or a master-config entry with a lane's ``scenario-type``; a row is
    multi-node when it has a prefill side or its entry says ``multinode``."""
    agentic = row.get("scenario-type") == AGENTIC
    multinode = isinstance(row.get("prefill"), Mapping) or row.get("multinode") is True
    found = {"IS_AGENTIC": "1" if agentic else "0",
             "SCENARIO_SUBDIR": "agentic/" if agentic else "fixed_seq_len/",
             "IS_MULTINODE": "true" if multinode else "false"}
    if multinode:
        found["MODEL_NAME"] = str(row.get("model") or "").rsplit("/", 1)[-1]
    return found


def row_settings(row: Mapping[str, Any]) -> dict[str, str]:
    """The ``NAME=value`` additional-settings a row's launch exports: the row's (or lane's) own,
    then its prefill, decode and worker sides' (later wins). They never replace a row field or
    an exported variable (infx.workflow.launch.row_env refuses such a row)."""
    return setting_variables(lane_settings(row))


def is_recipe(path: str) -> bool:
    """Whether a repository path is an srt-slurm recipe's place (where ``recipe_file`` puts what
    a multi-node lane's CONFIG_FILE names)."""
    return path.startswith(RECIPES_ROOT)


def recipe_file(config_file: str) -> str:
    """``recipes/<x>[:variant]`` (srt-slurm relative) -> the checked-in recipe path."""
    path = config_file.split(":", 1)[0]
    if path.startswith(RECIPES_ROOT):
        return path  # already repository-relative
    path = path[len("recipes/"):] if path.startswith("recipes/") else path
    return RECIPES_ROOT + path


def _exists(tree: Tree, path: str) -> bool:
    return tree.get(path) is not None


def script_candidates(multinode: bool, agentic: bool, prefix: str, precision: str, sku: str,
                      framework: str, spec: str) -> list[str]:
    """The naming rule's candidates, in the order the launchers try them."""
    if multinode:
        folder = "benchmarks/multi_node/" + ("agentic/" if agentic else "")
        base = f"{folder}{prefix}_{precision}_{sku}_{framework}"
        return [f"{base}.sh", f"{base}-disagg.sh"]
    folder = "benchmarks/single_node/" + ("agentic/" if agentic else "fixed_seq_len/")
    base = f"{folder}{prefix}_{precision}_{sku}"
    mtp = "_mtp" if spec == "mtp" else ""
    legacy = "_trt" if framework == "trt" else ""
    found = [f"{base}_{framework}{mtp}.sh", f"{base}{legacy}{mtp}.sh"]
    if mtp:
        found += [f"{base}_{framework}.sh", f"{base}{legacy}.sh"]
    return list(dict.fromkeys(found))


def _resolve_ref(ref: str, here: str, tree: Tree, folder: str | None = None, loose: bool = False) -> str | None:
    """A path a file invokes -> the tree path it names, or None (outside the tree / unknown)."""
    ref = ref.replace("$SCRIPT_DIR", posixpath.dirname(here)).replace("${SCRIPT_DIR}", posixpath.dirname(here))
    ref = _ROOTS.sub("", ref)
    if loose and (unknown := _UNKNOWN_FOLDER.match(ref)):
        ref = posixpath.join(posixpath.dirname(here), ref[unknown.end():])  # beside the file
    if "$" in ref or ref.startswith("/"):
        return None
    if folder is not None and not ref.startswith(f"{folder}/"):
        moved = posixpath.normpath(posixpath.join(folder, ref))
        if _exists(tree, moved):
            return moved
    path = posixpath.normpath(ref)
    if _exists(tree, path):
        return path
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(here), ref))
    return joined if _exists(tree, joined) else None


@functools.lru_cache(maxsize=4096)
def _followed(path: str, text: str, branch: Branch) -> tuple[tuple[str, str | None, bool, Branch], ...]:
    """What the lines ``branch`` runs of a file start (as written), each with the branch the
    started file runs on: what the file set before that line and passes on to it (see
    ``_passed_on``); the same for every config whose branch reads the file alike."""
    lines = "\n".join(line for _, line in branch_lines(text, branch))
    return tuple((ref, folder, loose, _passed_on(lines, branch, index, sourced))
                 for ref, folder, loose, index, sourced in _invoked_refs(path, lines))


@functools.lru_cache(maxsize=2048)
def _invoked_refs(path: str, text: str) -> tuple[tuple[str, str | None, bool, int, bool], ...]:
    """(path as written, the folder a ``cd`` moved to or None, whether an unknown variable
    prefix may stand for the file's own folder, the line's index, whether it is sourced) of what
    a shell file's lines source or start (``$(dirname "$0")`` read as the file's folder); every
    config launched through one file asks for the same. A line that only prints or lists a
    path (echo, printf, cat, ls) starts nothing; a file name kept in a variable counts when a
    later line (not printing) uses the variable; a ``cd`` inside a function body moves nothing."""
    here = posixpath.dirname(path) or "."
    refs: list[tuple[str, str | None, bool, int, bool]] = []
    folder: str | None = None
    lines = text.splitlines()
    depth = 0
    for index, line in enumerate(lines):
        word = line.strip()
        if word.startswith("#") or not ("cd" in word or "pushd" in word or "()" in word
                                        or word.startswith("}") or _MAY_INVOKE.search(word)):
            continue  # (most lines: nothing that starts, names or moves)
        if FUNCTION_OPEN.match(word):
            depth += 1
        elif depth and word.startswith("}"):
            depth -= 1
        stripped = _DIRNAME.sub(lambda _: here, line) if "dirname" in line else line
        moved = _CD.match(stripped)
        if moved:
            if depth:
                continue  # a function's own folder change, if it is ever called
            target = _ROOTS.sub("", moved.group(1))
            if "$" in target or target.startswith("/"):
                folder = None  # somewhere the graph cannot know
            elif "/" in target and not target.startswith("."):
                folder = posixpath.normpath(target)  # from the repository root
            else:
                folder = posixpath.normpath(posixpath.join(folder or here, target))
            continue
        if not _MAY_INVOKE.search(line) or _PRINTS.match(stripped):
            continue
        for match in _INVOKE.finditer(stripped):
            ref, loose = _known_folder(match.group(2), text, index)
            refs.append((ref, folder, loose, index, match.group(1) in ("source", ".")))
        refs += [(match.group(1), None, False, index, False) for match in _SIBLING.finditer(stripped)
                 if match.group(1).startswith(here + "/")]
        named = _NAMED_FILE.match(stripped)
        if named and _used_later(named.group(1), lines[index + 1:]):
            refs.append((posixpath.join(here, named.group(2)), None, False, index, False))
    return tuple(refs)


@functools.lru_cache(maxsize=1024)
def shell_writes(text: str) -> dict[str, tuple[int, ...]]:
    """Name -> the (1-based) lines of a shell file that may write that variable: assignments
    anywhere on a line (in strings too: over-counting only makes a value unknown), declare /
    local / readonly / typeset, ``${NAME:=x}``, arithmetic (``(( N = 1 ))``, ``let N++``), the
    names ``read`` / ``mapfile`` / ``getopts`` are given, ``for NAME in`` and ``unset``; lines
    that only print (one printing command: ``echo x; AL=3`` writes AL), and comments, write
    nothing; ``printf -v NAME`` writes NAME, and a line
    that evals or sources is listed under ANY_VARIABLE (it may write any: a reader that
    follows sourced files itself, as the launch graph does, may set those lines aside)."""
    found: dict[str, list[int]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or (
                _PRINTS.match(stripped) and not _NEXT_COMMAND.search(_QUOTED_WORD.sub('""', stripped))):
            continue
        names = [n for groups in _WRITES.findall(stripped) for n in groups if n]
        names += [n for listed in _UNSETS.findall(stripped) for n in listed.split()]
        if _ARITHMETIC.search(stripped):
            names += [n for groups in _ARITHMETIC_WRITES.findall(stripped) for n in groups if n]
        for arguments in _READS_INTO.findall(stripped):
            names += re.findall(r"(?<![-\w$])[A-Za-z_]\w*\b", _QUOTED_WORD.sub(" ", arguments))
        if re.search(r"\b(?:mapfile|readarray)\b", stripped):
            names.append("MAPFILE")
        if _WRITES_ANY.search(stripped):
            names.append(ANY_VARIABLE)
        for name in dict.fromkeys(names):
            found.setdefault(name, []).append(number)
    return {name: tuple(lines) for name, lines in found.items()}


def _known_folder(ref: str, text: str, index: int) -> tuple[str, bool]:
    """``$VAR/x.sh`` -> (the path with VAR's literal value, False) when the file sets VAR only
    to one literal before the line; (as written, True: may stand for the file's own folder)
    when the file never sets VAR; (as written, False: unknown) otherwise."""
    head = _UNKNOWN_FOLDER.match(ref)
    if not head:
        return ref, True
    name = head.group(0).strip("${}/")
    writes = [a for a in _top_assignments(text) if a[1] == name]
    if all(a[3] == name for a in writes):
        return ref, True  # never set, or only as "${VAR:-…}": the environment's folder
    earlier = [a for a in writes if a[0] < index]
    if len(writes) == 1 and earlier and earlier[0][2] is not None:
        return earlier[0][2].rstrip("/") + "/" + ref[head.end():], False
    return ref, False


def _used_later(name: str, lines: list[str]) -> bool:
    use = re.compile(rf"\$\{{?{re.escape(name)}\b")
    return any(use.search(line) and not _PRINTS.match(line) for line in lines)


def _passed_on(lines: str, branch: Branch, before: int = 1 << 30, sourced: bool = False) -> Branch:
    """``branch`` with what the file's lines before index ``before`` leave a file it then starts:
    exported top-level ``NAME=literal`` or ``NAME=$OTHER`` / ``${OTHER:-x}`` of a variable the
    branch knows (a sourced file sees unexported ones too); any other write of the name before
    that line (in a block or function, a command substitution, ``unset``, ``read``, …) leaves it
    unknown to the child."""
    assigned = [a for a in _top_assignments(lines) if a[0] < before]
    if not assigned:
        return branch
    known = dict(branch.row)
    inherited = set(known)  # the file's environment: exported already, reassigned or not
    for _, name, literal, other, exported, modelled in assigned:
        passes = modelled and (exported or sourced or name in inherited)
        if passes and other is not None and other in known:
            known[name] = known[other]
        elif passes and literal is not None:
            known[name] = literal
        else:
            known.pop(name, None)  # set to something the graph cannot know here
    row = tuple(sorted(known.items()))
    return branch if row == branch.row else Branch(branch.eval_only, branch.spec, row)


@functools.lru_cache(maxsize=1024)
def _top_assignments(lines: str) -> tuple[tuple[int, str, str | None, str | None, bool, bool], ...]:
    """(line index, name, literal value or None, the variable it copies or None, exported,
    modelled) of every write of a shell variable in a file, in order; modelled: a plain top-level
    assignment (outside conditionals, loops and functions) of a literal or one variable."""
    found: list[tuple[int, str, str | None, str | None, bool, bool]] = []
    depth = 0
    exported: set[str] = set()
    for index, line in enumerate(lines.splitlines()):
        text = line.strip()
        if text.startswith("#"):
            continue
        if _CLOSES.match(text):
            depth = max(depth - 1, 0)
        elif _OPENS.match(text) and not _ONE_LINE_BLOCK.search(text):
            depth += 1
        match = _TOP_ASSIGN.match(text) if depth == 0 else None
        if match:
            name, value = match.group(1), match.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            ref = _OWN_OR_WHOLE_REF.fullmatch(value)
            value = _ROOTS.sub("", value) if _ROOTS.match(value) else value  # $GITHUB_WORKSPACE/x: x
            literal = value if not any(c in value for c in "$`(\\") else None
            if text.startswith("export"):
                exported.add(name)
            found.append((index, name, literal, (ref.group(1) or ref.group(2)) if ref else None,
                          name in exported, literal is not None or ref is not None))
            continue
        if _PRINTS.match(text):
            continue  # echo "ENGINE=$ENGINE" writes nothing
        written = [n for groups in _WRITES.findall(text) for n in groups if n]
        for name in written + [n for names in _UNSETS.findall(text) for n in names.split()]:
            found.append((index, name, None, None, False, False))
        for name in _EXPORTS.findall(text):
            exported.add(name)
    return tuple(found)


def launch_graph(tree: Tree, key: str, entry: Mapping[str, Any], runners: Any = None,
                 where: str = "master config") -> LaunchGraph:
    """The launch graph of ``key`` (its master-config ``entry``) in ``tree``.

    ``runners``: the parsed runners.yaml (None: none). Raises LaunchGraphError, naming the key,
    when no launcher of its runner exists or a launcher has no script or recipe to run.
    """
    if not isinstance(entry, Mapping):
        raise LaunchGraphError(f"{where} [{key}] is not a mapping")
    label = str(entry.get("runner", ""))
    prefix, precision = str(entry.get("model-prefix", "")), str(entry.get("precision", ""))
    framework, multinode = str(entry.get("framework", "")), bool(entry.get("multinode"))
    files: dict[tuple[str, str], tuple[str, set[Branch]]] = {}

    def add(path: str, role: str, named_by: str, branches: Iterable[Branch]) -> None:
        slot = files.setdefault((path, role), (named_by, set()))
        slot[1].update(branches)

    launchers = _launchers(tree, label, runners)
    if not launchers:
        raise LaunchGraphError(
            f"{where} [{key}]: no launcher for runner {label!r}: add "
            f"{launcher_path(runner_names(label, runners)[0])}", no_launcher=True)
    all_branches: set[Branch] = set()
    runs: dict[Run, None] = {}
    external: dict[str, None] = {}
    for launcher in launchers:
        sku = posixpath.basename(launcher)[len("launch_"):].split("-", 1)[0].removesuffix(".sh")
        for kind, lane in lanes(entry) or [("fixed-seq-len", {})]:
            spec = lane_spec(lane)
            agentic = kind == AGENTIC
            exported = exported_variables({**entry, "scenario-type": kind})
            row = tuple(sorted({"FRAMEWORK": framework, "MODEL": str(entry.get("model", "")),
                                "MODEL_PREFIX": prefix, "PRECISION": precision, "SCENARIO_TYPE": kind,
                                "SPEC_DECODING": spec, **exported}.items()))
            lane_branches = [Branch(eval_only=e, spec=spec != "none", row=row) for e in (False, True)]
            all_branches.update(lane_branches)
            add(launcher, LAUNCHER, RUNNERS_PATH, lane_branches)
            settings = dict(m.groups() for s in lane_settings(lane) if (m := _SETTING.match(s)))
            if multinode and "CONFIG_FILE" in settings:
                throughput = recipe_file(settings["CONFIG_FILE"])
                evals = recipe_file(settings.get("EVAL_CONFIG_FILE", settings["CONFIG_FILE"]))
                for path, branch in ((throughput, lane_branches[0]), (evals, lane_branches[1])):
                    if _exists(tree, path):
                        add(path, RECIPE, where, [branch])
                    else:
                        external.setdefault(path, None)
                    runs.setdefault(Run(launcher, kind, spec, branch.eval_only, path), None)
                continue
            candidates = script_candidates(multinode, agentic, prefix, precision, sku, framework, spec)
            script = next((c for c in candidates if _exists(tree, c)), None)
            if script is None:
                if len(launchers) > 1:
                    continue  # another runner of the label serves this row
                raise LaunchGraphError(
                    f"{where} [{key}]: {launcher} finds no benchmark script; add {candidates[0]}")
            add(script, SCRIPT, launcher, lane_branches)
            for branch in lane_branches:
                runs.setdefault(Run(launcher, kind, spec, branch.eval_only, script), None)
    if not external and not any(role in (SCRIPT, RECIPE) for _, role in files):
        raise LaunchGraphError(f"{where} [{key}]: no launcher of runner {label!r} has a script for it")
    # helpers: what launchers, scripts and srt-slurm recipes (their benchmark ``command:``)
    # source or start on each branch, transitively; a file passes on what it assigns at its top level (ENGINE="${FRAMEWORK}") to the files it starts
    queue = [(path, branch) for (path, role), (_, branches) in files.items() if role in (LAUNCHER, SCRIPT, RECIPE)
             for branch in sorted(branches, key=_branch_order)]
    followed: set[tuple[str, Branch]] = set()
    while queue and len(files) < _MAX_FILES:
        path, branch = queue.pop(0)
        if (path, branch) in followed:
            continue
        followed.add((path, branch))
        for ref, folder, loose, child in _followed(path, tree.get(path) or "", branch):
            target = _resolve_ref(ref, path, tree, folder, loose)
            if not target or target == path or any(p == target and role != HELPER for p, role in files):
                continue
            add(target, HELPER, path, [child])
            queue.append((target, child))
    ordered = sorted(files.items(), key=lambda item: (ROLES.index(item[0][1]), item[0][0]))
    return LaunchGraph(
        key,
        tuple(LaunchFile(path, role, named_by, tuple(sorted(b, key=_branch_order)))
              for (path, role), (named_by, b) in ordered),
        tuple(sorted(all_branches, key=_branch_order)), tuple(runs), tuple(external))


def _launchers(tree: Tree, label: str, runners: Any) -> list[str]:
    """The launchers of the runners carrying ``label``; a label runners.yaml does not list
    stands for the runners named after it (``h200-dgxc`` -> ``launch_h200-dgxc[-*].sh``)."""
    found = [_follow_link(tree, launcher_path(n)) for n in runner_names(label, runners)]
    found = [p for p in dict.fromkeys(found) if _exists(tree, p)]
    if found:
        return found
    stem = "runners/launch_" + label.split(":", 1)[-1] + "-"
    return sorted({_follow_link(tree, p) for p in tree
                   if p.startswith(stem) and p.endswith(".sh") and "/" not in p[len("runners/"):]
                   and _exists(tree, p)})


def _branch_order(branch: Branch) -> tuple[bool, bool, tuple[tuple[str, str], ...]]:
    return (branch.eval_only, branch.spec, branch.row)


def graph_lines(graph: LaunchGraph, tree: Tree, eval_only: bool = False) -> list[tuple[LaunchFile, int, str]]:
    """(file, line number, text) of every line the key's rows of that kind run: for each file,
    the lines of any of its branches with ``eval_only`` (throughput by default)."""
    return [(file, number, text) for file in graph.files for number, text in file_lines(file, tree, eval_only)]


def file_lines(file: LaunchFile, tree: Tree, eval_only: bool = False) -> tuple[tuple[int, str], ...]:
    """(line number, text) of the lines of one graph file that any of its branches with
    ``eval_only`` runs, in line order (the same tuple for every config that decides the
    file's conditions alike)."""
    branches = [b for b in file.branches if b.eval_only == eval_only]
    if not branches:
        return ()
    text = tree.get(file.path) or ""
    decided = tuple(dict.fromkeys(_decisions(text, b) for b in branches))
    return _merged_lines(text, decided)


@functools.lru_cache(maxsize=1024)
def _merged_lines(text: str, decided: tuple[tuple[bool | None, ...], ...]) -> tuple[tuple[int, str], ...]:
    if len(decided) == 1:
        return _branch_lines(text, decided[0])
    kept: dict[int, str] = {}
    for decisions in decided:
        kept.update(_branch_lines(text, decisions))
    return tuple((number, kept[number]) for number in sorted(kept))


# --- conditional code -----------------------------------------------------------------------

_IF = re.compile(r"^\s*(?:if|elif)\s+(.*?);?\s*then\s*(?:#.*)?$")
_ELSE = re.compile(r"^\s*else\s*(?:#.*)?$")
_FI = re.compile(r"^\s*fi\s*(?:[;#].*)?$")
_OPEN = re.compile(r"^\s*if\s")
_ATOM = re.compile(r"^!?\s*\"?\$\{?(\w+)(?::-([^}]*))?\}?\"?\s*(==|=|!=|-eq|-ne|-lt|-le|-gt|-ge)\s*"
                   r"(\"[^\"]*\"|'[^']*'|[^\s\"']+)$")
# a test of two written words (``[[ "nomtp" == "mtp" ]]``, ``[ 1 -eq 0 ]``): no expansion on either side
_LITERAL_ATOM = re.compile(r"^!?\s*(\"[^\"$`\\]*\"|'[^']*'|[A-Za-z0-9_.:/+-]+)\s*(==|=|!=|-eq|-ne|-lt|-le|-gt|-ge)\s*"
                           r"(\"[^\"$`\\]*\"|'[^']*'|[A-Za-z0-9_.:/+*?-]+)$")
_EMPTY_TEST = re.compile(r"^!?\s*(-n|-z)\s+\"?\$\{?(\w+)(?::-)?\}?\"?$")
_NUMERIC = {"-eq": operator.eq, "-ne": operator.ne, "-lt": operator.lt, "-le": operator.le,
            "-gt": operator.gt, "-ge": operator.ge}
_JOIN = re.compile(r"\s*(&&|\|\||\s-a\s|\s-o\s)\s*")
# `{ a || b; }` inside a condition: an innermost group (no braces in it but ${…} expansions)
_GROUP = re.compile(r"(?<!\$)\{\s+((?:[^{};]|\$\{[^{}]*\})+?);\s*\}")
_KNOWN = {True: "__infx_true__", False: "__infx_false__", None: "__infx_unknown__"}
_FIXED_STATUS = {"true": True, ":": True, "false": False}
_UNDECIDED_ARM = " undecided"
_CASE_GUARD = re.compile(r"^case\s+(.+?)\s+in\s+(.+)\)$")
_ANY_REF = re.compile(r"\$\{?([A-Za-z_]\w*)")
_WORD_REF = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)")


def decide(condition: str, branch: Branch) -> bool | None:
    """The value of an ``if`` condition on ``branch`` (see ``_decide``); worked out once per
    condition and values of the variables it names."""
    values = branch.values
    known = tuple((name, values.get(name)) for name in _names_in(condition))
    return _decide_known(condition, branch.eval_only, branch.spec, known)


@functools.lru_cache(maxsize=1024)
def _names_in(condition: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_ANY_REF.findall(condition)))


@functools.lru_cache(maxsize=65536)
def _decide_known(condition: str, eval_only: bool, spec: bool,
                  known: tuple[tuple[str, str | None], ...]) -> bool | None:
    return _decide(condition, Branch(eval_only, spec, tuple((n, v) for n, v in known if v is not None)))


def _decide(condition: str, branch: Branch) -> bool | None:
    """The value of an ``if`` condition on ``branch``, or None when it tests anything else.

    Decided: ``[ … ]`` / ``[[ … ]]`` string tests (``=``, ``==``, ``!=``; globs inside
    ``[[ ]]``) and integer tests (``-eq`` … ``-ge``, integers on both sides) of EVAL_ONLY, IS_MTP, SPEC_DECODING and the row's own variables
    (``Branch.row``: MODEL_PREFIX, PRECISION, FRAMEWORK, …), joined by ``&&`` / ``||``
    (left to right, as bash does; ``{ …; }`` groups first); a chain is decided as soon as its
    known parts decide it. A ``case WORD in PATTERNS)`` guard (infx.signoff.rules.scan) holds when
    WORD, its variables known, matches one of the ``|``-separated glob patterns."""
    if condition.endswith(_UNDECIDED_ARM) or re.search(r"(?:&&|\|\||\||\\|\{|!)\s*$", condition):
        return None  # a test that goes on on the next line (`if [ A ] && \\`): not read whole here
    arm = _CASE_GUARD.match(condition.strip())
    if arm:
        return _case_arm(arm.group(1), arm.group(2), branch)
    while (group := _GROUP.search(condition)) is not None:
        inner = _decide(group.group(1), branch)
        condition = condition[:group.start()] + f" {_KNOWN[inner]} " + condition[group.end():]
    glob = "[[" in condition
    parts = [p for p in _JOIN.split(condition.strip()) if p.strip()]
    value: bool | None = None
    op = None
    for index, part in enumerate(parts):
        if index % 2:
            op = part.strip()
            continue
        atom = _test(part, branch, glob)
        if index == 0:
            value = atom
        elif op in ("&&", "-a"):
            value = False if value is False or atom is False else (None if None in (value, atom) else True)
        else:
            value = True if value is True or atom is True else (None if None in (value, atom) else False)
    return value


def case_predicate(word: str, patterns: str, decided: bool = True) -> str:
    """The guard text of one ``case`` arm, ``case WORD in PATTERNS)``, as ``decide`` reads it;
    ``decided=False``: an arm whose pattern does not say when it runs (``decide`` gives None)."""
    return f"case {word} in {patterns})" + ("" if decided else _UNDECIDED_ARM)


def _case_arm(word: str, patterns: str, branch: Branch) -> bool | None:
    if any(p.strip() == "*" for p in patterns.split("|")):
        return True  # the catch-all arm matches any word
    if any(c in patterns for c in "$`\"'\\") or "[^" in patterns:
        return None  # expanded, quoted, escaped or negated as bash reads them, not as fnmatch does
    known: list[bool] = []

    def value(match: re.Match[str]) -> str:
        found = _variable(match.group(1) or match.group(3), branch, match.group(2))
        known.append(found is not None)
        return found or ""

    text = _WORD_REF.sub(value, word)
    if not all(known) or "$" in text or "`" in text:
        return None
    text = text.replace('"', "").replace("'", "")
    return any(fnmatch.fnmatchcase(text, p.strip().strip("\"'")) for p in patterns.split("|"))


def _test(text: str, branch: Branch, glob: bool) -> bool | None:
    """One string test of a condition (its brackets may belong to the whole chain)."""
    token = text.strip()
    if token in _KNOWN.values():
        return next(k for k, v in _KNOWN.items() if v == token)
    if token in _FIXED_STATUS:  # the commands `true` / `:` and `false` (`[ false ]` is a string test)
        return _FIXED_STATUS[token]
    inner = token.lstrip("[").rstrip("]").strip()
    if "(" in inner or "[" in inner or "]" in inner:
        return None
    result = _atom(inner, branch, glob)
    return None if result is None else result != inner.startswith("!")


def _atom(inner: str, branch: Branch, glob: bool) -> bool | None:
    """One test inside its brackets, before a leading ``!`` is applied, or None when not known."""
    unary = _EMPTY_TEST.match(inner)
    if unary and (glob or '"' in inner):  # -n "$X" / -z "$X" ([ -n $X ] with X empty is [ -n ]: true)
        actual = _variable(unary.group(2), branch, None)
        return None if actual is None else (actual != "") == (unary.group(1) == "-n")
    match = _ATOM.match(inner)
    if not match:
        written = _LITERAL_ATOM.match(inner)
        if not written:
            return None
        actual, op, value = written.groups()
        return _compare(actual.strip("\"'") if actual[:1] in "\"'" else actual, op, value, glob)
    name, default, op, value = match.groups()
    actual = _variable(name, branch, default)
    return None if actual is None else _compare(actual, op, value, glob)


def _compare(actual: str, op: str, value: str, glob: bool) -> bool | None:
    """``actual OP value`` as the test reads it (``value`` as written: quoted or not), or None."""
    quoted = value[:1] in "\"'"
    value = value.strip("\"'") if quoted else value
    if "$" in value or "`" in value:
        return None  # the right side is another variable or a command: not known here
    if op in _NUMERIC:
        left, right = _test_integer(actual, glob), _test_integer(value, glob)
        if left is None or right is None:
            return None
        return _NUMERIC[op](left, right)
    equal = fnmatch.fnmatchcase(actual, value) if glob and not quoted else actual == value
    return equal == (op != "!=")


def _test_integer(text: str, arithmetic: bool) -> int | None:
    """An operand of ``-eq`` … ``-ge`` as bash reads it, or None when not sure: ASCII decimal
    digits within 64 bits; inside ``[[ ]]`` (``arithmetic``) a leading zero means octal and
    other forms are expressions, so only a plain decimal without one is read there."""
    text = text.strip(" \t\n")
    if not re.fullmatch(r"-?[0-9]+", text) or (arithmetic and re.fullmatch(r"-?0[0-9]+", text)):
        return None
    number = int(text)
    return number if -(2 ** 63) <= number < 2 ** 63 else None


def _variable(name: str, branch: Branch, default: str | None) -> str | None:
    if name == "EVAL_ONLY":
        return "true" if branch.eval_only else "false"
    if name == "IS_MTP":
        return "true" if branch.spec else "false"
    row = branch.values
    if name == "SPEC_DECODING":
        return row.get(name, "mtp" if branch.spec else "none")
    return row.get(name)


def branch_lines(text: str, branch: Branch) -> list[tuple[int, str]]:
    """(line number, text) of the lines ``branch`` runs: decidable ``if`` blocks keep only the
    side taken (their ``if``/``else``/``fi`` lines included), undecidable ones keep all.
    Worked out once per file and decisions of its conditions: the configs launched through one
    helper mostly decide its conditions alike."""
    return list(_branch_lines(text, _decisions(text, branch)))


# if/else forms _branch_lines does not follow (it reads `if …; then`, `elif …; then`, `else` and
# `fi` lines, whole one-line ifs, and the forms below): a control word after `;`, `then X`
_UNFOLLOWED_IF = re.compile(r";\s*(?:then\s+[^\s#]|else|elif|fi)\b|^\s*then\s+[^\s#]")
# an `if`/`elif` whose `then` is on a later line or followed by commands (not Python's `if x:`),
# and an `else` followed by a command: _branch_lines keeps both arms of such an `if`
_OPEN_UNDECIDED = re.compile(r"^\s*(if|elif)\s(?!.*:\s*$)(?!\s*\((?!\())")
_ELSE_COMMAND = re.compile(r"^\s*else\s+(?!if\s*\()[^\s:#{]")
_WHOLE_IF = re.compile(r"^\s*if\s.*;\s*then\s.*\bfi\s*;?\s*$")


@functools.lru_cache(maxsize=1024)
def _unfollowed(text: str) -> bool:
    """Whether a file has an if/else form ``_branch_lines`` would misplace its arms in: then no
    condition of it is decided (every line is kept)."""
    for raw in text.splitlines():
        line = re.sub(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'", '""', raw)
        line = re.sub(r"(?:^|\s)#.*$", "", line)
        if not _UNFOLLOWED_IF.search(line) or _IF.match(line) or _ELSE.match(line) or (
                _FI.match(line) and not re.search(r";\s*(?:then|else|elif|fi)\b", line)):
            continue
        whole = _WHOLE_IF.match(line)
        if whole and len(re.findall(r"\bif\b", line)) == len(re.findall(r"\bfi\b", line)):
            continue
        return True
    return False


def _decisions(text: str, branch: Branch) -> tuple[bool | None, ...]:
    """``branch``'s decision of each ``if``/``elif`` condition of a file (``_conditions``); a
    condition on a variable the branch gives a value (``_variable``) that the file may write
    before testing it is left undecided: the file's value is tested, not the branch's; none is
    decided in a file whose if/else forms are not followed (``_unfollowed``)."""
    if _unfollowed(text):
        return (None,) * len(_conditions(text))
    writes = writes_in_order(text)
    out = []
    for condition, number in zip(_conditions(text), _condition_lines(text), strict=True):
        rewritten = False
        for name in _names_in(condition):
            value = _variable(name, branch, None)
            if value is None or name not in writes:
                continue
            numbers, defaulting = writes[name]
            earlier = bisect.bisect_right(numbers, number)  # the writes at or before the condition
            # written before the test: the file's value is tested, unless every such write only
            # defaults the name (``NAME="${NAME:-x}"``) and the branch gives it a non-empty value
            if earlier and (not all(defaulting[:earlier]) or value == ""):
                rewritten = True
                break
        out.append(None if rewritten else decide(condition, branch))
    return tuple(out)


_DEFAULTS_ITSELF = re.compile(r"^\s*(?:(?:export|local|readonly)\s+)?([A-Za-z_]\w*)=([\"']?)"
                              r"\$\{([A-Za-z_]\w*):-[^}$`\"'\\]*\}\2\s*;?\s*$")


def defaults_itself(line: str, name: str) -> bool:
    """Whether a shell line is ``name="${name:-literal}"`` (export/local/readonly too): it keeps
    what the environment gives the name, when that is not empty."""
    match = _DEFAULTS_ITSELF.match(line)
    return match is not None and match.group(1) == name == match.group(3)


@functools.lru_cache(maxsize=1024)
def writes_in_order(text: str) -> dict[str, tuple[list[int], list[bool]]]:
    """Per name the file may write (shell_writes): the lines that write it, in order, and for
    each whether it only defaults the name (``NAME="${NAME:-x}"``, ``defaults_itself``)."""
    lines = text.splitlines()
    out = {}
    for name, numbers in shell_writes(text).items():
        ordered = sorted(numbers)
        out[name] = (ordered, [n <= len(lines) and defaults_itself(lines[n - 1], name) for n in ordered])
    return out


@functools.lru_cache(maxsize=1024)
def _condition_lines(text: str) -> tuple[int, ...]:
    """The line number of every ``if``/``elif`` line, in line order (``_conditions``'s lines)."""
    return tuple(number for number, line in enumerate(text.splitlines(), 1) if _IF.match(line))


@functools.lru_cache(maxsize=1024)
def _conditions(text: str) -> tuple[str, ...]:
    """The condition of every ``if``/``elif`` line, in line order."""
    return tuple(m.group(1) for line in text.splitlines() if (m := _IF.match(line)))


@functools.lru_cache(maxsize=1024)
def _branch_lines(text: str, decisions: tuple[bool | None, ...]) -> tuple[tuple[int, str], ...]:
    out: list[tuple[int, str]] = []
    taken = iter(decisions)
    # one frame per open `if`: [a side was surely taken, this side runs, the `if` itself runs]
    stack: list[list[bool]] = []
    active = True
    for number, line in enumerate(text.splitlines(), 1):
        cond = _IF.match(line)
        if cond and (_OPEN.match(line) or not stack):
            value = next(taken)
            stack.append([value is True, active and value is not False, active])
            out += [(number, line)] if active else []
            active = stack[-1][1]
            continue
        undecided = None if cond or _WHOLE_IF.match(line) else _OPEN_UNDECIDED.match(line)
        if undecided and undecided.group(1) == "if":  # its test is not read: both arms kept
            stack.append([False, active, active])
            out += [(number, line)] if active else []
            continue
        if cond or ((_ELSE.match(line) or _ELSE_COMMAND.match(line) or undecided) and stack):
            frame = stack[-1]
            value = next(taken) if cond else None if undecided else True
            frame[1] = frame[2] and not frame[0] and value is not False
            frame[0] = frame[0] or value is True
            active = frame[1]
            out += [(number, line)] if frame[2] else []
            continue
        if _FI.match(line) and stack:
            frame = stack.pop()
            active = frame[2]
            if active:
                out.append((number, line))
            continue
        if active:
            out.append((number, line))
    return tuple(out)
