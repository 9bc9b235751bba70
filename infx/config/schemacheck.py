"""JSON Schema checks of the packaged config schemas: the quick pass, jsonschema for details.

Valid input (the common case) is accepted by ``infx.schemas.quick_valid``, a small
interpreter of the keywords our schemas use, far cheaper than importing and running
``jsonschema``. Only when that quick pass rejects something do we ask the real Draft
2020-12 validator to explain why, so both paths always judge by the same schema file.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from infx.schemas import quick_valid as quick_valid_for

_SCHEMA_PACKAGE = "infx.config.schemas"


@cache
def load_schema(name: str) -> dict:
    """The packaged schema ``<name>.schema.json``."""
    text = resources.files(_SCHEMA_PACKAGE).joinpath(f"{name}.schema.json").read_text("utf-8")
    return json.loads(text)


def quick_valid(schema_name: str, instance: Any) -> bool:
    """True when ``instance`` satisfies the packaged schema (``infx.schemas.quick_valid``)."""
    return quick_valid_for(load_schema(schema_name), instance)


def schema_errors(schema_name: str, instance: Any) -> list[tuple[list, str]]:
    """(path, message) for every violation, from the real Draft 2020-12 validator."""
    found = []
    for error in _full_validator(schema_name).iter_errors(instance):
        for leaf in _leaves(error):
            found.append((_problem_path(leaf), describe(leaf)))
    found.sort(key=lambda item: [str(step) for step in item[0]])
    unique: list[tuple[list, str]] = []
    for item in found:
        if item not in unique:
            unique.append(item)
    return unique


def _problem_path(error: Any) -> list:
    """Where the problem is; for unknown fields, the first unknown field itself (its line)."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})), key=str)
        if extra:
            path.append(extra[0])
    return path


def describe(error: Any) -> str:
    """A short, human message for one jsonschema error."""
    field = _field_name(error.absolute_path)
    kind = error.validator
    value = error.validator_value
    if kind == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})), key=str)
        names = ", ".join(f"'{name}'" for name in extra)
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return f"unknown field {names} (allowed: {allowed})"
    if kind == "required":
        missing = re.findall(r"'([^']+)' is a required property", error.message)
        return f"missing required field '{missing[0] if missing else error.message}'" + (
            f" in {field}" if field else "")
    if kind == "type":
        return f"{field or 'value'} must be of type {value}, got {_type_name(error.instance)}"
    if kind in ("const", "enum"):
        options = [value] if kind == "const" else value
        shown = ", ".join(json.dumps(option) for option in options)
        return f"{field or 'value'} must be {'one of ' if kind == 'enum' else ''}{shown}, got {json.dumps(error.instance, default=str)}"
    if kind == "exclusiveMinimum":
        return f"{field or 'value'} must be greater than {value}, got {error.instance}"
    if kind == "minimum":
        return f"{field or 'value'} must be >= {value}, got {error.instance}"
    if kind == "maximum":
        return f"{field or 'value'} must be <= {value}, got {error.instance}"
    if kind == "minItems":
        return f"{field or 'list'} cannot be an empty list"
    if kind == "pattern":
        return f"{field or 'value'} must match {value}, got {error.instance!r}"
    if kind == "minLength":
        return f"{field or 'value'} must be a non-empty string"
    if kind == "not":
        return (f"{field or 'value'} must be the component's own release, package version or "
                f"commit, not an image reference (got {error.instance!r})")
    return f"{field or 'value'}: {error.message}"


@cache
def _full_validator(schema_name: str) -> Any:
    import jsonschema  # deferred: costly import, needed only to explain a failure

    schema = load_schema(schema_name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _leaves(error: Any) -> list:
    """The most specific sub-errors (jsonschema nests errors under if/then/else)."""
    if not error.context:
        return [error]
    leaves = []
    for sub in error.context:
        leaves.extend(_leaves(sub))
    return leaves


def _field_name(path: Any) -> str:
    steps = list(path)
    for step in reversed(steps):
        if isinstance(step, str):
            return f"'{step}'"
    return ""


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string",
            list: "array", dict: "object"}.get(type(value), type(value).__name__)
