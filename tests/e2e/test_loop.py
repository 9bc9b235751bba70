"""The loop, as a test: our own sweep's outputs must pass our own verdict.

Each scenario builds a git repository from this project's files, opens a PR on it, runs the real
`.github/workflows/run-sweep.yml` (and the template it calls) with the local runner of
tests/lib/actions_runner.py — real `if:`, matrix, outputs and `run:` scripts, the real
launcher `runners/launch_mi355x-amds.sh` on a fake MI355X node (tests/lib/fake_gpu.py as
`docker`, stub Slurm for multi-node rows) — records the run's jobs, workflow run and artifacts into a world
file and runs `infx signoff verify` on a CODEOWNER's sign-off against it."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
from lib.loop_scenarios import (
    AGENTIC_DETAILS,
    AGENTIC_KEY,
    AGENTIC_RECIPE,
    CHANGELOG,
    FIRST_SWEEP,
    LABEL,
    MASTER,
    RECIPE_SCRIPT,
    SIGNED_AT,
    SINGLE_NODE_DETAILS,
    assert_pass,
    authorize_reuse,
    edit_block,
    entry,
    failed_jobs,
    image_of,
    job_page,
    jobs_of,
    open_pr,
    refresh,
    report_checks,
    report_comment,
    sign,
    single_node_pr,
    sweep,
)
from lib.report_charts import parse_xychart
from lib.sweep_loop import (
    MAINTAINER,
    GpuPlan,
    SweepRepo,
    add_comment,
    checklist_body,
    comment_event,
    run_comment_workflow,
    verify,
)

from infx.plan.identity import job_name
from infx.results import normalise
from infx.signoff.rules.sweeps import family

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_single_node_fixed_seq_pr_passes(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    record, world = sweep(repo, pr, tmp_path, FIRST_SWEEP)
    assert record.conclusion == "success", failed_jobs(record)
    assert record.concurrency == "sweep-41-active"
    canary = jobs_of(record, "canary")
    benchmark = canary + jobs_of(record, "sweep-single-node-8k1k-1")
    evals = jobs_of(record, "sweep-evals-1")
    assert len(canary) == 1 and " c4 " in canary[0].name and canary[0].name.startswith("canary / ")
    assert len(benchmark) == 6 and len(evals) == 2
    assert {j.conclusion for j in benchmark + evals} == {"success"}
    # one job name per row: the row identity (TP, EP, spec decoding, … and a digest)
    assert len({j.name for j in benchmark + evals}) == 8
    rows = json.loads(record.job("setup").outputs["matrix"])["single-node-8k1k-1"]
    rows += json.loads(record.job("setup").outputs["canary"])
    assert {j.name.split(" / ", 1)[1] for j in benchmark} == {job_name(row) for row in rows}
    assert all(j.runner_name.startswith("mi355x-amds_") for j in benchmark)
    # the real launcher chose the config's recipe script and ran one container per row
    assert not record.node.sruns()
    containers = record.node.containers()
    assert len(containers) == 8
    assert {c["argv"][-1] for c in containers} == {"/workspace/benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x_atom.sh"}
    names = set(record.artifacts.items)
    assert {"results_bmk", "eval_results_all", "changelog-metadata"} <= names
    assert len([n for n in names if n.startswith("bmk_")]) == 6
    # what collect wrote is schema rows, and it is exactly what the bot reads for Checks `evals` and `pareto`
    aggregates = {"benchmark": record.artifacts.items["results_bmk"].files["agg_bmk.json"],
                  "eval": record.artifacts.items["eval_results_all"].files["agg_eval_all.json"]}
    for kind, data in aggregates.items():
        rows = json.loads(data)
        assert rows and all(normalise.row_problem(row, kind) is None for row in rows), kind
    assert len(json.loads(aggregates["benchmark"])) == 6
    # no amd-smi on this fake node: every row says its power is invalid and why, nothing else changes
    assert {(r["power_valid"], tuple(r["power_invalid_reasons"])) for r in json.loads(aggregates["benchmark"])} \
        == {(0, ("power_tool_missing",))}
    authorize_reuse(world, record.run_id)
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert_pass(verdict)
    assert verdict.check(2)["reason"].startswith(f"agg_eval_all.json of run {record.run_id}:")
    assert "6 measured, 0 invalid" in verdict.check(14)["reason"]  # the 6 rows of agg_bmk.json


def test_single_node_failed_row_is_rejected_naming_the_job(base_repo, tmp_path):
    """One benchmark row crashes and the evals score below their floor: the sign-off names the
    job, and the run's own report comment (written by its `report` job from what `collect`
    wrote, while the fake GitHub listed the running run's finished jobs) lists both, linked to
    the jobs' pages, with the floor's source, and says what the verdict then says."""
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    record, world = sweep(repo, pr, tmp_path, 9102, gpu=GpuPlan(fail=[{"tp": 4, "conc": 8}],
                                                                low_eval=[{"model-prefix": "dsr1"}]))
    failed = [j for j in record.jobs if j.conclusion == "failure"]
    assert [j.name for j in failed] == [next(j.name for j in record.jobs if " TP4 c8 " in j.name)]
    assert "crashed" in failed[0].log
    # the failed job still uploads its server log (`always()`), and fail-fast cancels the rest
    crashed = [a for a in record.artifacts.items.values() if b"HIP error" in b"".join(a.files.values())]
    assert [a.name.startswith("server_logs_") for a in crashed] == [True]
    assert "cancelled" in {j.conclusion for j in jobs_of(record, "sweep-single-node-8k1k-1")}
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert verdict.verdict == "REJECTED"
    assert verdict.status == "failure"
    check = verdict.check(1)
    assert check["status"] == "FAIL"
    assert failed[0].name in check["reason"] + " ".join(check["details"])
    # the report comment of the run
    assert record.results["report"] == "success"
    body = report_comment(world)["body"]
    assert body.startswith(f"<!-- infx-sweep-report run={record.run_id} attempt=1 -->")
    rows = [j for j in record.jobs if family(j.name)]
    counts = [sum(j.conclusion == c for j in rows) for c in ("success", "failure", "cancelled")]
    assert counts[1] == 1 and counts[2] > 0
    key_row = next(line for line in body.split("\n") if line.startswith("| `dsr1-fp4-mi355x-atom` |"))
    assert key_row.startswith("| `dsr1-fp4-mi355x-atom` | {} | {} | {} | 0 |".format(*counts))
    assert key_row.endswith(f"]({job_page(world, record, failed[0])}) |")
    low = [line for line in body.split("\n") if line.startswith("| ❌ below floor |")]
    evals = jobs_of(record, "sweep-evals-1")
    assert len(low) == len(evals) == 2
    for job in evals:
        (line,) = [line for line in low if f"]({job_page(world, record, job)}) |" in line]
        assert "| `gsm8k` |" in line and "| 0.9100 | `models.dsr1.gsm8k` |" in line
    assert "Floors from `configs/evals/thresholds.yaml on main`." in body
    # what the sign-off would say, as the verdict said it
    assert report_checks(body) == {n: verdict.check(int(n))["status"] for n in ("1", "2", "14")}
    check_row = next(line for line in body.split("\n") if line.startswith("| 1 |"))
    assert failed[0].name.split(" / ")[1].split(" #")[0] in check_row
    start = body.index("```mermaid")
    parse_xychart(body[start:body.index("\n```", start) + 4])
    # a triager's /retest-failed, through retest-command.yml, asks GitHub to re-run exactly the
    # failed and cancelled rows of this run (read back from the jobs GitHub lists for it)
    world["collaborators"]["tina"] = {"permission": "read", "role_name": "triage"}
    comment = add_comment(world, "tina", "MEMBER", "The c8 node was flaky.\n\n/retest-failed",
                          "2026-09-30T10:00:00Z")
    retest, world = run_comment_workflow(world, repo, comment_event(world, comment, repo.sha("main")),
                                         ".github/workflows/retest-command.yml", 9190, tmp_path / "retest")
    assert retest.conclusion == "success", failed_jobs(retest)
    redo = sorted(j.name.split(" / ", 1)[1] for j in rows if j.conclusion in ("failure", "cancelled"))
    summary = retest.job("retest failed rows").summary
    assert f"re-running {len(redo)} failed or cancelled row(s) of sweep run {record.run_id}" in summary
    assert all(name in summary for name in redo[:10])
    run = next(r for r in world["workflow_runs"] if r["id"] == record.run_id)
    assert (run["run_attempt"], run["status"]) == (2, "queued")
    reactions = next(c for c in world["pulls"][0]["comments"] if c["id"] == comment)["reactions"]
    assert [r["content"] for r in reactions] == ["+1"]


def test_a_pr_naming_all_its_jobs_alike_cannot_hide_a_failed_row(base_repo, tmp_path):
    """The PR's own workflow files run: this one gives every benchmark job one name. Check `sweep` sets
    such a run aside (modified sweep workflow files) and judges every job of it on its own, so the
    failed row is named and rejects the sign-off."""
    repo = SweepRepo(base_repo, tmp_path / "repo")
    template = ".github/workflows/benchmark-tmpl.yml"
    text = repo.read("main", template)
    old = "    name: ${{ fromJSON(inputs.config).job-name }}\n"
    assert old in text
    pr = single_node_pr(repo)
    pr.head_sha = repo.commit(pr.branch, pr.branch, {template: text.replace(old, "    name: benchmark\n")},
                              "ci: shorter job names")
    pr.commits.append(pr.head_sha)
    record, world = sweep(repo, pr, tmp_path, 9109, gpu=GpuPlan(fail=[{"tp": 4, "conc": 8}]))
    benchmark = jobs_of(record, "sweep-single-node-8k1k-1")
    assert {j.name for j in benchmark} == {"single-node 8k1k / benchmark"}
    ran = jobs_of(record, "canary") + benchmark  # the canary row passed before the family started
    assert "failure" in {j.conclusion for j in ran} and "success" in {j.conclusion for j in ran}
    # the PR changes a workflow file (core's) and a config (the MI355X owners'): a core maintainer
    # who is also on the MI355X owners team owns every path, so the sign-off gets a verdict
    world["teams"]["inferencex-amd/mi355x-owners"].append(MAINTAINER)
    signed = add_comment(world, MAINTAINER, "MEMBER", checklist_body(MAINTAINER, SINGLE_NODE_DETAILS),
                         SIGNED_AT)
    verdict = verify(world, pr.number, signed, tmp_path)
    assert verdict.verdict == "REJECTED"
    check = verdict.check(1)
    assert check["status"] == "FAIL"
    # the run is set aside (its workflow files are the PR's own), and every same-named job is
    # still judged on its own: the failed one is named, not hidden behind a success
    details = "\n".join(check["details"])
    assert f"set aside: run {record.run_id}" in details and "benchmark-tmpl.yml" in details
    assert f"run {record.run_id}: `single-node 8k1k / benchmark` (failure)" in details


def test_single_node_failed_canary_runs_nothing_else(base_repo, tmp_path):
    """research/workflows.md §1.7: the lowest-concurrency row runs first, alone; when it fails,
    no family starts (one GPU job spent instead of eight) and the verdict names it."""
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    record, world = sweep(repo, pr, tmp_path, 9107, gpu=GpuPlan(fail=[{"conc": 4}]))
    assert record.conclusion == "failure"
    canary = jobs_of(record, "canary")
    assert [j.conclusion for j in canary] == ["failure"]
    gpu_jobs = [j for j in record.jobs if j.labels and j.labels != ["ubuntu-latest"]]
    assert gpu_jobs == canary
    families = [key for key, result in record.results.items() if key.startswith("sweep-")]
    assert families and {record.results[key] for key in families} == {"skipped"}
    assert record.results["collect-results"] == record.results["collect-evals"] == "skipped"
    assert not [name for name in record.artifacts.items if name.startswith(("bmk_", "eval_"))]
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert verdict.verdict == "REJECTED"
    check = verdict.check(1)
    assert check["status"] == "FAIL"
    assert canary[0].name in check["reason"] + " ".join(check["details"])


def test_single_node_low_eval_is_rejected_on_check_2(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    record, world = sweep(repo, pr, tmp_path, 9103, gpu=GpuPlan(low_eval=[{"model-prefix": "dsr1"}]))
    assert record.conclusion == "success"  # a low score is not a job failure
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert verdict.verdict == "REJECTED"
    assert verdict.check(1)["status"] == "PASS"
    check = verdict.check(2)
    assert check["status"] == "FAIL"
    assert "gsm8k" in check["reason"] and "below the threshold 0.91" in check["reason"]
    assert [k for k, c in verdict.checks.items() if c["status"] == "FAIL"] == ["2"]


def test_agentic_pr_like_seed_000_passes_after_a_merge_of_main(base_repo, tmp_path):
    """Seed 000: an ATOM AgentX image bump with `eval-concs`, swept green, a maintainer pins
    the run with `/reuse-sweep-run <id>`, then main is merged in (no new sweep)."""
    repo = SweepRepo(base_repo, tmp_path / "repo")
    master, recipe = repo.read("main", MASTER), repo.read("main", AGENTIC_RECIPE)
    old = image_of(master, AGENTIC_KEY)
    master = edit_block(master, AGENTIC_KEY, "conc-list: [1, 4]", "conc-list: [1, 2, 4]")
    new = "rocm/atom-dev:nightly_202609231248"
    changelog = repo.read("main", CHANGELOG) + entry(
        [AGENTIC_KEY], "Kimi-K3 AgentX on MI355X: bump to rocm/atom-dev:nightly_202609231248", "  eval-concs: [10]\n")
    pr = open_pr(repo, 3412, "vendor-dev/kimik3-atom", {
        MASTER: edit_block(master, AGENTIC_KEY, old, new), AGENTIC_RECIPE: recipe.replace(old, new),
        CHANGELOG: changelog}, "perf(amd): bump the Kimi-K3 ATOM AgentX image", [LABEL])
    record, world = sweep(repo, pr, tmp_path, 35873197630)
    assert record.conclusion == "success", failed_jobs(record)
    agentic = jobs_of(record, "sweep-single-node-agentic-1")
    assert len(agentic) == 5
    assert len(jobs_of(record, "sweep-agentic-evals-1")) == 1
    assert all(" / " in j.name for j in jobs_of(record, "sweep-agentic-evals-1") + agentic)
    # a maintainer pins the green run, then main moves and is merged into the PR
    authorize_reuse(world, record.run_id)
    repo.commit("main", "main", {"README.md": repo.read("main", "README.md") + "\nA note.\n"},
                "docs: a note")
    sweep_commit = pr.head_sha
    pr.head_sha = repo.merge_main_into(pr.branch)
    pr.commits.append(pr.head_sha)
    pr.base_sha = repo.sha("main")
    world = refresh(world, repo, pr)
    second, world = sweep(repo, pr, tmp_path, 35873197631, world=world, action="synchronize",
                          before=sweep_commit)
    assert second.results["reuse-gate"] == "success"
    assert second.results["plan"] == "skipped"
    assert not [j for j in second.jobs if " / " in j.name]
    verdict = verify(world, pr.number, sign(world, AGENTIC_DETAILS), tmp_path)
    assert_pass(verdict)
    assert str(record.run_id) in verdict.check(1)["reason"]


def test_multi_node_disaggregated_pr_passes(base_repo, tmp_path):
    """dsv4 8k1k is deprecated after 2026-09-08 (configs/policy/deprecations.yaml): this PR is
    swept and reviewed the week before."""
    key = "dsv4-fp4-mi355x-atom-disagg"
    repo = SweepRepo(base_repo, tmp_path / "repo")
    master = repo.read("main", MASTER)
    old = image_of(master, key)
    changelog = repo.read("main", CHANGELOG) + entry([key], "DeepSeek-V4 FP4 disagg on MI355X: newer ATOM nightly")
    pr = open_pr(repo, 1902, "vendor-dev/dsv4-disagg", {
        MASTER: edit_block(master, key, old, "rocm/atom-dev:nightly_202609201403"), CHANGELOG: changelog},
        "perf(amd): DeepSeek-V4 disagg ATOM nightly", [LABEL])
    record, world = sweep(repo, pr, tmp_path, 28761627583, start="2026-09-05T10:00:00Z",
                          now="2026-09-07T12:00:00Z")
    authorize_reuse(world, record.run_id, "2026-09-06T10:00:00Z")
    assert record.conclusion == "success", failed_jobs(record)
    multi = jobs_of(record, "sweep-multi-node-8k1k-1")
    evals = jobs_of(record, "sweep-multinode-evals-1")
    assert len(multi) == 2 and evals
    assert all(j.runner_name.startswith("mi355x-amds_") for j in multi)
    # each row ran across Slurm nodes through the real launcher: 2 prefill + 1 decode nodes and
    # 1 + 1 (PREFILL_NODES=/DECODE_NODES= of the search-space entries), eval rows likewise
    node = record.node
    sruns = node.sruns()
    assert len(sruns) == len(multi) + len(evals)
    assert sorted(int(a[a.index("--nodes") + 1]) for a in sruns[:len(multi)]) == [2, 3]
    containers = node.containers()
    by_row: dict[str, list[str]] = {}
    for run in containers:
        assert run["env"]["HEAD_NODE"] == "mi355x-amds-c0" and run["env"]["PREFILL_TP"] == "8"
        by_row.setdefault(run["env"]["RESULT_NAME"], []).append(run["env"]["NODE_RANK"])
    assert sorted(sorted(ranks) for ranks in by_row.values())[-1] == ["0", "1", "2"]
    assert all(sorted(ranks)[0] == "0" for ranks in by_row.values()) and len(by_row) == len(sruns)
    assert {run["argv"][-1] for run in containers} == {"/workspace/benchmarks/multi_node/dsv4_fp4_mi355x_atom-disagg.sh"}
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS, "2026-09-07T09:00:00Z"), tmp_path)
    assert_pass(verdict)


def test_evals_only_pr_passes(base_repo, tmp_path):
    key = "dsr1-fp4-mi355x-atom"
    repo = SweepRepo(base_repo, tmp_path / "repo")
    changelog = repo.read("main", CHANGELOG) + entry([key], "Re-run the DeepSeek-R1 FP4 ATOM evals",
                                                     "  evals-only: true\n")
    pr = open_pr(repo, 77, "vendor-dev/dsr1-evals", {CHANGELOG: changelog}, "evals: dsr1 fp4 ATOM",
                 [LABEL])
    record, world = sweep(repo, pr, tmp_path, 9104)
    assert record.conclusion == "success", failed_jobs(record)
    swept = [j for j in record.jobs if " / " in j.name]
    assert swept and swept == jobs_of(record, "sweep-evals-1")
    assert "results_bmk" not in record.artifacts.items  # no benchmark job, nothing to collect
    authorize_reuse(world, record.run_id)
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert_pass(verdict)
    # Check `evals` judged the rows `collect --kind eval` wrote
    collected = json.loads(record.artifacts.items["eval_results_all"].files["agg_eval_all.json"])
    assert verdict.check(2)["reason"].startswith(f"agg_eval_all.json of run {record.run_id}:")
    assert {row["task"] for row in collected} == {"gsm8k"} and len(collected) == len(swept)


def test_reuse_after_a_benchmark_neutral_push_passes(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    first, world = sweep(repo, pr, tmp_path, FIRST_SWEEP)
    assert first.conclusion == "success", failed_jobs(first)
    add_comment(world, MAINTAINER, "MEMBER", "/reuse-sweep-run", "2026-09-29T20:00:00Z")
    swept = pr.head_sha
    pr.head_sha = repo.commit(pr.branch, pr.branch, {"README.md": repo.read("main", "README.md") + "\nTypo.\n"},
                              "docs: fix a typo")
    pr.commits.append(pr.head_sha)
    world = refresh(world, repo, pr)
    second, world = sweep(repo, pr, tmp_path, 9106, world=world, action="synchronize", before=swept)
    assert second.results["validate"] == "success"
    assert second.results["reuse-gate"] == "success"
    assert second.job("reuse-sweep-gate").outputs["skip-pr-sweep"] == "true"
    assert second.results["plan"] == "skipped"
    assert not second.artifacts.items
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert_pass(verdict)
    assert verdict.check(4)["status"] == "PASS"


def test_recipe_only_pr_still_passes_check_2_after_a_merge_of_main(base_repo, tmp_path):
    """The PR changes only the recipe script of a config (and appends its changelog entry); it is
    swept green, a maintainer pins the run, main moves (another config's block changes) and is
    merged in. The evidence must read the master config at the sweep's commit for the entry's
    key although the PR never touched the master file."""
    key = "qwen3.5-fp4-mi355x-atom"
    repo = SweepRepo(base_repo, tmp_path / "repo")
    script = repo.read("main", RECIPE_SCRIPT).replace(
        '--max-model-len "$MAX_MODEL_LEN"', '--max-model-len "$MAX_MODEL_LEN" --enable-prefix-caching')
    changelog = repo.read("main", CHANGELOG) + entry([key], "Qwen3.5 FP4 ATOM recipe: enable prefix caching")
    pr = open_pr(repo, 58, "vendor-dev/qwen-atom-recipe", {RECIPE_SCRIPT: script, CHANGELOG: changelog},
                 "perf(amd): enable prefix caching in the Qwen3.5 FP4 ATOM recipe", [LABEL])
    record, world = sweep(repo, pr, tmp_path, 9107)
    assert record.conclusion == "success", failed_jobs(record)
    # every container ran the PR's recipe script (its sha256 is in each server log)
    digest = hashlib.sha256(script.encode()).hexdigest()
    logs = [a for name, a in record.artifacts.items.items() if name.startswith("server_logs_")]
    assert logs and all(f"sha256 {digest}".encode() in b"".join(a.files.values()) for a in logs)
    authorize_reuse(world, record.run_id)
    # main moves: another config's image changes; merging it into the PR is benchmark-neutral
    other = "dsv4-fp4-mi355x-atom"
    master = repo.read("main", MASTER)
    image = image_of(master, other)
    repo.commit("main", "main", {MASTER: edit_block(master, other, image, image[:-8] + "20260926")},
                "perf(amd): newer dsv4 ATOM image")
    sweep_commit = pr.head_sha
    pr.head_sha = repo.merge_main_into(pr.branch)
    pr.commits.append(pr.head_sha)
    pr.base_sha = repo.sha("main")
    assert repo.read(pr.head_sha, MASTER) != repo.read(sweep_commit, MASTER)
    world = refresh(world, repo, pr)
    second, world = sweep(repo, pr, tmp_path, 9108, world=world, action="synchronize", before=sweep_commit)
    assert second.results["reuse-gate"] == "success" and second.results["plan"] == "skipped"
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert verdict.check(2)["status"] == "PASS", verdict.check(2)
    assert_pass(verdict)



def test_gpu_power_is_measured_with_amd_smi_and_the_report_shows_tokens_per_joule(base_repo, tmp_path):
    """Issue 22 point 3: a fake amd-smi on the MI355X nodes; the collected rows carry the
    reference's power fields, the report a tok/J column, and the verdict is the same."""
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    record, world = sweep(repo, pr, tmp_path, 9111, gpu=GpuPlan(power="amd-smi"))
    assert record.conclusion == "success", failed_jobs(record)
    rows = json.loads(record.artifacts.items["results_bmk"].files["agg_bmk.json"])
    assert rows and all(normalise.row_problem(row, "benchmark") is None for row in rows)
    whole_node = [r for r in rows if r["num_gpus"] == 8]
    assert whole_node and all(r["power_valid"] == 1 and r["joules_per_total_token"] > 0 for r in whole_node)
    # the fake node has 8 GPUs: a row on fewer cannot be told apart from the idle ones
    assert all(r["power_invalid_reasons"] == ["expected_gpu_count_mismatch"] for r in rows if r["num_gpus"] != 8)
    assert any(name.startswith("power_") for name in record.artifacts.items)
    body = report_comment(world)["body"]
    assert "| tok/J |" in body and "GPU power: " in body
    per_joule = [line.split("|")[3].strip() for line in body.splitlines()
                 if line.startswith("| ") and line.count("|") == 6 and line.split("|")[3].strip() not in ("tok/J", "---:")]
    assert any(value not in ("—", "") for value in per_joule), per_joule
    authorize_reuse(world, record.run_id)
    assert_pass(verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path))
