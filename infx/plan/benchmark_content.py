"""Benchmark-affecting content of a PR (PRODUCT §4.8 Drift) and where two of its trees differ in it.

What a sweep's results depend on: the PR's own changelog entries, the master-config blocks
the PR affects (images and every serving setting live there), those configs' recipe files,
and everything a sweep job may execute from the PR's checkout (`executed_paths`). The sweep
job checks out the whole PR tree and runs its launcher (runners/launch_<runner>.sh), which
runs the recipe scripts, which source, run and import whatever they like: the reference's
benchmark library runs `utils/bench_serving/`, `utils/evals/`, and more, by globs, folder
changes and built paths no word test can follow. So every program and data file of the
checkout is executed content; only `NEUTRAL_PATH` is not — documents, images, workflow files
(provenance holds the sweep's own) and repository settings — unless a running line of a
program names one (`bash docs/setup.md`, a C `#include`). In infx's own repository its
package, build file and workflow lock are neutral too: the sweep workflows install and run the
default branch's infx with PYTHONSAFEPATH (`TOOL_PATH`). Two trees of the same PR (the swept or
reused commit and the head, or the head a reuse command was posted on and the head now) are
compared against the PR's base tree, so a plain merge of the default branch (other PRs'
changelog entries and configs) and `pr-link` canonicalisation are neutral; so is an executed
file the PR changes at neither commit (`own`: each commit's compare with the default branch),
which the merge brought in.

Pure: trees are path -> text mappings (None = deleted); nothing here reads GitHub or git.
Shared by the planner (fingerprints), the reuse resolver (authorization binding) and the
sign-off bot (drift).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from functools import lru_cache
from typing import Any

from infx import yamlio
from infx.changelog.merge_prep import entry_signature
from infx.config.keys import KeyResolutionError, Wildcards, resolve_config_keys
from infx.errors import InfxError

Tree = Mapping[str, "str | None"]

CHANGELOG = "perf-changelog.yaml"
# a master config, at the root or one folder down (a monorepo's e.g. inferencex-e2e/)
MASTER_PATH = re.compile(r"^(?:[^/]+/)?configs/[^/]+-master\.yaml$")
RECIPE_PATH = re.compile(r"^(?:[^/]+/)?configs/recipes/([^/]+)\.yaml$")
# where the launchers and recipe scripts live: the launcher `infx.workflow.launch` runs
# (runners/launch_<runner>.sh) and the scripts it runs in the row's image (the launch graph
# starts here; what they run from elsewhere is executed content too: executed_paths)
LAUNCH_PATH = re.compile(r"^(?:[^/]+/)?(?:benchmarks|runners)/")
# GitHub's workflow files and local actions' metadata: no sweep job runs them from the PR's
# checkout (the sweep's own are held to the default branch's by provenance, and a run of any
# other one is no sweep evidence); the scripts beside them are programs like any other
WORKFLOW_PATH = re.compile(r"^\.github/(?:workflows/[^/]+|actions/.+/action)\.ya?ml$")
# documents, images and repository settings: neutral unless a program runs one
# (executed_paths); everything else of the checkout is a program a sweep job may run
DOCUMENT = re.compile(r"(?:^|/)(?:[^/]*\.(?:md|markdown|rst|adoc|png|jpe?g|gif|svg|webp|ico|pdf)"
                      r"|(?:LICEN[CS]E|NOTICE|COPYING)(?:\.(?:md|txt|rst))?|CODEOWNERS|\.gitignore"
                      r"|\.gitattributes|\.gitkeep|\.editorconfig)$", re.IGNORECASE)
NEUTRAL_PATH = re.compile(f"{WORKFLOW_PATH.pattern}|{DOCUMENT.pattern}", re.IGNORECASE)
# infx's own package, build file and the lock its workflows install: in infx's own repository
# (the base holds TOOL_MARKER) the sweep workflows install and run the default branch's copy,
# with PYTHONSAFEPATH, so the PR's is data no job runs (issue 20); in any other repository a
# folder of that name is the PR's like any other
TOOL_PATH = re.compile(r"^(?:infx/|pyproject\.toml$|\.github/requirements-workflows\.(?:in|txt)$)")
TOOL_MARKER = "infx/__init__.py"
CHANGELOG_LABEL = f"{CHANGELOG} (this PR's entries)"


class Unreadable(ValueError):
    """A file the comparison needs cannot be parsed: the caller fails closed with this message."""


def _config_path(path: str) -> bool:
    # compared by what they say (entries, blocks, recipes of affected keys), not byte for byte
    return bool(path == CHANGELOG or MASTER_PATH.match(path) or RECIPE_PATH.match(path))


_WORD = re.compile(r"[\w./+${}-]+")
# data a program reads, not a program: what it names is read, never run
_DATA = re.compile(r"\.(?:json|jsonl|ya?ml|toml|cfg|ini|csv|tsv|txt|lock)$", re.IGNORECASE)
# a line that may run (or copy to run, or compile in) a file it names
_RUNS = re.compile(r"(?:^|[\s;&|(`'\"])(?:bash|sh|zsh|dash|ksh|source|\.|exec|eval|python[\d.]*|perl|ruby|node"
                   r"|cp|mv|ln|install|cat|tee|xargs|subprocess|os\.system|runpy|exec_file|chmod|#\s*include"
                   r"|include)(?=[\s(.'\"<]|$)")


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    """The path-like words of a text (``$ROOT/docs/setup.md`` gives ``$ROOT/docs/setup.md``)."""
    return frozenset(word.rstrip(".") for word in _WORD.findall(text))


def _file_name(word: str) -> str:
    # the last part of a path-like word, the file name a neighbour's path must end with
    return word.rsplit("/", 1)[-1]


def _names(word: str, path: str, folder: str) -> bool:
    """Whether a word of a file in ``folder`` names ``path``: from the root or from the file's
    folder, after the last expansion in it (``$ROOT/``, ``${BASH_SOURCE%/*}/../``, which may
    stand for either), ``./`` and ``..`` resolved; an absolute path (``/workspace/docs/x.sh``,
    ``$(dirname "$0")/../docs/x.sh``) by its tail."""
    rest = word
    cut = max(word.rfind("}"), word.rfind("$"))
    if cut >= 0:
        rest = word[cut + 1:]
        if word[cut] == "$":  # $ROOT/docs/x.sh: the variable's name runs to the next "/"
            rest = rest.split("/", 1)[1] if "/" in rest else ""
        rest = rest.lstrip("/")
    elif word.startswith("/"):
        return word.endswith("/" + path)
    return bool(rest) and any(posixpath.normpath(posixpath.join(base, rest)) == path for base in ("", folder))


def _tool_repository(base: Tree | None) -> bool:
    """Whether the trees are of infx's own repository (TOOL_PATH)."""
    return base is not None and base.get(TOOL_MARKER) is not None


def _neutral(path: str, tool: bool) -> bool:
    """Whether no sweep job runs the file unless a program runs it by name (executed_paths)."""
    return NEUTRAL_PATH.search(path) is not None or (tool and TOOL_PATH.match(path) is not None)


def executed_paths(*trees: Tree, base: Tree | None = None) -> set[str]:
    """The files of the trees a sweep job may execute: every file but a neutral one
    (NEUTRAL_PATH: workflow files, documents, images, repository settings), and a document a
    program of the trees runs: a line of it that is not a comment and may run a file (``bash``,
    ``source``, ``python``, ``cp``, ``cat``…) names the document's path (``_names``). Data files
    (JSON, YAML, TOML…) run nothing. Changelog, master configs and recipes are left out of the
    answer (they are compared by what they say). In infx's own repository (``base`` holds
    TOOL_MARKER) its package, build file and workflow lock are neutral too (TOOL_PATH)."""
    present = {p for tree in trees for p, text in tree.items() if text is not None}
    tool = _tool_repository(base)
    executed = {p for p in present if not _neutral(p, tool)}
    documents: dict[str, list[str]] = {}
    for path in present - executed:
        if DOCUMENT.search(path) and not (tool and TOOL_PATH.match(path)):
            documents.setdefault(_file_name(path), []).append(path)
    if documents:
        for path in sorted(executed):
            if _DATA.search(path):
                continue
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            for text in {tree.get(path) for tree in trees}:
                if text is None or not any(_file_name(w) in documents for w in _words(text)):
                    continue
                executed |= _run_documents(text, path, folder, documents)
    return {p for p in executed if not _config_path(p)}


def _run_documents(text: str, path: str, folder: str, documents: dict[str, list[str]]) -> set[str]:
    """The documents the program's running lines name (``executed_paths``)."""
    comment = "//" if re.search(r"\.(?:c|cc|cpp|cxx|cu|cuh|h|hpp|js|ts|go|rs)$", path) else "#"
    found: set[str] = set()
    for line in text.splitlines():
        if line.lstrip().startswith(comment) or not _RUNS.search(line):
            continue
        for word in _WORD.findall(line):
            for target in documents.get(_file_name(word.rstrip(".")), ()):
                if _names(word.rstrip("."), target, folder):
                    found.add(target)
    return found


def load_tree_file(path: str, text: str) -> Any:
    """One YAML file of a tree parsed once per process (the trees compared share most of
    their files, and the sign-off's checks and the planner read the same master configs:
    infx.yamlio.load_shared): raises InfxError on bad YAML. Treat the result as read-only."""
    return yamlio.load_shared(text, path)





def _blocks(tree: Tree) -> dict[str, tuple[str, Any]]:
    """config key -> (master path, block) over every master config of the tree."""
    blocks: dict[str, tuple[str, Any]] = {}
    for path in sorted(tree):
        text = tree[path]
        if text is None or not MASTER_PATH.match(path):
            continue
        try:
            data = load_tree_file(path, text)
        except InfxError as exc:
            raise Unreadable(f"{path} cannot be parsed: {str(exc).splitlines()[0]}") from exc
        if not isinstance(data, dict):
            raise Unreadable(f"{path} is not a mapping of config keys")
        for key, block in data.items():
            blocks[str(key)] = (path, block)
    return blocks


def master_blocks(tree: Tree) -> dict[str, tuple[str, Any]]:
    """config key -> (master path, block) over every master config of the tree (Unreadable if not)."""
    return _blocks(tree)


def _entries(tree: Tree) -> list[dict]:
    text = tree.get(CHANGELOG)
    if text is None:
        return []
    try:
        data = load_tree_file(CHANGELOG, text)
    except InfxError as exc:
        raise Unreadable(f"{CHANGELOG} cannot be parsed: {str(exc).splitlines()[0]}") from exc
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise Unreadable(f"{CHANGELOG} is not a list of entries")
    return data


def pr_entries(tree: Tree, base: Tree) -> list[dict]:
    """The changelog entries the tree has beyond the base (the PR's own), links ignored."""
    extra = Counter(entry_signature(e) for e in _entries(tree))
    extra.subtract(entry_signature(e) for e in _entries(base))
    mine = {entry_signature(e): e for e in _entries(tree)}
    return [mine[sig] for sig in sorted(extra) for _ in range(max(0, extra[sig]))]


def named_keys(entries: Iterable[dict], keys: list[str]) -> set[str]:
    """The config keys the entries name (wildcards resolved; a pattern naming none is kept)."""
    named: set[str] = set()
    for entry in entries:
        patterns = [str(p) for p in entry.get("config-keys") or [] if isinstance(p, str)]
        try:  # a list resolves to the union of its patterns' keys when each names some
            named.update(resolve_config_keys(patterns, keys, Wildcards.STAR))
            continue
        except KeyResolutionError:
            pass
        for pattern in patterns:
            try:
                named.update(resolve_config_keys([pattern], keys, Wildcards.STAR))
            except KeyResolutionError:
                named.add(pattern)  # names nothing here: compared as absent on both sides
    return named


def affected_keys(tree: Tree, base: Tree) -> set[str]:
    """Config keys the PR benchmarks in this tree: named by its changelog entries, or whose
    master block or recipe differs from the base."""
    blocks, base_blocks = _blocks(tree), _blocks(base)
    keys = named_keys(pr_entries(tree, base), list(blocks))
    keys |= {k for k, (_, block) in blocks.items() if base_blocks.get(k, (None, None))[1] != block}
    for path in set(tree) | set(base):
        # a recipe added, edited or deleted (None or absent) by the PR: its key runs differently
        match = RECIPE_PATH.match(path)
        if match and tree.get(path) != base.get(path):
            keys.add(match.group(1))
    return keys


# GitHub's compare lists at most this many files: a longer list is not known to be whole
COMPARE_FILE_LIMIT = 300


def own_paths(*compared: Collection[str] | None, listed: Collection[str] | None = ()) -> frozenset[str] | None:
    """The paths a PR itself changes at some of its commits: from each commit's three-dot
    compare with the default branch (``compared``) and from the PR's own file list for its head
    (``listed``, read whole). None when one is not known, or a compare is as long as GitHub
    lists (it may have been cut)."""
    if listed is None or any(paths is None or len(paths) >= COMPARE_FILE_LIMIT for paths in compared):
        return None
    return frozenset(p for paths in (*compared, listed) for p in paths or ())


def differences(before: Tree, after: Tree, base: Tree, own: Collection[str] | None = None) -> list[str]:
    """What benchmark-affecting content differs between two trees of one PR ([] = identical).

    Each item names a file, or a master config and key ("configs/amd-master.yaml [key]").
    ``own`` (own_paths) are the files the PR itself changes at either tree: an executed file
    that neither changes and that differs is the default branch's change a merge brought in,
    benchmark-neutral like the other PRs' configs and entries; None (not known): every
    executed file that differs counts.
    Raises Unreadable when a master config or the changelog of any tree cannot be parsed.
    """
    found: list[str] = []
    if sorted(map(entry_signature, pr_entries(before, base))) != \
            sorted(map(entry_signature, pr_entries(after, base))):
        found.append(CHANGELOG_LABEL)
    old, new = _blocks(before), _blocks(after)
    # `base` is the PR's base now; `before` may predate a merge of the default branch, so its
    # own block and recipe differences from `base` are not the PR's: only its entries count
    keys = affected_keys(after, base) | named_keys(pr_entries(before, base), list(old))
    recipes: set[str] = set()
    for key in sorted(keys):
        if old.get(key, (None, None))[1] != new.get(key, (None, None))[1]:
            path = (new.get(key) or old.get(key) or ("master config", None))[0]
            found.append(f"{path} [{key}]")
        recipes |= {p for p in set(before) | set(after)
                    if (m := RECIPE_PATH.match(p)) and m.group(1) == key}
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p) and not _config_path(p)
               and (own is None or p in own)}
    executed: set[str] = set()
    if changed:
        tool = _tool_repository(base)
        executed = {p for p in changed if not _neutral(p, tool)}
        if changed - executed:  # a neutral file changed: executed if an executed one names it
            executed = changed & executed_paths(before, after, base=base)
    found += sorted(p for p in recipes if before.get(p) != after.get(p))
    found += sorted(executed)
    return found
