"""`infx plan` and `infx changelog validate` give one message, at one line, for one changelog mistake."""

from __future__ import annotations

import json

import pytest
from lib.changelog_support import URL, fixture_f_repo, git

from infx.changelog.entry import did_you_mean, edit_distance
from infx.cli import main
from infx.plan.planner import appended_entries

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
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
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


def _correct_link(repo, link: str) -> tuple[str, str]:
    """Rewrite the historical entry's pr-link (line 5) and commit: base and head refs."""
    base = git(repo, "rev-parse", "HEAD")
    path = repo / "perf-changelog.yaml"
    path.write_text(path.read_text().replace(f"{URL}900", link))
    git(repo, "commit", "-qam", "correct the link")
    return base, git(repo, "rev-parse", "HEAD")


def test_a_pr_link_only_correction_is_accepted_by_plan_as_by_validate(repo, capsys):
    """Issue 24: validate accepted it, plan refused it ('Deletions are not allowed'), and a
    push to main plans every merge: it plans nothing now (no entry is appended)."""
    base, head = _correct_link(repo, f"{URL}901")
    refs = ["--base-ref", base, "--head-ref", head]
    assert main(["changelog", "validate", *refs, "--pr-number", "5"]) == 0
    assert "0 appended entries, 1 pr-link correction" in capsys.readouterr().out
    assert main(["plan", *refs]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan.pop("changelog_metadata")["entries"] == []
    assert plan.pop("single_node") == {} and plan.pop("multi_node") == {}
    assert set(plan) and all(rows == [] for rows in plan.values())
    base_text = git(repo, "show", f"{base}:perf-changelog.yaml") + "\n"
    head_text = git(repo, "show", f"{head}:perf-changelog.yaml") + "\n"
    assert appended_entries(base_text, head_text) == []  # the bot's reading of the same diff


def test_a_broken_correction_gets_the_same_message_from_both(repo, capsys):
    base, head = _correct_link(repo, "https://example.com/pull/901")
    refs = ["--base-ref", base, "--head-ref", head]
    plan = _errors(["plan", *refs], capsys)
    validate = _errors(["changelog", "validate", *refs, "--pr-number", "5"], capsys)
    assert plan[:2] == (1, "") and validate[:2] == (1, "")
    assert plan[2] == validate[2] and len(plan[2]) == 1
    assert plan[2][0].startswith("error: perf-changelog.yaml:5")
    assert "pr-link correction is not canonical" in plan[2][0]


def test_a_correction_elsewhere_in_an_entry_is_still_a_deletion_for_plan(repo, capsys):
    """History edits other than a pr-link keep the reference planner's message."""
    base = git(repo, "rev-parse", "HEAD")
    path = repo / "perf-changelog.yaml"
    path.write_text(path.read_text().replace("History", "Rewritten"))
    git(repo, "commit", "-qam", "rewrite")
    code, out, errors = _errors(["plan", "--base-ref", base, "--head-ref", "HEAD"], capsys)
    assert (code, out) == (1, "") and "Deletions are not allowed" in errors[0]
