"""Check job rows against the row contract (``rows.schema.json`` plus two topology rules).

The generator builds valid rows by construction; checking them before printing turns
a generator bug into a clear error instead of a broken workflow run, and the same check
guards rows handed to workflows by other tools.
"""

from __future__ import annotations

from typing import Any

from infx.config import schemacheck
from infx.config.yamlpath import format_path
from infx.errors import InfxError, Problem

MAX_REPORTED = 25


def row_problems(rows: Any, source: str | None = None) -> list[Problem]:
    """Every contract violation in ``rows`` (a list of row dicts); empty when valid."""
    if schemacheck.quick_valid("rows", rows):
        found = [(path, message) for index, row in enumerate(rows)
                 for path, message in _topology_findings(index, row)]
    else:
        found = schemacheck.schema_errors("rows", rows)
    return [Problem(f"matrix row {format_path(path) or '(top level)'}: {message}", file=source,
                    fix="regenerate the matrix with `infx matrix`")
            for path, message in found[:MAX_REPORTED]]


def check_rows(rows: Any, source: str | None = None) -> None:
    """Raise InfxError naming every violation when ``rows`` break the contract."""
    problems = row_problems(rows, source)
    if problems:
        raise InfxError(problems)


def _topology_findings(index: int, row: dict) -> list[tuple[list, str]]:
    findings = []
    workers = [(name, row[name]) for name in ("prefill", "decode") if name in row]
    for name, topology in workers or [("", row)]:
        if topology["tp"] % topology["dcp-size"]:
            path = [index, name, "dcp-size"] if name else [index, "dcp-size"]
            findings.append((path, f"'tp' ({topology['tp']}) must be divisible by "
                                   f"'dcp-size' ({topology['dcp-size']})"))
    if workers and bool(row["prefill"].get("hardware")) != bool(row["decode"].get("hardware")):
        findings.append(([index, "prefill"], "'hardware' must be specified for both 'prefill' "
                                             "and 'decode', or neither"))
    return findings
