"""JSON Schema checks: a fast subset validator, with jsonschema for the error details.

Valid input (the common case) is accepted by a small interpreter of the handful of
keywords our schemas use, which is far cheaper than importing and running
``jsonschema``. Only when that quick pass rejects something do we ask the real Draft
2020-12 validator to explain why, so both paths always judge by the same schema file.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

_SCHEMA_PACKAGE = "infx.config.schemas"
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description"})


@cache
def load_schema(name: str) -> dict:
    """The packaged schema ``<name>.schema.json``."""
    text = resources.files(_SCHEMA_PACKAGE).joinpath(f"{name}.schema.json").read_text("utf-8")
    return json.loads(text)


def quick_valid(schema_name: str, instance: Any) -> bool:
    """True when ``instance`` satisfies the schema."""
    root = load_schema(schema_name)
    try:
        return _valid(root, root, instance)
    except _Unsupported:
        return False  # let the full validator decide


def schema_errors(schema_name: str, instance: Any) -> list[tuple[list, str]]:
    """(path, message) for every violation, from the real Draft 2020-12 validator."""
    found = []
    for error in _full_validator(schema_name).iter_errors(instance):
        for leaf in _leaves(error):
            found.append((list(leaf.absolute_path), describe(leaf)))
    found.sort(key=lambda item: [str(step) for step in item[0]])
    unique: list[tuple[list, str]] = []
    for item in found:
        if item not in unique:
            unique.append(item)
    return unique


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
    if kind == "maximum":
        return f"{field or 'value'} must be <= {value}, got {error.instance}"
    if kind == "minItems":
        return f"{field or 'list'} cannot be an empty list"
    if kind == "minLength":
        return f"{field or 'value'} must be a non-empty string"
    if kind == "not":
        return (f"{field or 'value'} must be the component's own release, package version or "
                f"commit, not an image reference (got {error.instance!r})")
    return f"{field or 'value'}: {error.message}"


class _Unsupported(Exception):
    """The quick validator met a keyword it does not interpret."""


def _resolve(root: dict, ref: str) -> dict:
    if not ref.startswith("#/"):
        raise _Unsupported(ref)
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _is_type(instance: Any, name: str) -> bool:
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "string":
        return isinstance(instance, str)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "integer":
        if isinstance(instance, bool):
            return False
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    if name == "number":
        return isinstance(instance, (int, float)) and not isinstance(instance, bool)
    if name == "null":
        return instance is None
    raise _Unsupported(name)


def _equal(a: Any, b: Any) -> bool:
    # JSON equality: booleans never equal numbers
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _valid(root: dict, schema: Any, instance: Any) -> bool:  # noqa: C901 - one keyword per branch
    if schema is True:
        return True
    if schema is False:
        return False
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        if keyword == "$ref":
            if not _valid(root, _resolve(root, value), instance):
                return False
        elif keyword == "type":
            if not _is_type(instance, value):
                return False
        elif keyword == "const":
            if not _equal(instance, value):
                return False
        elif keyword == "enum":
            if not any(_equal(instance, option) for option in value):
                return False
        elif keyword == "properties":
            if isinstance(instance, dict):
                for name, sub in value.items():
                    if name in instance and not _valid(root, sub, instance[name]):
                        return False
        elif keyword == "additionalProperties":
            if isinstance(instance, dict):
                known = schema.get("properties", {})
                for name, item in instance.items():
                    if name not in known and not _valid(root, value, item):
                        return False
        elif keyword == "required":
            if isinstance(instance, dict) and any(name not in instance for name in value):
                return False
        elif keyword == "items":
            if isinstance(instance, list) and not all(_valid(root, value, item) for item in instance):
                return False
        elif keyword == "minItems":
            if isinstance(instance, list) and len(instance) < value:
                return False
        elif keyword == "minLength":
            if isinstance(instance, str) and len(instance) < value:
                return False
        elif keyword == "pattern":
            if isinstance(instance, str) and not re.search(value, instance):
                return False
        elif keyword in ("exclusiveMinimum", "maximum"):
            if _is_type(instance, "number") and not _compare(keyword, instance, value):
                return False
        elif keyword == "not":
            if _valid(root, value, instance):
                return False
        elif keyword == "if":
            branch = "then" if _valid(root, value, instance) else "else"
            if branch in schema and not _valid(root, schema[branch], instance):
                return False
        elif keyword in ("then", "else"):
            continue  # handled with "if"
        else:
            raise _Unsupported(keyword)
    return True


def _compare(keyword: str, number: float, bound: float) -> bool:
    return number > bound if keyword == "exclusiveMinimum" else number <= bound


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
