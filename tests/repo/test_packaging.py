"""Packaging: one version (infx.__version__), the Apache-2.0 licence in the repository and the wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from infx import __version__

tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def _project(repo_root: Path) -> dict:
    return tomllib.loads((repo_root / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_written_once_in_the_package(repo_root):
    config = _project(repo_root)
    assert "version" not in config["project"]
    assert config["project"]["dynamic"] == ["version"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "infx.__version__"}


def test_the_licence_is_the_apache_2_text_and_declared_as_a_licence_file(repo_root):
    text = (repo_root / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply" in text
    project = _project(repo_root)["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]


def test_the_wheel_carries_the_licence_and_the_version(repo_root, tmp_path):
    """Builds the wheel with the installed setuptools (no index: tests stay offline); the
    locked tool set has one new enough for the PEP 639 licence fields."""
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} predates PEP 639 (needs 77)")
    pytest.importorskip("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(repo_root), "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-q", "-w", str(tmp_path)],
        capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr
    (wheel,) = tmp_path.glob("infx-*.whl")
    assert wheel.name.startswith(f"infx-{__version__}-")
    with zipfile.ZipFile(wheel) as archive:
        dist_info = f"infx-{__version__}.dist-info"
        licence = archive.read(f"{dist_info}/licenses/LICENSE")
        metadata = archive.read(f"{dist_info}/METADATA").decode("utf-8")
        starter = sorted(n.removeprefix("infx/adopt/starter/") for n in archive.namelist()
                         if n.startswith("infx/adopt/starter/"))
    # what `infx init` writes ships in the wheel
    assert starter == sorted(p.name for p in (repo_root / "infx/adopt/starter").iterdir() if p.is_file())
    assert licence == (repo_root / "LICENSE").read_bytes()
    assert f"Version: {__version__}\n" in metadata
    assert "License-Expression: Apache-2.0\n" in metadata
    assert "License-File: LICENSE\n" in metadata
