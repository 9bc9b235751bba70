"""`infx init` into an empty folder: what it writes passes our own workflow bars; it never overwrites silently."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from lib import tools

from infx.adopt import app, reusable, starter
from infx.cli import main
from infx.yamlio import load_file

REPO = Path(__file__).resolve().parents[2]
SHA = "0123456789abcdef0123456789abcdef01234567"
SOURCE = f"acme/infx@{SHA}"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def _init(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["init", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def adopter(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("adopter")
    assert main(["init", str(target), "--infx", SOURCE, "--write"]) == 0
    return target


def _workflows(root: Path) -> list[Path]:
    return sorted((root / ".github" / "workflows").glob("*.yml"))


def test_dry_run_writes_nothing_and_lists_every_file(tmp_path, capsys):
    code, out, _ = _init(capsys, str(tmp_path), "--infx", SOURCE)
    assert code == 0 and list(tmp_path.iterdir()) == []
    listed = re.findall(r"^would create (\S+)$", out, re.MULTILINE)
    assert listed == sorted(starter.files("acme/infx", SHA, "x"))


def test_it_writes_the_callers_policy_checklist_and_manifest(adopter):
    names = {p.name for p in _workflows(adopter)}
    assert names == {bot.caller.name for bot in reusable.BOTS}
    assert (adopter / "PR_REVIEW_CHECKLIST.md").read_bytes() == (REPO / "PR_REVIEW_CHECKLIST.md").read_bytes()
    from infx.config.policy import POLICY_NAMES, policy_path

    for name in POLICY_NAMES:
        assert (adopter / policy_path(name)).read_bytes() == (REPO / policy_path(name)).read_bytes()
    manifest = json.loads((adopter / starter.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["default_permissions"] == app.PERMISSIONS
    assert manifest["name"] == f"{adopter.name}-infx-signoff"


def test_every_caller_pins_the_reusable_workflow_and_infx_to_the_given_commit(adopter):
    for path in _workflows(adopter):
        workflow = load_file(path)
        assert workflow["permissions"] == {}
        (job,) = workflow["jobs"].values()
        bot = next(b for b in reusable.BOTS if b.caller.name == path.name)
        assert job["uses"] == f"acme/infx/{bot.reusable.as_posix()}@{SHA}" and PINNED.match(job["uses"])
        assert job["with"] == {"infx-repository": "acme/infx", "infx-ref": SHA}
        text = path.read_text(encoding="utf-8")
        assert re.search(rf"@{SHA} # v\d+\.\d+\.\d+$", text, re.MULTILINE)
        assert "@@" not in text
        # the caller grants what the called jobs ask for, no more
        called = load_file(REPO / bot.reusable)["jobs"].values()
        union: dict[str, str] = {}
        for called_job in called:
            for scope, level in (called_job.get("permissions") or {}).items():
                if union.get(scope) != "write":
                    union[scope] = level
        assert job["permissions"] == union, path.name
        # our triggers and name, so the head-status caller follows the sign-off caller
        ours = load_file(REPO / bot.ours)
        assert workflow["name"] == ours["name"]
        assert workflow.get("on", workflow.get(True)) == ours.get("on", ours.get(True))


def test_the_written_workflows_pass_actionlint(adopter):
    findings = tools.need(tools.actionlint, _workflows(adopter))
    assert findings == [], findings


@pytest.mark.parametrize("persona", ["regular", "pedantic", "auditor"])
def test_the_written_workflows_pass_zizmor(adopter, persona):
    exe = tools.need(tools.zizmor)
    done = subprocess.run([exe, "--offline", "--color", "never", "--persona", persona,
                           str(adopter / ".github" / "workflows")],
                          cwd=adopter, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


def test_a_second_run_changes_nothing(tmp_path, capsys):
    assert _init(capsys, str(tmp_path), "--infx", SOURCE, "--write")[0] == 0
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, out, _ = _init(capsys, str(tmp_path), "--infx", SOURCE, "--write")
    assert code == 0 and f"nothing to change: {len(before)} files are up to date" in out
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_an_edited_file_is_shown_as_a_diff_and_kept_without_force(tmp_path, capsys):
    assert _init(capsys, str(tmp_path), "--infx", SOURCE, "--write")[0] == 0
    edited = tmp_path / ".github/workflows/signoff-verify.yml"
    text = edited.read_text(encoding="utf-8").replace("types: [created, edited, deleted]", "types: [created]", 1)
    edited.write_text(text, encoding="utf-8")
    code, out, err = _init(capsys, str(tmp_path), "--infx", SOURCE, "--write")
    assert code == 1 and "1 file(s) differ" in err
    assert "differs   .github/workflows/signoff-verify.yml" in out
    assert "-    types: [created]\n+    types: [created, edited, deleted]\n" in out
    assert edited.read_text(encoding="utf-8") == text
    code, out, _ = _init(capsys, str(tmp_path), "--infx", SOURCE, "--write", "--force")
    assert code == 0 and "wrote     .github/workflows/signoff-verify.yml" in out
    assert "types: [created, edited, deleted]" in edited.read_text(encoding="utf-8")


@pytest.mark.parametrize("source", ["acme/infx", "acme/infx@v1", f"acme@{SHA}", f"acme/infx@{SHA[:12]}"])
def test_a_source_that_is_not_a_pinned_commit_is_a_located_error(tmp_path, capsys, source):
    code, out, err = _init(capsys, str(tmp_path), "--infx", source, "--write")
    assert (code, out) == (1, "")
    assert err.startswith("error: [--infx]: ") and "full 40-hex commit SHA" in err
    assert list(tmp_path.iterdir()) == []


def test_a_target_that_is_not_a_folder_is_a_located_error(tmp_path, capsys):
    missing = tmp_path / "nope"
    code, out, err = _init(capsys, str(missing), "--infx", SOURCE)
    assert (code, out) == (1, "") and err.startswith(f"error: {missing}: is not a folder")
    blocker = tmp_path / ".github" / "signoff-app-manifest.json"
    blocker.mkdir(parents=True)
    code, out, err = _init(capsys, str(tmp_path), "--infx", SOURCE, "--write")
    assert code == 1 and f"{blocker}: is a folder where infx init writes a file" in err
    assert not (tmp_path / "PR_REVIEW_CHECKLIST.md").exists()  # nothing written before the check


def test_force_without_write_is_a_usage_error(tmp_path, capsys):
    code, _, err = _init(capsys, str(tmp_path), "--infx", SOURCE, "--force")
    assert code == 2 and "--force only applies with --write" in err
