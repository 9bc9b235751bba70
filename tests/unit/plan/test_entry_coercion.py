"""Planner, `infx changelog validate` and the sign-off bot read every entry modifier alike.

One table of spellings (booleans, the strings the reference also accepts, absent, invalid)
per modifier; for each, the real planner and the real validator run on a git repository,
and the real sign-off check runs on evidence holding the very same base and head files.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from lib.signoff_policy_support import changed, world_evidence

from infx.cli import main as infx_main
from infx.errors import InfxError
from infx.plan.planner import appended_entries
from infx.signoff.checks.append import run as append_check
from infx.signoff.model import Status
from infx.signoff.table import load_table

CHANGELOG = "perf-changelog.yaml"
LINE = "  append-only: true\n"  # the appended entry's modifier line in the scenario 9 world
# spelling as written in YAML -> the value every reader must see (None: invalid, refused)
BOOLEAN = {"true": True, '"True"': True, '"true"': True, "yes": True, '"on"': True,
           "false": False, '"False"': False, '"no"': False, "(absent)": False,
           '"maybe"': None, "2": None}
SPELLINGS = {
    **{(modifier, spelling): value for modifier in ("append-only", "evals-only", "all-evals",
                                                     "no-evals")
       for spelling, value in BOOLEAN.items()},
    **{("eval-min-prefill-ep", spelling): value for spelling, value in
       {"1": 1, '"1"': 1, "1.0": 1, "(absent)": None, "0": "error", '"one"': "error",
        "true": 1}.items()},
    **{("eval-concs", spelling): value for spelling, value in
       {"[48]": (48,), "(absent)": None, '["48"]': "error", "48": "error", "[]": "error",
        "[true]": "error"}.items()},
}
INVALID = {None: "must be a boolean", "error": ""}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture(scope="module")
def world():
    return world_evidence("scenario9")


@pytest.fixture(scope="module")
def repo(tmp_path_factory, world):
    """A repository whose first commit is the world's base tree."""
    root = tmp_path_factory.mktemp("coercion")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    for path, text in world.base_files.items():
        if text is not None:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def head_changelog(world, modifier: str, spelling: str) -> str:
    text = world.head_files[CHANGELOG]
    assert text.count(LINE) == 1
    return text.replace(LINE, "" if spelling == "(absent)" else f"  {modifier}: {spelling}\n")


def commit_head(repo: Path, world, changelog: str) -> tuple[str, str]:
    git(repo, "checkout", "-q", "--detach", "main")
    for path, text in world.head_files.items():
        (repo / path).write_text(changelog if path == CHANGELOG else text)
    git(repo, "commit", "-q", "-am", "head")
    return git(repo, "rev-parse", "main"), git(repo, "rev-parse", "HEAD")


@pytest.mark.parametrize("modifier, spelling", list(SPELLINGS))
def test_planner_validator_and_signoff_agree(repo, world, monkeypatch, capsys, modifier,
                                             spelling) -> None:
    want = SPELLINGS[modifier, spelling]
    boolean = modifier not in ("eval-min-prefill-ep", "eval-concs")
    refused = want is None if boolean else want == "error"
    changelog = head_changelog(world, modifier, spelling)
    base, head = commit_head(repo, world, changelog)
    monkeypatch.chdir(repo)
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)

    planned = infx_main(["plan", "--base-ref", base, "--head-ref", head])
    out, err = capsys.readouterr()
    validated = infx_main(["changelog", "validate", "--base-ref", base, "--head-ref", head,
                           "--pr-number", "7"])
    _, validate_err = capsys.readouterr()
    evidence = world.__class__(**{**world.__dict__, "head_files": {**world.head_files,
                                                                  CHANGELOG: changelog}})
    evidence.files = changed(world.base_files, evidence.head_files)
    verdict = append_check(evidence, load_table().settings)
    try:
        (entry,) = appended_entries(world.base_files[CHANGELOG], changelog)
        bot = getattr(entry, modifier.replace("-", "_"))
    except InfxError:
        bot = None

    if refused:
        assert (planned, validated) == (1, 1), (err, validate_err)
        assert f"'{modifier}'" in err and f"'{modifier}'" in validate_err
        assert bot is None
        assert verdict.status is Status.FAIL and f"'{modifier}'" in verdict.reason
        return
    assert (planned, validated) == (0, 0), (err, validate_err)
    (meta,) = json.loads(out)["changelog_metadata"]["entries"]
    shown = meta.get(modifier, False if boolean else None)  # unset fields may be omitted
    assert (tuple(shown) if isinstance(shown, list) else shown) == want and bot == want
    if modifier == "append-only":
        # the bot proves isolation exactly when the planner planned an append-only sweep
        assert (verdict.status is Status.NA) is (not want), verdict.reason
    else:
        assert verdict.status is Status.NA
