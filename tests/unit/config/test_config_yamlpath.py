"""Tests for infx.config.yamlpath: cheap line lookup and path rendering."""

from __future__ import annotations

from infx.config.yamlpath import format_path, line_of

TEXT = """\
# header
first:
  a: 1
  list:
  - x: 1
  - x: 2

"second.key":
  b:
    c: [1, 2]
third: {d: 1}
"""


def test_lines_of_nested_paths():
    assert line_of(TEXT, ["first"]) == 2
    assert line_of(TEXT, ["first", "list", 1, "x"]) == 6
    assert line_of(TEXT, ["second.key", "b", "c"]) == 10
    assert line_of(TEXT, ["third", "d"]) == 11


def test_missing_steps_fall_back_to_the_deepest_known_line():
    assert line_of(TEXT, ["first", "nope"]) == 2
    assert line_of(TEXT, []) == 1


def test_format_path():
    assert format_path(["scenarios", "fixed-seq-len", 0, "search-space", 1, "tp"]) == (
        "scenarios.fixed-seq-len[0].search-space[1].tp")
    assert format_path([]) == ""
