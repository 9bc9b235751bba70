"""Provenance of sweep evidence: only runs of our unmodified sweep workflow on this repository."""

from __future__ import annotations

import pytest

from infx.errors import InfxError
from infx.signoff.model import WorkflowRun
from infx.signoff.rules import provenance
from infx.signoff.rules.provenance import SWEEP_WORKFLOW, origin_problem, sweep_files
from infx.trust import BranchPulls
from infx.trust import files_problem as workflow_files_problem

SHA = "a" * 40
SWEEP = """name: Run Sweep
on: pull_request
jobs:
  agentic:
    uses: ./.github/workflows/benchmark-tmpl.yml
  eval:
    uses: ./.github/workflows/benchmark-tmpl.yml
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd
      - uses: ./.github/actions/setup
"""
TEMPLATE = "on: workflow_call\njobs:\n  run:\n    runs-on: x\n    steps:\n      - uses: ./.github/actions/launch/\n"
DEFAULT = {SWEEP_WORKFLOW: SWEEP, ".github/workflows/benchmark-tmpl.yml": TEMPLATE,
           ".github/actions/setup/action.yaml": "runs: {using: composite, steps: []}\n",
           ".github/actions/launch/action.yml": "runs: {using: composite, steps: []}\n",
           "README.md": "x\n"}


def run(**changes) -> WorkflowRun:
    fields = dict(id=1, name="Run Sweep", path=SWEEP_WORKFLOW, event="pull_request", status="completed",
                  conclusion="success", head_sha=SHA, head_branch="feature", head_repo="Org/Repo")
    return WorkflowRun(**(fields | changes))


def test_our_sweep_for_a_pull_request_from_this_repository_counts() -> None:
    assert origin_problem(run(), "org/repo", "main") is None  # owner/name compared case-insensitively
    assert origin_problem(run(path=SWEEP_WORKFLOW + "@refs/pull/3/merge"), "Org/Repo", "main") is None
    assert origin_problem(run(event="push", head_branch="main"), "Org/Repo", "main") is None


@pytest.mark.parametrize("changes, why", [
    ({"head_repo": "mallory/Repo"}, "comes from mallory/Repo, not Org/Repo (a fork's runs never count)"),
    ({"head_repo": None}, "head repository is not recorded"),
    ({"path": ".github/workflows/ci.yml"}, "a run of .github/workflows/ci.yml, not"),
    ({"path": None}, "a run of an unnamed workflow"),
    ({"path": "evil/.github/workflows/run-sweep.yml"}, "a run of evil/"),
    # a dispatch counts only as a fork sweep: on the default branch, its title pinning a head
    ({"event": "workflow_dispatch"}, "dispatched on feature, not on main"),
    ({"event": "workflow_dispatch", "head_branch": "main"}, "a dispatch whose title pins no PR head"),
    ({"event": "pull_request_target"}, "a pull_request_target event"),
    ({"event": ""}, "an unknown event"),
    ({"event": "push"}, "a push to feature, not the merge-time push to main"),
])
def test_other_workflows_events_and_forks_never_count(changes, why) -> None:
    problem = origin_problem(run(**changes), "Org/Repo", "main")
    assert problem is not None and why in problem


def test_sweep_files_follow_local_workflows_and_actions() -> None:
    assert sweep_files(DEFAULT) == (SWEEP_WORKFLOW, ".github/workflows/benchmark-tmpl.yml",
                                    ".github/actions/setup/action.yaml",
                                    ".github/actions/launch/action.yml")


def test_a_missing_or_unparsable_default_workflow_rules_out_every_run() -> None:
    with pytest.raises(InfxError, match="default branch has no .github/workflows/run-sweep.yml"):
        sweep_files({"README.md": "x\n"})
    broken = DEFAULT | {".github/workflows/benchmark-tmpl.yml": "jobs: [\n"}
    with pytest.raises(InfxError, match="benchmark-tmpl.yml cannot be parsed"):
        sweep_files(broken)
    assert "default branch has no" in workflow_files_problem(DEFAULT, {}, SHA)


def test_a_cycle_ends_and_a_fan_out_is_refused() -> None:
    cyclic = {SWEEP_WORKFLOW: "jobs:\n  a:\n    uses: ./.github/workflows/run-sweep.yml\n"}
    assert sweep_files(cyclic) == (SWEEP_WORKFLOW,)
    many = "jobs:\n" + "".join(f"  j{i}:\n    uses: ./.github/workflows/t{i}.yml\n" for i in range(25))
    with pytest.raises(InfxError, match="more than 20 local workflows"):
        sweep_files({SWEEP_WORKFLOW: many})


@pytest.mark.parametrize("path", [SWEEP_WORKFLOW, ".github/workflows/benchmark-tmpl.yml",
                                  ".github/actions/launch/action.yml"])
def test_any_changed_or_deleted_sweep_file_at_the_runs_commit_is_named(path) -> None:
    assert workflow_files_problem(dict(DEFAULT), DEFAULT, SHA) is None
    assert workflow_files_problem(DEFAULT | {"README.md": "changed\n"}, DEFAULT, SHA) is None
    edited = DEFAULT | {path: DEFAULT[path] + "# edited\n"}
    assert workflow_files_problem(edited, DEFAULT, SHA) == (
        f"its commit {SHA[:8]} has sweep workflow files that differ from the default branch's ({path})")
    deleted = {k: v for k, v in DEFAULT.items() if k != path}
    assert path in workflow_files_problem(deleted, DEFAULT, SHA)


