"""Tests of infx.yamlio: the one safe YAML path against generated hostile inputs."""

from __future__ import annotations

import datetime
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lib import hostile_inputs as hostile

from infx import yamlio
from infx.errors import InfxError

ROOT = Path(__file__).resolve().parents[3]
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
    ("huge-20mb", "more than 1,000,000 nodes (the yaml_limits.document_nodes cap)", 411_767),
])
def test_hostile_inputs_end_in_one_located_error(case, fragment, line):
    error = error_of(hostile.CONFIG_CASES[case]())
    problem = error.problems[0]
    assert fragment in problem.message
    assert problem.file == "f.yaml" and problem.line == line


def test_a_dense_document_is_refused_by_node_count_before_it_is_built():
    raw = b"k: [" + b"1," * 1_200_000 + b"1]\n"
    assert "more than 1,000,000 nodes" in str(error_of(raw))


def test_small_alias_use_and_merge_keys_still_load():
    text = "base: &b {x: 1, y: [1, 2]}\nc:\n  <<: *b\n  y: 2\nd: *b\n"
    assert yamlio.load_text(text, "f.yaml", unique_keys=True) == {
        "base": {"x": 1, "y": [1, 2]}, "c": {"x": 1, "y": 2}, "d": {"x": 1, "y": [1, 2]}}


def test_the_single_pass_leaves_only_rarer_features_to_pyyaml():
    def build(text, name, unique):
        return yamlio._build(text, name, unique, 1_000)

    assert build("a: &x [1, {k: v}]\nb: *x\nc: 2026-12-01\n", "f", True) == {
        "a": [1, {"k": "v"}], "b": [1, {"k": "v"}], "c": datetime.date(2026, 12, 1)}
    for text in ("a: {<<: {x: 1}}\n", "a: !!set {x}\n", "a: !!binary aGk=\n", "a: *nope\n",
                 "a: &x 1\nb: &x 2\n", "a: 1\n---\nb: 2\n", "a: 1\na: 2\n", "? [k]\n: v\n",
                 "a: !custom 1\n"):
        assert build(text, "f", True) is yamlio._FALLBACK, text
    assert build("a: 1\na: 2\n", "f", False) == {"a": 2}  # duplicates only refused on request


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

    rare = ("set:", "omap:", "binary:", "merged:", "  <<:", "  n: 3")
    single_pass = "".join(line for line in TRICKY.splitlines(keepends=True)
                          if not line.startswith(rare)) + SINGLE_PASS_EXTRA
    assert yamlio._build(single_pass, "f.yaml", True, 1_000) is not yamlio._FALLBACK
    assert yamlio._build(TRICKY, "f.yaml", True, 1_000) is yamlio._FALLBACK
    for text in (TRICKY, single_pass):
        expected = yaml.load(text, Loader=yaml.CSafeLoader)
        for unique in (False, True):
            loaded = yamlio.load_text(text, "f.yaml", unique_keys=unique)
            assert same(loaded, expected)
            assert loaded["again"] is loaded["anchored"]  # an alias is the same object


SINGLE_PASS_EXTRA = """\
tagged: [!!int "7", !!float 1, !!bool "yes", !!null "", ! 12, !!str 1.5, !!timestamp 2026-01-02]
scalar_anchor: &s 3.5
scalar_alias: *s
"quoted key": 'single'
1: int key
null: null key
flow: {a: , b: [x, {y: z}], ? c : d}
empty:
folded: >
  a
  b
"""


def test_duplicate_keys_are_located_and_deep_nesting_still_loads():
    with pytest.raises(InfxError, match="duplicate key 'a'") as caught:
        yamlio.load_text("x: 1\nm:\n  a: 1\n  a: 2\n", "f.yaml", unique_keys=True)
    assert caught.value.problems[0].line == 4
    assert yamlio.load_text("m: {a: 1, a: 2}\n", "f.yaml") == {"m": {"a": 2}}
    value = yamlio.load_text("[" * 200 + "]" * 200, "f.yaml")
    for _ in range(199):
        value = value[0]
    assert value == []
    for text in ("[" * 201 + "]" * 201, "a: !!set {x}\nb: " + "[" * 201 + "]" * 201):
        with pytest.raises(InfxError, match="nesting is deeper than 200 levels"):
            yamlio.load_text(text, "f.yaml")  # the single pass, and the scan before PyYAML


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                     st.floats(allow_nan=False, width=32), st.dates(),
                     st.text(st.sampled_from("ab1 :-#&*!?,[]{}'\"\n0x.~<=|>"), max_size=6))
