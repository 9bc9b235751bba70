"""Benchmark scripts: each imports what it needs, those needing ../shared/ skip (exit 0) where it is
absent, and run_all runs the ones that take no argument."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script", ["bench_changelog.py", "bench_matrix.py"])
def test_a_script_needing_the_reference_data_skips_without_it(tmp_path, script):
    (tmp_path / "repo" / "benchmarks").mkdir(parents=True)
    copy = tmp_path / "repo" / "benchmarks" / script
    shutil.copy(ROOT / "benchmarks" / script, copy)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, str(copy)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("skipped: reference") and str(tmp_path / "shared") in run.stdout


_LOAD_A_SCRIPT = """
import importlib.util, sys
from pathlib import Path
script = Path(sys.argv[1])
sys.path.insert(0, str(script.parent))
spec = importlib.util.spec_from_file_location(script.stem, script)
module = importlib.util.module_from_spec(spec)
sys.modules[script.stem] = module
spec.loader.exec_module(module)
"""


def test_every_benchmark_script_imports_what_it_needs():
    """A moved test helper broke two scripts' imports unnoticed: run_all is not part of the suite.
    Loading a script runs its top level (imports, constants), never its main; each in its own
    process, so that one script's additions to sys.path cannot hide another's missing one."""
    scripts = sorted((ROOT / "benchmarks").glob("*.py"))
    runs = {script.name: subprocess.Popen([sys.executable, "-c", _LOAD_A_SCRIPT, str(script)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                          text=True, cwd=ROOT) for script in scripts}
    broken = {}
    for name, run in runs.items():
        _, error = run.communicate(timeout=120)
        if run.returncode != 0:
            broken[name] = error.strip().splitlines()[-1]
    assert len(runs) > 20 and not broken, broken


def _load_script(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), ROOT / "benchmarks" / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seconds, code", [(10.0, 1), (0.01, 0)])
def test_bench_changelog_exits_1_when_a_figure_is_over_its_bar(tmp_path, monkeypatch, capsys,
                                                               seconds, code):
    bench = _load_script("bench_changelog.py")
    monkeypatch.setattr(bench, "UPSTREAM", tmp_path)
    monkeypatch.setattr(bench, "build_repo", lambda where: {"base": "a", "append": "b",
                                                           "correction": "c"})
    monkeypatch.setattr(bench, "best_of", lambda command, cwd, repeat: seconds)
    monkeypatch.setattr("sys.argv", ["bench_changelog.py", "--repeat", "1"])
    assert bench.main() == code
    assert ("OVER BAR" in capsys.readouterr().out) == (code == 1)


def test_run_all_propagates_a_script_over_its_bar(tmp_path):
    shutil.copy(ROOT / "benchmarks" / "run_all.py", tmp_path / "run_all.py")
    (tmp_path / "bench_ok.py").write_text("print('fine')\n", encoding="utf-8")
    (tmp_path / "bench_slow.py").write_text("import sys\nprint('OVER BAR')\nsys.exit(1)\n",
                                            encoding="utf-8")
    run = subprocess.run([sys.executable, str(tmp_path / "run_all.py")], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1
    assert run.stdout.rstrip().endswith("over a bar or failed: bench_slow.py")


def test_run_all_leaves_out_only_scripts_that_exist():
    run_all = _load_script("run_all.py")
    assert run_all.ON_DEMAND and all((ROOT / "benchmarks" / name).is_file() for name in run_all.ON_DEMAND)


def test_the_reference_timing_dependency_is_a_declared_extra():
    tomllib = pytest.importorskip("tomllib")

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    assert any(req.startswith("pydantic") for req in extras["bench"])
    assert ".[bench]" in (ROOT / "benchmarks" / "bench_matrix.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("figures, code", [((4.5, 120.0), 1), ((1.0, 320.0), 1), ((1.0, 120.0), 0)])
def test_bench_changelog_scale_exits_1_when_a_figure_is_over_its_bar(monkeypatch, capsys, figures,
                                                                     code):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    bench = _load_script("bench_changelog_scale.py")
    monkeypatch.setattr(bench, "synthetic", lambda repo, entries: ("a", "b", 7_200_000))
    monkeypatch.setattr(bench, "reference_ten_years", lambda repo: None)
    monkeypatch.setattr(bench, "best", lambda command, cwd, repeat: (
        figures[0], 9.0, figures[1], 0, "") if "validate" in command else (0.5, 0.6, 50.0, 0, ""))
    monkeypatch.setattr("sys.argv", ["bench_changelog_scale.py", "--repeat", "1"])
    assert bench.main() == code
    out = capsys.readouterr().out
    assert ("OVER" in out) == (code == 1) and "80,000 appended entries" in out


@pytest.mark.parametrize("verify_cpu, code", [(0.55, 1), (0.30, 0)])
def test_bench_startup_exits_1_when_the_verdict_is_over_its_bar(monkeypatch, capsys, verify_cpu,
                                                                 code):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    bench = _load_script("bench_startup.py")
    monkeypatch.setattr(bench, "cpu_seconds", lambda command, env, cwd: verify_cpu
                        if "verify" in command else 0.04)
    monkeypatch.setattr("sys.argv", ["bench_startup.py", "--repeat", "1"])
    assert bench.main() == code
    out = capsys.readouterr().out
    assert ("OVER BAR" in out) == (code == 1) and "shipped world signoff_seed000.yaml" in out
