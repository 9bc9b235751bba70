"""One helper validates a document against a schema and reports located problems."""

from __future__ import annotations

import pytest

from infx.errors import InfxError
from infx.schemas import check_schema, schema_problems

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"},
                                           "b": {"type": "array", "items": {"type": "string"}}}}
TEXT = "a: x\nb:\n  - ok\n  - 3\n"


def test_problems_carry_file_line_key_and_fix_in_document_order():
    problems = schema_problems(SCHEMA, {"a": "x", "b": ["ok", 3]}, file="f.yaml", text=TEXT,
                               fix="repair it")
    assert [(p.line, p.key) for p in problems] == [(1, "a"), (4, "b.1")]
    assert problems[0].file == "f.yaml" and problems[0].fix == "repair it"
    assert "'a' must be of type integer, got string" in problems[0].message  # plain words, never the library's


def test_without_text_there_is_no_line_and_describe_rewords():
    (problem,) = schema_problems(SCHEMA, {"a": "x"}, file="f", fix="-", describe=lambda e: "bad a")
    assert problem.line is None and problem.message == "bad a"


def test_check_schema_raises_every_problem_and_accepts_valid_documents():
    check_schema(SCHEMA, {"a": 1}, file="f", fix="-")
    with pytest.raises(InfxError) as info:
        check_schema(SCHEMA, {"a": "x", "b": [1]}, file="f", fix="-")
    assert len(info.value.problems) == 2
