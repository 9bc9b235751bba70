"""Which workflow runs count as a green sweep: families by exact shard-job names, latest attempts."""

from __future__ import annotations

from dataclasses import replace

from lib.union_world import union_world

from infx.signoff.model import Job
from infx.signoff.rules import provenance, sweeps
from infx.signoff.rules.provenance import SWEEP_WORKFLOW
from infx.workflow.shard import BUCKETS, caller_name


def test_families_are_the_shard_jobs_of_run_sweep_by_exact_name() -> None:
    for bucket in BUCKETS:
        for index in range(1, bucket.slots + 1):
            want = "eval" if bucket.is_eval else "benchmark"
            assert sweeps.family(f"{caller_name(bucket, index)} / x") == want
    assert sweeps.family("agentic / minimaxm3 fp4 mi355x atom tp4 c1") == "benchmark"
    assert sweeps.family("single-node 8k1k (shard 2) / x") == "benchmark"
    assert sweeps.family("canary / x") == "benchmark"  # run-sweep.yml's canary job
    for ignored in ("canary-sweep / x", "collect-evals", "collect-results", "Tests / pytest", "CodeQL",
                    "agentic", "single-node agentic / x", "agentic evals / x", "Eval / x"):
        assert sweeps.family(ignored) is None


def test_latest_attempt_keeps_every_job_of_an_attempt_and_drops_superseded_ones() -> None:
    first = Job(1, "single-node 8k1k / x", "completed", "failure", run_attempt=1)
    twin = Job(2, "single-node 8k1k / x", "completed", "success", run_attempt=1)
    other = Job(3, "eval / y", "completed", "success", run_attempt=1)
    assert sweeps.latest_attempt([first, twin, other]) == [first, twin, other]
    rerun = Job(4, "single-node 8k1k / x", "completed", "success", run_attempt=2)
    assert sweeps.latest_attempt([first, twin, other, rerun]) == [other, rerun]


def test_eval_row_names_are_told_from_their_identity():
    assert sweeps.is_eval_name("dsr1 fp4 mi355x atom 8k1k TP4 c32 eval #f19020d2")
    assert sweeps.is_eval_name("dsr1 fp4 mi355x sglang 8k1k P1xTP8 D1xTP8 c4x8 eval@all #00000001")
    assert not sweeps.is_eval_name("evalmodel fp4 mi355x atom 8k1k TP4 c32 #f19020d2")


def test_a_run_that_took_rows_from_earlier_runs_is_no_whole_sweep_alone():
    import json
    from datetime import datetime, timezone

    from infx.signoff.model import Artifact, ArtifactMembers, Evidence, PullRequest, unposted

    pr = PullRequest(7, "t", "", "a", "open", False, "main", "b" * 40, "x", "h" * 40, None)
    evidence = Evidence("o/r", "main", datetime(2026, 9, 30, tzinfo=timezone.utc), pr,
                        unposted("s"))
    meta = {"entries": [], "reused-rows": {"dsr1 fp4 mi355x atom 8k1k TP4 c4 #02949557": 9201}}
    evidence.artifacts[9202] = [ArtifactMembers(Artifact(0, "changelog-metadata", False),
                                         {"changelog_metadata.json": json.dumps(meta).encode()})]
    evidence.artifacts[9201] = [ArtifactMembers(Artifact(0, "changelog-metadata", False),
                                         {"changelog_metadata.json": b'{"entries": []}'})]
    evidence.artifacts[9203] = [ArtifactMembers(Artifact(0, "changelog-metadata", False), {"changelog_metadata.json": b"[1"})]
    assert sweeps.took_rows(evidence, 9202) and not sweeps.took_rows(evidence, 9201)
    assert sweeps.took_rows(evidence, 9203)  # unreadable: never a whole sweep on its own
    assert not sweeps.took_rows(evidence, 1)  # no metadata: as before
    assert sweeps.green_union(evidence) is None  # no run's jobs were read: nothing covers


# --- incremental re-sweeps: the union of runs covering the head's plan row for row ------------

def test_an_incremental_resweep_is_green_as_the_union_of_its_runs() -> None:
    ev, benchmarks, evals = union_world()
    assert sweeps.took_rows(ev, 21) and not sweeps.took_rows(ev, 20)
    assert sweeps.green_run(ev, 21) is None  # on its own it is not a whole sweep
    green = sweeps.find_green_run(ev)
    assert (green.commit, green.run_id, green.benchmarks, green.evals) == ("b" * 40, 21, len(benchmarks), len(evals))
    assert green.rows_by_run == ((21, frozenset(evals)), (20, frozenset(benchmarks)))
    assert green.runs == (21, 20)
    assert green.contributes(21, evals=True) and not green.contributes(21, evals=False)
    assert green.contributes(20, evals=False) and not green.contributes(20, evals=True)
    assert green.takes(20, {"job_name": benchmarks[0]}) and not green.takes(21, {"job_name": benchmarks[0]})
    assert not green.takes(20, {"job_name": evals[0]}) and not green.takes(22, {"job_name": evals[0]})
    assert sweeps.union_candidates(ev) == [21, 20]


