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


def test_a_direct_key_found_by_indentation_is_the_line_the_composer_gives():
    """The fast path for ``[config, field]`` (one warning per config naming an unknown runner)
    agrees with composing the block, on every field of every config of our master file, and
    leaves other shapes (flow mappings, nested keys, comments between) to the composer."""
    from pathlib import Path

    from infx.config import yamlpath

    text = (Path(__file__).resolve().parents[3] / "configs" / "amd-master.yaml").read_text(encoding="utf-8")
    checked = 0
    for key in [line.split(":", 1)[0] for line in text.splitlines() if line and not line[0].isspace()
                and not line.startswith("#") and ":" in line]:
        first, node = yamlpath._block(text, key)
        for child, _ in node.value[0][1].value:
            fast = yamlpath._child_line(text, key, child.value)
            assert fast == first - 1 + yamlpath.node_line(node, [key, child.value]), (key, child.value)
            checked += 1
    assert checked > 100
    assert yamlpath._child_line(TEXT, "third", "d") is None  # flow style: composed instead
    assert yamlpath._child_line("a:\n  # note\n  b: 1\n", "a", "b") == 3
