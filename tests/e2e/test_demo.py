"""`infx demo`: plans the bundled PR, replays the bots and the sign-off bot on the fake server."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import infx
from infx.cli import main
from infx.cli.demo import (
    DEFAULT_CONFIGS,
    DEFAULT_DATA,
    DEFAULT_RUNNERS,
    DEFAULT_SIGNOFF_WORLD,
    DEFAULT_STALE_WORLD,
)


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
    stale, current = out.split("sign-off comment 2003 (signoff_seed003_stale.yaml): status failure")[1] \
        .split("sign-off comment 2004 (signoff_seed003.yaml): status success")
    assert "❌ Check 5 (Latest checklist template): FAIL" in stale
    assert "commit statuses set: pending → failure" in stale
    assert "commit statuses set: pending → success" in current
    assert "| `minimaxm3-fp4-mi355x-atom-disagg-mtp` | 12 | 0 | 0 | 0 | — |" in current


def test_the_demo_edits_no_world_in_code():
    """Each step runs on a world file as shipped (issue 24: the REJECTED verdict came from a
    world the demo edited in memory, so no documented command could reproduce it)."""
    source = (Path(infx.__file__).parent / "cli" / "demo.py").read_text(encoding="utf-8")
    assert "conversation" not in source and "[:] =" not in source


# --- the commands the demo prints reproduce its steps ------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def reproduce_blocks(out: str) -> list[list[str]]:
    """The command lines of every 'reproduce' block of the demo's output, block by block."""
    blocks: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("reproduce"):
            blocks.append([])
        elif blocks and line.startswith("  $ "):
            blocks[-1].append(line[4:])
    return blocks


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """What the plan step's commands need: a git checkout of the repository's inputs (the
    configs, the launchers, the changelog), its branch at one commit."""
    from lib.changelog_support import git, init_repo

    repo = init_repo(tmp_path_factory.mktemp("clone"))
    for name in ("configs", "runners", "benchmarks"):
        shutil.copytree(ROOT / name, repo / name)
    shutil.copy(ROOT / "perf-changelog.yaml", repo / "perf-changelog.yaml")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    return repo


def run_line(line: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GITHUB_", "INFX_", "GH_"))}
    env["PYTHONPATH"] = str(ROOT)
    prelude = f'infx() {{ {shlex.quote(sys.executable)} -m infx "$@"; }}\n'
    return subprocess.run(["bash", "-c", prelude + line], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_every_step_prints_the_commands_that_reproduce_it(clone):
    """Run from the clone, the demo names its data by absolute paths; each printed command line
    runs as printed and shows what the demo showed for its step."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    demo = subprocess.run([sys.executable, "-m", "infx", "demo"], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=300, check=True).stdout
    plan, replay, signoff = reproduce_blocks(demo)
    runs = {}
    for line in plan + replay + signoff:
        run = runs[line] = run_line(line, clone)
        expected = 1 if line.endswith("exit 1") else 0
        assert run.returncode == expected, f"{line}: exit {run.returncode}\n{run.stderr[-2000:]}"
        assert "Traceback" not in run.stderr
    # the plan: the demo's totals and jobs, from `infx plan` on the appended entry
    totals = next(line for line in demo.splitlines() if " job(s) on " in line)
    assert totals in runs[plan[2]].stderr
    shards = json.loads(runs[plan[3]].stdout)["shards"]
    assert f"matrix jobs that would start: {', '.join('sweep-' + s for s in shards)}" in demo
    # the bots: the same posts and reactions
    welcome, link, refused, accepted = replay
    assert json.loads(runs[welcome].stdout)["action"] == "created"
    assert json.loads(runs[link].stdout)["action"] == "created"
    assert "comment 9001 by vendor-dev (CONTRIBUTOR): -1 — Reuse rejected" in demo
    assert "Reuse rejected for PR #42: Reuse requires write" in runs[refused].stderr
    assert json.loads(runs[accepted].stdout)["reaction"] == "+1"
    # the sign-offs: REJECTED on the stale world, PASS on the current one; the report's table
    stale, current, report = signoff
    assert "## ❌❌❌ **REJECTED** ❌❌❌" in runs[stale].stdout and "2003" in stale
    assert "## ✅✅✅ **Verdict: PASS** ✅✅✅" in runs[current].stdout and "2004" in current
    table = [line.strip() for line in demo.splitlines() if line.startswith("    | `")]
    assert table and all(row in runs[report].stdout.splitlines() for row in table)


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
    for path in (DEFAULT_CONFIGS, DEFAULT_RUNNERS, DEFAULT_SIGNOFF_WORLD, DEFAULT_STALE_WORLD,
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
    assert "sign-off comment 2004 (signoff_seed003.yaml): status success" in run.stdout