def test_a_union_row_needs_a_green_job_with_the_heads_fingerprint() -> None:
    """A launcher changed between run 20's commit and the head: the benchmark rows run 20
    ran no longer have the head's fingerprint, so nothing covers them (what is left is run 20
    as one whole sweep on A, whose drift to the head Check `sweep` judges)."""
    stale, _, _ = union_world(a_changes={"runners/launch_mi355x-amds.sh": "# older launcher\n"})
    assert sweeps.green_union(stale) is None
    assert (sweeps.find_green_run(stale).run_id, sweeps.find_green_run(stale).rows_by_run) == (20, ())
    unread, _, _ = union_world()
    unread.commit_files["a" * 40][sweeps.DEFAULT_CHANGELOG] = "- [\n"  # run 20's tree cannot be indexed
    assert sweeps.green_union(unread) is None
    red, benchmarks, _ = union_world()
    red.run_jobs[20][0] = Job(2000, red.run_jobs[20][0].name, "completed", "failure", head_sha="a" * 40)
    assert sweeps.green_union(red) is None
    unread_tree, _, _ = union_world()
    del unread_tree.commit_files["a" * 40]  # run 20's tree was never read: it covers nothing
    assert sweeps.green_union(unread_tree) is None


def test_only_runs_of_ours_on_this_pr_with_read_jobs_join_the_union() -> None:
    for spoil in ("provenance", "jobs", "commit"):
        # off the PR (a force-push removed A), run 20 would need the head's content: A has another launcher
        ev, _, _ = union_world(a_changes={"runners/launch_mi355x-amds.sh": "# older launcher\n"}
                               if spoil == "commit" else None)
        if spoil == "provenance":
            ev.workflow_runs[20] = replace(ev.workflow_runs[20], head_repo="mallory/r")
        elif spoil == "jobs":
            ev.run_jobs[20] = None
        else:
            ev.commits = ["b" * 40]
        assert sweeps.union_candidates(ev) == [21], spoil
        assert sweeps.green_union(ev) is None, spoil
    ev, _, _ = union_world()
    ev.workflow_runs[21] = replace(ev.workflow_runs[21], created_at="2026-09-29T06:00:00Z")
    ev.workflow_runs[20] = replace(ev.workflow_runs[20], created_at="2026-09-29T12:00:00Z")
    assert sweeps.union_candidates(ev) == [20, 21]  # newest created first, whatever the ids
    ev.workflow_runs[21] = replace(ev.workflow_runs[21], created_at=None)
    assert sweeps.union_candidates(ev) == [20]  # which base an undated run ran for is unknown


def test_a_run_on_a_removed_commit_with_the_heads_content_joins_the_union() -> None:
    """A rebase removed A from the PR: run 20 still counts, row for row, because A has the
    head's fingerprint for every planned row and run 20 is ours (infx.trust.counts_for_pr)."""
    ev, benchmarks, evals = union_world()
    ev.commits = ["b" * 40]
    assert sweeps.union_candidates(ev) == [21, 20]
    green = sweeps.find_green_run(ev)
    assert green.rows_by_run == ((21, frozenset(evals)), (20, frozenset(benchmarks)))
    alone, _, _ = union_world(reuse=False)  # no re-sweep on the head: run 20 alone covers it
    alone.commits = ["b" * 40]
    del alone.run_jobs[21]
    assert sweeps.find_green_run(alone).runs == (20,)


def test_a_removed_commit_red_team() -> None:
    """What fingerprints do not cover, provenance must: a removed commit whose sweep template
    differs (the launch steps it ran were the author's), a fork's run or a push run never joins,
    nor one whose tree was not read or whose content differs for some planned row."""
    template = ".github/workflows/benchmark-tmpl.yml"
    calling = {SWEEP_WORKFLOW: "name: Run Sweep\non: pull_request\njobs:\n  b: {uses: ./" + template + "}\n",
               template: "name: ours\non: workflow_call\njobs: {}\n"}
    for spoil in ("template", "fork", "push", "tree", "entry"):
        ev, _, _ = union_world()
        ev.commits = ["b" * 40]
        if spoil == "template":  # the same fingerprints, but A ran its own benchmark template
            ev.default_branch_files = dict(ev.default_branch_files) | calling
            ev.head_files = ev.head_files | calling
            ev.commit_files["a" * 40] |= calling | {template: "name: mine\non: workflow_call\njobs: {}\n"}
            assert provenance.run_problem(ev, 21) is None and provenance.run_problem(ev, 20) is not None
        elif spoil == "fork":
            ev.workflow_runs[20] = replace(ev.workflow_runs[20], head_repo="mallory/r")
        elif spoil == "push":
            ev.workflow_runs[20] = replace(ev.workflow_runs[20], event="push")
        elif spoil == "tree":
            del ev.commit_files["a" * 40]
        else:  # A's changelog entry shapes the rows differently (one more field)
            tree = ev.commit_files["a" * 40]
            tree[sweeps.DEFAULT_CHANGELOG] = tree[sweeps.DEFAULT_CHANGELOG].rstrip("\n") + "\n  all-evals: true\n"
        assert sweeps.union_candidates(ev) == [21], spoil
        assert sweeps.green_union(ev) is None, spoil