def test_run_problem_needs_the_record_and_the_tree_of_the_runs_commit() -> None:
    from lib.signoff_policy_support import bare_evidence

    evidence = bare_evidence(head_sha="b" * 40, default_branch_files=dict(DEFAULT))
    assert provenance.run_problem(evidence, 1) == "GitHub's record of the run could not be read"
    evidence.workflow_runs[1] = run(head_repo="o/r")
    assert "could not be read" in provenance.run_problem(evidence, 1)
    evidence.commit_files[SHA] = dict(DEFAULT)
    # a pull_request run must also be shown to have run for a PR into main (infx.trust.base_problem)
    assert "which base's workflow files it ran is unknown" in provenance.run_problem(evidence, 1)
    evidence.branch_pulls = BranchPulls("feature", (), ())
    assert "created is not recorded" in provenance.run_problem(evidence, 1)
    evidence.workflow_runs[1] = run(head_repo="o/r", created_at="2026-09-23T13:00:00Z")
    assert provenance.run_problem(evidence, 1) is None
    evidence.branch_pulls = BranchPulls("feature", ((9, "scratch", "2026-09-23T12:00:00Z", None),), ())
    assert "PR #9 from the same branch into scratch" in provenance.run_problem(evidence, 1)
    evidence.branch_pulls = BranchPulls("feature", (), ())
    evidence.workflow_runs[2] = run(id=2, head_sha="b" * 40, head_repo="o/r", created_at="2026-09-23T13:00:00Z")
    evidence.head_files = DEFAULT | {SWEEP_WORKFLOW: "name: mine\n"}
    assert "differ from the default branch's" in provenance.run_problem(evidence, 2)


def test_called_files_are_found_by_their_spelling() -> None:
    """A reusable workflow may end in .yaml; a local action is its action.yml (GitHub reads
    that one when both spellings exist) or else its action.yaml; a ref after `@` is no part
    of the path."""
    sweep = ("jobs:\n  a:\n    uses: ./.github/workflows/tmpl.yaml\n  b:\n    runs-on: x\n    steps:\n"
             "      - uses: ./.github/actions/both@v1\n      - uses: ./.github/actions/only-yaml/\n")
    tree = {SWEEP_WORKFLOW: sweep, ".github/workflows/tmpl.yaml": "on: workflow_call\n",
            ".github/actions/both/action.yml": "runs: {using: composite, steps: []}\n",
            ".github/actions/both/action.yaml": "name: unused\n",
            ".github/actions/only-yaml/action.yaml": "runs: {using: composite, steps: []}\n"}
    assert sweep_files(tree) == (SWEEP_WORKFLOW, ".github/workflows/tmpl.yaml",
                                 ".github/actions/both/action.yml", ".github/actions/only-yaml/action.yaml")


CODE = {"infx/workflow/collect.py": "def collect(): ...\n", "pyproject.toml": "[project]\n",
        ".github/requirements-workflows.txt": "pyyaml==6.0.2\n"}


@pytest.mark.parametrize("path", [*CODE, "infx/added.py"])
def test_a_run_whose_commit_has_other_infx_code_counts_when_its_workflows_are_ours(path) -> None:
    """Our sweep workflows install the default branch's infx from its own checkout (issue 20):
    the PR's `infx/`, build files and lock at the run's commit are data its jobs never ran, so
    only the workflow files decide."""
    default = DEFAULT | CODE
    patched = default | {path: (CODE.get(path) or "") + "# scores 0.99\n"}
    assert workflow_files_problem(patched, default, SHA) is None
    assert workflow_files_problem({k: v for k, v in default.items() if k != path}, default, SHA) is None
    edited = patched | {SWEEP_WORKFLOW: SWEEP + "# installs from the PR's checkout\n"}
    assert SWEEP_WORKFLOW in workflow_files_problem(edited, default, SHA)


def test_an_adopters_sweep_counts_only_with_its_call_pinned_to_a_full_sha() -> None:
    """An adopter's run-sweep.yml is one job calling ours in another repository: the calling
    file is the sweep file set (the pinned SHA says what ran); a tag or branch can move, so
    the default branch's file then shows no run to be ours."""
    pinned = f"jobs:\n  sweep:\n    uses: acme/infx/.github/workflows/infx-run-sweep.yml@{SHA}\n"
    assert sweep_files({SWEEP_WORKFLOW: pinned}) == (SWEEP_WORKFLOW,)
    for ref in ("v1", "main", SHA[:12], SHA.upper()):
        movable = pinned.replace(f"@{SHA}", f"@{ref}")
        with pytest.raises(InfxError, match=f"infx-run-sweep.yml@{ref}, whose ref can move"):
            sweep_files({SWEEP_WORKFLOW: movable})
        assert "whose ref can move" in workflow_files_problem({SWEEP_WORKFLOW: movable}, {SWEEP_WORKFLOW: movable}, SHA)
    # a step's action is not a job-level call (the real InferenceX workflows pin actions by tag)
    steps = "jobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: actions/checkout@v4\n"
    assert sweep_files({SWEEP_WORKFLOW: steps}) == (SWEEP_WORKFLOW,)
