"""Check 4 (advisory): an authorised reuse command (`/use <id>` or `/reuse-sweep-run`) was posted."""

from __future__ import annotations

from infx.reuse.grammar import newest_authorized, parse_command
from infx.signoff.inert import code
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.table import Settings

ASK = f"a maintainer should post {code('/use <run_id>')} on its own line."


def run(evidence: Evidence, settings: Settings) -> Outcome:
    if evidence.comments is None:
        return Outcome(Status.WARN, "the PR conversation could not be read, so no authorised "
                       "reuse command can be confirmed; " + ASK)
    conversation = [c for c in evidence.comments if c.kind == "issue_comment"]
    request = newest_authorized(conversation)
    if request is not None:
        comment = request.comment
        return Outcome(Status.PASS, f"{request.command} was posted by {comment.user} "
                       f"({comment.author_association}).")
    unauthorised = [c for c in conversation if parse_command(c.body) is not None]
    if unauthorised:
        who = ", ".join(f"{c.user} ({c.author_association})" for c in unauthorised[-3:])
        return Outcome(Status.WARN, f"no authorised reuse command has been posted (only from {who}); "
                       + ASK)
    return Outcome(Status.WARN, "no authorised reuse command has been posted; " + ASK)
