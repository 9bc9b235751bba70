"""What chosen sign-off checks conclude for a PR right now, without a sign-off (the sweep report's rows).

The evidence is read by the sign-off's own evidence context (infx.signoff.evidence: budgeted,
fail-closed, only the pieces the chosen checks declare in checks.yaml) for the PR as it is,
with an empty sign-off; the checks run through the verdict's
own `run_check` (a crash or a forbidden status fails closed). Nothing is posted. When any
evidence could not be read the checks are not run at all, as a verdict would be `error`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from infx.errors import InfxError
from infx.signoff import evidence as ev
from infx.signoff.model import Evidence, Outcome, unposted
from infx.signoff.ports import SignoffClient
from infx.signoff.table import CheckSpec, CheckTable, load_table
from infx.signoff.verdict import run_check

REPORT_CHECKS = ("sweep", "evals", "pareto")  # Checks `sweep`, `evals` and `pareto`


@dataclass(frozen=True)
class Snapshot:
    """The outcomes (spec, outcome) in table order, or why they could not be computed."""

    rows: tuple[tuple[CheckSpec, Outcome], ...]
    problem: str | None
    evidence: Evidence | None


def snapshot(client: SignoffClient, repo: str, pr_number: int, check_ids: tuple[str, ...] = REPORT_CHECKS,
             *, now: datetime | None = None, table: CheckTable | None = None) -> Snapshot:
    """Run the checks `check_ids` on the PR's current evidence; unreadable evidence is a problem,
    never an outcome."""
    table = table or load_table()
    specs = [table.by_id(check_id) for check_id in check_ids]
    reader = ev.Reader(client, repo, table.settings.max_api_calls)
    try:
        pr, raw = reader.pull(pr_number)
        branch = ev.default_branch_of(raw) or pr.base_ref
        default_sha = reader.branch_sha(branch)
        default_tree = reader.tree(default_sha)
        files = reader.files(pr_number, pr.changed_files)
        evidence = Evidence(repo=repo, default_branch=branch, now=now or ev.evidence_clock(client), pr=pr,
                            signoff=unposted(),
                            files=files, default_branch_files=default_tree,
                            base_files=dict(default_tree) if pr.base_sha == default_sha else {})
        ev.Context(reader, evidence, table.settings).provide(specs)  # only what these checks need
    except InfxError as exc:
        return Snapshot((), str(exc).split("\n")[0], None)
    if evidence.unreadable:
        what = "; ".join(f"{key}: {why}" for key, why in sorted(evidence.unreadable.items())[:3])
        return Snapshot((), f"{len(evidence.unreadable)} piece(s) of evidence could not be read ({what})",
                        evidence)
    rows = tuple((spec, run_check(spec, evidence, table.settings)) for spec in specs)
    return Snapshot(rows, None, evidence)
