"""infx.workflow.collect: schema rows only, clear errors, and exactly what Checks `evals` and `pareto` read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from lib.fake_results import write_raw
from lib.signoff_policy_support import bare_evidence

from infx.errors import InfxError
from infx.plan.sweep_plan import Plan
from infx.results import normalise
from infx.signoff.checks import evals, pareto
from infx.signoff.model import Artifact, ArtifactMembers, ChangedFile, Status
from infx.signoff.table import load_table
from infx.workflow.collect import collect, summary
from infx.workflow.launch import artifact_prefix, finish, raw_dir, result_name
from infx.workflow.shard import shard_plan

SETTINGS = load_table().settings
HEAD = "b" * 40
CONFIG = """dsr1-fp8-mi355x-sglang:
  image: lmsysorg/sglang:v1
  model: deepseek-ai/DeepSeek-R1
  model-prefix: dsr1
  runner: mi355x
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - {{tp: 8, conc-list: [4, 8, 16, 32, 64, 128]}}
"""
ROOT = Path(__file__).resolve().parents[3]
RUNNERS = "configs/runners.yaml"
CHANGELOG = "perf-changelog.yaml"
BASE_LOG = "- config-keys:\n    - older\n  description:\n    - first\n  pr-link: https://github.com/o/r/pull/1\n"
ENTRY = ("\n- config-keys:\n    - dsr1-fp8-mi355x-sglang\n  description:\n    - bump the image\n"
         "  pr-link: https://github.com/o/r/pull/2\n")


def _trees() -> tuple[dict[str, str], dict[str, str]]:
    """The PR's base and head trees: the head bumps the config's image and appends its changelog entry."""
    runners = (ROOT / RUNNERS).read_text(encoding="utf-8")
    base = {"configs/amd-master.yaml": CONFIG.format().replace("v1", "v0"), RUNNERS: runners, CHANGELOG: BASE_LOG}
    return base, base | {"configs/amd-master.yaml": CONFIG.format(), CHANGELOG: BASE_LOG + ENTRY}


def _plan() -> Plan:
    """The plan the sign-off bot computes for the head (the real planner, not a copy of its rows)."""
    from infx.plan.incremental import plan_from_trees
    from infx.plan.planner import PlanFlags

    base, head = _trees()
    return plan_from_trees(base, head, PlanFlags(), base_ref="base", head_ref=HEAD)


def run_jobs(downloaded: Path, work: Path, score: float = 0.95) -> None:
    """Every job of the plan as the workflow runs it: shard names the rows, the benchmark
    writes raw output, `finish` normalises it, and the artifact lands in `downloaded`."""
    for rows in shard_plan(_plan()).values():
        for index, row in enumerate(rows):
            runner = f"mi355x-amds_0{index % 9}"
            results = work / f"job{len(list(work.glob('job*')))}" / "results"
            write_raw(raw_dir(results), row, score=score)
            results.mkdir(parents=True)
            finish(row, runner, results)
            shutil.copytree(results, downloaded / (artifact_prefix(row) + result_name(row, runner)))


@pytest.fixture()
def downloaded(tmp_path) -> Path:
    target = tmp_path / "downloaded"
    target.mkdir()
    run_jobs(target, tmp_path / "work")
    return target


def test_benchmark_rows_validate_and_come_one_per_row(downloaded):
    rows = collect(downloaded, "benchmark")
    assert len(rows) == 6 and all(normalise.row_problem(r, "benchmark") is None for r in rows)
    assert len({r["job_name"] for r in rows}) == 6
    text = summary(rows, "benchmark")
    assert text.count("\n| dsr1 fp8 mi355x sglang 8k1k TP8 c") == 6


def test_eval_rows_validate_and_the_summary_shows_task_and_score(downloaded):
    rows = collect(downloaded, "eval")
    assert len(rows) == 2 and all(normalise.row_problem(r, "eval") is None for r in rows)
    text = summary(rows, "eval")
    assert text.count("| gsm8k | 0.95 (em_strict) | 1319 | ok |") == 2


def _evidence(bmk: list, agg_eval: list, image: str = "lmsysorg/sglang:v1"):
    """Run 5 on the head: one green job per collected row, named as the workflow names it."""
    artifacts = [ArtifactMembers(Artifact(0, "results_bmk", False), {"agg_bmk.json": json.dumps(bmk).encode()}),
                 ArtifactMembers(Artifact(0, "eval_results_all", False), {"agg_eval_all.json": json.dumps(agg_eval).encode()})]
    from infx.signoff.model import CheckRun

    names = [f"single-node 8k1k / {r['job_name']}" for r in bmk] + [f"eval / {r['job_name']}" for r in agg_eval]
    runs = [CheckRun(i, name, "completed", "success", f"https://x/actions/runs/5/job/{i}")
            for i, name in enumerate(names, 1)]
    base, head = _trees()
    return bare_evidence(head_sha=HEAD, commits=[HEAD], check_runs={HEAD: runs}, artifacts={5: artifacts},
                         files=[ChangedFile("configs/amd-master.yaml", "modified"),
                                ChangedFile(CHANGELOG, "modified")],
                         head_files=head, base_files=base,
                         default_branch_files={"configs/evals/thresholds.yaml": "default:\n  gsm8k: 0.90\n"})


def test_the_sign_off_bot_reads_exactly_what_collect_writes(downloaded, tmp_path):
    from infx.cli.workflow import main

    for kind, name in (("benchmark", "agg_bmk.json"), ("eval", "agg_eval_all.json")):
        assert main(["collect", "--kind", kind, "--input", str(downloaded), "--output", str(tmp_path / name)]) == 0
    bmk = json.loads((tmp_path / "agg_bmk.json").read_text())
    agg_eval = json.loads((tmp_path / "agg_eval_all.json").read_text())
    ev = _evidence(bmk, agg_eval)
    outcome = evals.run(ev, SETTINGS)
    assert outcome.status is Status.PASS, outcome
    assert "agg_eval_all.json of run 5: gsm8k em_strict 0.95, n=1319" in outcome.reason
    outcome = pareto.run(ev, SETTINGS)
    assert "6 measured, 0 invalid" in outcome.reason, outcome


def test_a_low_score_collected_is_rejected_by_check_2(tmp_path):
    downloaded = tmp_path / "d"
    downloaded.mkdir()
    run_jobs(downloaded, tmp_path / "w", score=0.5)
    ev = _evidence(collect(downloaded, "benchmark"), collect(downloaded, "eval"))
    outcome = evals.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL and "below the threshold 0.9" in outcome.reason


def test_missing_empty_and_foreign_inputs_are_clear_errors(tmp_path, downloaded):
    with pytest.raises(InfxError, match="input folder does not exist"):
        collect(tmp_path / "nope", "benchmark")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InfxError, match=r"no bmk_\* artifact in the input folder"):
        collect(tmp_path / "empty", "benchmark")
    (tmp_path / "empty" / "eval_results_all").mkdir()
    with pytest.raises(InfxError, match=r"no eval_\* artifact"):
        collect(tmp_path / "empty", "eval")
    # a raw client file or an env dump in a bmk_ artifact is not a row
    job = next(downloaded.glob("bmk_*"))
    (job / "env.json").write_text(json.dumps({"ROCM_VERSION": "7.0"}))
    with pytest.raises(InfxError, match="row 0 is not a benchmark row") as info:
        collect(downloaded, "benchmark")
    assert "env.json" in str(info.value) and "benchmark-row.schema.json" in str(info.value)
    (job / "env.json").write_text("{")
    with pytest.raises(InfxError, match="not valid JSON"):
        collect(downloaded, "benchmark")


def test_a_row_collected_twice_is_refused(tmp_path, downloaded):
    job = next(downloaded.glob("bmk_*"))
    shutil.copytree(job, downloaded / (job.name + "-again"))
    with pytest.raises(InfxError, match="a second result for"):
        collect(downloaded, "benchmark")


def test_an_eval_job_without_results_is_an_error(downloaded):
    job = next(downloaded.glob("eval_*"))
    for path in job.rglob("results*.json"):
        path.unlink()
    with pytest.raises(InfxError, match="holds no eval result"):
        collect(downloaded, "eval")


def test_cli_errors_leave_no_output(tmp_path, capsys):
    from infx.cli.workflow import main

    out = tmp_path / "agg.json"
    assert main(["collect", "--kind", "eval", "--input", str(tmp_path), "--output", str(out)]) == 1
    assert not out.exists() and "no eval_* artifact" in capsys.readouterr().err


# --- batched evals: the launcher's manifest and what collect keeps (issue 22 point 1) -------------

BATCH_ROW = {"image": "img:2", "model": "m/M", "model-prefix": "dsv4", "precision": "fp4",
             "framework": "sglang-disagg", "runner": "mi355x-disagg", "isl": 8192, "osl": 1024,
             "spec-decoding": "none", "conc": [8, 16], "disagg": True, "exp-name": "dsv4_8k1k",
             "prefill": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True},
             "decode": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True},
             "run-eval": True, "eval-only": True, "eval-all-concs": True}


def _batch_job(tmp_path: Path, drop: tuple[int, ...] = ()) -> tuple[Path, Path]:
    """A batched eval job finished by the launcher; `drop` removes those points' results first."""
    results = tmp_path / "job" / "results"
    for path in write_raw(raw_dir(results), BATCH_ROW):
        if any(path.name.endswith(f"_conc{c}.json") for c in drop):
            path.unlink()
    results.mkdir(parents=True)
    downloaded = tmp_path / "downloaded"
    return results, downloaded / (artifact_prefix(BATCH_ROW) + result_name(BATCH_ROW, "mi355x-amds_01"))


