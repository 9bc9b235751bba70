"""Test helpers for the changelog tests: git plumbing and a fixture-F repository."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
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
    """A repository holding fixture F's configs and ``history`` as the changelog, committed:
    a copy of the one this process built for that history (each test gets its own copy; the
    five git processes that build it ran once)."""
    shutil.copytree(_fixture_f_template(test_data, history), path, symlinks=True,
                    dirs_exist_ok=True)
    return path


_TEMPLATES: dict[tuple[Path, str], Path] = {}  # (test data, history) -> the repository built


def _fixture_f_template(test_data: Path, history: str) -> Path:
    built = _TEMPLATES.get((test_data, history))
    if built is not None:
        return built
    if not _TEMPLATES:
        holder = Path(tempfile.mkdtemp(prefix="fixture-f-"))
        atexit.register(shutil.rmtree, holder, True)
        _HOLDER.append(holder)
    path = _HOLDER[0] / str(len(_TEMPLATES))
    path.mkdir()
    (path / "configs").mkdir()
    shutil.copy(test_data / "changelog" / "f-master.yaml", path / "configs" / "f-master.yaml")
    shutil.copy(test_data / "changelog" / "f-runners.yaml", path / "configs" / "runners.yaml")
    (path / "perf-changelog.yaml").write_text(history)
    init_repo(path)
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "base")
    _TEMPLATES[(test_data, history)] = path
    return path


_HOLDER: list[Path] = []  # the process's folder of built repositories
