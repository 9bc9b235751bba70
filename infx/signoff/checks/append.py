"""Check `append`: the PR's changelog change passes strict validation (§4.3), and an
append-only sweep only adds points and only the new points change."""

from __future__ import annotations

import re

from infx.changelog.entry import ChangelogEntry, KeyResolutionError
from infx.changelog.strict import validate_change
from infx.config.master import load_master_configs_from_texts
from infx.config.runners import load_runners_from_text
from infx.errors import InfxError, Problem
from infx.plan.append_only import check_scope, delta_rows
from infx.plan.generate import generate_test_config
from infx.plan.planner import appended_entries
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules.configs_at import MASTER_PATH, master_files
from infx.signoff.rules.isolation import unguarded_lines
from infx.signoff.rules.policy_reads import (
    EvidenceGap,
    base_text,
    changed_files,
    fail_closed,
    failed,
    head_text,
)
from infx.signoff.rules.scan import hunks
from infx.signoff.table import Settings

CHANGELOG = re.compile(r"^(?:[^/]+/)?perf-changelog\.yaml$")
RUNNERS = "configs/runners.yaml"
_DOC = re.compile(r"(^|/)docs?/|\.md$|\.rst$")


@fail_closed("Append-only isolation")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    files = changed_files(evidence)
    changelog = next((f.filename for f in files if CHANGELOG.match(f.filename)), None)
    if changelog is None:
        return Outcome(Status.NA, "perf-changelog.yaml is not changed, so no append-only entry")
    invalid, valid = _strict(evidence, changelog)
    if invalid is not None:
        return invalid
    entries = appended_entries(base_text(evidence, changelog), head_text(evidence, changelog) or "",
                               changelog)
    flagged = [e for e in entries if e.append_only]
    if not flagged:
        return Outcome(Status.NA, f"no new {changelog} entry has append-only: true ({valid})")
    mixed = [i for i, e in enumerate(entries) if not e.append_only or e.eval_concs is not None]
    if mixed:
        return Outcome(Status.FAIL, f"{changelog}: new entry #{mixed[0] + 1} is not append-only or "
                       "selects evals (eval-concs); an append-only sweep cannot be mixed with "
                       "regular entries")
    head, base = _masters(evidence, "head"), _masters(evidence, "base")
    scope = _scope(flagged, head)
    try:
        base_rows, delta = _matrix_delta(evidence, base, head, scope)
    except InfxError as exc:
        problems = [p.message for p in exc.problems]
        return Outcome(Status.FAIL, f"{', '.join(sorted(scope))}: {problems[0]}", tuple(problems))
    old = {c for row in base_rows for c in _concs(row)}
    new = sorted({c for row in delta for c in _concs(row)})
    problems = _isolation_problems(evidence, files, changelog, old)
    keys = ", ".join(sorted(scope))
    if problems:
        return failed(problems)
    return Outcome(Status.PASS, f"{keys}: every existing point (conc {sorted(old)}) is unchanged "
                   f"with the same image and recipe; {len(delta)} new point(s) at conc {new}; "
                   "every other benchmark-affecting edit is guarded to the new concurrencies only; "
                   + valid)


def _strict(evidence: Evidence, changelog: str) -> tuple[Outcome | None, str]:
    """The strict changelog validation of `infx changelog validate` (PRODUCT §4.3, §4.8) over
    the PR base and head: (FAIL naming the file:line and the fix, or None; what passed)."""
    base, head = base_text(evidence, changelog), head_text(evidence, changelog)
    if head is None:
        return Outcome(Status.FAIL, f"{changelog} is deleted at the head; the changelog is "
                       "append-only. Fix: restore it from the base branch."), ""
    if base is None:
        return Outcome(Status.FAIL, f"{changelog} does not exist at the PR base "
                       f"{evidence.pr.base_sha[:8]}, so its change cannot be validated. Fix: "
                       "base the PR on the default branch."), ""
    try:
        _, change = validate_change(base.encode(), head.encode(), changelog, evidence.pr.number,
                                    evidence.repo, base_label=f"{changelog} at the PR base")
    except InfxError as exc:
        problems = [_located(p) for p in exc.problems]
        return Outcome(Status.FAIL, "strict changelog validation failed: " + problems[0],
                       tuple(problems[1:])), ""
    added, fixed = len(change.additions), change.corrections
    what = (f"{added} appended entr{'y' if added == 1 else 'ies'}" if added else
            f"{fixed} pr-link correction{'' if fixed == 1 else 's'}" if fixed else "no entry change")
    return None, f"{what} pass the strict changelog validation" if added + fixed != 1 else \
        f"{what} passes the strict changelog validation"


