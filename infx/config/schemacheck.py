"""JSON Schema checks of the packaged config schemas: the quick pass, jsonschema for details.

Valid input (the common case) is accepted by ``infx.schemas.quick_valid``, a small
interpreter of the keywords our schemas use, far cheaper than importing and running
``jsonschema``. Only when that quick pass rejects something do we ask the real Draft
2020-12 validator to explain why, so both paths always judge by the same schema file.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from infx.schemas import describe, explained
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
    found = [(path, message) for _, path, message in explained(_full_validator(schema_name).iter_errors(instance))]
    found.sort(key=lambda item: [str(step) for step in item[0]])
    unique: list[tuple[list, str]] = []
    for item in found:
        if item not in unique:
            unique.append(item)
    return unique


@cache
def _full_validator(schema_name: str) -> Any:
    import jsonschema  # deferred: costly import, needed only to explain a failure

    schema = load_schema(schema_name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


__all__ = ["describe", "load_schema", "quick_valid", "schema_errors"]
