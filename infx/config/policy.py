"""Sign-off policy data (configs/policy/*.yaml and golden AL curves): loading and validation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

from infx.config.schemacheck import load_schema
from infx.errors import InfxError, Problem
from infx.schemas import check_schema
from infx.yamlio import load_text, read_text

POLICY_DIR = "configs/policy"
GOLDEN_DIR = "configs/golden_al_distribution"
POLICY_NAMES = ("deprecations", "hardware", "engines", "overrides", "draft", "golden", "patching", "recipe",
                "recipe-pages")


def policy_path(name: str) -> str:
    """Repository path of one policy file, e.g. ``configs/policy/golden.yaml``."""
    return f"{POLICY_DIR}/{name}.yaml"


@dataclass(frozen=True)
class Deprecation:
    prefix: str
    scenario: str
    precision: str
    last_day: date
    source: str

    def matches(self, prefix: str, scenario: str, precision: str) -> bool:
        return all(want in ("*", got) for want, got in (
            (self.prefix, prefix), (self.scenario, scenario), (self.precision, precision)))


@dataclass(frozen=True)
class GoldenCurveRef:
    prefix: str
    method: str
    file: str
    model_key: str
    variant: str | None = None
    precision: str | None = None


class _BooleanKey(ValueError):
    """A mapping key YAML read as true/false (``on``, ``yes``, ``off``...)."""


def _plain(value: Any) -> Any:
    """YAML values as JSON would see them: dates become ISO text, mapping keys text."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        if any(isinstance(k, bool) for k in value):
            raise _BooleanKey(next(k for k in value if isinstance(k, bool)))
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def validate_document(schema: str, text: str, filename: str) -> dict:
    """Parse YAML text and validate it against a packaged schema; errors are located."""
    try:
        data = _plain(load_text(text, filename))
    except _BooleanKey as exc:
        raise InfxError(Problem(f"a mapping key is read by YAML as the boolean {exc.args[0]}",
                                file=filename, fix="quote keys such as 'on', 'off', 'yes', 'no'")) from None
    check_schema(load_schema(schema), data, file=filename, text=text,
                 fix="correct this value to match the policy schema")
    return data


def load_policy_document(name: str, text: str | None, filename: str | None = None) -> dict:
    """One policy file by name (see POLICY_NAMES); ``None`` text is a located error.

    Parsed documents are cached by text and shared: treat them as read-only.
    """
    filename = filename or policy_path(name)
    if text is None:
        raise InfxError(Problem("policy file could not be read", file=filename,
                                fix="restore the file on the default branch"))
    return _cached_document(f"policy-{name}", text, filename)


@lru_cache(maxsize=64)
def _cached_document(schema: str, text: str, filename: str) -> dict:
    # every check of a verdict reads the same policy texts; validate each one once
    return validate_document(schema, text, filename)


def load_golden_curve(text: str | None, filename: str) -> dict[str, dict[str, dict[int, float]]]:
    """A golden AL curve file: model key -> thinking mode -> draft length -> AL.

    Curves are cached by text and shared (every config of a verdict that uses one reads
    the same file): treat them as read-only."""
    if text is None:
        raise InfxError(Problem("golden AL curve could not be read", file=filename))
    return _cached_curve(text, filename)


@lru_cache(maxsize=64)
def _cached_curve(text: str, filename: str) -> dict[str, dict[str, dict[int, float]]]:
    data = validate_document("policy-golden-curve", text, filename)
    return {model: {mode: {int(k): float(v) for k, v in curve.items()}
                    for mode, curve in modes.items()}
            for model, modes in data.items()}


def deprecations(doc: Mapping[str, Any]) -> list[Deprecation]:
    return [Deprecation(row["prefix"], row["scenario"], row["precision"],
                        date.fromisoformat(row["last-day"]), row["source"])
            for row in doc["deprecations"]]


def draft_kind(doc: Mapping[str, Any], prefix: str, method: str | None,
               variant: str | None) -> tuple[str | None, str | None]:
    """(method, variant) of the draft as the golden curves know it (golden.yaml draft-kinds):
    a model whose configs call its draft ``method`` may really run another kind."""
    for row in doc.get("draft-kinds") or []:
        if row["prefix"] == prefix and row["method"] == method and variant in (None, row["is"].get("variant")):
            return row["is"]["method"], row["is"].get("variant")
    return method, variant


def golden_refs(doc: Mapping[str, Any]) -> list[GoldenCurveRef]:
    return [GoldenCurveRef(row["prefix"], row["method"], row["file"], row["model-key"],
                           row.get("variant"), row.get("precision"))
            for row in doc["curves"]]


class PolicyReader:
    """Policy documents read lazily from a file lookup (default-branch tree or a directory)."""

    def __init__(self, read: Callable[[str], str | None]) -> None:
        self._read = read
        self._docs: dict[str, dict] = {}

    def doc(self, name: str) -> dict:
        if name not in self._docs:
            self._docs[name] = load_policy_document(name, self._read(policy_path(name)))
        return self._docs[name]

    def golden_curve(self, file: str) -> dict[str, dict[str, dict[int, float]]]:
        path = f"{GOLDEN_DIR}/{file}"
        return load_golden_curve(self._read(path), path)


def reader_for_directory(root: str | Path) -> PolicyReader:
    """A PolicyReader over a checkout on disk (tests, local previews)."""
    root = Path(root)

    def read(path: str) -> str | None:
        if not (root / path).is_file():
            return None
        return read_text(root / path, what="policy file")

    return PolicyReader(read)