def test_a_union_needs_the_plan_inputs() -> None:
    for tree in ("head_files", "base_files"):
        ev, _, _ = union_world()
        setattr(ev, tree, {})
        assert sweeps.green_union(ev) is None, tree
    # an unread base tree would make every changelog entry the PR's own: never a union
    from lib.project_trees import BASE, ENTRY

    alone = BASE | {"perf-changelog.yaml": ENTRY.lstrip()}
    ev, _, _ = union_world(trees=({}, alone))
    assert sweeps.green_union(ev) is None
    ev, _, _ = union_world(trees=({}, alone))
    ev.base_files = {"README.md": "base\n"}
    assert sweeps.green_union(ev) is not None  # the same world with a base tree read
    ev, _, _ = union_world()
    ev.head_files = ev.head_files | {"configs/runners.yaml": "[\n"}
    assert sweeps.green_union(ev) is None


def test_without_reused_rows_the_newest_green_run_alone_counts() -> None:
    ev, _, _ = union_world(reuse=False)
    green = sweeps.find_green_run(ev)
    assert green is not None and green.run_id == 20 and green.rows_by_run == ()
    assert green.runs == (20,) and green.takes(20, {}) and not green.takes(21, {})


def test_a_run_that_took_rows_is_never_green_on_its_own_even_with_every_job() -> None:
    ev, benchmarks, evals = union_world()
    titles = {j.name.split(" / ", 1)[1]: j.name for j in ev.run_jobs[20]}
    ev.run_jobs[21] = [Job(2100 + i, titles[n], "completed", "success", head_sha="b" * 40)
                       for i, n in enumerate(benchmarks + evals)]
    assert sweeps.green_jobs(ev, 21) is None
    ev.artifacts[21] = []
    assert sweeps.green_jobs(ev, 21).run_id == 21


def test_the_metadata_artifact_is_found_by_name_among_the_runs_artifacts() -> None:
    import json

    from infx.signoff.model import Artifact, ArtifactMembers

    ev, _, _ = union_world()
    meta = ev.artifacts[21][0]
    results = ArtifactMembers(Artifact(0, "results_bmk", False), {"agg_bmk.json": json.dumps([{"job_name": "x"}]).encode()})
    ev.artifacts[21] = [results, meta]
    assert sweeps.took_rows(ev, 21)
    ev.artifacts[21] = [meta, results]
    assert sweeps.took_rows(ev, 21)
    ev.artifacts[21] = [results]
    assert not sweeps.took_rows(ev, 21)
    # a metadata artifact without its file lists no reused rows
    ev.artifacts[21] = [ArtifactMembers(Artifact(0, "changelog-metadata", False), {"other.json": b"{}"})]
    assert not sweeps.took_rows(ev, 21)
    ev.artifacts[21] = [ArtifactMembers(Artifact(0, "changelog-metadata", False), None)]  # not downloaded
    assert not sweeps.took_rows(ev, 21)


def test_without_a_run_record_the_jobs_name_the_commit() -> None:
    """A job without head_sha says nothing; jobs on two commits name none."""
    b = "b" * 40
    jobs = [Job(1, "agentic / a", "completed", "success", head_sha=None),
            Job(2, "agentic eval / a", "completed", "success", head_sha=b)]
    from lib.signoff_policy_support import bare_evidence

    ev = bare_evidence(head_sha=b, commits=[b], run_jobs={7: jobs}, provenance=False)
    assert sweeps.run_commit(ev, 7) == b
    ev.run_jobs[7] = [jobs[1], Job(3, "agentic / a", "completed", "success", head_sha="a" * 40)]
    assert sweeps.run_commit(ev, 7) is None
    assert sweeps.green_jobs(ev, 7) is None  # green jobs, but no one commit


def test_one_run_may_give_both_benchmark_and_eval_rows_and_its_attempt_is_reported() -> None:
    ev, benchmarks, evals = union_world()
    ev.run_jobs[21] = []
    ev.check_runs["b" * 40] = []
    green = sweeps.find_green_run(ev)
    assert green.rows_by_run == ((20, frozenset(benchmarks + evals)),)
    assert green.contributes(20, evals=True) and green.contributes(20, evals=False)
    ev, _, _ = union_world()
    ev.workflow_runs[21] = replace(ev.workflow_runs[21], run_attempt=3)
    assert sweeps.find_green_run(ev).attempt == 3
