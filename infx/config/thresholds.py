"""Eval score thresholds: per-model floors over task defaults, with a fixed fallback.

A task name may be a glob (``minimax_m3_*``) so one line covers a family of suites;
an exact name always wins over a pattern, and patterns are tried in file order.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infx import yamlio
from infx.config.schemacheck import load_schema
from infx.schemas import check_schema

FALLBACK = 0.85


@dataclass(frozen=True)
class Thresholds:
    default: dict[str, float] = field(default_factory=dict)
    models: dict[str, dict[str, float]] = field(default_factory=dict)
    fallback: float = FALLBACK

    def floor(self, model_prefix: str | None, task: str) -> tuple[float, str]:
        """The minimum score for a task and where it came from (for the verdict row)."""
        per_model = self.models.get(model_prefix or "", {})
        for table, label in ((per_model, f"models.{model_prefix}"), (self.default, "default")):
            name = _matching_name(table, task)
            if name is not None:
                return table[name], f"{label}.{name}"
        return self.fallback, "fallback"


def _matching_name(table: dict[str, float], task: str) -> str | None:
    if task in table:
        return task
    return next((name for name in table if fnmatch.fnmatchcase(task, name)), None)


def parse_thresholds(data: Any, filename: str, text: str | None = None) -> Thresholds:
    """Validate parsed YAML/JSON and build the lookup; errors name file, line and key."""
    schema = load_schema("thresholds")
    if isinstance(data, dict) and ("default" in data or "models" in data):
        schema = {**schema["oneOf"][0], "$defs": schema["$defs"]}
    check_schema(schema, data, file=filename, text=text, describe=_describe,
                 fix="use numbers between 0 and 1 keyed by task name")
    if "default" not in data:  # legacy flat mapping: defaults only
        return Thresholds(default={k: float(v) for k, v in data.items()})
    return Thresholds(
        default={k: float(v) for k, v in data["default"].items()},
        models={m: {k: float(v) for k, v in floors.items()}
                for m, floors in (data.get("models") or {}).items()},
        fallback=float(data.get("fallback", FALLBACK)),
    )


def load_thresholds_text(text: str, filename: str) -> Thresholds:
    return parse_thresholds(yamlio.load_text(text, filename, unique_keys=True), filename, text)


def load_thresholds(path: str | Path) -> Thresholds:
    text = yamlio.read_text(path, what="thresholds",
                            missing="cannot read thresholds: file not found")
    return load_thresholds_text(text, str(path))


def _describe(err: Any) -> str:
    if err.validator == "oneOf":
        return ("thresholds must be {default: {task: min}, models: {prefix: {task: min}}} "
                "or a flat {task: min} mapping with minimums between 0 and 1")
    return err.message
