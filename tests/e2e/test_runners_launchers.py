"""runners/launch_*.sh: the benchmark job contract, run against a stub `docker` on PATH."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lib import fake_amd_smi, stub_docker, stub_slurm

from infx.config.master import load_master_configs
from infx.config.runners import load_runners
from infx.plan import generate
from infx.plan.sweep_plan import Plan
from infx.results import normalise
from infx.workflow.launch import launcher_problems, result_name
from infx.workflow.shard import shard_plan

ROOT = Path(__file__).resolve().parents[2]
SECRET = "hf_secret_value_never_in_argv"
ROW = {"image": "lmsysorg/sglang:v0.5.12-rocm700-mi35x", "model": "amd/DeepSeek-R1-0528-MXFP4-Preview",
       "model-prefix": "dsr1", "precision": "fp4", "framework": "sglang", "runner": "mi355x", "isl": 8192,
       "osl": 1024, "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1, "conc": 64, "max-model-len": 9472,
       "ep": 8, "dp-attn": True, "spec-decoding": "mtp", "exp-name": "dsr1_8k1k", "disagg": False,
       "run-eval": False}
NODE = "mi355x-amds_03"
# a multi-node disaggregated row: 2 prefill nodes, 1 decode node (dsv4-fp4-mi355x-atom-disagg)
MULTI = {"image": "rocm/atom-dev:nightly_202606101403", "model": "deepseek-ai/DeepSeek-V4-Pro",
         "model-prefix": "dsv4", "precision": "fp4", "framework": "atom-disagg", "runner": "mi355x",
         "isl": 8192, "osl": 1024, "spec-decoding": "none",
         "prefill": {"num-worker": 2, "tp": 8, "ep": 1, "dp-attn": True,
                     "additional-settings": ["PREFILL_NODES=2"], "pp": 1, "dcp-size": 1, "pcp-size": 1},
         "decode": {"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": True,
                    "additional-settings": ["DECODE_NODES=1"], "pp": 1, "dcp-size": 1, "pcp-size": 1},
         "conc": [256, 512], "max-model-len": 9472, "exp-name": "dsv4_8k1k", "disagg": True,
         "run-eval": False, "router": {"name": "atomesh", "version": "087b82d9"},
         "kv-p2p-transfer": "mooncake"}


def _named(row: dict) -> dict:
    node = "multi_node" if "prefill" in row else "single_node"
    plan = {"evals": [row]} if row.get("eval-only") else {node: {"8k1k": [row]}}
    ((named,),) = shard_plan(Plan.from_json(plan)).values()
    return named


@pytest.fixture()
def node(tmp_path) -> dict:
    """A checkout on a GPU node: the repository's launchers, a recipe script, a stub docker."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "runners", repo / "runners")
    recipes = repo / "benchmarks" / "single_node" / "fixed_seq_len"
    recipes.mkdir(parents=True)
    (recipes / "dsr1_fp4_mi355x_sglang_mtp.sh").write_text("python3 -m sglang.bench_serving\n")
    (repo / "benchmarks" / "multi_node").mkdir()
    (repo / "benchmarks" / "multi_node" / "dsv4_fp4_mi355x_atom-disagg.sh").write_text("atomesh serve\n")
    cache = tmp_path / "models"
    cache.mkdir()
    stub_docker.install(tmp_path / "bin")
    log = tmp_path / "docker.log"
    env = {"PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path),
           "STUB_DOCKER_LOG": str(log), "STUB_SLURM_LOG": str(tmp_path / "slurm.log"),
           "INFX_MODEL_CACHE": str(cache), "HF_TOKEN": SECRET,
           "RUNNER_NAME": NODE, "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    return {"repo": repo, "log": log, "env": env, "cache": cache, "slurm": tmp_path / "slurm.log",
            "bin": tmp_path / "bin"}


def _launch(node: dict, row: dict, **extra: str) -> subprocess.CompletedProcess:
    env = node["env"] | {"CONFIG_JSON": json.dumps(_named(row))} | extra
    return subprocess.run([sys.executable, "-m", "infx.workflow", "launch", "--root", str(node["repo"])],
                          env=env, cwd=node["repo"], capture_output=True, text=True, timeout=120)


def _value(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv) if arg == flag]


