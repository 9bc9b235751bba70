"""The workflows install infx from hash-locked requirements kept in step with pyproject.toml."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from infx.yamlio import load_file

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
WORKFLOW_LOCK = REPO / ".github" / "requirements-workflows.txt"
TOOLS_LOCK = REPO / ".ci" / "requirements-tools.txt"
TOOLS_IN = REPO / ".ci" / "requirements-tools.in"
AUDIT_LOCK = REPO / ".ci" / "requirements-audit.txt"
REGENERATE = ("regenerate the locks with the commands at the top of .github/requirements-workflows.in "
              "and .ci/requirements-tools.in")
INSTALL_LOCKED = re.compile(
    r"^python -m pip install --disable-pip-version-check --require-hashes -r (\S+)$")
INSTALL_SELF = re.compile(
    r"^python -m pip install --disable-pip-version-check --no-deps --no-build-isolation (-e )?\.$")


@dataclass
class Pin:
    name: str
    version: Version
    marker: str
    hashes: list[str] = field(default_factory=list)
    via: list[str] = field(default_factory=list)


def read_lock(path: Path) -> dict[str, Pin]:
    """A pip-compile/uv style lock: `name==version [; marker] \\ --hash=...` and `# via` notes."""
    pins: dict[str, Pin] = {}
    current: Pin | None = None
    in_via = False
    logical = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("#"):
            note = line.lstrip("#").strip()
            if current is not None and note.startswith("via"):
                rest = note[3:].strip()
                in_via = True
                if rest:
                    current.via.append(rest)
            elif current is not None and in_via and note:
                current.via.append(note)
            continue
        in_via = False
        if not line:
            continue
        logical += " " + line.rstrip("\\").strip()
        if line.endswith("\\"):
            continue
        spec, *hashes = logical.split(" --hash=")
        logical = ""
        requirement, _, marker = spec.strip().partition(";")
        name, sep, version = requirement.strip().partition("==")
        assert sep, f"{path.name}: {requirement!r} is not pinned with =="
        current = Pin(canonicalize_name(name), Version(version.strip()), marker.strip(),
                      [h.strip() for h in hashes])
        pins[current.name] = current
    return pins


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _direct(pins: dict[str, Pin]) -> set[str]:
    return {name for name, pin in pins.items() if "infx (pyproject.toml)" in pin.via}


@pytest.mark.parametrize("lock", [WORKFLOW_LOCK, TOOLS_LOCK, AUDIT_LOCK], ids=lambda p: p.name)
def test_every_pin_is_exact_and_hash_checked(lock):
    pins = read_lock(lock)
    assert pins
    for pin in pins.values():
        assert pin.hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in pin.hashes), \
            f"{lock.name}: {pin.name} has no sha256 hashes"


def _check_covers(lock: Path, requirements: list[str]) -> None:
    pins = read_lock(lock)
    for text in requirements:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{lock.name} does not pin {requirement.name} (pyproject.toml); {REGENERATE}"
        assert pins[name].version in requirement.specifier, (
            f"{lock.name} pins {name}=={pins[name].version}, outside pyproject.toml's "
            f"{requirement.specifier}; {REGENERATE}")


def test_workflow_lock_is_in_step_with_pyproject():
    project = _pyproject()
    dependencies = project["project"]["dependencies"]
    _check_covers(WORKFLOW_LOCK, dependencies)
    # no stale direct pins: the packages the lock says come from pyproject.toml are exactly its own
    wanted = {canonicalize_name(Requirement(d).name) for d in dependencies}
    assert _direct(read_lock(WORKFLOW_LOCK)) == wanted, REGENERATE
    # `--no-build-isolation`: the build backend comes from the lock too
    _check_covers(WORKFLOW_LOCK, project["build-system"]["requires"])


def test_tools_lock_is_in_step_with_pyproject_and_the_workflow_lock():
    project = _pyproject()
    extras = project["project"]["optional-dependencies"]["test"]
    _check_covers(TOOLS_LOCK, project["project"]["dependencies"] + extras
                  + project["build-system"]["requires"])
    wanted = {canonicalize_name(Requirement(d).name)
              for d in project["project"]["dependencies"] + extras}
    assert _direct(read_lock(TOOLS_LOCK)) == wanted, REGENERATE
    tools, workflow = read_lock(TOOLS_LOCK), read_lock(WORKFLOW_LOCK)
    for name, pin in workflow.items():
        assert name in tools and tools[name].version == pin.version, (
            f"CI tests {name}=={tools.get(name) and tools[name].version} but the workflows "
            f"install {pin.version}; {REGENERATE}")


def test_tool_versions_are_pinned_and_match_the_lock():
    tools = read_lock(TOOLS_LOCK)
    for line in TOOLS_IN.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            assert str(requirement.specifier).startswith("=="), f"{line}: pin an exact version"
            assert tools[canonicalize_name(requirement.name)].version in requirement.specifier
    audit = read_lock(AUDIT_LOCK)
    assert set(audit) == {"zizmor"}
    assert audit["zizmor"].version == tools["zizmor"].version
    assert sorted(audit["zizmor"].hashes) == sorted(tools["zizmor"].hashes)


def _run_lines(workflow: dict):
    for job_id, job in (workflow.get("jobs") or {}).items():
        for step in job.get("steps", []):
            for line in str(step.get("run", "")).splitlines():
                yield job_id, step, line.strip()


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_every_pip_install_is_hash_locked(path):
    workflow = load_file(path)
    for job_id, step, line in _run_lines(workflow):
        if "pip install" not in line and "pip3 install" not in line:
            continue
        locked = INSTALL_LOCKED.match(line)
        assert locked or INSTALL_SELF.match(line), f"{path.name}: {job_id}: unlocked install: {line}"
        if locked:
            assert (REPO / locked.group(1)).is_file(), f"{path.name}: {job_id}: no {locked.group(1)}"
            expected = ".ci/requirements-tools.txt" if path.name == "ci.yml" \
                else ".github/requirements-workflows.txt"
            if (path.name, job_id) == ("ci.yml", "lowest"):  # test_lowest_versions.py checks it
                expected = ".ci/requirements-lowest.txt"
            assert locked.group(1) == expected, f"{path.name}: {job_id}: {line}"
        else:
            lines = str(step["run"]).splitlines()
            index = [x.strip() for x in lines].index(line)
            assert index > 0 and INSTALL_LOCKED.match(lines[index - 1].strip()), (
                f"{path.name}: {job_id}: infx is installed without its locked dependencies first")


def test_the_lock_parser_sees_annotations_and_refuses_loose_pins(tmp_path):
    lock = tmp_path / "lock.txt"
    lock.write_text("a==1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via\n    #   b\n"
                    "    #   infx (pyproject.toml)\nb==2 ; python_version >= '3.11' \\\n"
                    "    --hash=sha256:" + "1" * 64 + "\n    # via -r x.in\n", encoding="utf-8")
    pins = read_lock(lock)
    assert pins["a"].via == ["b", "infx (pyproject.toml)"] and pins["b"].via == ["-r x.in"]
    assert pins["b"].marker == "python_version >= '3.11'" and _direct(pins) == {"a"}
    lock.write_text("a>=1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="not pinned"):
        read_lock(lock)
