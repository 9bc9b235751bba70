"""JSON Schema checks: a fast subset validator, with jsonschema for the error details.

Valid input (the common case) is accepted by a small interpreter of the handful of
keywords our schemas use, which is far cheaper than importing and running
``jsonschema``. Only when that quick pass rejects something do we ask the real Draft
2020-12 validator to explain why, so both paths always judge by the same schema file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

_SCHEMA_PACKAGE = "infx.config.schemas"


@cache
def load_schema(name: str) -> dict:
    """The packaged schema ``<name>.schema.json``."""
    text = resources.files(_SCHEMA_PACKAGE).joinpath(f"{name}.schema.json").read_text("utf-8")
    return json.loads(text)


def quick_valid(schema_name: str, instance: Any) -> bool:
    """True when ``instance`` satisfies the schema."""
    try:
        check = _compiled(schema_name)
    except _Unsupported:
        return False  # let the full validator decide
    return check(instance)


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


class _Unsupported(Exception):
    """The quick validator met a keyword it does not interpret."""


def _resolve(root: dict, ref: str) -> dict:
    if not ref.startswith("#/"):
        raise _Unsupported(ref)
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


Check = Callable[[Any], bool]

_TYPE_CHECKS: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "integer": lambda x: (isinstance(x, int) and not isinstance(x, bool))
    or (isinstance(x, float) and x.is_integer()),
    "number": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
    "null": lambda x: x is None,
}


@cache
def _compiled(schema_name: str) -> Check:
    root = load_schema(schema_name)
    return _compile(root, root, {})


def _compile(root: dict, schema: Any, memo: dict[int, Check]) -> Check:
    """Turn a (sub)schema into one predicate; ``$ref`` targets are compiled once."""
    if schema is True or schema is False:
        return lambda _, result=schema: result
    if id(schema) in memo:
        return memo[id(schema)]
    checks: list[Check] = []

    def run(instance: Any) -> bool:
        for check in checks:
            if not check(instance):
                return False
        return True

    memo[id(schema)] = lambda instance: run(instance)  # resolves recursion lazily
    unknown = set(schema) - _KNOWN_KEYWORDS
    if unknown:
        raise _Unsupported(", ".join(sorted(unknown)))
    if "type" in schema:
        if schema["type"] not in _TYPE_CHECKS:
            raise _Unsupported(schema["type"])
        checks.append(_TYPE_CHECKS[schema["type"]])
    if {"properties", "additionalProperties", "required"} & set(schema):
        checks.append(_object_check(root, schema, memo))
    checks.extend(_scalar_checks(root, schema, memo))
    single = checks[0] if len(checks) == 1 else run
    memo[id(schema)] = single
    return single


_KNOWN_KEYWORDS = frozenset({
    "$schema", "$id", "$defs", "title", "description", "$ref", "type", "const", "enum",
    "properties", "additionalProperties", "required", "items", "minItems", "minLength",
    "pattern", "exclusiveMinimum", "minimum", "maximum", "not", "if", "then", "else"})


def _object_check(root: dict, schema: dict, memo: dict[int, Check]) -> Check:
    properties = {name: _compile(root, sub, memo)
                  for name, sub in schema.get("properties", {}).items()}
    extra = schema.get("additionalProperties", True)
    extra_check = None if isinstance(extra, bool) else _compile(root, extra, memo)
    required = tuple(schema.get("required", ()))

    def check(instance: Any) -> bool:
        if not isinstance(instance, dict):
            return True
        for name in required:
            if name not in instance:
                return False
        for name, item in instance.items():
            rule = properties.get(name)
            if rule is not None:
                if not rule(item):
                    return False
            elif extra is False or (extra_check is not None and not extra_check(item)):
                return False
        return True
    return check


def _scalar_checks(root: dict, schema: dict, memo: dict[int, Check]) -> list[Check]:
    checks: list[Check] = []
    if "$ref" in schema:
        checks.append(_compile(root, _resolve(root, schema["$ref"]), memo))
    if "const" in schema:
        checks.append(lambda x, value=schema["const"]: _equal(x, value))
    if "enum" in schema:
        checks.append(lambda x, options=tuple(schema["enum"]): any(_equal(x, o) for o in options))
    if "items" in schema:
        checks.append(_items_check(_compile(root, schema["items"], memo)))
    if "minItems" in schema:
        checks.append(lambda x, n=schema["minItems"]: not isinstance(x, list) or len(x) >= n)
    if "minLength" in schema:
        checks.append(lambda x, n=schema["minLength"]: not isinstance(x, str) or len(x) >= n)
    if "pattern" in schema:
        regex = re.compile(schema["pattern"])
        checks.append(lambda x: not isinstance(x, str) or regex.search(x) is not None)
    for keyword in ("exclusiveMinimum", "minimum", "maximum"):
        if keyword in schema:
            checks.append(lambda x, k=keyword, b=schema[keyword]:
                          not _TYPE_CHECKS["number"](x) or _compare(k, x, b))
    if "not" in schema:
        inner = _compile(root, schema["not"], memo)
        checks.append(lambda x: not inner(x))
    if "if" in schema:
        condition = _compile(root, schema["if"], memo)
        then = _compile(root, schema.get("then", True), memo)
        otherwise = _compile(root, schema.get("else", True), memo)
        checks.append(lambda x: then(x) if condition(x) else otherwise(x))
    return checks


def _items_check(item_check: Check) -> Check:
    def check(instance: Any) -> bool:
        if isinstance(instance, list):
            for item in instance:
                if not item_check(item):
                    return False
        return True
    return check


def _equal(a: Any, b: Any) -> bool:
    # JSON equality: booleans never equal numbers
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _compare(keyword: str, number: float, bound: float) -> bool:
    if keyword == "exclusiveMinimum":
        return number > bound
    return number >= bound if keyword == "minimum" else number <= bound


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
