"""run-sweep.yml's shard jobs are generated from the bucket table and the committed file is up to date."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from infx.workflow import shard, sweep_jobs

WORKFLOW = Path(__file__).resolve().parents[3] / ".github/workflows/run-sweep.yml"


def test_the_committed_workflow_is_what_the_generator_writes() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    assert sweep_jobs.regenerate(text) == text, "run: python -m infx.workflow.sweep_jobs --write"


def test_every_shard_slot_has_one_job_named_as_the_check_runs_are_matched() -> None:
    jobs = yaml.load(WORKFLOW.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["jobs"]
    shard_jobs = {k: v for k, v in jobs.items() if k.startswith("sweep-")}
    assert sorted(shard_jobs) == sorted(f"sweep-{sid}" for sid in shard.all_shard_ids())
    for bucket in shard.BUCKETS:
        for index in range(1, bucket.slots + 1):
            job = shard_jobs[f"sweep-{shard.shard_id(bucket, index)}"]
            assert job["name"] == shard.caller_name(bucket, index)
            assert shard.bucket_of_job(f"{job['name']} / x") == bucket
    for collector in ("collect-results", "collect-evals"):
        assert set(jobs[collector]["needs"]) == {"plan", "canary", *shard_jobs}


def test_a_new_shard_slot_changes_the_workflow(monkeypatch: pytest.MonkeyPatch) -> None:
    first = dataclasses.replace(shard.BUCKETS[0], slots=shard.BUCKETS[0].slots + 1)
    monkeypatch.setattr(sweep_jobs, "BUCKETS", (first, *shard.BUCKETS[1:]))
    text = WORKFLOW.read_text(encoding="utf-8")
    new = sweep_jobs.regenerate(text)
    added = shard.shard_id(first, first.slots)
    assert new != text
    jobs = yaml.load(new, Loader=yaml.CSafeLoader)["jobs"]
    assert jobs[f"sweep-{added}"]["name"] == f"{first.title} (shard {first.slots})"
    assert f"sweep-{added}" in jobs["collect-results"]["needs"]


def test_missing_markers_are_a_located_error_with_the_fix() -> None:
    with pytest.raises(sweep_jobs.LayoutError, match="markers are missing.*fix"):
        sweep_jobs.regenerate("jobs:\n  plan: {}\n")


def test_check_fails_on_a_stale_file_and_write_repairs_it(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "run-sweep.yml"
    stale.write_text(WORKFLOW.read_text(encoding="utf-8").replace("name: eval\n", "name: evals\n", 1),
                     encoding="utf-8")
    assert sweep_jobs.main(["--check", "--workflow", str(stale)]) == 1
    assert "--write" in capsys.readouterr().err
    assert sweep_jobs.main(["--write", "--workflow", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8") == WORKFLOW.read_text(encoding="utf-8")
    assert sweep_jobs.main(["--check", "--workflow", str(tmp_path / "absent.yml")]) == 1
