"""`infx plan` and `infx changelog validate` give one message, at one line, for one changelog mistake."""

from __future__ import annotations

import pytest
from lib.changelog_support import fixture_f_repo, git

from infx.changelog.entry import did_you_mean, edit_distance
from infx.cli import main

GOOD = "- config-keys:\n    - alpha-fp8-h100-vllm\n  description:\n    - \"x\"\n  pr-link: XXX\n"
MISTAKES = {
    "field typo first (- config-key:)": (GOOD.replace("- config-keys:", "- config-key:"), 7,
                                         "unknown field 'config-key' (did you mean 'config-keys'?)"),
    "field typo": (GOOD.replace("  description:", "  descripton:"), 9,
                   "unknown field 'descripton' (did you mean 'description'?)"),
    "field twice in one entry": (GOOD.replace("  description:", "  config-keys:\n    - alpha-fp8-h100-vllm\n"
                                              "  description:"), 9,
                                 "found duplicate key 'config-keys'"),
    "not a boolean": (GOOD + "  all-evals: sometimes\n", 12, "'all-evals' must be a boolean"),
}


@pytest.fixture
def repo(tmp_path, test_data, monkeypatch):
    fixture_f_repo(tmp_path, test_data)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    return tmp_path


def _append(repo, text: str) -> tuple[str, str]:
    base = git(repo, "rev-parse", "HEAD")
    with (repo / "perf-changelog.yaml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + text)
    git(repo, "commit", "-qam", "append")
    return base, git(repo, "rev-parse", "HEAD")


def _errors(args: list[str], capsys) -> tuple[int, str, list[str]]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line.startswith("error: ")]


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_plan_and_validate_report_a_mistake_identically(repo, capsys, mistake):
    text, line, message = MISTAKES[mistake]
    base, head = _append(repo, text)
    refs = ["--base-ref", base, "--head-ref", head]
    plan = _errors(["plan", *refs], capsys)
    validate = _errors(["changelog", "validate", *refs, "--pr-number", "5"], capsys)
    assert plan[:2] == (1, "") and validate[:2] == (1, "")
    assert len(plan[2]) == 1 and plan[2] == validate[2]
    assert plan[2][0].startswith(f"error: perf-changelog.yaml:{line}")
    assert message in plan[2][0] and "(fix: " in plan[2][0]
    for jargon in ("Extra inputs", "ChangelogEntry", "entry 1", "entry 2"):
        assert jargon not in plan[2][0]


def test_a_config_key_typo_gets_a_suggestion(repo, capsys):
    base, head = _append(repo, GOOD.replace("alpha-fp8-h100-vllm", "alpha-fp8-h100-vlm"))
    code, out, errors = _errors(["plan", "--base-ref", base, "--head-ref", head], capsys)
    assert (code, out) == (1, "")
    assert "did you mean 'alpha-fp8-h100-vllm'?" in errors[0]


def test_a_placeholder_link_without_a_pr_number_names_the_option(repo, capsys):
    base, head = _append(repo, GOOD)
    code, _, errors = _errors(["changelog", "validate", "--base-ref", base, "--head-ref", head],
                              capsys)
    assert code == 1 and "pass --pr-number N" in errors[0]


def test_planning_from_a_subdirectory_says_to_run_from_the_root(repo, capsys, monkeypatch):
    base, head = _append(repo, GOOD)
    (repo / "docs").mkdir()
    monkeypatch.chdir(repo / "docs")
    code, out, errors = _errors(["plan", "--base-ref", base, "--head-ref", head], capsys)
    assert (code, out) == (1, "")
    assert "run from the repository root" in errors[0]


def test_suggestions_come_from_edit_distance():
    assert edit_distance("config-key", "config-keys") == 1
    assert edit_distance("kitten", "sitting") == 3
    assert did_you_mean("evals-onyl", ["evals-only", "all-evals"]) == "evals-only"
    assert did_you_mean("zzz", ["evals-only", "all-evals"]) is None
