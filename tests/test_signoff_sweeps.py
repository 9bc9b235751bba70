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
