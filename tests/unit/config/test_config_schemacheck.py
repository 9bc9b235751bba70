"""Tests for infx.config.schemacheck: the quick validator agrees with jsonschema."""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infx.config import schemacheck

VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-1, 2),
                   st.text(max_size=3), st.just("image:x"), st.lists(st.integers(-1, 3), max_size=2),
                   st.just({}), st.just({"name": "x"}))


@pytest.fixture(scope="module")
def reference_master():
    text = (Path(__file__).parents[2] / "data" / "upstream" / "amd-master.yaml").read_text()
    return yaml.safe_load(text)


@pytest.mark.parametrize("name", ["master", "runners"])
def test_schemas_are_valid_draft_2020_12(name):
    jsonschema.Draft202012Validator.check_schema(schemacheck.load_schema(name))


def test_reference_data_is_valid_on_both_paths(reference_master):
    assert schemacheck.quick_valid("master", reference_master)
    assert schemacheck.schema_errors("master", reference_master) == []


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _set(root, path, value):
    node = root
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_quick_validator_matches_jsonschema_on_mutations(reference_master, data):
    keys = list(reference_master)
    key = data.draw(st.sampled_from(keys))
    entry = copy.deepcopy(reference_master[key])
    paths = [path for path in _paths(entry) if path]
    path = data.draw(st.sampled_from(paths))
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if action == "replace":
        _set(entry, path, data.draw(VALUES))
    elif action == "delete":
        parent = entry
        for step in path[:-1]:
            parent = parent[step]
        del parent[path[-1]]
    else:
        parent = entry
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["extra", "tp", "pp", "hardware", "disagg"]))] = (
                data.draw(VALUES))
    instance = {key: entry}
    quick = schemacheck.quick_valid("master", instance)
    full = jsonschema.Draft202012Validator(schemacheck.load_schema("master")).is_valid(instance)
    assert quick == full
    assert (schemacheck.schema_errors("master", instance) == []) == full


@pytest.mark.parametrize("instance, expected", [
    ({"labels": {"a": ["b"]}}, True),
    ({"labels": {"a": []}}, False),
    ({"labels": {"a": [True]}}, False),
    ({"labels": {"a": ["b"]}, "hardware": {"a": {"available-cpu-dram-mib": 1.0,
                                                  "gpus-per-node": 8}}}, True),
    ({"labels": {"a": ["b"]}, "hardware": {"a": {"available-cpu-dram-mib": True,
                                                  "gpus-per-node": 8}}}, False),
])
def test_runner_schema_edge_types(instance, expected):
    assert schemacheck.quick_valid("runners", instance) is expected
    full = jsonschema.Draft202012Validator(schemacheck.load_schema("runners")).is_valid(instance)
    assert full is expected


def test_messages_are_short_and_specific():
    errors = schemacheck.schema_errors("runners", {"labels": {"a": "b"}, "extra": 1})
    messages = [message for _, message in errors]
    assert "unknown field 'extra' (allowed: hardware, labels)" in messages
    assert "'a' must be of type array, got string" in messages


def test_image_reference_version_is_rejected():
    base = {"k": {"image": "i", "model": "m", "model-prefix": "p", "runner": "r",
                  "precision": "fp4", "framework": "f", "multinode": False,
                  "router": {"name": "x", "version": "image:abc"},
                  "scenarios": {"fixed-seq-len": []}}}
    assert not schemacheck.quick_valid("master", base)
    [(path, message)] = schemacheck.schema_errors("master", base)
    assert path == ["k", "router", "version"] and "not an image reference" in message
