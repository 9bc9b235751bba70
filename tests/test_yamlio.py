"""Tests of infx.yamlio: the one safe YAML path against generated hostile inputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import hostile_inputs as hostile
import pytest

from infx import yamlio
from infx.errors import InfxError

ROOT = Path(__file__).resolve().parent.parent
RUNNERS = ROOT / "tests" / "data" / "changelog" / "f-runners.yaml"


def error_of(raw: bytes, name: str = "f.yaml") -> InfxError:
    with pytest.raises(InfxError) as caught:
        yamlio.load_text(yamlio.decode(raw, name), name, unique_keys=True)
    assert len(caught.value.problems) == 1
    return caught.value


@pytest.mark.parametrize(("case", "fragment", "line"), [
    ("alias-bomb", "aliases repeat more than 10,000 nodes (alias '*l2' here)", 4),
    ("alias-in-field", "aliases repeat more than 10,000 nodes", 19),
    ("recursive-alias", "recursive YAML alias '*a'", 2),
    ("deep-flow", "nesting is deeper than 200 levels", 1),
    ("deep-block", "nesting is deeper than 200 levels", 2),
    ("latin-1", "not valid UTF-8: byte 0xe9 cannot be decoded at byte offset 70 (line 3, "
                "column 16)", 3),
    ("utf-16", "starts with a UTF-16 byte-order mark", 1),
    ("utf-16-no-bom", "NUL byte (the file looks UTF-16 or UTF-32 encoded) at byte offset 1", 1),
    ("utf-8-bom", "starts with a UTF-8 byte-order mark", 1),
    ("nul", "contains a NUL byte at byte offset 82", 4),
    ("unhashable-key", "found unhashable key", 1),
    ("huge-20mb", "YAML inputs are limited to 2,097,152 bytes", None),
])
def test_hostile_inputs_end_in_one_located_error(case, fragment, line):
    error = error_of(hostile.CONFIG_CASES[case]())
    problem = error.problems[0]
    assert fragment in problem.message
    assert problem.file == "f.yaml" and problem.line == line


def test_a_dense_document_is_refused_by_node_count_before_it_is_built():
    raw = b"k: [" + b"1," * 400_000 + b"1]\n"
    assert "more than 300,000 nodes" in str(error_of(raw))


def test_small_alias_use_and_merge_keys_still_load():
    text = "base: &b {x: 1, y: [1, 2]}\nc:\n  <<: *b\n  y: 2\nd: *b\n"
    assert yamlio.load_text(text, "f.yaml", unique_keys=True) == {
        "base": {"x": 1, "y": [1, 2]}, "c": {"x": 1, "y": 2}, "d": {"x": 1, "y": [1, 2]}}


def test_only_text_that_may_hold_an_alias_pays_for_the_event_scan():
    may = yamlio._may_repeat_nodes
    assert not may("keys: [dsr1-*, 'a && b', 'x * y']\n- gpt-*\n")
    assert not may("url: https://x/?a=1&b=2\nname: R&D\n")
    assert not may("desc: 'see (*.gate.*)'\n")  # an alias without any anchor cannot expand
    assert may("a: &x 1\nb: *x\n") and may("&x [*x]") and may("{a: &x 1,*x : 2}")


def test_crlf_configs_load_with_right_lines():
    assert yamlio.load_text(yamlio.decode(hostile.crlf(), "f"), "f")["alpha-fp8-h100-vllm"]


def test_read_text_checks_the_size_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: 1\n" * 10)
    with pytest.raises(InfxError, match="file is 50 bytes; YAML inputs are limited to 40"):
        yamlio.read_text(big, limit=40)
    with pytest.raises(InfxError, match="config not found"):
        yamlio.read_text(tmp_path / "nope.yaml", what="config")


def test_text_inputs_from_apis_get_the_same_checks():
    with pytest.raises(InfxError, match="byte-order mark"):
        yamlio.load_text("\ufeffa: 1\n", "f")
    with pytest.raises(InfxError, match="NUL character"):
        yamlio.load_text("a: 1\nb: \0\n", "f")


def test_find_line_and_node_line():
    text = "a:\n  b:\n  - x\n  - y\n"
    assert yamlio.find_line(text, ["a", "b", 1]) == 4
    assert yamlio.find_line(text, ["a", "zz"]) == 1
    assert yamlio.find_line("a: [", ["a"]) is None


@pytest.mark.parametrize("case", sorted(hostile.CONFIG_CASES))
def test_the_cli_turns_every_hostile_config_into_one_error(case, tmp_path):
    path = tmp_path / f"{case}.yaml"
    path.write_bytes(hostile.CONFIG_CASES[case]())
    result = subprocess.run(
        [sys.executable, "-m", "infx.cli", "matrix", "full-sweep", "--config-files", str(path),
         "--runner-config", str(RUNNERS)], capture_output=True, text=True, cwd=ROOT,
        timeout=60, check=False)
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}")
    assert "Traceback" not in result.stderr


def test_a_world_file_with_an_alias_bomb_is_refused(tmp_path):
    world = tmp_path / "world.yaml"
    world.write_bytes(b"repo: o/r\n" + hostile.alias_bomb().replace(b"l0:", b"x0:", 0))
    result = subprocess.run(
        [sys.executable, "-m", "infx.cli", "signoff", "verify", "--world", str(world),
         "--pr", "1", "--comment-id", "1"], capture_output=True, text=True, cwd=ROOT,
        timeout=60, check=False)
    assert result.returncode == 1 and result.stdout == ""
    assert "aliases repeat more than 10,000 nodes" in result.stderr
    assert "Traceback" not in result.stderr


TRICKY = """\
plain: text
quoted: "a\\tb"
ints: [0, -3, 0x1F, 0o17, 010, 1_000, +7, 12, 3:25]
floats: [1.5, -.inf, .NaN, 6.02e23]
bools: [true, False, yes, off, on]
nulls: [~, null, ]
stamps: [2026-12-01, 2026-12-01T10:20:00Z]
set: !!set {a, b}
omap: !!omap [{x: 1}, {y: 2}]
binary: !!binary aGVsbG8=
explicit: !!str 123
anchored: &a [1, {k: v}]
again: *a
merged:
  <<: {m: 1, n: 2}
  n: 3
? complex key
: value
nested: [[1, [2, [3]]], {a: {b: {c: d}}}]
empty_map: {}
empty_list: []
block: |
  line one
  line two
"""


def test_the_direct_constructor_builds_what_pyyaml_builds():
    import math

    import yaml

    def same(a, b):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
            return math.isnan(b)
        if type(a) is not type(b):
            return False
        if isinstance(a, dict):
            return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
        if isinstance(a, list):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
        return a == b

    expected = yaml.load(TRICKY, Loader=yaml.CSafeLoader)
    for unique in (False, True):
        loaded = yamlio.load_text(TRICKY, "f.yaml", unique_keys=unique)
        assert same(loaded, expected)
        assert loaded["again"] is loaded["anchored"]  # an alias is the same object


def test_duplicate_keys_are_located_and_deep_nesting_still_loads():
    with pytest.raises(InfxError, match="duplicate key 'a'") as caught:
        yamlio.load_text("x: 1\nm:\n  a: 1\n  a: 2\n", "f.yaml", unique_keys=True)
    assert caught.value.problems[0].line == 4
    assert yamlio.load_text("m: {a: 1, a: 2}\n", "f.yaml") == {"m": {"a": 2}}
    deep = "[" * 600 + "]" * 600  # no scan (bound < 5,000); deeper than this recursion
    value = yamlio.load_text(deep, "f.yaml")
    for _ in range(599):
        value = value[0]
    assert value == []
