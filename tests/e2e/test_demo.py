"""`infx demo`: plans the bundled PR, replays the bots and the sign-off bot on the fake server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import infx
from infx.cli import main
from infx.cli.demo import DEFAULT_CONFIGS, DEFAULT_DATA, DEFAULT_RUNNERS, DEFAULT_SIGNOFF_WORLD


def _run(capsys, *args: str) -> str:
    assert main(["demo", *args]) == 0
    return capsys.readouterr().out


def test_demo_plans_and_replays(capsys):
    out = _run(capsys)
    assert "labels: full-sweep-fail-fast" in out
    assert "| `dsr1-fp8-mi355x-sglang` |" in out and "| `mi355x` |" in out  # per config key, per runner
    assert "| sweep-single-node-8k1k-1 |" in out
    assert "matrix jobs that would start: sweep-" in out
    assert "welcome comment: created" in out
    assert "results-link comment for run 7001: created" in out
    assert "comment 9001 by vendor-dev (CONTRIBUTOR): -1" in out
    assert "comment 9002 by maintainer (MEMBER): +1 — Reuse accepted for PR #42: run 7001" in out
    assert "reaction +1 by github-actions[bot] on comment 9002" in out
    assert "<!-- infx-welcome -->" in out and "<!-- infx-results-link run=7001 -->" in out


def test_demo_is_deterministic(capsys):
    assert _run(capsys) == _run(capsys)


def test_demo_verifies_a_stale_then_a_current_signoff(capsys):
    out = _run(capsys)
    assert "sign-off comment 2003: status failure" in out
    assert "❌ Check 5 (Latest checklist template): FAIL" in out
    assert "sign-off comment 2004: status success" in out
    assert "commit statuses set: pending → failure → pending → success" in out


def test_missing_configs_is_a_clear_error(tmp_path, capsys):
    assert main(["demo", "--configs", str(tmp_path / "nope.yaml")]) == 1
    err = capsys.readouterr().err
    assert "nope.yaml: demo input is missing" in err and "fix:" in err


def test_missing_data_is_a_clear_error_before_any_output(tmp_path, capsys):
    assert main(["demo", "--data", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "world.yaml: demo input is missing" in captured.err


def test_bad_entry_shows_the_planner_error(tmp_path, capsys):
    (tmp_path / "world.yaml").write_text((DEFAULT_DATA / "world.yaml").read_text())
    (tmp_path / "pr-entry.yaml").write_text("- config-keys: [no-such-key-mi355x]\n  description: [x]\n"
                                            "  pr-link: XXX\n")
    out = _run(capsys, "--data", str(tmp_path))
    assert "plan failed (this is what the PR author would see):" in out


def test_the_demo_data_is_package_data():
    """Every default input sits in a package folder and matches the package-data patterns,
    so a wheel carries it (links to configs/ and tests/ are copied as files)."""
    package = Path(infx.__file__).parent
    assert (DEFAULT_DATA / "__init__.py").is_file()
    for path in (DEFAULT_CONFIGS, DEFAULT_RUNNERS, DEFAULT_SIGNOFF_WORLD,
                 DEFAULT_DATA / "world.yaml", DEFAULT_DATA / "pr-entry.yaml"):
        assert path.parent == DEFAULT_DATA and path.is_file() and path.suffix == ".yaml", path
        assert DEFAULT_DATA.is_relative_to(package)


def test_the_demo_runs_from_a_copy_of_the_package_alone(tmp_path):
    """What a non-editable install has: the package (links resolved), no repository around."""
    shutil.copytree(Path(infx.__file__).parent, tmp_path / "infx", symlinks=False,
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "infx", "demo"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "sign-off comment 2004: status success" in run.stdout

