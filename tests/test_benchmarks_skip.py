"""Benchmark scripts that need ../shared/ skip with a message (exit 0) where it is absent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