def _located(problem: Problem) -> str:
    """`file:line: message. Fix: …` — where the changelog breaks the contract and what to do."""
    where = problem.location()
    text = f"{where}: {problem.message}" if where else problem.message
    return text + (f". Fix: {problem.fix}" if problem.fix else "")


def _masters(evidence: Evidence, side: str) -> list[tuple[str, str]]:
    tree = evidence.head_files if side == "head" else evidence.base_files
    read = head_text if side == "head" else base_text
    paths = {p for p in tree if MASTER_PATH.match(p)}
    paths |= {f.filename for f in changed_files(evidence) if MASTER_PATH.match(f.filename)}
    texts = [(p, read(evidence, p)) for p in sorted(paths)]
    return [(p, t) for p, t in texts if t is not None]


def _scope(entries: list[ChangelogEntry], head: list[tuple[str, str]]) -> dict[str, set[str]]:
    keys = list(master_files(dict(head)))
    scope: dict[str, set[str]] = {}
    for entry in entries:
        try:
            resolved = entry.resolve_keys(keys)
        except KeyResolutionError as exc:
            raise EvidenceGap(f"append-only entry could not be read: {exc}") from None
        for key in resolved:
            scope.setdefault(key, set()).update(entry.scenarios())
    return scope


def _matrix_delta(evidence: Evidence, base: list[tuple[str, str]], head: list[tuple[str, str]],
                  scope: dict[str, set[str]]) -> tuple[list[dict], list[dict]]:
    """Generate the selected configs at base and head; the head rows beyond the base."""

    raw_base = {k: e for k, (_, e) in master_files(dict(base)).items()}
    raw_head = {k: e for k, (_, e) in master_files(dict(head)).items()}
    check_scope(raw_base, raw_head, scope)
    base_rows = _generate(base, base_text(evidence, RUNNERS), sorted(scope))
    head_rows = _generate(head, head_text(evidence, RUNNERS), sorted(scope))
    return base_rows, delta_rows(base_rows, head_rows)


def _generate(masters: list[tuple[str, str]], runners_text: str | None, keys: list[str]) -> list[dict]:

    if runners_text is None:
        raise EvidenceGap(f"{RUNNERS} could not be read")
    try:
        configs = load_master_configs_from_texts(masters)
        runners = load_runners_from_text(RUNNERS, runners_text)
    except InfxError as exc:  # invalid configs are not a verdict on isolation
        raise EvidenceGap("; ".join(str(p) for p in exc.problems)) from None
    try:
        return generate_test_config(configs, runners, keys, evals="none")
    except NotImplementedError:
        raise EvidenceGap("the matrix generator is not available") from None


def _concs(row: dict) -> list[int]:
    conc = row.get("conc")
    return [int(c) for c in conc] if isinstance(conc, list) else [int(conc)] if conc is not None else []


def _isolation_problems(evidence: Evidence, files, changelog: str, old: set[int]) -> list[str]:
    problems = []
    for f in files:
        if f.filename == changelog or MASTER_PATH.match(f.filename) or _DOC.search(f.filename):
            continue
        if f.status == "removed":
            problems.append(f"{f.filename}: removed, which can change existing points")
            continue
        added = {hl.number for hunk in hunks(f.patch) for hl in hunk if hl.kind == "+"}
        if f.patch is None:
            problems.append(f"{f.filename}: diff not available, cannot prove isolation")
            continue
        for bad in unguarded_lines(f.filename, head_text(evidence, f.filename) or "", added, old):
            problems.append(f"{f.filename}:{bad.line}: {bad.why}: {bad.text}".rstrip(": "))
    return problems