def test_a_batched_eval_job_writes_the_complete_manifest(tmp_path):
    results, artifact = _batch_job(tmp_path)
    finish(BATCH_ROW, "mi355x-amds_01", results)
    meta = json.loads((results / normalise.META_FILE).read_text())
    assert (meta["eval_concs"], meta["completed_eval_concs"], meta["failed_eval_concs"]) == ([8, 16], [8, 16], [])
    shutil.copytree(results, artifact)
    # the sign-off's manifest rule reads the launcher's manifest as a complete batch
    from infx.signoff.rules.eval_jobs import manifest_problem
    job = normalise.eval_job(artifact.name, {p.relative_to(artifact).as_posix(): p.read_bytes()
                                             for p in artifact.rglob("*") if p.is_file()})
    assert manifest_problem(job) is None
    assert sorted(r["conc"] for r in collect(artifact.parent, "eval")) == [8, 16]


def test_a_batch_with_a_failed_point_is_refused(tmp_path):
    results, artifact = _batch_job(tmp_path, drop=(16,))
    with pytest.raises(InfxError, match=r"no result for concurrencies \[16\]"):
        finish(BATCH_ROW, "mi355x-amds_01", results)
    meta = json.loads((results / normalise.META_FILE).read_text())
    assert (meta["completed_eval_concs"], meta["failed_eval_concs"]) == ([8], [16])
    shutil.copytree(results, artifact)
    with pytest.raises(InfxError, match=r"eval concurrencies \[16\] failed"):
        collect(artifact.parent, "eval")


def test_collect_keeps_only_the_completed_concurrencies_of_a_batch(tmp_path):
    results, artifact = _batch_job(tmp_path)
    finish(BATCH_ROW, "mi355x-amds_01", results)
    meta_file = results / normalise.META_FILE
    meta = json.loads(meta_file.read_text())
    meta_file.write_text(json.dumps(meta | {"completed_eval_concs": [16]}))  # as the reference prunes a rerun
    shutil.copytree(results, artifact)
    assert [r["conc"] for r in collect(artifact.parent, "eval")] == [16]


def test_a_batch_with_results_it_did_not_request_is_an_error(tmp_path):
    results, _ = _batch_job(tmp_path)
    extra = raw_dir(results) / "gsm8k" / "results_2026-09-29T10-15-00_conc64.json"
    extra.write_text(next(raw_dir(results).rglob("*_conc8.json")).read_text())
    with pytest.raises(InfxError, match=r"concurrencies \[64\] it was not asked for"):
        finish(BATCH_ROW, "mi355x-amds_01", results)
