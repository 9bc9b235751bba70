"""Check job rows against the row contract (``rows.schema.json`` plus two topology rules).

The generator builds valid rows by construction; checking them before printing turns
a generator bug into a clear error instead of a broken workflow run, and the same check
guards rows handed to workflows by other tools. Those may omit what the reference's row
models default (``with_defaults``): the schema describes the complete row, and a row is
checked, named and run with those defaults filled in. infx's own rows carry every field,
so filling never changes them.
"""

from __future__ import annotations

from typing import Any

from infx.config import schemacheck
from infx.config.yamlpath import format_path
from infx.errors import InfxError, Problem

MAX_REPORTED = 25
# what the reference's row models fill in when a row omits it
WORKER_DEFAULTS = {"pp": 1, "dcp-size": 1, "pcp-size": 1}
AGENTIC_SINGLE_NODE_DEFAULTS = {"spec-decoding": "none"}


def with_defaults(row: Any) -> Any:
    """``row`` with the reference's defaults for omitted fields: a multi-node row's workers
    `pp`/`dcp-size`/`pcp-size` 1, a single-node agentic row's `spec-decoding` `none`.
    Anything that is not a row object is returned as it is (the check names it)."""
    if not isinstance(row, dict):
        return row
    out = dict(row)
    workers = [name for name in ("prefill", "decode") if isinstance(out.get(name), dict)]
    for name in workers:
        out[name] = WORKER_DEFAULTS | out[name]
    if "scenario-type" in out and "prefill" not in out:
        out = AGENTIC_SINGLE_NODE_DEFAULTS | out
    return out


def row_problems(rows: Any, source: str | None = None) -> list[Problem]:
    """Every contract violation in ``rows`` (a list of row dicts, defaults filled in); empty when valid."""
    if isinstance(rows, list):
        rows = [with_defaults(row) for row in rows]
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
