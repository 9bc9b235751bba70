"""Provenance of sweep evidence (PRODUCT §4.8): which workflow runs may count as our own sweep.

A run counts only when GitHub's own run record says it is a run of our sweep workflow
(`run-sweep.yml`) for a `pull_request` (or the merge-time `push` to the default branch) whose
head commit lives in this repository, and when the sweep workflow files at the run's commit
(run-sweep.yml and every local workflow or action it calls, found from the default branch's
copy) are byte-identical to the default branch's, and so is the code the sweep's jobs install
and run from their checkout (`infx.benchmark_content.SWEEP_CODE`: `infx/`, the build files,
the workflows' requirements lock), the default branch's or the PR base's (a commit of the
default branch as well). Everything a PR controls — check-run names,
details URLs, a workflow it adds or edits, a fork's head — is therefore never enough.

Pure: reads the evidence only (run records, trees); the gatherer reads what this needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from infx import yamlio
from infx.benchmark_content import SWEEP_CODE
from infx.changelog.incremental import plan_tree_path
from infx.errors import InfxError
from infx.reuse.sources import DEFAULT_WORKFLOW, workflow_path
from infx.signoff.model import Evidence, WorkflowRun

SWEEP_WORKFLOW = workflow_path(DEFAULT_WORKFLOW)  # .github/workflows/run-sweep.yml
MAX_CALLED_FILES = 20  # local workflows/actions followed from run-sweep.yml (a cycle or a fan-out stops here)


def origin_problem(run: WorkflowRun, repo: str, default_branch: str) -> str | None:
    """Why GitHub's record of a run says it is not our sweep, or None: the workflow file,
    the event, and where its head commit lives (a fork's runs never count)."""
    path = (run.path or "").split("@", 1)[0]
    if path != SWEEP_WORKFLOW:
        return f"it is a run of {path or 'an unnamed workflow'}, not {SWEEP_WORKFLOW}"
    if run.event == "push":
        if run.head_branch != default_branch:
            return (f"it was started by a push to {run.head_branch or 'an unknown branch'}, not the "
                    f"merge-time push to {default_branch}")
    elif run.event != "pull_request":
        return f"it was started by a {run.event or 'an unknown'} event, not pull_request or push"
    if not run.head_repo:
        return "its head repository is not recorded, so it cannot be shown to be this repository"
    if run.head_repo.lower() != repo.lower():
        return f"its head commit comes from {run.head_repo}, not {repo} (a fork's runs never count)"
    return None


def _calls(data: Any) -> list[str]:
    """Every local `uses: ./…` in a parsed workflow (job-level reusable workflows and step actions)."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "uses" and isinstance(value, str) and value.startswith("./"):
                found.append(value[2:].split("@", 1)[0].rstrip("/"))
            else:
                found += _calls(value)
    elif isinstance(data, list):
        for item in data:
            found += _calls(item)
    return found


def _file_of(call: str, tree: dict[str, str | None]) -> str:
    """The file a local `uses:` names: a workflow file, or a local action's action.yml/.yaml."""
    if call.endswith((".yml", ".yaml")):
        return call
    return next((f"{call}/{name}" for name in ("action.yml", "action.yaml")
                 if tree.get(f"{call}/{name}") is not None), f"{call}/action.yml")


def sweep_files(default_tree: dict[str, str | None]) -> tuple[str, ...]:
    """run-sweep.yml and the local workflows and actions it calls (transitively), as the
    default branch has them. Raises InfxError when the default branch has no sweep workflow
    or one of them cannot be parsed (then no run can be shown to be ours)."""
    if default_tree.get(SWEEP_WORKFLOW) is None:
        raise InfxError(f"the default branch has no {SWEEP_WORKFLOW}, so no run can be shown to "
                        "come from our sweep workflow")
    files: list[str] = []
    queue = [SWEEP_WORKFLOW]
    while queue:
        path = _file_of(queue.pop(0), default_tree)
        if path in files:
            continue
        if len(files) == MAX_CALLED_FILES:
            raise InfxError(f"the default branch's {SWEEP_WORKFLOW} calls more than "
                            f"{MAX_CALLED_FILES} local workflows and actions; they cannot all be compared")
        files.append(path)
        text = default_tree.get(path)
        if text is None:
            continue  # compared as absent on both sides
        try:
            queue += _calls(yamlio.load_text(text, path))
        except InfxError as exc:
            raise InfxError(f"the default branch's {path} cannot be parsed "
                            f"({str(exc).splitlines()[0]})") from None
    return tuple(files)


def swept_commit_paths(default_tree: dict[str, str | None]) -> Callable[[str], bool]:
    """The files of a swept (or reused) commit the checks read, so its tarball keeps only
    them: the benchmark-affecting content and runner config (drift, fingerprints, the eval
    image) and the sweep workflow files the default branch names (this module's
    comparison). When the default branch's sweep workflow cannot be followed no run counts
    (``run_problem`` says why), so no workflow file is needed."""
    try:
        workflow = frozenset(sweep_files(default_tree))
    except InfxError:
        workflow = frozenset()
    return lambda path: plan_tree_path(path) or path in workflow


def workflow_files_problem(run_tree: dict[str, str | None], default_tree: dict[str, str | None],
                           commit: str, base_tree: dict[str, str | None] | None = None) -> str | None:
    """Which sweep workflow files at the run's commit differ from the default branch's, or
    which sweep code (SWEEP_CODE) differs from both the default branch's and the base's."""
    try:
        files = sweep_files(default_tree)
    except InfxError as exc:
        return str(exc)
    changed = [path for path in files if run_tree.get(path) != default_tree.get(path)]
    if changed:
        return (f"its commit {commit[:8]} has sweep workflow files that differ from the default "
                f"branch's ({', '.join(changed)})")
    code = sorted(path for path in set(run_tree) | set(default_tree) if SWEEP_CODE.match(path)
                  and run_tree.get(path) != default_tree.get(path)
                  and (base_tree is None or run_tree.get(path) != base_tree.get(path)))
    if code:
        shown = ", ".join(code[:5]) + (f" and {len(code) - 5} more" if len(code) > 5 else "")
        return (f"its commit {commit[:8]} ran sweep code (the infx package, build files or "
                f"requirements lock its jobs install from the checkout) that differs from the "
                f"default branch's ({shown}), so its results were not made by our code")
    return None


def tree_of(evidence: Evidence, sha: str) -> dict[str, str | None] | None:
    """The files of a commit the evidence holds (the head's, or one read for a sweep)."""
    if sha == evidence.pr.head_sha and evidence.head_files:
        return evidence.head_files
    return evidence.commit_files.get(sha)


def run_problem(evidence: Evidence, run_id: int) -> str | None:
    """Why a run does not count as our sweep (its record, its origin, its workflow files)."""
    run = evidence.workflow_runs.get(run_id)
    if run is None:
        return "GitHub's record of the run could not be read"
    problem = origin_problem(run, evidence.repo, evidence.default_branch)
    if problem is not None:
        return problem
    tree = tree_of(evidence, run.head_sha)
    if tree is None:
        return f"the sweep workflow files at its commit {run.head_sha[:8]} could not be read"
    return workflow_files_problem(tree, evidence.default_branch_files, run.head_sha,
                                  evidence.base_files or None)