def test_a_row_runs_its_image_with_its_recipe_on_the_gpus_and_leaves_a_normalised_result(node):
    done = _launch(node, ROW)
    assert done.returncode == 0, done.stderr
    calls = stub_docker.calls(node["log"])
    run = next(c for c in calls if c["argv"][0] == "run")
    argv = run["argv"]
    assert set(_value(argv, "--device")) == {"/dev/kfd", "/dev/dri"}
    assert set(_value(argv, "--group-add")) == {"video", "render"}
    assert run["mounts"]["/models"] == str(node["cache"])
    assert run["mounts"]["/results"].endswith("results-raw")
    assert run["command"] == [ROW["image"], "bash", "/workspace/benchmarks/single_node/fixed_seq_len/"
                              "dsr1_fp4_mi355x_sglang_mtp.sh"]
    # the row's settings reach the container as variables, by name only
    assert run["env"]["TP"] == "8" and run["env"]["CONC"] == "64" and run["env"]["DP_ATTN"] == "true"
    assert json.loads(run["env"]["CONFIG_JSON"])["model"] == ROW["model"]
    assert run["env"]["HF_TOKEN"] == SECRET and not any(SECRET in arg for arg in argv)
    assert "--env" in argv and "TP" in argv and not any(a.startswith("TP=") for a in argv)
    # the job's own container is removed afterwards, and only it
    name = _value(argv, "--name")[0]
    removed = [c["argv"] for c in calls if c["argv"][0] == "rm"]
    assert removed == [["rm", "--force", name]]
    assert name.startswith("infx-4242-1-") and f"infx.runner={NODE}" in _value(argv, "--label")
    # the result: one schema row named by the row identity
    (out,) = (node["repo"] / "results").iterdir()
    assert out.name == result_name(_named(ROW), NODE) + ".json"
    (row,) = json.loads(out.read_text())
    assert normalise.row_problem(row, "benchmark") is None and row["runner_name"] == NODE


def test_eval_rows_leave_lm_eval_files_and_meta(node):
    row = ROW | {"eval-only": True, "run-eval": True}
    done = _launch(node, row, STUB_DOCKER_SCORE="0.93")
    assert done.returncode == 0, done.stderr
    results = node["repo"] / "results"
    meta = json.loads((results / "meta_env.json").read_text())
    assert meta["job_name"] == _named(row)["job-name"] and meta["hw"] == "mi355x"
    job = normalise.eval_job("eval_x", {p.relative_to(results).as_posix(): p.read_bytes()
                                        for p in results.rglob("*") if p.is_file()})
    assert [(r["task"], r["score"]) for r in job.rows] == [("gsm8k", 0.93)]


def test_row_settings_can_never_override_the_token_or_the_runner(node):
    for field in ("hf-token", "runner-name", "infx-model-cache", "results-dir", "github-token"):
        done = _launch(node, ROW | {field: "x"})
        assert done.returncode == 1 and "protected variable" in done.stderr, field
        assert done.stdout == ""
    assert not any(c["argv"][0] == "run" for c in stub_docker.calls(node["log"]))


def test_a_row_without_a_recipe_script_fails_before_docker_runs(node):
    done = _launch(node, ROW | {"framework": "vllm"})
    assert done.returncode == 1
    assert "no recipe script for this row: add benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x_vllm.sh" in done.stderr
    assert not stub_docker.calls(node["log"])


@pytest.mark.parametrize(("scripts", "row"), [
    # the historical single-node name (no _<framework>), as the reference's trees have it
    (["qwen3.5_fp8_mi355x.sh"], {"framework": "sglang", "spec-decoding": "none", "model-prefix": "qwen3.5",
                                 "precision": "fp8"}),
    # an MTP row: framework-tagged _mtp first, then the historical _mtp, then the base scripts
    (["dsr1_fp4_mi355x_mtp.sh", "dsr1_fp4_mi355x_sglang.sh"], {}),
    (["dsr1_fp4_mi355x.sh", "dsr1_fp4_mi355x_sglang.sh"], {}),
    (["dsr1_fp4_mi355x.sh"], {}),
])
def test_the_launcher_runs_the_script_the_launch_graph_names(node, scripts, row):
    """runners/launch_mi355x-amds.sh and infx.plan.launch_graph follow one naming rule: on the
    reference's real trees (qwen3.5_fp8_mi355x.sh for an SGLang key) the launcher used to find
    nothing while the sign-off followed the historical script."""
    from infx.plan.launch_graph import SCRIPT, launch_graph

    folder = node["repo"] / "benchmarks" / "single_node" / "fixed_seq_len"
    for old in folder.iterdir():
        old.unlink()
    for name in scripts:
        (folder / name).write_text("python3 -m sglang.launch_server\n")
    row = ROW | row
    tree = {p.relative_to(node["repo"]).as_posix(): p.read_text() for p in node["repo"].rglob("*.sh")}
    entry = {k: row[k] for k in ("model-prefix", "precision", "framework", "runner", "model")}
    lane = {"tp": 8, "conc-list": [64], "spec-decoding": row["spec-decoding"]}
    entry |= {"multinode": False, "scenarios": {"fixed-seq-len": [{"isl": 8192, "osl": 1024, "search-space": [lane]}]}}
    (named,) = launch_graph(tree, "key", entry, {"labels": load_runners(ROOT / "configs" / "runners.yaml").labels}).paths(SCRIPT)
    done = _launch(node, row)
    assert done.returncode == 0, done.stderr
    run = next(c for c in stub_docker.calls(node["log"]) if c["argv"][0] == "run")
    assert run["command"][-1] == f"/workspace/{named}"


