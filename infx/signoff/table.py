"""The sign-off check table (ids, numbers, names, allowed statuses) loaded from data."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from infx import yamlio
from infx.errors import InfxError, Problem
from infx.loading import load
from infx.schemas import check_schema
from infx.signoff.model import Evidence, Outcome, Status

TABLE_FILE = "checks.yaml"


@dataclass(frozen=True)
class CheckSpec:
    id: str
    number: int
    name: str
    statuses: frozenset[Status]
    advisory: bool
    module: str
    warns: bool = False  # a blocking check that may WARN for an advisory finding of its own
    # the pieces of evidence it reads (infx.signoff.evidence reads each once, on first need)
    needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Anchor:
    label: str
    words: tuple[str, ...]
    escape_hatch: bool = False


@dataclass(frozen=True)
class Settings:
    """Table-wide settings; the verdict engine hands them to every check as its second argument."""

    status_context: str
    marker: str
    core_team: str
    checklist_paths: tuple[str, ...]
    codeowners_paths: tuple[str, ...]
    thresholds_path: str
    escalation_mentions: tuple[str, ...]
    recommended_frontier_points: int
    max_api_calls: int
    pareto_bypass_command: str = "/pareto-bypass"
    # Check `template`: how template items are recognised in a sign-off whose wording drifted
    template_anchors: tuple[Anchor, ...] = ()

    def core_team_for(self, repo: str) -> str:
        return self.core_team.replace("{org}", repo.split("/")[0])


@dataclass(frozen=True)
class CheckTable:
    settings: Settings
    checks: tuple[CheckSpec, ...]

    def by_id(self, check_id: str) -> CheckSpec:
        for spec in self.checks:
            if spec.id == check_id:
                return spec
        raise KeyError(check_id)


def parse_table(data: Any, filename: str = TABLE_FILE) -> CheckTable:
    """Validate the raw table against its schema and the cross-row rules."""
    schema = json.loads(resources.files("infx.signoff").joinpath("schemas/checks.schema.json")
                        .read_text(encoding="utf-8"))
    check_schema(schema, data, file=filename, fix="correct the check table entry")
    checks = tuple(CheckSpec(id=row["id"], number=row["number"], name=row["name"],
                             statuses=frozenset(Status(s) for s in row["statuses"]),
                             advisory=row["advisory"], module=row["module"],
                             warns=row.get("warns", False), needs=tuple(row["needs"]))
                   for row in data["checks"])
    _require_unique(checks, filename)
    for spec in checks:
        if Status.WARN in spec.statuses and not (spec.advisory or spec.warns):
            raise InfxError(Problem(f"check {spec.id!r} allows WARN but is not advisory",
                                    file=filename, key=spec.id,
                                    fix="set advisory: true (or warns: true), or drop WARN"))
        if spec.advisory and Status.FAIL in spec.statuses:
            raise InfxError(Problem(f"advisory check {spec.id!r} may not FAIL", file=filename,
                                    key=spec.id, fix="drop FAIL from its statuses"))
    raw = data["settings"]
    anchors = tuple(Anchor(a["label"], tuple(a["words"]), a.get("escape_hatch", False))
                    for a in data["template_anchors"])
    settings = Settings(**{key: tuple(value) if isinstance(value, list) else value
                           for key, value in raw.items()}, template_anchors=anchors)
    return CheckTable(settings=settings, checks=tuple(sorted(checks, key=lambda c: c.number)))


def _require_unique(checks: tuple[CheckSpec, ...], filename: str) -> None:
    for attr in ("id", "number", "name"):
        seen: set = set()
        for spec in checks:
            value = getattr(spec, attr)
            if value in seen:
                raise InfxError(Problem(f"duplicate check {attr} {value!r}", file=filename,
                                        key=spec.id, fix=f"give every check a unique {attr}"))
            seen.add(value)


@lru_cache(maxsize=1)
def load_table() -> CheckTable:
    """The packaged check table."""
    text = resources.files("infx.signoff").joinpath(TABLE_FILE).read_text(encoding="utf-8")
    return parse_table(yamlio.load_text(text, TABLE_FILE, unique_keys=True), TABLE_FILE)


def load_check(spec: CheckSpec) -> Callable[[Evidence, Settings], Outcome] | None:
    """The check's ``run`` function, or None when its module cannot be imported."""
    try:
        module = load(spec.module)
    except Exception:  # noqa: BLE001 - any import failure makes the check unavailable
        return None
    run = getattr(module, "run", None)
    return run if callable(run) else None
