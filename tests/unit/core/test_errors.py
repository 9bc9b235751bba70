"""Tests for located problems and GitHub annotations."""

import pytest

from infx.errors import InfxError, Problem, report
from infx.yamlio import find_line, load_text


def test_problem_text_names_file_line_key_and_fix():
    p = Problem("bad conc", file="configs/a.yaml", line=7, key="k1", fix="use a list")
    assert str(p) == "configs/a.yaml:7 [k1]: bad conc (fix: use a list)"


def test_annotation_escapes_properties_and_newlines():
    p = Problem("a\nb", file="x,y:z.yaml", line=3)
    assert p.annotation() == "::error file=x%2Cy%3Az.yaml,line=3::a%0Ab"


def test_report_prints_annotation_only_in_actions(monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    report([Problem("oops", file="f.yaml", line=2)])
    err = capsys.readouterr().err
    assert "error: f.yaml:2: oops" in err
    assert "::error file=f.yaml,line=2::oops" in err
    monkeypatch.delenv("GITHUB_ACTIONS")
    report([Problem("oops", file="f.yaml", line=2)])
    assert "::error" not in capsys.readouterr().err


def test_yaml_syntax_error_names_file_and_line():
    with pytest.raises(InfxError) as info:
        load_text("a: 1\nb: [unclosed\n", "bad.yaml")
    problem = info.value.problems[0]
    assert problem.file == "bad.yaml" and problem.line is not None and problem.line >= 2


def test_duplicate_keys_rejected_when_asked():
    assert load_text("a: 1\na: 2\n", "d.yaml") == {"a": 2}
    with pytest.raises(InfxError, match="duplicate key"):
        load_text("a: 1\na: 2\n", "d.yaml", unique_keys=True)


def test_find_line_walks_keys_and_indexes():
    text = "top:\n  items:\n    - one\n    - two\n"
    assert find_line(text, ["top", "items", 1]) == 4
    assert find_line(text, ["top", "missing"]) == 1


def test_merge_keys_work_and_may_be_overridden_with_unique_keys():
    text = "base: &b {tp: 8, ep: 1}\nentry:\n  <<: *b\n  ep: 8\n"
    assert load_text(text, "m.yaml", unique_keys=True)["entry"] == {"tp": 8, "ep": 8}
    with pytest.raises(InfxError, match="duplicate key"):
        load_text("entry:\n  <<: {tp: 8}\n  ep: 1\n  ep: 2\n", "m.yaml", unique_keys=True)
