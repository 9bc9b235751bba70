"""Validate a document against a JSON Schema and report every violation as a located Problem.

Valid input (the common case) is accepted by a small interpreter of the keywords our schemas
use (``quick_valid``), far cheaper than importing and running ``jsonschema`` (~0.05 s of
imports alone). Only a document the quick pass rejects, or a schema using a keyword it does
not interpret, goes to the real Draft 2020-12 validator, which finds and explains the
violations; both judge by the same schema, and the quick pass is exact on what it accepts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from infx.errors import InfxError, Problem
from infx.yamlio import find_line


def schema_problems(schema: dict, data: Any, *, file: str, fix: str, text: str | None = None,
                    describe: Callable[[Any], str] | None = None) -> list[Problem]:
    """Every Draft 2020-12 violation, in document order: message (or ``describe(error)``),
    file, the YAML line when the source ``text`` is given, the dotted key path, and ``fix``."""
    schema_text = json.dumps(schema)  # keyword order kept: it orders the errors
    if _quick_valid_text(schema_text, data):
        return []
    validator = _validator(schema_text)
    found = sorted(explained(validator.iter_errors(data)), key=lambda item: [str(p) for p in item[1]])
    return [_problem(error, path, message, file, fix, text, describe) for error, path, message in found]


def check_schema(schema: dict, data: Any, **where: Any) -> None:
    """``schema_problems``, raised as one InfxError when there is any."""
    problems = schema_problems(schema, data, **where)
    if problems:
        raise InfxError(problems)


def _problem(error: Any, path: list, message: str, file: str, fix: str, text: str | None,
             describe: Callable[[Any], str] | None) -> Problem:
    line = find_line(text, path) if text is not None and path else None
    return Problem(describe(error) if describe else message, file=file, line=line,
                   key=".".join(map(str, path)) or None, fix=fix)


def explained(errors: Any) -> list[tuple[Any, list, str]]:
    """(error, path, message) for the most specific violation of each jsonschema error, in
    plain words (``describe``). A required field reported missing where an unknown field of
    the same mapping is its near spelling is left out: one mistake, one message (the unknown
    field's, which says "did you mean")."""
    from difflib import get_close_matches

    leaves = [leaf for error in errors for leaf in _leaves(error)]
    misspelt: set[tuple[tuple, str]] = set()
    for leaf in leaves:
        if leaf.validator == "additionalProperties" and isinstance(leaf.instance, dict):
            known = list(leaf.schema.get("properties", {}))
            for extra in _unknown_fields(leaf):
                for near in get_close_matches(str(extra), known, n=1):
                    misspelt.add((tuple(leaf.absolute_path), near))
    out = []
    for leaf in leaves:
        if leaf.validator == "required":
            missing = re.findall(r"'([^']+)' is a required property", leaf.message)
            if missing and (tuple(leaf.absolute_path), missing[0]) in misspelt:
                continue
        out.append((leaf, _problem_path(leaf), describe(leaf)))
    return out


@lru_cache(maxsize=32)
def _validator(schema_text: str) -> Any:
    import jsonschema  # deferred: costly import, paid only by readers that validate

    return jsonschema.Draft202012Validator(json.loads(schema_text))


# --- the quick pass: a schema compiled into one predicate -----------------------------------

def quick_valid(schema: dict, instance: Any) -> bool:
    """True only when ``instance`` satisfies ``schema`` (Draft 2020-12); False when it does not,
    or when the schema uses a keyword this pass does not interpret (ask jsonschema then)."""
    return _quick_valid_text(json.dumps(schema), instance)


def _quick_valid_text(schema_text: str, instance: Any) -> bool:
    check = _quick_check(schema_text)
    if check is None:
        return False
    try:
        return check(instance)
    except Exception:  # noqa: BLE001 - an instance the predicates did not foresee: let jsonschema judge
        return False


@lru_cache(maxsize=32)
def _quick_check(schema_text: str) -> Check | None:
    root = json.loads(schema_text)
    try:
        return _compile(root, root, {})
    except _Unsupported:
        return None


class _Unsupported(Exception):
    """The quick validator met a keyword (or a $ref) it does not interpret."""


def _resolve(root: dict, ref: str) -> dict:
    if not ref.startswith("#/") or "~" in ref or "%" in ref:
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

_KNOWN_KEYWORDS = frozenset({
    "$schema", "$id", "$defs", "title", "description", "$ref", "type", "const", "enum",
    "properties", "additionalProperties", "required", "items", "minItems", "minLength",
    "maxLength", "pattern", "exclusiveMinimum", "minimum", "maximum", "not", "if", "then",
    "else", "anyOf", "oneOf", "allOf", "propertyNames", "patternProperties", "minProperties",
    "uniqueItems"})


def _compile(root: dict, schema: Any, memo: dict[int, Check]) -> Check:
    """Turn a (sub)schema into one predicate; ``$ref`` targets are compiled once."""
    if schema is True or schema is False:
        return lambda _, result=schema: result
    if not isinstance(schema, dict):
        raise _Unsupported(repr(schema))
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
        checks.append(_type_check(schema["type"]))
    if _OBJECT_KEYWORDS & set(schema):
        checks.append(_object_check(root, schema, memo))
    checks.extend(_scalar_checks(root, schema, memo))
    single = checks[0] if len(checks) == 1 else run
    memo[id(schema)] = single
    return single


_OBJECT_KEYWORDS = frozenset({"properties", "additionalProperties", "required", "propertyNames",
                              "patternProperties", "minProperties"})


def _type_check(kind: Any) -> Check:
    kinds = kind if isinstance(kind, list) else [kind]
    if not kinds or any(not isinstance(k, str) or k not in _TYPE_CHECKS for k in kinds):
        raise _Unsupported(repr(kind))
    if len(kinds) == 1:
        return _TYPE_CHECKS[kinds[0]]
    tests = tuple(_TYPE_CHECKS[k] for k in kinds)
    return lambda x: any(test(x) for test in tests)


def _object_check(root: dict, schema: dict, memo: dict[int, Check]) -> Check:
    properties = {name: _compile(root, sub, memo)
                  for name, sub in schema.get("properties", {}).items()}
    patterns = tuple((re.compile(pattern), _compile(root, sub, memo))
                     for pattern, sub in schema.get("patternProperties", {}).items())
    extra = schema.get("additionalProperties", True)
    extra_check = None if isinstance(extra, bool) else _compile(root, extra, memo)
    required = tuple(schema.get("required", ()))
    names = _compile(root, schema["propertyNames"], memo) if "propertyNames" in schema else None
    least = schema.get("minProperties", 0)

    def check(instance: Any) -> bool:
        if not isinstance(instance, dict):
            return True
        if len(instance) < least:
            return False
        for name in required:
            if name not in instance:
                return False
        for name, item in instance.items():
            if names is not None and not names(name):
                return False
            rule = properties.get(name)
            matched = rule is not None
            if matched and not rule(item):
                return False
            for pattern, pattern_rule in patterns:
                if pattern.search(name):
                    matched = True
                    if not pattern_rule(item):
                        return False
            if not matched and (extra is False or (extra_check is not None
                                                   and not extra_check(item))):
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
    if "maxLength" in schema:
        checks.append(lambda x, n=schema["maxLength"]: not isinstance(x, str) or len(x) <= n)
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
    if "anyOf" in schema:
        alternatives = tuple(_compile(root, sub, memo) for sub in schema["anyOf"])
        checks.append(lambda x: any(alternative(x) for alternative in alternatives))
    if "oneOf" in schema:
        choices = tuple(_compile(root, sub, memo) for sub in schema["oneOf"])
        checks.append(lambda x: sum(1 for choice in choices if choice(x)) == 1)
    if "allOf" in schema:
        checks.extend(_compile(root, sub, memo) for sub in schema["allOf"])
    if schema.get("uniqueItems") is True:
        checks.append(_unique)
    return checks


def _unique(instance: Any) -> bool:
    """No two items equal as JSON values (1 and 1.0 are equal, 1 and true are not)."""
    if not isinstance(instance, list):
        return True
    return not any(_equal(a, b) for index, a in enumerate(instance)
                   for b in instance[index + 1:])


def _items_check(item_check: Check) -> Check:
    def check(instance: Any) -> bool:
        if isinstance(instance, list):
            for item in instance:
                if not item_check(item):
                    return False
        return True
    return check


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans never equal numbers, at any depth."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    return a == b


def _compare(keyword: str, number: float, bound: float) -> bool:
    if keyword == "exclusiveMinimum":
        return number > bound
    return number >= bound if keyword == "minimum" else number <= bound


# --- plain-words messages for jsonschema errors (shared by every schema check) ---------------

def _unknown_fields(error: Any) -> list:
    """The fields an additionalProperties error is about: neither named in `properties` nor
    matched by a `patternProperties` pattern (as the validator itself decides)."""
    named = set(error.schema.get("properties", {}))
    patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
    return sorted((k for k in error.instance if k not in named
                   and not any(p.search(str(k)) for p in patterns)), key=str)


def _problem_path(error: Any) -> list:
    """Where the problem is; for unknown fields, the first unknown field itself (its line)."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        extra = _unknown_fields(error)
        if extra:
            path.append(extra[0])
    return path


def describe(error: Any) -> str:
    """A short, human message for one jsonschema error."""
    field = _field_name(error.absolute_path)
    kind = error.validator
    value = error.validator_value
    if kind == "additionalProperties":
        extra = _unknown_fields(error)
        names = ", ".join(f"'{name}'" for name in extra)
        known = sorted(error.schema.get("properties", {}))
        allowed = ", ".join(known)
        from difflib import get_close_matches

        near = get_close_matches(str(extra[0]), known, n=1) if extra else []
        hint = f"did you mean '{near[0]}'? " if near else ""
        return f"unknown field {names} ({hint}allowed: {allowed})"
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
