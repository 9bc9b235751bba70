"""benchmarks/probe_merged_prs.py's choice of PRs: squash merges on the first-parent line that
touch configs/, benchmarks/ or runners/, among the newest LIMIT commits (a temporary repo)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from lib.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "probe_merged_prs.py"


def _probe():
    return load_script(SCRIPT, "probe_merged_prs")


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def _commit(repo: Path, path: str, subject: str) -> str:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(subject + "\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", subject)
    return _git(repo, "rev-parse", "HEAD")


def test_squash_merges_touching_the_folders(tmp_path: Path) -> None:
    repo = tmp_path / "ref"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    root = _commit(repo, "configs/a.yaml", "start (#1)")  # no parent: not a PR to probe
    old = _commit(repo, "runners/launch_x.sh", "old launcher (#2)")
    docs = _commit(repo, "docs/readme.md", "docs only (#3)")
    _commit(repo, "benchmarks/x.sh", "no PR number")
    _git(repo, "checkout", "-q", "-b", "side")
    _commit(repo, "configs/side.yaml", "side work (#9)")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "-m", "Merge side (#4)", "side")
    merge = _git(repo, "rev-parse", "HEAD")
    new = _commit(repo, "configs/b.yaml", "new config (#5)")

    probe = _probe()
    found = probe.merged_prs(repo / ".git", 10)
    assert [pr["number"] for pr in found] == [5, 4, 2]  # #9 is off the first-parent line
    assert found[0]["sha"] == new and found[0]["base"] == merge
    assert found[2]["sha"] == old and found[2]["base"] == root
    assert found[0]["title"] == "new config (#5)" and found[0]["merged_at"][:2] == "20"
    assert [pr["number"] for pr in probe.merged_prs(repo / ".git", 2)] == [5, 4]
    assert docs not in {pr["sha"] for pr in found}
