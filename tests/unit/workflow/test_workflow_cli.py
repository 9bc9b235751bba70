"""`python -m infx.workflow …`: the steps the workflows run, with outputs and clean failures."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

from lib.fake_results import lm_eval
from lib.reuse_world import C2, add_fork_pr, base_world

from infx.cli.workflow import main
from infx.plan.identity import job_name
from infx.results.normalise import eval_meta
from infx.workflow.launch import result_name


def _outputs(path) -> dict:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_labels_step(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("LABELS_JSON", '["full-sweep-fail-fast", "all-evals"]')
    assert main(["labels", "--commit-message", "fix [skip-sweep]"]) == 0
    values = _outputs(out)
    assert values["primary"] == "full-sweep-fail-fast" and values["skip-pr-sweep"] == "true"
    assert values["planner-args"] == "--all-evals"


def test_labels_step_fails_on_two_primaries(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    assert main(["labels", "--labels-json", '["sweep-enabled","full-sweep-enabled"]',
                 "--commit-message", ""]) == 1
    captured = capsys.readouterr()
    assert "Pick exactly one." in captured.err and captured.out == "" and not out.exists()
    assert main(["labels", "--labels-json", '{"a": 1}', "--commit-message", ""]) == 1


def test_labels_step_reads_the_commit_message_from_git(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "refresh [skip-sweep]"], cwd=repo,
                   check=True, env=env)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, env=env,
                         capture_output=True, text=True).stdout.strip()
    monkeypatch.chdir(repo)
    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    assert main(["labels", "--labels-json", "[]", "--head-sha", sha]) == 0
    assert _outputs(out)["skip-pr-sweep"] == "true"
    assert main(["labels", "--labels-json", "[]", "--head-sha", "f" * 40]) == 1


def test_shard_step(tmp_path, monkeypatch, capsys):
    plan = {"single_node": {"1k1k": [{"runner": "mi355x", "conc": 4}]}, "evals": [],
            "changelog_metadata": {"base_ref": "a", "head_ref": "b", "entries": []}}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    out, summary, meta = tmp_path / "out", tmp_path / "summary", tmp_path / "meta.json"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["shard", "--plan", str(plan_file), "--metadata-out", str(meta)]) == 0
    values = _outputs(out)
    assert json.loads(values["shards"]) == ["single-node-1k1k-1"]
    row = {"runner": "mi355x", "conc": 4}
    assert json.loads(values["matrix"]) == {"single-node-1k1k-1": [row | {"job-name": job_name(row)}]}
    assert values["has-evals"] == "false" and values["jobs"] == "1"
    assert "| sweep-single-node-1k1k-1 | 1 |" in summary.read_text()
    assert json.loads(meta.read_text())["head_ref"] == "b"
    assert json.loads(values["canary"]) == []
    out.write_text("")
    assert main(["shard", "--plan", str(plan_file), "--canary", "true"]) == 0
    values = _outputs(out)
    assert json.loads(values["canary"]) == [row | {"job-name": job_name(row)}]
    assert json.loads(values["shards"]) == [] and values["jobs"] == "1" and values["has-throughput"] == "true"
    assert "**Canary:**" in summary.read_text()


def test_shard_step_fails_cleanly(tmp_path, monkeypatch, capsys):
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps({"evals": [{"conc": i} for i in range(300)]}))
    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    assert main(["shard", "--plan", str(plan_file)]) == 1
    captured = capsys.readouterr()
    assert "bucket evals has 300 jobs" in captured.err and captured.out == "" and not out.exists()
    assert main(["shard", "--plan", str(tmp_path / "missing.json")]) != 0


def test_row_info_and_launch(tmp_path, monkeypatch):
    row = {"exp-name": "x", "precision": "fp8", "framework": "vllm", "tp": 1, "ep": 1, "conc": 2,
           "eval-only": True}
    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("CONFIG_JSON", json.dumps(row))
    monkeypatch.setenv("RUNNER_NAME", "mi355x-amds_01")
    assert main(["row-info"]) == 0
    assert _outputs(out)["artifact-name"] == f"eval_{result_name(row, 'mi355x-amds_01')}"
    assert _outputs(out)["artifact-name"].startswith("eval_-_fp8_-_vllm_-_TP1_c2_eval_")
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "launch_mi355x-amds.sh").write_text("exit 3\n")
    assert main(["launch", "--root", str(tmp_path)]) == 1


def test_collect_step(tmp_path, monkeypatch):
    row = {"model-prefix": "dsr1", "precision": "fp8", "framework": "sglang", "runner": "mi355x",
           "tp": 8, "conc": 16, "eval-only": True}
    job = tmp_path / "in" / ("eval_" + result_name(row, "n_1"))
    job.mkdir(parents=True)
    (job / "meta_env.json").write_text(json.dumps(eval_meta(row, "n_1")))
    (job / "results_x.json").write_text(json.dumps(lm_eval(score=0.91)))
    summary = tmp_path / "summary"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["collect", "--kind", "eval", "--input", str(tmp_path / "in"),
                 "--output", str(tmp_path / "agg.json")]) == 0
    (out,) = json.loads((tmp_path / "agg.json").read_text())
    assert (out["task"], out["score"], out["infrastructure_success"]) == ("gsm8k", 0.91, True)
    assert "| gsm8k | 0.91 (em_strict) |" in summary.read_text()
    assert main(["collect", "--kind", "eval", "--input", str(tmp_path / "none"),
                 "--output", str(tmp_path / "e.json")]) == 1
    assert not (tmp_path / "e.json").exists()


def test_comment_steps_against_the_fake_server(fake_github, monkeypatch, capsys):
    fake = fake_github(base_world())
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("INFX_GITHUB_MAX_WAIT", "0")
    assert main(["welcome", "--repo", "acme/inferencex", "--pr", "12"]) == 0
    assert json.loads(capsys.readouterr().out)["action"] == "created"
    assert main(["results-link", "--repo", "acme/inferencex", "--pr", "12", "--run-id", "5"]) == 0
    assert json.loads(capsys.readouterr().out) == {"action": "created"}
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.delenv("GH_TOKEN", raising=False)
    assert main(["welcome", "--repo", "acme/inferencex", "--pr", "12"]) == 1
    assert "GH_TOKEN or GITHUB_TOKEN is required" in capsys.readouterr().err


def test_module_entry_point():
    result = subprocess.run([sys.executable, "-m", "infx.workflow", "--help"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0 and "labels" in result.stdout


def _fork_run_event(tmp_path, test_data, *, event: str = "pull_request", head_repo: str = "vendor/inferencex"):
    """A real workflow_run payload, re-pointed at our repository and a fork PR's head."""
    path = test_data / "github" / "webhooks" / "workflow_run" / "completed.with-pull-requests.payload.json"
    payload = json.loads(path.read_text())
    run = payload["workflow_run"]
    run.update(event=event, name="PR welcome", head_sha=C2, head_branch="main", pull_requests=[])
    run["head_repository"] = copy.deepcopy(run["head_repository"]) | {"full_name": head_repo}
    payload["repository"] |= {"full_name": "acme/inferencex", "default_branch": "main"}
    target = tmp_path / "event.json"
    target.write_text(json.dumps(payload))
    return target


