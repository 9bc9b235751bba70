"""Test helpers for the changelog tests: git plumbing and a fixture-F repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

URL = "https://github.com/SemiAnalysisAI/InferenceX/pull/"
HISTORY = ("- config-keys:\n    - alpha-fp8-h100-vllm\n  description:\n    - \"History\"\n"
           f"  pr-link: {URL}900\n")


def git(repo, *args) -> str:
    """Run git in ``repo`` and return its stripped standard output."""
    return subprocess.run(["git", *args], cwd=repo, check=True,
                          capture_output=True).stdout.decode().strip()


def init_repo(path: Path) -> Path:
    """An empty git repository with a committer identity, on branch main."""
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "t")
    return path


def fixture_f_repo(path: Path, test_data: Path, history: str = HISTORY) -> Path:
    """A repository holding fixture F's configs and ``history`` as the changelog, committed."""
    (path / "configs").mkdir()
    shutil.copy(test_data / "changelog" / "f-master.yaml", path / "configs" / "f-master.yaml")
    shutil.copy(test_data / "changelog" / "f-runners.yaml", path / "configs" / "runners.yaml")
    (path / "perf-changelog.yaml").write_text(history)
    init_repo(path)
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "base")
    return path
