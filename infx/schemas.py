"""Validate a document against a JSON Schema and report every violation as a located Problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from infx.errors import InfxError, Problem
from infx.yamlio import find_line


def schema_problems(schema: dict, data: Any, *, file: str, fix: str, text: str | None = None,
                    describe: Callable[[Any], str] | None = None) -> list[Problem]:
    """Every Draft 2020-12 violation, in document order: message (or ``describe(error)``),
    file, the YAML line when the source ``text`` is given, the dotted key path, and ``fix``."""
    validator = _validator(json.dumps(schema))  # keyword order kept: it orders the errors
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    return [_problem(error, file, fix, text, describe) for error in errors]


def check_schema(schema: dict, data: Any, **where: Any) -> None:
    """``schema_problems``, raised as one InfxError when there is any."""
    problems = schema_problems(schema, data, **where)
    if problems:
        raise InfxError(problems)


def _problem(error: Any, file: str, fix: str, text: str | None,
             describe: Callable[[Any], str] | None) -> Problem:
    path = list(error.absolute_path)
    line = find_line(text, path) if text is not None and path else None
    return Problem(describe(error) if describe else error.message, file=file, line=line,
                   key=".".join(map(str, path)) or None, fix=fix)


@lru_cache(maxsize=32)
def _validator(schema_text: str) -> Any:
    import jsonschema  # deferred: costly import, paid only by readers that validate

    return jsonschema.Draft202012Validator(json.loads(schema_text))
