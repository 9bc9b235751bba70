"""`infx changelog validate` and `prepare-merge` against real git repositories."""

from __future__ import annotations

import subprocess

import pytest
from lib.changelog_support import HISTORY, URL, fixture_f_repo, git

from infx.cli import main as infx_main


def block(key="alpha-fp8-h100-vllm", link="XXX", text="Bump image"):
    return (f"- config-keys:\n    - {key}\n  description:\n    - \"{text}\"\n"
            f"  pr-link: {link}\n")


@pytest.fixture
def repo(tmp_path, test_data, monkeypatch):
    fixture_f_repo(tmp_path, test_data)
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_OUTPUT", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def write_commit(repo, content: str) -> tuple[str, str]:
    base = git(repo, "rev-parse", "HEAD")
    (repo / "perf-changelog.yaml").write_bytes(content.encode())
    git(repo, "commit", "-q", "--allow-empty", "-am", "change")
    return base, git(repo, "rev-parse", "HEAD")


def validate(repo, capsys, content, *extra):
    base, head = write_commit(repo, content)
    code = infx_main(["changelog", "validate", "--base-ref", base, "--head-ref", head, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_pr_append(repo, capsys, monkeypatch, tmp_path_factory):
    outputs = tmp_path_factory.mktemp("gh") / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    code, out, err = validate(repo, capsys, HISTORY + "\n" + block(), "--pr-number", "512")
    assert code == 0, err
    assert out == "Validated perf-changelog.yaml: 1 appended entry, 0 pr-link corrections\n"
    assert outputs.read_text() == ("has-additions=true\nmetadata-only=false\naddition-count=1\n"
                                   "correction-count=0\n")


def test_correction_only(repo, capsys, monkeypatch, tmp_path_factory):
    (repo / "perf-changelog.yaml").write_text(HISTORY.replace(URL + "900", "XXX"))
    git(repo, "commit", "-q", "-am", "placeholder")
    outputs = tmp_path_factory.mktemp("gh") / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    code, out, err = validate(repo, capsys, HISTORY, "--pr-number", "3")
    assert code == 0, err
    assert out == "Validated perf-changelog.yaml: 0 appended entries, 1 pr-link correction\n"
    assert "metadata-only=true" in outputs.read_text()


@pytest.mark.parametrize("content, fragment", [
    (HISTORY + "\n" + block() + "\n\n" + block(), "exactly one empty separator line"),
    (HISTORY + block(), "separated from history by one empty line"),
    (HISTORY + "\n" + block() + "\n", "end with one newline"),
    (HISTORY + "\n" + block().replace("    - alpha", "\t- alpha"), "contains tabs"),
    (HISTORY + "\n" + block(link="TBD"), "or an XXX placeholder; found 'TBD'"),
    (HISTORY + "\n" + block(link=URL + "511"), "new PR entry must use"),
    (HISTORY + "\n" + block()[:-1], "does not end with a newline"),
    (HISTORY, "has no changes"),
    (HISTORY + "\n" + block(text="Trailing").replace('"Trailing"', '"Trailing" '),
     "perf-changelog.yaml:10: line 10 adds trailing whitespace"),
    (HISTORY + "\n" + block(key="zeta-*"),
     "the planner rejected the diff: No config keys matched the wildcard pattern 'zeta-*'"),
])
def test_strict_failures(repo, capsys, content, fragment):
    code, out, err = validate(repo, capsys, content, "--pr-number", "512")
    assert code == 1 and out == ""
    assert fragment in err


def test_main_branch_push_requires_canonical_link(repo, capsys):
    code, _, err = validate(repo, capsys, HISTORY + "\n" + block())
    assert code == 1 and "new main-branch entry has invalid pr-link: 'XXX'" in err
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    code, _, err = validate(repo, capsys, HISTORY + "\n" + block(link=URL + "77"))
    assert code == 0, err


def test_annotation_points_at_the_line(repo, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, _, err = validate(repo, capsys, HISTORY + "\n" + block(link="TBD"), "--pr-number", "5")
    assert code == 1
    assert "::error file=perf-changelog.yaml,line=11::" in err


def test_history_whitespace_edit_is_rejected_strictly(repo, capsys):
    content = HISTORY.replace("  description:", "  description: ") + "\n" + block()
    code, _, err = validate(repo, capsys, content, "--pr-number", "5")
    assert code == 1 and "historical" in err and "perf-changelog.yaml:3:" in err


def test_modifiers_are_forwarded_to_the_planner(repo, capsys):
    content = HISTORY + "\n" + block(key="alpha-fp8-h100-vllm").replace(
        "  pr-link", "  no-evals: true\n  pr-link")
    assert validate(repo, capsys, content, "--pr-number", "5")[0] == 0
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    code, _, err = validate(repo, capsys, content, "--pr-number", "5", "--all-evals")
    assert code == 1 and "no-evals entries cannot use" in err


def test_real_changelog_validates(repo, capsys, upstream_dir):
    raw = (upstream_dir / "perf-changelog.yaml").read_text()
    (repo / "perf-changelog.yaml").write_text(raw)
    git(repo, "commit", "-q", "-am", "real history")
    code, out, err = validate(repo, capsys, raw + "\n" + block(), "--pr-number", "9")
    assert code == 0, err


def test_canonicalize_rewrites_working_tree(repo, capsys):
    base = git(repo, "rev-parse", "HEAD")
    path = repo / "perf-changelog.yaml"
    path.write_text(HISTORY + "\n" + block(link=URL + "XXX"))
    args = ["changelog", "prepare-merge", "canonicalize", "--base-ref", base, "--pr-number", "42"]
    assert infx_main(args) == 0
    assert capsys.readouterr().out == "Prepared perf-changelog.yaml for PR #42\n"
    assert path.read_text() == HISTORY + "\n" + block(link=URL + "42")
    assert infx_main(args) == 0
    assert capsys.readouterr().out == "perf-changelog.yaml already prepared for PR #42\n"


def test_canonicalize_refuses_bad_history(repo, capsys):
    base = git(repo, "rev-parse", "HEAD")
    (repo / "perf-changelog.yaml").write_text(HISTORY.replace("History", "X") + "\n" + block())
    code = infx_main(["changelog", "prepare-merge", "canonicalize", "--base-ref", base,
                      "--pr-number", "42"])
    assert code == 1 and "entry 1 changed" in capsys.readouterr().err


def test_resolve_conflict_from_index_stages(repo, capsys):
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "perf-changelog.yaml").write_text(HISTORY + "\n" + block(text="PR"))
    git(repo, "commit", "-q", "-am", "pr entry")
    git(repo, "checkout", "-q", "main")
    main_text = HISTORY + "\n" + block(text="Main", link=URL + "50")
    (repo / "perf-changelog.yaml").write_text(main_text)
    git(repo, "commit", "-q", "-am", "main entry")
    git(repo, "checkout", "-q", "pr")
    merge = subprocess.run(["git", "merge", "-q", "main"], cwd=repo, capture_output=True)
    assert merge.returncode != 0  # conflict in the changelog
    code = infx_main(["changelog", "prepare-merge", "resolve-conflict", "--pr-number", "42"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert (repo / "perf-changelog.yaml").read_text() == (
        main_text + "\n" + block(text="PR", link=URL + "42"))


def test_c7_whitespace_only_history_line_emptied_is_rejected_strictly(repo, capsys):
    (repo / "perf-changelog.yaml").write_text(HISTORY + "  \n")
    git(repo, "commit", "-q", "-am", "history with a whitespace-only line")
    code, out, err = validate(repo, capsys, HISTORY + "\n" + block(), "--pr-number", "5")
    assert code == 1 and out == ""
    assert "appended entries changed historical perf-changelog.yaml bytes" in err


@pytest.mark.parametrize(("raw", "named"), [
    ((HISTORY + "\n" + block()).replace("\n", "\r\n").encode(),
     "contains CR characters (CRLF line endings), first at byte offset"),
    (b"\xef\xbb\xbf" + (HISTORY + "\n" + block()).encode(), "starts with a UTF-8 byte-order mark"),
    ((HISTORY + "\n" + block()).encode().replace(b"Bump", b"B\0mp"), "contains a NUL byte"),
    ((HISTORY + "\n" + block()).encode().replace(b"Bump", b"B\xe9mp"),
     "is not valid UTF-8: byte 0xe9"),
    ((HISTORY + "\n" + block()).encode("utf-16"), "starts with a UTF-16 byte-order mark"),
])
def test_plan_and_validate_name_the_same_bad_bytes(repo, capsys, raw, named):
    base = git(repo, "rev-parse", "HEAD")
    (repo / "perf-changelog.yaml").write_bytes(raw)
    git(repo, "commit", "-q", "-am", "hostile bytes")
    head = git(repo, "rev-parse", "HEAD")
    errors = []
    for argv in (["changelog", "validate", "--base-ref", base, "--head-ref", head],
                 ["plan", "--base-ref", base, "--head-ref", head]):
        assert infx_main(argv) == 1
        out, err = capsys.readouterr()
        assert out == ""
        assert named in err and "No additions found" not in err and "Deletions" not in err
        errors.append(err)
    assert errors[0] == errors[1]  # one rule set, one message


def test_an_entry_selecting_an_undefined_runner_label_warns_and_validates(repo, capsys):
    """PRODUCT §4.1: unknown runner labels (real PRs use gb300-nv, b200-dgxc) warn, never block."""
    master = repo / "configs" / "f-master.yaml"
    master.write_text(master.read_text().replace("runner: b200", "runner: gb300-nv"))
    git(repo, "commit", "-q", "-am", "a label runners.yaml does not list")
    code, out, err = validate(repo, capsys, HISTORY + "\n" + block("alpha-*"), "--pr-number", "5")
    assert code == 0, err
    assert out.startswith("Validated perf-changelog.yaml: 1 appended entry")
    line = master.read_text().splitlines().index("  runner: gb300-nv") + 1
    assert err.startswith(f"warning: configs/f-master.yaml:{line} [alpha-fp4-b200-vllm]: an appended "
                          "changelog entry selects runner label 'gb300-nv'")
    assert "add 'gb300-nv' under 'labels'" in err and "error" not in err
    # an entry that selects only configs on known runners still validates
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    code, out, err = validate(repo, capsys, HISTORY + "\n" + block("alpha-fp8-h100-vllm"),
                              "--pr-number", "5")
    assert code == 0, err
