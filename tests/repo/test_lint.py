"""The whole tree is ruff clean (configuration in pyproject.toml)."""

import shutil
import subprocess

import pytest


def test_ruff_reports_nothing(repo_root):
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    result = subprocess.run([ruff, "check", "--no-cache", "."], cwd=repo_root,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