def test_the_model_cache_must_be_provided(node):
    done = _launch(node, ROW, INFX_MODEL_CACHE="")
    assert done.returncode == 1 and "INFX_MODEL_CACHE is not set" in done.stderr
    done = _launch(node, ROW, INFX_MODEL_CACHE=str(node["cache"] / "missing"))
    assert done.returncode == 1 and "does not exist" in done.stderr


def test_a_failed_benchmark_fails_the_job_and_still_cleans_up(node):
    done = _launch(node, ROW, STUB_DOCKER_EXIT="3")
    assert done.returncode == 1 and "launch script exited with status 3" in done.stderr
    assert [c["argv"][0] for c in stub_docker.calls(node["log"])] == ["ps", "run", "rm"]
    assert not list((node["repo"] / "results").iterdir())


def test_a_benchmark_over_its_time_limit_is_stopped_and_removed(node):
    start = time.monotonic()
    done = _launch(node, ROW, STUB_DOCKER_SLEEP="60", INFX_TIMEOUT="1s")
    assert time.monotonic() - start < 30
    assert done.returncode == 1 and "exceeded its time limit (1s)" in done.stderr
    assert stub_docker.calls(node["log"])[-1]["argv"][:2] == ["rm", "--force"]


def test_containers_this_runner_left_behind_are_removed_first(node):
    assert _launch(node, ROW, STUB_DOCKER_STALE="dead1 dead2").returncode == 0
    calls = [c["argv"] for c in stub_docker.calls(node["log"])]
    assert calls[0] == ["ps", "--all", "--quiet", "--filter", f"label=infx.runner={NODE}"]
    assert calls[1] == ["rm", "--force", "dead1", "dead2"]


