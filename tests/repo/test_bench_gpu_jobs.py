"""benchmarks/bench_gpu_jobs.py fails loudly without the reference configs and exits 1 over a bar."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from infx.plan.sweep_plan import Plan

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("bench_gpu_jobs", ROOT / "benchmarks" / "bench_gpu_jobs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_without_the_reference_configs_it_fails_naming_them(tmp_path):
    (tmp_path / "repo" / "benchmarks").mkdir(parents=True)
    for name in ("bench_gpu_jobs.py", "gpu_durations.yaml"):
        shutil.copy(ROOT / "benchmarks" / name, tmp_path / "repo" / "benchmarks" / name)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, str(tmp_path / "repo" / "benchmarks" / "bench_gpu_jobs.py")],
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "reference configs are required" in run.stdout
    assert str(tmp_path / "shared" / "fixtures" / "upstream-inferencex") in run.stdout


@pytest.mark.parametrize("spent, covered, code", [
    ({"infx": 3.0, "diligent": 10.0, "worst": 20.0, "oracle": 3.0}, True, 0),
    ({"infx": 5.0, "diligent": 10.0, "worst": 20.0, "oracle": 4.0}, True, 1),   # over the diligent bar
    ({"infx": 3.0, "diligent": 10.0, "worst": 20.0, "oracle": 2.0}, True, 1),   # over the oracle bar
    ({"infx": 3.0, "diligent": 10.0, "worst": 20.0, "oracle": 3.0}, False, 1),  # a merge not covered
])
def test_exit_status_follows_the_bars_and_coverage(monkeypatch, capsys, spent, covered, code):
    bench = _load()
    monkeypatch.setattr(bench, "config_sets", lambda: [("ours", {}, "k", "o")])

    def ledger(kind, tree, key, other, hours, where):
        return bench.Ledger(hours, spent=dict(spent), covered=covered)

    monkeypatch.setattr(bench, "run_lifecycle", ledger)
    assert bench.main() == code
    out = capsys.readouterr().out
    assert ("OVER BAR" in out) == (not spent["infx"] <= 0.4 * spent["diligent"]
                                   or not spent["infx"] <= 1.15 * spent["oracle"])
    assert ("BROKEN" in out) == (not covered)


def test_gpu_hours_are_rows_times_gpus_times_the_section_duration():
    bench = _load()
    plan = Plan.from_json({"single_node": {"8k1k": [{"tp": 8, "conc": 4, "model": "m"}]},
                           "multi_node": {"8k1k": [{"prefill": {"tp": 8, "num-worker": 2}, "decode": {"tp": 4},
                                                    "model": "n"}]},
                           "evals": [], "changelog_metadata": {}})
    hours = bench.row_hours(plan, {"single_node": 0.5, "multi_node": 1.5, "evals": 0.75})
    assert sorted(hours.values()) == [4.0, 30.0]
    with pytest.raises(bench.BenchError, match="no duration for plan section 'multi_node'"):
        bench.row_hours(plan, {"single_node": 0.5})