_DATA = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.text("ab1<=", max_size=3), st.integers(0, 3), st.none()),
                    inner, max_size=4)), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(data=_DATA, flow=st.sampled_from([None, True, False]), cut=st.integers(0, 400),
       insert=st.sampled_from(["", "&a ", "*a ", "<<: ", "- ", ": ", "!!set ", "---\n", "? ",
                               "\n  ", "{", "]", "!x "]))
def test_the_single_pass_loads_what_pyyaml_loads(data, flow, cut, insert):
    """Dumped data, and that text with a token spliced in, load to PyYAML's value or fail."""
    import yaml

    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True)
    for candidate in (text, text[:cut] + insert + text[cut:]):
        try:
            expected = yaml.load(candidate, Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            with pytest.raises(InfxError):
                yamlio.load_text(candidate, "f.yaml")
            continue
        except (TypeError, RecursionError):  # unhashable keys: infx refuses them, located
            with pytest.raises(InfxError):
                yamlio.load_text(candidate, "f.yaml")
            continue
        try:
            loaded = yamlio.load_text(candidate, "f.yaml")
        except InfxError as exc:  # only the recursive-alias refusal goes beyond PyYAML
            assert "recursive YAML alias" in str(exc)
            continue
        assert repr(loaded) == repr(expected)


# --- the size and node caps are settings; the bomb caps are not -----------------------------

def test_the_shipped_caps_hold_ten_years_of_the_reference_changelog():
    """infx/limits.yaml's arithmetic: the reference grew 317 -> 396 KB in 18 days."""
    yearly = (396_000 - 317_000) / 18 * 365.25
    ten_years = 396_000 + 10 * yearly
    assert yamlio.max_yaml_bytes() >= ten_years
    assert yamlio.max_yaml_nodes() >= ten_years * 8_749 / 395_528  # the reference's density
    from infx.github.archives import default_limits

    assert default_limits().member_bytes >= yamlio.max_yaml_bytes()  # readable from a tarball


def test_the_node_cap_error_names_the_cap_and_the_setting(monkeypatch):
    monkeypatch.setenv("INFX_MAX_YAML_NODES", "50")
    with pytest.raises(yamlio.YamlLimitError) as caught:
        yamlio.load_text("- [" + "1, " * 60 + "1]\n", "f.yaml")
    problem = caught.value.problems[0]
    assert caught.value.cap == "document_nodes" and problem.line == 1
    assert "more than 50 nodes (the yaml_limits.document_nodes cap)" in problem.message
    assert "raise `document_nodes` under `yaml_limits:` in infx/limits.yaml" in problem.fix
    assert "INFX_MAX_YAML_NODES" in problem.fix
    monkeypatch.setenv("INFX_MAX_YAML_NODES", "63")  # 61 scalars in 2 lists
    assert len(yamlio.load_text("- [" + "1, " * 60 + "1]\n", "f.yaml")[0]) == 61


def test_the_size_cap_error_names_the_cap_and_the_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("INFX_MAX_YAML_BYTES", "1_000")
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: 1\n" * 201)
    with pytest.raises(yamlio.YamlLimitError) as caught:
        yamlio.load_file(big)
    problem = caught.value.problems[0]
    assert caught.value.cap == "file_bytes"
    assert problem.message == ("file is 1,005 bytes; YAML inputs are limited to 1,000 bytes "
                               "(the yaml_limits.file_bytes cap)")
    assert "raise `file_bytes` under `yaml_limits:` in infx/limits.yaml" in problem.fix
    assert "INFX_MAX_YAML_BYTES" in problem.fix


@pytest.mark.parametrize("value", ["0", "-5", "many"])
def test_a_bad_node_cap_setting_is_one_error(monkeypatch, value):
    monkeypatch.setenv("INFX_MAX_YAML_NODES", value)
    with pytest.raises(InfxError, match=f"INFX_MAX_YAML_NODES='{value}' is not a positive whole "
                                        "number of nodes"):
        yamlio.load_text("a: 1\n", "f.yaml")


@pytest.mark.parametrize(("case", "fragment"), [
    ("alias-bomb", "aliases repeat more than 10,000 nodes"),
    ("alias-in-field", "aliases repeat more than 10,000 nodes"),
    ("recursive-alias", "recursive YAML alias"),
    ("deep-flow", "nesting is deeper than 200 levels"),
    ("deep-block", "nesting is deeper than 200 levels"),
])
def test_bombs_are_stopped_however_high_the_caps_are_raised(monkeypatch, case, fragment):
    monkeypatch.setenv("INFX_MAX_YAML_NODES", str(10**12))
    monkeypatch.setenv("INFX_MAX_YAML_BYTES", str(10**12))
    error = error_of(hostile.CONFIG_CASES[case]())
    assert not isinstance(error, yamlio.YamlLimitError)
    assert fragment in error.problems[0].message


def test_the_limits_file_is_checked(monkeypatch):
    monkeypatch.setattr(yamlio, "limits_file", lambda: {"yaml_limits": {
        "file_bytes": 0, "document_nodes": True, "nodes": 5}})
    yamlio._yaml_defaults.cache_clear()
    try:
        with pytest.raises(InfxError) as caught:
            yamlio.max_yaml_bytes()
    finally:
        yamlio._yaml_defaults.cache_clear()
    assert [p.key for p in caught.value.problems] == [
        "yaml_limits.nodes", "yaml_limits.file_bytes", "yaml_limits.document_nodes"]
    assert all(p.file == "infx/limits.yaml" for p in caught.value.problems)


def test_one_shared_parse_serves_both_key_rules() -> None:
    text = "a: 1\nb: &x [1, 2]\nc: *x\n"
    strict, lenient = yamlio.load_shared(text, "s.yaml", unique_keys=True), yamlio.load_shared(text, "s.yaml")
    assert strict is lenient and strict == {"a": 1, "b": [1, 2], "c": [1, 2]}
    twice = "a: 1\na: 2\n"
    assert yamlio.load_shared(twice, "t.yaml") == {"a": 2}  # the last one wins, as PyYAML
    for _ in range(2):  # the refusal is remembered, and raised to every strict reader
        with pytest.raises(InfxError, match="duplicate key") as caught:
            yamlio.load_shared(twice, "t.yaml", unique_keys=True)
        assert caught.value.problems[0].file == "t.yaml" and caught.value.problems[0].line == 2
    with pytest.raises(InfxError, match="invalid YAML"):
        yamlio.load_shared("a: [1\n", "bad.yaml")


def test_a_shared_parse_follows_the_caps_in_force(monkeypatch) -> None:
    text = "- [" + "1, " * 60 + "1]\n"
    assert len(yamlio.load_shared(text, "f.yaml")[0]) == 61
    monkeypatch.setenv("INFX_MAX_YAML_NODES", "50")  # a remembered parse does not skip a lower cap
    with pytest.raises(yamlio.YamlLimitError):
        yamlio.load_shared(text, "f.yaml")
    twice = "a: 1\na: 2\nb:\n" + text  # a duplicate key before the cap: the cap is the error
    for unique in (True, False):
        with pytest.raises(yamlio.YamlLimitError, match="more than 50 nodes") as caught:
            yamlio.load_shared(twice, "f.yaml", unique_keys=unique)
        assert caught.value.problems[0].line == 4


def test_a_private_copy_is_independent_and_keeps_aliases_shared() -> None:
    data = yamlio.load_shared("b: &x {k: [1]}\nc: *x\nd: 2026-01-02\n", "p.yaml")
    copy = yamlio.private_copy(data)
    assert copy == data and copy["b"] is copy["c"] and copy["b"] is not data["b"]
    copy["b"]["k"].append(2)
    assert data["b"]["k"] == [1] and copy["c"]["k"] == [1, 2]
    assert isinstance(copy["d"], datetime.date)
