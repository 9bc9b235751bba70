"""The shipped JSON Schema agrees with the entry model."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from infx.changelog.entry import EntryError, parse_entry

SCHEMA = json.loads(resources.files("infx.changelog").joinpath(
    "schemas/changelog.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
BASE = {"config-keys": ["k"], "description": ["d"], "pr-link": "XXX"}


def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("extra", [
    {}, {"evals-only": True, "all-evals": True}, {"scenario-type": ["agentic-coding"]},
    {"eval-min-prefill-ep": 2}, {"eval-concs": [16, 32]}, {"no-evals": True},
    {"append-only": True, "scenario-type": ["fixed-seq-len"]}, {"evals-only": "true"},
    {"eval-conc": [1]}, {"append-only": True, "eval-concs": [4]},
    {"no-evals": True, "all-evals": True}, {"eval-min-prefill-ep": 0},
    {"scenario-type": []}, {"description": "text"}, {"pr-link": None},
    {"eval-concs": []}, {"config-keys": [1]},
    {"evals-only": " true"}, {"evals-only": "TRUE"}, {"eval-min-prefill-ep": "1_000"},
    {"eval-min-prefill-ep": " 3.00 "}, {"eval-min-prefill-ep": True},
    {"eval-min-prefill-ep": "0_0"}, {"eval-min-prefill-ep": "3."},
])
def test_schema_and_model_agree(extra):
    entry = {**BASE, **extra}
    try:
        parse_entry(entry)
        model_ok = True
    except EntryError:
        model_ok = False
    assert VALIDATOR.is_valid([entry]) is model_ok


def test_real_changelog_matches_schema(upstream_dir):
    from infx.yamlio import load_file

    data = load_file(upstream_dir / "perf-changelog.yaml")
    assert not list(VALIDATOR.iter_errors(data))
