"""`python -m infx.workflow annotate`: agentx-fast rows, queue priority, and who may skip the queue."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from lib.project_trees import BASE, HEAD, project_tree  # noqa: F401
from lib.reuse_world import WORLD_FILE

from infx.cli.workflow import workflow
from infx.config.ci_priority import POLICY_PATH
from infx.plan.identity import job_name
from infx.plan.incremental import plan_from_trees
from infx.plan.planner import PlanFlags
from infx.plan.sweep_plan import Plan
from infx.workflow.launch import row_env

ROOT = Path(__file__).resolve().parents[3]
AGENTIC = {"image": "img:1", "model": "m", "model-prefix": "minimaxm3", "precision": "fp4", "framework": "vllm",
           "runner": "cluster:mi355x-amds", "tp": 4, "pp": 1, "dcp-size": 1, "pcp-size": 1, "ep": 1,
           "dp-attn": False, "conc": 8, "spec-decoding": "mtp", "scenario-type": "agentic-coding",
           "kv-offloading": "none", "duration": 3600, "exp-name": "m_agentic", "run-eval": False}


def _plan() -> dict:
    plan = plan_from_trees(BASE, HEAD, PlanFlags(), base_ref="base", head_ref="head").to_json()
    plan["single_node"]["agentic"] = [AGENTIC, AGENTIC | {"conc": 16}]
    plan["multi_node"]["agentic"] = [AGENTIC | {"prefill": {"tp": 8}, "decode": {"tp": 8}, "conc": [4]}]
    plan["agentic_evals"] = [AGENTIC | {"eval-only": True, "run-eval": True}]
    return plan


def _run(tmp_path: Path, plan: dict, env: dict, *args: str, cwd: Path = ROOT) -> tuple[dict, str]:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    runner = CliRunner()
    base_env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1",
                "GITHUB_REPOSITORY": "acme/inferencex"}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(cwd)
        result = runner.invoke(workflow, ["annotate", "--plan", str(path), *args], env=base_env | env,
                               catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(path.read_text(encoding="utf-8")), summary.read_text(encoding="utf-8")


def test_every_row_is_annotated_and_keeps_its_job_name(tmp_path):
    plan = _plan()
    got, summary = _run(tmp_path, plan, {"EVENT_NAME": "pull_request", "LABELS_JSON": '["full-sweep-enabled"]',
                                         "PR_NUMBER": "12"})
    before, after = Plan.from_json(plan).rows(), Plan.from_json(got).rows()
    assert len(after) == len(before) > 5
    for old, new in zip(before, after, strict=True):
        assert job_name(new) == job_name(old)
        assert new["priority"] and len(new["queue-token"]) == 32 and "skip-queue-pr" not in new
        assert "agentx-fast" not in new
    assert got["changelog_metadata"] == plan["changelog_metadata"]
    assert "**Queue priority**" in summary and "`4.750`" in summary and "`6.000`" in summary  # AgentX rows


def test_a_push_scores_plus_two_and_has_no_labels(tmp_path):
    plan = _plan()
    pr, _ = _run(tmp_path, plan, {"EVENT_NAME": "pull_request", "LABELS_JSON": "[]"})
    push, _ = _run(tmp_path, plan, {"EVENT_NAME": "push", "LABELS_JSON": "null", "PR_NUMBER": ""})
    for a, b in zip(Plan.from_json(pr).rows(), Plan.from_json(push).rows(), strict=True):
        assert float(b["priority"]) == pytest.approx(float(a["priority"]) + 2)


def test_agentx_fast_marks_only_agentic_throughput_rows(tmp_path):
    plan = _plan()
    got, summary = _run(tmp_path, plan, {"EVENT_NAME": "pull_request", "AGENTX_FAST": "true",
                                         "LABELS_JSON": '["full-sweep-enabled","agentx-fast"]'})
    fast = [r for r in Plan.from_json(got).rows() if r.get("agentx-fast") is True]
    assert len(fast) == 3 and all(r["scenario-type"] == "agentic-coding" and not r.get("eval-only") for r in fast)
    assert got["agentic_evals"][0].get("agentx-fast") is None
    canonical = {job_name(r) for r in Plan.from_json(plan).rows()}
    assert not {job_name(r) for r in fast} & canonical  # other rows: never covered by canonical results
    assert all(" fast #" in job_name(r) for r in fast)
    assert [row_env(r)["AIPERF_EXPERIMENTAL_FAST"] for r in Plan.from_json(got).rows()].count("1") == 3
    assert row_env(got["agentic_evals"][0])["AIPERF_EXPERIMENTAL_FAST"] == "0"
    assert "`agentx-fast`" in summary


@pytest.fixture
def world(tmp_path) -> Path:
    data = yaml.safe_load(WORLD_FILE.read_text(encoding="utf-8"))
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("actor", "honoured"), [
    ("root", True),  # admin
    ("dave", True),  # maintain (GitHub reports permission write, role_name maintain)
    ("alice", False),  # write
    ("bob", False),  # read
    ("mallory", False),  # no access
    ("renovate[bot]", False),
    ("", False),
])
def test_skip_queue_needs_a_run_by_maintain_or_admin(tmp_path, world, actor, honoured):
    env = {"EVENT_NAME": "pull_request", "LABELS_JSON": '["full-sweep-enabled","skip_queue"]', "PR_NUMBER": "12",
           "ACTOR": actor}
    got, summary = _run(tmp_path, _plan(), env, "--world", str(world))
    values = {r.get("skip-queue-pr") for r in Plan.from_json(got).rows()}
    assert values == ({12} if honoured else {None})
    assert ("`skip_queue`: honoured" in summary) is honoured
    assert ("`skip_queue`: ignored" in summary) is not honoured


def test_skip_queue_is_never_honoured_on_a_push_or_without_the_label(tmp_path, world):
    for env in ({"EVENT_NAME": "push", "LABELS_JSON": '["skip_queue"]', "PR_NUMBER": "12", "ACTOR": "root"},
                {"EVENT_NAME": "pull_request", "LABELS_JSON": "[]", "PR_NUMBER": "12", "ACTOR": "root"}):
        got, summary = _run(tmp_path, _plan(), env, "--world", str(world))
        assert all("skip-queue-pr" not in r for r in Plan.from_json(got).rows()) and "skip_queue" not in summary


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_the_policy_comes_from_the_given_ref_never_the_working_tree(tmp_path):
    repo = tmp_path / "repo"
    (repo / "configs").mkdir(parents=True)
    _git(repo, "init", "-q")
    policy = (ROOT / POLICY_PATH).read_text(encoding="utf-8")
    (repo / POLICY_PATH).write_text(policy, encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    (repo / POLICY_PATH).write_text(policy.replace("base-score: 1.0", "base-score: 90.0"), encoding="utf-8")
    row = {"single_node": {"1k1k": [{"runner": "mi355x", "framework": "atom", "precision": "fp8",
                                      "model-prefix": "x", "conc": 4}]}}
    got, _ = _run(tmp_path, row, {"EVENT_NAME": "pull_request", "POLICY_REF": base}, cwd=repo)
    assert got["single_node"]["1k1k"][0]["priority"] == "1.000"
    tampered, _ = _run(tmp_path, row, {"EVENT_NAME": "pull_request"}, cwd=repo)
    assert tampered["single_node"]["1k1k"][0]["priority"] == "90.000"  # the working tree, when asked for


def test_a_ref_without_the_policy_fails_naming_it(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
    path = tmp_path / "plan.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(repo)
        result = CliRunner().invoke(workflow, ["annotate", "--plan", str(path), "--policy-ref", "HEAD"])
    assert result.exit_code != 0
    assert "HEAD:configs/ci-priority.yaml" in str(result.exception.problems[0])
