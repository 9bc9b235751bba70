"""An incremental re-sweep as evidence: run 20 swept the plan on commit A, run 21 on head B re-ran the evals."""

from __future__ import annotations

import json

from infx.plan.identity import job_name
from infx.plan.incremental import plan_from_trees
from infx.plan.planner import PlanFlags
from infx.signoff.model import Artifact, ArtifactMembers, CheckRun, Job, WorkflowRun
from infx.signoff.rules import sweeps
from infx.signoff.rules.provenance import SWEEP_WORKFLOW
from infx.workflow.shard import BUCKETS
from lib.project_trees import BASE, HEAD
from lib.signoff_policy_support import SWEEP_TEXT, bare_evidence


def union_world(*, a_changes: dict | None = None, reuse: bool = True, trees: tuple | None = None):
    """This repository's own configs, a PR appending one changelog entry: run 20 swept every
    row of the plan on commit A, run 21 on the head B re-ran the eval rows and listed the
    benchmark rows as reused from run 20 (its changelog-metadata), as run-sweep.yml does."""
    a, b = "a" * 40, "b" * 40
    base_tree, head_tree = trees or (BASE, HEAD)
    plan = plan_from_trees(base_tree, head_tree, PlanFlags(), base_ref=a, head_ref=b)
    titles = {}
    for bucket in BUCKETS:
        for row in plan.bucket(bucket.path):
            titles[job_name(row)] = bucket.title
    names = [job_name(row) for row in plan.rows()]
    benchmarks = [n for n in names if not sweeps.is_eval_name(n)]
    evals = [n for n in names if sweeps.is_eval_name(n)]

    def jobs(run_names, sha, first):
        return [Job(first + i, f"{titles[n]} / {n}", "completed", "success", head_sha=sha)
                for i, n in enumerate(run_names)]

    run_jobs = {20: jobs(names, a, 2000), 21: jobs(evals, b, 2100)}
    check_runs = {sha: [CheckRun(j.id, j.name, j.status, j.conclusion,
                                 f"https://github.com/o/r/actions/runs/{rid}/job/{j.id}")
                        for rid, js in run_jobs.items() for j in js if j.head_sha == sha] for sha in (a, b)}
    head = head_tree | {SWEEP_WORKFLOW: SWEEP_TEXT}
    runs = {rid: WorkflowRun(rid, "Run Sweep", SWEEP_WORKFLOW, "pull_request", "completed", "success", sha,
                             created_at=f"2026-09-29T1{rid - 20}:00:00Z", head_repo="o/r")
            for rid, sha in ((20, a), (21, b))}
    ev = bare_evidence(head_sha=b, commits=[a, b], check_runs=check_runs, run_jobs=run_jobs,
                       workflow_runs=runs, head_files=head, base_files=dict(base_tree),
                       commit_files={a: head | (a_changes or {})})
    meta = {"entries": [], "reused-rows": {n: 20 for n in benchmarks}} if reuse else {"entries": []}
    ev.artifacts[21] = [ArtifactMembers(Artifact(0, "changelog-metadata", False),
                                 {"changelog_metadata.json": json.dumps(meta).encode()})]
    ev.artifacts[20] = [ArtifactMembers(Artifact(0, "changelog-metadata", False), {"changelog_metadata.json": b'{"entries": []}'})]
    return ev, benchmarks, evals
