"""Check `codeowner`: the signer owns every specifically-owned changed path (directly or via an active team)."""

from __future__ import annotations

from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.ownership import membership, specific_paths
from infx.signoff.rules.policy_reads import first_trusted_file
from infx.signoff.table import Settings
from infx.signoff.trigger import codeowners


def run(evidence: Evidence, settings: Settings) -> Outcome:
    path, text = first_trusted_file(evidence, settings.codeowners_paths)
    if text is None:
        return Outcome(Status.FAIL, "the trusted CODEOWNERS file could not be read from the "
                       "default branch.")
    if evidence.files is None:
        return Outcome(Status.FAIL, "the PR's changed files could not be read.")
    owners = codeowners.parse(text)
    signer = evidence.signoff.user
    owned, failures = specific_paths(evidence, owners, signer)
    specific = [*owned, *(changed for changed, _ in failures)]
    if failures and owned:
        left = [changed for changed, _ in failures]
        return Outcome(Status.FAIL, f"@{signer} owns {_shown(owned)}; left to other owners: "
                       f"{_shown(left)}.", tuple(problem for _, problem in failures))
    if failures:
        return Outcome(Status.FAIL, failures[0][1], tuple(problem for _, problem in failures[1:]))
    if specific:
        where = "" if path == "CODEOWNERS" else f" (CODEOWNERS at {path})"
        return Outcome(Status.PASS, f"@{signer} is a listed owner of {_shown(specific)}; every "
                       f"other changed path falls only under the catch-all{where}.")
    if _recognised(evidence, owners, signer):
        return Outcome(Status.PASS, f"every changed path falls only under the catch-all, and "
                       f"@{signer} is a recognised CODEOWNER.")
    teams = owners.teams()
    unknown = [f"@{t}" for t in teams if membership(evidence, t, signer) is None]
    if unknown:
        return Outcome(Status.FAIL, f"every changed path falls only under the catch-all; @{signer} "
                       f"is not listed by name and membership of {', '.join(unknown)} could not "
                       "be confirmed.")
    return Outcome(Status.FAIL, f"@{signer} is not listed anywhere in CODEOWNERS"
                   + (" nor an active member of a team it lists." if teams else "."))


def _shown(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def _recognised(evidence: Evidence, owners: codeowners.Codeowners, signer: str) -> bool:
    """Listed by name anywhere, or an active member of any team listed anywhere."""
    if "@" + signer.lower() in owners.all_owners():
        return True
    return any(membership(evidence, team, signer) is True for team in owners.teams())
