"""Tests of infx.schemas' quick pass: it never accepts what jsonschema rejects, and it accepts
the shipped documents, so valid input never imports jsonschema."""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infx import schemas, yamlio

ROOT = Path(__file__).resolve().parents[3]
SCHEMAS = sorted((ROOT / "infx").rglob("*.schema.json"))
WORLDS = sorted((ROOT / "tests" / "data" / "worlds").glob("*.yaml"))
WORLD_SCHEMA = ROOT / "infx" / "github" / "fake" / "schemas" / "world.schema.json"
TABLE_SCHEMA = ROOT / "infx" / "signoff" / "schemas" / "checks.schema.json"

VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-1, 2),
                   st.text(max_size=3), st.just("a" * 141), st.just("0" * 40),
                   st.just("2026-09-24T12:00:00Z"), st.lists(st.integers(-1, 3), max_size=2),
                   st.just({}), st.just({"login": "x"}), st.just([1, 1.0]))


@functools.cache
def _schema_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def load(path: Path) -> dict:
    """A fresh copy of a packaged schema (its text is read once per module)."""
    return json.loads(_schema_text(path))


def full_valid(schema: dict, instance) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_every_packaged_schema_compiles_for_the_quick_pass(path):
    assert schemas._quick_check(json.dumps(load(path))) is not None


@pytest.mark.parametrize("path", WORLDS, ids=lambda p: p.name)
def test_the_shipped_worlds_pass_the_quick_pass(path):
    world = yamlio.load_file(path)
    assert schemas.quick_valid(load(WORLD_SCHEMA), world)


def test_the_check_table_passes_the_quick_pass():
    table = yamlio.load_file(ROOT / "infx" / "signoff" / "checks.yaml")
    assert schemas.quick_valid(load(TABLE_SCHEMA), table)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _mutate(data, document):
    paths = [path for path in _paths(document) if path]
    path = data.draw(st.sampled_from(paths))
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if action == "replace":
        parent[path[-1]] = data.draw(VALUES)
    elif action == "delete":
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[data.draw(st.sampled_from(["extra", "state", "role", "permission", "0" * 40,
                                          "times", "truncate"]))] = data.draw(VALUES)
    elif isinstance(parent, list):
        parent.append(data.draw(VALUES))
    return document


# the suite's counts are small; benchmarks/bench_schemas_quick.py runs each property on 1,000
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_quick_pass_matches_jsonschema_on_mutated_worlds(data):
    schema = load(WORLD_SCHEMA)
    world = _mutate(data, copy.deepcopy(_world(data.draw(st.sampled_from(WORLDS)))))
    assert schemas.quick_valid(schema, world) == full_valid(schema, world)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_quick_pass_matches_jsonschema_on_a_mutated_check_table(data):
    schema = load(TABLE_SCHEMA)
    table = _mutate(data, yamlio.load_file(ROOT / "infx" / "signoff" / "checks.yaml"))
    assert schemas.quick_valid(schema, table) == full_valid(schema, table)


_WORLDS: dict[Path, dict] = {}


def _world(path: Path) -> dict:
    if path not in _WORLDS:
        _WORLDS[path] = yamlio.load_file(path)
    return _WORLDS[path]


KEYWORDS = {
    "type": {"type": ["string", "null"]},
    "oneOf": {"oneOf": [{"type": "integer"}, {"minimum": 0}]},
    "anyOf": {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    "allOf": {"allOf": [{"minimum": 0}, {"maximum": 3}]},
    "propertyNames": {"propertyNames": {"pattern": "^[a-z]+$"}},
    "maxLength": {"maxLength": 2},
    "minProperties": {"minProperties": 1},
    "uniqueItems": {"uniqueItems": True},
    "patternProperties": {"patternProperties": {"^x-": {"type": "integer"}},
                          "properties": {"a": {"type": "string"}},
                          "additionalProperties": False},
    "enum": {"enum": [[1], {"k": False}, 2]},
}
INSTANCES = [None, "ab", "abc", -1, 1, 1.0, 2.5, 4, True, [], [1, 1.0], [1, True], [True],
             [1, [1]], {}, {"a": "x"}, {"b": 1}, {"x-1": 2}, {"x-1": "2"}, {"Z": 1}, {"k": 0},
             {"k": False}, {"a": 1}]


@pytest.mark.parametrize("keyword", sorted(KEYWORDS))
def test_each_keyword_judges_as_jsonschema_does(keyword):
    schema = KEYWORDS[keyword]
    for instance in INSTANCES:
        assert schemas.quick_valid(schema, instance) == full_valid(schema, instance), instance


def test_an_uninterpreted_keyword_leaves_the_judgement_to_jsonschema():
    schema = {"type": "string", "format": "email"}
    assert schemas._quick_check(json.dumps(schema)) is None
    assert not schemas.quick_valid(schema, "x@example.com")
    assert schemas.schema_problems(schema, "x@example.com", file="f", fix="") == []
    assert schemas.schema_problems({"type": "string"}, 1, file="f", fix="")[0].message == \
        "value must be of type string, got integer"


def test_a_valid_world_is_loaded_without_importing_jsonschema():
    code = ("import sys\nfrom infx.github.fake.world import load_world\n"
            f"load_world({str(WORLDS[0])!r})\n"
            "from infx.signoff.table import load_table\nload_table()\n"
            "assert 'jsonschema' not in sys.modules, 'jsonschema imported'\n"
            "try:\n    load_world({'repo': 'o/r', 'pulls': 3})\nexcept Exception as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("InfxError") and "invalid world" in run.stdout


def _vocabulary(schema) -> tuple[list[str], list]:
    """Property names and enum/const values used anywhere in a schema."""
    names, values = set(), []
    todo = [schema]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            names.update(k for k in node.get("properties", {}) if isinstance(k, str))
            names.update(node.get("required", []))
            values.extend(node.get("enum", []))
            if "const" in node:
                values.append(node["const"])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return sorted(names), values


@functools.cache
def _instances(path: Path) -> st.SearchStrategy:
    """Random documents built from a schema's own vocabulary. Built once per schema: Hypothesis
    validates a strategy the first time it draws from it, which cost more than the checks."""
    names, values = _vocabulary(load(path))
    leaves = st.one_of(VALUES, *([st.sampled_from(values)] if values else []))
    keys = st.one_of(st.sampled_from(names or ["k"]), st.text(max_size=3))
    documents = st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=5)), max_leaves=12)
    return st.dictionaries(keys, documents, max_size=6)


# 12 documents a schema here; benchmarks/bench_schemas_quick.py runs this property and the two
# mutation properties on 1,000 examples each
@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_the_quick_pass_never_accepts_what_jsonschema_rejects(path, data):
    schema = load(path)
    instance = data.draw(_instances(path))
    assert schemas.quick_valid(schema, instance) == full_valid(schema, instance)


def test_fields_a_pattern_allows_are_never_called_unknown():
    schema = {"type": "object", "properties": {"name": {"type": "string"}},
              "patternProperties": {"^p\\d+_": {"type": "number"}}, "additionalProperties": False}
    (problem,) = schemas.schema_problems(schema, {"name": "a", "p50_e2el": 1.0, "nmae": 2},
                                         file="f", fix="-")
    assert problem.message.startswith("unknown field 'nmae' (did you mean 'name'? ")
    assert "p50_e2el" not in problem.message.split("(")[0] and problem.key == "nmae"
