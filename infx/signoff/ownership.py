"""Who owns which changed paths: one walk of CODEOWNERS for Check `codeowner` and the publisher's scope."""

from __future__ import annotations

from infx.signoff.model import Evidence
from infx.signoff.rules.policy_reads import changed_paths, first_trusted_file
from infx.signoff.table import Settings
from infx.signoff.trigger import codeowners


def owns_some_path(evidence: Evidence, settings: Settings) -> bool:
    """True when the signer owns at least one specifically-owned changed path (PRODUCT §4.8
    Scope: such a signer gets a verdict, even when other paths are left to other owners)."""
    _, text = first_trusted_file(evidence, settings.codeowners_paths)
    if text is None or evidence.files is None:
        return False
    owned, _ = specific_paths(evidence, codeowners.parse(text), evidence.signoff.user)
    return bool(owned)


def specific_paths(evidence: Evidence, owners: codeowners.Codeowners,
                   signer: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(specific changed paths the signer owns, [(path the signer does not own, why)]).

    A specific path is one whose winning CODEOWNERS line is not the bare catch-all."""
    owned: list[str] = []
    failures: list[tuple[str, str]] = []
    for changed in changed_paths(evidence):
        rule = owners.rule_for(changed)
        if rule is None or not rule.owners or rule.is_catch_all:
            continue
        problem = path_problem(evidence, changed, rule.owners, signer)
        if problem:
            failures.append((changed, problem))
        else:
            owned.append(changed)
    return owned, failures


def path_problem(evidence: Evidence, path: str, owners: tuple[str, ...], signer: str) -> str | None:
    """None when the signer owns the path; otherwise the row text saying why not."""
    wanted = "@" + signer.lower()
    if any(owner.lower() == wanted for owner in owners):
        return None
    teams = [owner for owner in owners if owner.startswith("@") and "/" in owner]
    unknown = []
    for team in teams:
        member = membership(evidence, team, signer)
        if member is True:
            return None
        if member is None:
            unknown.append(team)
    listed = " ".join(owners)
    if unknown:
        return (f"{path} is owned by {listed}; {signer} is not listed directly and membership of "
                f"{', '.join(unknown)} could not be confirmed.")
    return f"{path} is owned by {listed}; {signer} is not among them."


def membership(evidence: Evidence, team: str, user: str) -> bool | None:
    """True/False: the user is an active/inactive member of the team; None: not known."""
    members = evidence.team_members.get(team.lstrip("@").lower())
    if members is None:
        return None
    for login, active in members.items():
        if login.lower() == user.lower():
            return active
    return None
