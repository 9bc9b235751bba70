"""A test run leaves at most one run's temporary files: pytest's retention settings in pyproject.toml."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = '''
def test_fails_and_keeps_its_files(tmp_path_factory, tmp_path):
    (tmp_path_factory.mktemp("shared") / "blob").write_bytes(b"x" * 100_000)
    (tmp_path / "blob").write_bytes(b"x" * 100_000)
    assert {failing}


def test_passes_and_leaves_nothing(tmp_path):
    (tmp_path / "blob").write_bytes(b"x" * 100_000)
'''


def run_probe(tmp_path: Path, root: Path, failing: bool, *options: str) -> None:
    """Run the probe under the repository's pytest settings, with its own temporary root."""
    probe = tmp_path / "probe" / "test_probe.py"
    probe.parent.mkdir(exist_ok=True)
    probe.write_text(PROBE.format(failing=not failing), encoding="utf-8")
    # retention is pytest's own (tmpdir plugin): the probe loads no installed plugin
    # (hypothesis, xdist, randomly, benchmark), which halves each run's start-up
    env = {**os.environ, "PYTEST_DEBUG_TEMPROOT": str(root), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:xdist",
                    "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(probe.parent), *options, str(probe)],
                   cwd=probe.parent, env=env, capture_output=True, text=True, timeout=300)


def leftovers(root: Path) -> dict[str, list[str]]:
    """Each run folder left under the temporary root, with the files in it."""
    return {run.name: sorted(p.relative_to(run).as_posix() for p in run.rglob("blob"))
            for run in sorted(root.glob("pytest-of-*/pytest-[0-9]*"))}


def test_a_passing_run_leaves_nothing(tmp_path: Path) -> None:
    root = tmp_path / "temproot"
    root.mkdir()
    run_probe(tmp_path, root, failing=False)
    assert leftovers(root) == {}


def test_failing_runs_keep_the_newest_runs_failed_files_only(tmp_path: Path) -> None:
    """Issue 24: the suite left ~850 MB per run in pytest-of-<user> (pytest's default keeps
    three runs with every test's folder)."""
    root = tmp_path / "temproot"
    root.mkdir()
    for _ in range(3):
        run_probe(tmp_path, root, failing=True)
    (newest, files), = leftovers(root).items()
    assert newest == "pytest-2"
    assert files == ["shared0/blob", "test_fails_and_keeps_its_files0/blob"]


def test_the_probe_sees_what_pytests_defaults_would_keep(tmp_path: Path) -> None:
    """Without the settings (pytest's defaults): three runs, passing tests' files too."""
    root = tmp_path / "temproot"
    root.mkdir()
    defaults = ("-o", "tmp_path_retention_count=3", "-o", "tmp_path_retention_policy=all")
    for _ in range(4):
        run_probe(tmp_path, root, True, *defaults)
    left = leftovers(root)
    assert len(left) == 3 and all(len(files) == 3 for files in left.values())
