"""Check 0: the signer owns every specifically-owned changed path (directly or via an active team)."""

from __future__ import annotations

from infx.signoff import codeowners
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.policy_common import changed_paths, first_trusted_file
from infx.signoff.table import Settings


def run(evidence: Evidence, settings: Settings) -> Outcome:
    path, text = first_trusted_file(evidence, settings.codeowners_paths)
    if text is None:
        return Outcome(Status.FAIL, "the trusted CODEOWNERS file could not be read from the "
                       "default branch.")
    if evidence.files is None:
        return Outcome(Status.FAIL, "the PR's changed files could not be read.")
    owners = codeowners.parse(text)
    signer = evidence.signoff.author
    specific: list[str] = []
    failures: list[str] = []
    for changed in changed_paths(evidence):
        rule = owners.rule_for(changed)
        if rule is None or not rule.owners or rule.is_catch_all:
            continue
        specific.append(changed)
        problem = _path_problem(evidence, changed, rule.owners, signer)
        if problem:
            failures.append(problem)
    if failures:
        return Outcome(Status.FAIL, failures[0], tuple(failures[1:]))
    if specific:
        shown = ", ".join(specific[:3]) + (f" and {len(specific) - 3} more" if len(specific) > 3 else "")
        where = "" if path == "CODEOWNERS" else f" (CODEOWNERS at {path})"
        return Outcome(Status.PASS, f"@{signer} is a listed owner of {shown}; every other changed "
                       f"path falls only under the catch-all{where}.")
    if _recognised(evidence, owners, signer):
        return Outcome(Status.PASS, f"every changed path falls only under the catch-all, and "
                       f"@{signer} is a recognised CODEOWNER.")
    teams = owners.teams()
    unknown = [f"@{t}" for t in teams if _membership(evidence, t, signer) is None]
    if unknown:
        return Outcome(Status.FAIL, f"every changed path falls only under the catch-all; @{signer} "
                       f"is not listed by name and membership of {', '.join(unknown)} could not "
                       "be confirmed.")
    return Outcome(Status.FAIL, f"@{signer} is not listed anywhere in CODEOWNERS"
                   + (" nor an active member of a team it lists." if teams else "."))


def _path_problem(evidence: Evidence, path: str, owners: tuple[str, ...], signer: str) -> str | None:
    """None when the signer owns the path; otherwise the row text saying why not."""
    wanted = "@" + signer.lower()
    if any(owner.lower() == wanted for owner in owners):
        return None
    teams = [owner for owner in owners if owner.startswith("@") and "/" in owner]
    unknown = []
    for team in teams:
        member = _membership(evidence, team, signer)
        if member is True:
            return None
        if member is None:
            unknown.append(team)
    listed = " ".join(owners)
    if unknown:
        return (f"{path} is owned by {listed}; {signer} is not listed directly and membership of "
                f"{', '.join(unknown)} could not be confirmed.")
    return f"{path} is owned by {listed}; {signer} is not among them."


def _membership(evidence: Evidence, team: str, user: str) -> bool | None:
    members = evidence.team_members.get(team.lstrip("@").lower())
    if members is None:
        return None
    for login, active in members.items():
        if login.lower() == user.lower():
            return active
    return None


def _recognised(evidence: Evidence, owners: codeowners.Codeowners, signer: str) -> bool:
    """Listed by name anywhere, or an active member of any team listed anywhere."""
    if "@" + signer.lower() in owners.all_owners():
        return True
    return any(_membership(evidence, team, signer) is True for team in owners.teams())
