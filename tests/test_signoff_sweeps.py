"""Which workflow runs count as a green sweep: families by exact shard-job names, latest attempts."""

from __future__ import annotations

from infx.signoff import sweeps
from infx.signoff.model import RunJob
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
    first = RunJob(1, "single-node 8k1k / x", "completed", "failure", run_attempt=1)
    twin = RunJob(2, "single-node 8k1k / x", "completed", "success", run_attempt=1)
    other = RunJob(3, "eval / y", "completed", "success", run_attempt=1)
    assert sweeps.latest_attempt([first, twin, other]) == [first, twin, other]
    rerun = RunJob(4, "single-node 8k1k / x", "completed", "success", run_attempt=2)
    assert sweeps.latest_attempt([first, twin, other, rerun]) == [other, rerun]


def test_eval_row_names_are_told_from_their_identity():
    assert sweeps.is_eval_name("dsr1 fp4 mi355x atom 8k1k TP4 c32 eval #f19020d2")
    assert sweeps.is_eval_name("dsr1 fp4 mi355x sglang 8k1k P1xTP8 D1xTP8 c4x8 eval@all #00000001")
    assert not sweeps.is_eval_name("evalmodel fp4 mi355x atom 8k1k TP4 c32 #f19020d2")


def test_a_run_that_took_rows_from_earlier_runs_is_no_whole_sweep_alone():
    import json
    from datetime import datetime, timezone

    from infx.signoff.model import Artifact, Evidence, PullInfo, SignOff

    pr = PullInfo(7, "t", "", "a", "open", False, "main", "b" * 40, "x", "h" * 40, None)
    evidence = Evidence("o/r", "main", datetime(2026, 9, 30, tzinfo=timezone.utc), pr,
                        SignOff("s", "", None, None, "issue_comment"))
    meta = {"entries": [], "reused-rows": {"dsr1 fp4 mi355x atom 8k1k TP4 c4 #02949557": 9201}}
    evidence.artifacts[9202] = [Artifact("changelog-metadata", False,
                                         {"changelog_metadata.json": json.dumps(meta).encode()})]
    evidence.artifacts[9201] = [Artifact("changelog-metadata", False,
                                         {"changelog_metadata.json": b'{"entries": []}'})]
    evidence.artifacts[9203] = [Artifact("changelog-metadata", False, {"changelog_metadata.json": b"[1"})]
    assert sweeps.took_rows(evidence, 9202) and not sweeps.took_rows(evidence, 9201)
    assert sweeps.took_rows(evidence, 9203)  # unreadable: never a whole sweep on its own
    assert not sweeps.took_rows(evidence, 1)  # no metadata: as before
    assert sweeps.green_union(evidence) is None  # no run's jobs were read: nothing covers
