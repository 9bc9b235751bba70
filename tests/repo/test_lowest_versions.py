"""The declared lower bounds are what the lowest-versions CI job installs, on the oldest declared Python."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from infx.yamlio import load_file

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / ".ci" / "requirements-lowest.txt"
PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+)(?: ;[^\\]*)? \\$", re.MULTILINE)


def _pyproject() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the lock pins tomli for pytest
        import tomli as tomllib
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _pins() -> dict[str, Version]:
    return {canonicalize_name(name): Version(version) for name, version in PIN.findall(LOCK.read_text(encoding="utf-8"))}


def _direct() -> list[Requirement]:
    project = _pyproject()["project"]
    return [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]


def test_every_direct_dependency_is_locked_at_its_lower_bound():
    pins = _pins()
    for req in _direct():
        (lower,) = [s.version for s in req.specifier if s.operator == ">="]
        assert pins.get(canonicalize_name(req.name)) == Version(lower), (
            f"{req}: the lowest-versions lock has {pins.get(canonicalize_name(req.name))}; regenerate it "
            "(command in .ci/requirements-lowest.in)")


def test_the_build_backend_is_locked_at_the_build_systems_bound():
    (setuptools,) = [Requirement(r) for r in _pyproject()["build-system"]["requires"] if r.startswith("setuptools")]
    pinned = _pins()["setuptools"]
    assert pinned in setuptools.specifier and pinned.release[0] == Version(
        next(s.version for s in setuptools.specifier if s.operator == ">=")).release[0]


def test_every_locked_package_is_hash_checked():
    text = LOCK.read_text(encoding="utf-8")
    blocks = re.split(r"\n(?=\S)", text.strip())
    pinned = [b for b in blocks if not b.startswith("#")]
    assert len(pinned) == len(_pins()) > 20
    assert all("--hash=sha256:" in b for b in pinned)


def _ci_jobs() -> dict:
    return load_file(REPO / ".github" / "workflows" / "ci.yml")["jobs"]


def _python(job: dict) -> str:
    setup = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/setup-python@"))
    return str(setup["with"]["python-version"])


def test_ci_runs_the_unit_tests_on_the_lowest_versions_and_the_oldest_python():
    job = _ci_jobs()["lowest"]
    oldest = _pyproject()["project"]["requires-python"].removeprefix(">=")
    assert _python(job) == oldest
    runs = [str(s.get("run", "")).strip() for s in job["steps"]]
    assert ".ci/lowest" in runs, "the job runs the bounds test as .ci/run does: every unit test and the demo"
    script = (REPO / ".ci" / "lowest").read_text(encoding="utf-8")
    assert "--require-hashes -r .ci/requirements-lowest.txt" in script
    assert "requirements-tools" not in script and "requirements-workflows" not in script


def _commands(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_ci_run_runs_the_bounds_test_and_fails_when_it_fails():
    """Issue 25: the lowest-versions run is part of .ci/run, and its failure is the run's."""
    commands = _commands(REPO / ".ci" / "run")
    assert ".ci/lowest" in commands
    after = commands[commands.index(".ci/lowest") + 1:]
    assert after[0] == "lowest=$?" and 'exit "$lowest"' in after


def test_the_bounds_test_runs_every_unit_test_then_the_demo():
    """Issue 25 acceptance: the unit tests pass on the lowest declared versions (all of them)."""
    commands = _commands(REPO / ".ci" / "lowest")
    default = commands[commands.index('fi', next(i for i, c in enumerate(commands) if c == 'if [ "$#" -gt 0 ]; then')) + 1]
    assert default.endswith("-m pytest -n auto -q tests/unit"), default
    assert any("infx\" demo" in c for c in commands)


def test_the_bounds_test_reads_the_oldest_python_from_pyproject():
    script = (REPO / ".ci" / "lowest").read_text(encoding="utf-8")
    assert "requires-python" in script and "sys.version_info" in script
    oldest = _pyproject()["project"]["requires-python"]
    assert re.fullmatch(r">=\d+\.\d+", oldest), "the script reads requires-python in the form >=X.Y"


def test_ci_runs_the_unit_tests_on_a_newer_python_than_the_main_job():
    jobs = _ci_jobs()
    newest, main = Version(_python(jobs["newest-python"])), Version(_python(jobs["test"]))
    assert newest > main
    assert "tests/unit" in str(jobs["newest-python"]["steps"][-1]["run"])
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"Python {newest}" in readme and "requirements-lowest.txt" in readme