def test_cancellation_removes_the_container(node):
    env = node["env"] | {"CONFIG_JSON": json.dumps(_named(ROW)), "STUB_DOCKER_SLEEP": "60"}
    process = subprocess.Popen([sys.executable, "-m", "infx.workflow", "launch", "--root", str(node["repo"])],
                               env=env, cwd=node["repo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not any(c["argv"][0] == "run" for c in stub_docker.calls(node["log"])):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.1)
    time.sleep(0.3)
    process.send_signal(signal.SIGTERM)  # what the runner sends when the job is cancelled
    _, err = process.communicate(timeout=30)
    assert process.returncode != 0 and "cancelled; removing container" in err
    calls = [c["argv"] for c in stub_docker.calls(node["log"])]
    name = _value(next(c for c in calls if c[0] == "run"), "--name")[0]
    assert ["rm", "--force", name] in calls


def test_a_multi_node_row_runs_one_container_per_node_under_slurm(node):
    stub_slurm.install(node["bin"])
    done = _launch(node, MULTI)
    assert done.returncode == 0, done.stderr
    slurm = [(c["tool"], c["argv"]) for c in stub_slurm.calls(node["slurm"])]
    job = f"infx.{NODE}"
    # a job an earlier run of this runner left behind is cancelled first, by its name and user only
    assert slurm[0][0] == "scancel" and _value(slurm[0][1], "--name") == [job] and "--user" in slurm[0][1]
    srun = next(argv for tool, argv in slurm if tool == "srun")
    assert _value(srun, "--nodes") == ["3"] and _value(srun, "--ntasks-per-node") == ["1"]
    assert _value(srun, "--job-name") == [job] and "--exclusive" in srun
    runs = sorted((c for c in stub_docker.calls(node["log"]) if c["argv"][0] == "run"),
                  key=lambda c: c["env"]["NODE_RANK"])
    assert [c["env"]["NODE_RANK"] for c in runs] == ["0", "1", "2"]
    for run in runs:
        assert {k: run["env"][k] for k in ("NUM_NODES", "PREFILL_NODE_COUNT", "DECODE_NODE_COUNT", "HEAD_NODE")} \
            == {"NUM_NODES": "3", "PREFILL_NODE_COUNT": "2", "DECODE_NODE_COUNT": "1", "HEAD_NODE": "mi355x-amds-c0"}
        assert run["command"] == [MULTI["image"], "bash", "/workspace/benchmarks/multi_node/dsv4_fp4_mi355x_atom-disagg.sh"]
        assert run["env"]["PREFILL_TP"] == "8" and run["env"]["HF_TOKEN"] == SECRET
        assert "/dev/infiniband" in _value(run["argv"], "--device")
    # every node removes its own container
    names = [_value(c["argv"], "--name")[0] for c in runs]
    assert len(set(names)) == 3 and all(n.endswith(f"-n{i}") for i, n in enumerate(names))
    removed = [c["argv"][2] for c in stub_docker.calls(node["log"]) if c["argv"][:2] == ["rm", "--force"]]
    assert set(names) <= set(removed)
    # the head node's results: one schema row per concurrency, named by the row identity
    (out,) = (node["repo"] / "results").iterdir()
    rows = json.loads(out.read_text())
    assert [r["conc"] for r in rows] == [256, 512]
    assert all(normalise.row_problem(r, "benchmark") is None for r in rows)


def test_a_multi_node_row_needs_slurm_on_the_runner(node):
    done = _launch(node, MULTI, PATH=f"{node['bin']}{os.pathsep}/usr/bin:/bin")
    assert done.returncode == 1
    assert "a multi-node row needs Slurm on the runner (srun is not on PATH" in done.stderr
    assert not any(c["argv"][0] == "run" for c in stub_docker.calls(node["log"]))


def test_a_failed_multi_node_benchmark_fails_the_job(node):
    stub_slurm.install(node["bin"])
    done = _launch(node, MULTI, STUB_DOCKER_EXIT="3")
    assert done.returncode == 1 and "launch script exited with status 3" in done.stderr
    assert not list((node["repo"] / "results").iterdir())


def test_cancelling_a_multi_node_row_removes_every_node(node):
    stub_slurm.install(node["bin"])
    env = node["env"] | {"CONFIG_JSON": json.dumps(_named(MULTI)), "STUB_DOCKER_SLEEP": "60"}
    process = subprocess.Popen([sys.executable, "-m", "infx.workflow", "launch", "--root", str(node["repo"])],
                               env=env, cwd=node["repo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while sum(c["argv"][0] == "run" for c in stub_docker.calls(node["log"])) < 3:
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.1)
    time.sleep(0.3)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode != 0 and f"cancelled; removing Slurm job infx.{NODE}" in err
    runs = [c for c in stub_docker.calls(node["log"]) if c["argv"][0] == "run"]
    removed = {c["argv"][2] for c in stub_docker.calls(node["log"]) if c["argv"][:2] == ["rm", "--force"]}
    assert {_value(c["argv"], "--name")[0] for c in runs} <= removed
    cancels = [c["argv"] for c in stub_slurm.calls(node["slurm"]) if c["tool"] == "scancel"]
    assert len(cancels) >= 2 and _value(cancels[-1], "--name") == [f"infx.{NODE}"]


def test_every_runner_of_our_labels_has_a_launcher():
    runners = load_runners(ROOT / "configs" / "runners.yaml")
    rows = generate.generate_full_sweep(load_master_configs([str(ROOT / "configs" / "amd-master.yaml")]),
                                        runners, evals="default")
    assert launcher_problems(rows, runners, ROOT, "configs/runners.yaml") == []


def test_a_runner_without_a_launcher_fails_at_plan_time(tmp_path, monkeypatch, capsys):
    from infx.cli.workflow import main

    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "runners.yaml").write_text(
        "labels:\n  mi355x:\n    - mi355x-amds_00\n    - mi355x-new_01\n")
    shutil.copytree(ROOT / "runners", tmp_path / "runners")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"single_node": {"8k1k": [ROW]}}))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    assert main(["shard", "--plan", str(plan), "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "configs/runners.yaml" in err and "runners named mi355x-new_*" in err
    assert "add runners/launch_mi355x-new.sh" in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("label", ["gb300-nv", "b200-dgxc"])
def test_an_unknown_runner_label_warns_and_shards(tmp_path, monkeypatch, capsys, label):
    """PRODUCT §4.1: a label runners.yaml does not list is a warning naming it, not an error."""
    from infx.cli.workflow import main

    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "runners.yaml").write_text("labels:\n  mi355x:\n    - mi355x-amds_00\n")
    shutil.copytree(ROOT / "runners", tmp_path / "runners")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"single_node": {"8k1k": [ROW, ROW | {"runner": label}]}}))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    assert main(["shard", "--plan", str(plan), "--root", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"warning: configs/runners.yaml [{label}]: runner label '{label}'")
    assert "error" not in err and '"jobs"' not in err
    assert "matrix=" in (tmp_path / "out").read_text()


# --- GPU power sampling (issue 22 point 3) ---------------------------------------------------------

def _rows(node: dict) -> list[dict]:
    (out,) = (node["repo"] / "results").iterdir()
    return json.loads(out.read_text())


@pytest.mark.parametrize("tool", ["amd-smi", "rocm-smi"])
def test_the_launcher_samples_gpu_power_for_the_measurement_window(node, tool):
    fake_amd_smi.install(node["bin"], (tool,))
    done = _launch(node, ROW, STUB_DOCKER_SLEEP="1.2", INFX_POWER_INTERVAL="0.1")
    assert done.returncode == 0, done.stderr
    samples = (node["repo"] / "results-power" / "power_node0.samples").read_text()
    assert samples.startswith(f"# tool {tool}\n") and samples.count("# sample ") >= 5
    (row,) = _rows(node)
    assert row["power_valid"] == 1, row.get("power_invalid_reasons")
    assert row["avg_power_w"] == pytest.approx(635, abs=10) and row["joules_per_total_token"] > 0
    assert normalise.row_problem(row, "benchmark") is None
    report = json.loads((node["repo"] / "results-power" / "power_validation.json").read_text())
    assert report == [{"conc": 64, "power_valid": 1, "reasons": ""}]


def test_without_amd_smi_the_rows_say_power_is_invalid_and_why_and_the_job_passes(node):
    done = _launch(node, ROW, STUB_DOCKER_SLEEP="0.4")
    assert done.returncode == 0, done.stderr
    assert "neither amd-smi nor rocm-smi" in done.stderr
    (row,) = _rows(node)
    assert (row["power_valid"], row["power_invalid_reasons"]) == (0, ["power_tool_missing"])
    assert "avg_power_w" not in row and normalise.row_problem(row, "benchmark") is None


@pytest.mark.parametrize("mode", ["garbled", "partial", "fail"])
def test_a_broken_amd_smi_makes_power_invalid_not_the_job(node, mode):
    fake_amd_smi.install(node["bin"])
    done = _launch(node, ROW, STUB_DOCKER_SLEEP="0.6", INFX_POWER_INTERVAL="0.1", FAKE_AMD_SMI_MODE=mode)
    assert done.returncode == 0, done.stderr
    (row,) = _rows(node)
    assert row["power_valid"] == 0 and row["power_invalid_reasons"]


def test_a_row_that_requires_power_fails_without_a_valid_measurement(node):
    done = _launch(node, ROW | {"require-power": True}, STUB_DOCKER_SLEEP="0.4")
    assert done.returncode != 0 and "requires power" in done.stderr and "power_tool_missing" in done.stderr
    (row,) = _rows(node)  # the rows are still written, for the record
    assert row["power_valid"] == 0


def test_a_multi_node_row_samples_every_node_and_gets_energy_per_role(node):
    stub_slurm.install(node["bin"])
    fake_amd_smi.install(node["bin"])
    done = _launch(node, MULTI, STUB_DOCKER_SLEEP="1.2", INFX_POWER_INTERVAL="0.1")
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in (node["repo"] / "results-power").glob("*.samples"))
    assert files == ["power_node0.samples", "power_node1.samples", "power_node2.samples"]
    for row in _rows(node):
        assert row["power_valid"] == 1, row.get("power_invalid_reasons")
        assert row["prefill_gpu_energy_j"] == pytest.approx(2 * row["decode_gpu_energy_j"], rel=0.05)
        assert row["prefill_avg_power_w"] == pytest.approx(row["decode_avg_power_w"], rel=0.05)
        assert normalise.row_problem(row, "benchmark") is None