def test_welcome_from_run_posts_once_on_the_fork_pr(fake_github, monkeypatch, capsys, tmp_path, test_data):
    fake = fake_github(add_fork_pr(base_world()))
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    summary = tmp_path / "summary"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    event = _fork_run_event(tmp_path, test_data)
    args = ["welcome-from-run", "--repo", "acme/inferencex", "--event-path", str(event)]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == {"pulls": [14], "actions": ["created"]}
    assert main(args) == 0  # a re-run of the same run, or ready_for_review later
    assert json.loads(capsys.readouterr().out) == {"pulls": [14], "actions": ["unchanged"]}
    assert "#14 created" in summary.read_text()
    bodies = [c["body"] for c in fake.world["pulls"][1]["comments"]]
    assert len(bodies) == 1 and bodies[0].startswith("<!-- infx-welcome -->")
    assert fake.world["pulls"][0]["comments"][-1]["user"] != "github-actions[bot]"


def test_welcome_from_run_ignores_non_pr_runs_and_unknown_heads(fake_github, monkeypatch, capsys, tmp_path,
                                                                test_data):
    fake = fake_github(add_fork_pr(base_world()))
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    push = _fork_run_event(tmp_path, test_data, event="push")
    assert main(["welcome-from-run", "--repo", "acme/inferencex", "--event-path", str(push)]) == 0
    assert json.loads(capsys.readouterr().out)["pulls"] == []
    stranger = _fork_run_event(tmp_path, test_data, head_repo="mallory/inferencex")
    assert main(["welcome-from-run", "--repo", "acme/inferencex", "--event-path", str(stranger)]) == 0
    assert json.loads(capsys.readouterr().out) == {"pulls": [], "actions": []}
    assert fake.count("POST") == 0


def test_welcome_that_keeps_failing_exits_1_with_a_clear_message(fake_github, monkeypatch, capsys):
    world = base_world()
    # Retry-After 0 keeps the test instant while the client still retries within its bounds
    world["faults"] = [{"method": "POST", "path": r"/issues/12/comments$", "status": 502,
                        "headers": {"Retry-After": "0"}}]
    fake = fake_github(world)
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    assert main(["welcome", "--repo", "acme/inferencex", "--pr", "12"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "commenting on acme/inferencex#12" in captured.err and "gave up after 5 attempt(s)" in captured.err
    assert fake.count("POST", r"/issues/12/comments$") == 5  # 1 + 4 retries, then a clear failure
    assert not any("infx-welcome" in c["body"] for c in fake.world["pulls"][0]["comments"])


def test_comment_steps_replay_a_world_file_without_a_token(tmp_path, monkeypatch, capsys, test_data):
    import yaml

    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    world = tmp_path / "world.yaml"
    world.write_text(yaml.safe_dump(add_fork_pr(base_world()), sort_keys=False))
    assert main(["welcome", "--repo", "acme/inferencex", "--pr", "12", "--world", str(world)]) == 0
    assert json.loads(capsys.readouterr().out)["action"] == "created"
    assert main(["results-link", "--repo", "acme/inferencex", "--pr", "12", "--run-id", "9",
                 "--world", str(world)]) == 0
    assert json.loads(capsys.readouterr().out) == {"action": "created"}
    event = _fork_run_event(tmp_path, test_data)
    assert main(["welcome-from-run", "--repo", "acme/inferencex", "--event-path", str(event),
                 "--world", str(world)]) == 0
    assert json.loads(capsys.readouterr().out) == {"pulls": [14], "actions": ["created"]}
