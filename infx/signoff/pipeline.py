"""One verification end to end: gate, scope, evidence, verdict, comment and commit status."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from infx.errors import InfxError
from infx.github.markers import Marker, make_marker
from infx.reuse.posted_head import github_time
from infx.signoff import checkrun, ownership, render
from infx.signoff import evidence as ev
from infx.signoff.model import (
    Comment,
    Comparison,
    Evidence,
    PullRequest,
    Status,
    touched_paths,
    unposted,
)
from infx.signoff.ports import SignoffClient
from infx.signoff.rules.policy_reads import first_trusted_file
from infx.signoff.table import CheckTable, load_table
from infx.signoff.trigger import binding, codeowners, gating
from infx.signoff.trigger import scope as scope_mod
from infx.signoff.trigger.checklist import has_trigger
from infx.signoff.trigger.relay import standing_signoff
from infx.signoff.verdict import Overall, Verdict, decide, run_check_by_id
from infx.trust import Identity, our_check_run, our_status

DESCRIPTIONS = {
    Overall.PASS: ("success", "CODEOWNER sign-off verified for this commit."),
    Overall.WARN: ("success", "CODEOWNER sign-off verified with advisory warnings."),
    Overall.REJECTED: ("failure", "CODEOWNER sign-off rejected - see the verdict comment."),
}


@dataclass
class Result:
    """What a run did; `kind` is skipped | not-applicable | verdict | error."""

    kind: str
    reason: str
    verdict: Verdict | None = None
    body: str | None = None
    posted: bool = False
    comment_url: str | None = None
    status: str | None = None
    evidence: Evidence | None = None
    api_calls: int = 0
    # the check run beside the status: created | updated | unchanged | not published: <why>;
    # head-status: withdrawn | not withdrawn: <why>
    check_run: str | None = None
    check_run_url: str | None = None
    target_url: str | None = None  # what the last status set links to

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"result": self.kind, "reason": self.reason, "status": self.status,
                               "posted": self.posted, "comment_url": self.comment_url,
                               "check_run": self.check_run, "check_run_url": self.check_run_url,
                               "api_calls": self.api_calls}
        if self.verdict is not None:
            out |= self.verdict.to_json()
        return out


@dataclass(frozen=True)
class Options:
    post: bool = True  # False: preview (no comment, no statuses)
    now: datetime | None = None
    body_override: str | None = None  # preview: a draft instead of a posted sign-off
    signer_override: str | None = None
    # told (state, sha) after each commit status is set, so a workflow guard can turn a
    # `pending` left behind by a killed job into `error`
    on_status: Callable[[str, str], None] | None = None
    # the workflow run doing this: what a status links to when no comment or check run
    # explains it (None: the pull request's own page)
    run_url: str | None = None


def verify(client: SignoffClient, repo: str, trigger: gating.Trigger, options: Options | None = None,
           table: CheckTable | None = None) -> Result:
    """Run one verification; every failure after the head is known leaves an `error` status."""
    return _in_session(client, repo, trigger.pr_number, options, table,
                       lambda session, pr, raw: session.run(trigger, pr, raw),
                       crashed="verifier crashed", failed="Verification failed")


def _in_session(client: SignoffClient, repo: str, number: int, options: Options | None,
                table: CheckTable | None, work: Callable[[_Session, Any, Any], Result], *,
                crashed: str, failed: str) -> Result:
    """Read the PR, run `work` in a session on its head, and turn any failure into a final
    `error` status (with the reason) rather than leaving the head without one."""
    options = options or Options()
    table = table or load_table()
    share = getattr(client, "share_wait_budget", None)
    if callable(share):
        share()  # one retry/wait budget for the whole run, not one per call
    reader = ev.Reader(client, repo, table.settings.max_api_calls)
    pr, raw = reader.pull(number)
    session = _Session(client, reader, repo, table, options, pr.head_sha,
                       raw.get("html_url") or f"https://github.com/{repo}/pull/{number}")
    try:
        return work(session, pr, raw)
    except Exception as exc:  # noqa: BLE001 - whatever broke, leave a final `error` status
        reason = str(exc).split("\n")[0] if isinstance(exc, InfxError) else \
            f"{crashed}: {type(exc).__name__}: {exc}"
        try:
            session.status("error", f"{failed}: {reason}")
        except Exception as status_exc:  # noqa: BLE001 - report both failures
            reason += f" (and the error status could not be set: {status_exc})"
        return Result("error", reason, status="error", evidence=session.evidence,
                      api_calls=reader.calls)


NOT_VERIFIED = "Not verified: a CODEOWNER sign-off is needed for this head."


def head_status(client: SignoffClient, repo: str, number: int, options: Options | None = None,
                table: CheckTable | None = None) -> Result:
    """Set the required status on a PR's new head (PRODUCT §4.8 Head moves): `success` "no
    sign-off needed" when nothing needs one; `success` carried from the newest verified head
    when the PR's own changes are identical to it; `pending` "not verified" otherwise."""
    return _in_session(client, repo, number, options, table,
                       lambda session, pr, raw: session.head(pr, raw),
                       crashed="head status crashed", failed="Head status could not be decided")


# the pieces of evidence publishing reads beside the checks': the conversation (the bot's own
# verdicts), the reviews (a newer sign-off), the head tree (the check run's annotations) and
# what binds the sign-off to its head (the branch's runs, the timeline, the PRs it heads)
PUBLISHING = ("conversation", "reviews", "head tree", "branch runs", "timeline", "branch pulls")

RELAYED_EVENTS = frozenset({"pull_request_review", "pull_request_review_comment"})


def relay(client: SignoffClient, repo: str, number: int, run_created_at: str | None,
          options: Options | None = None, table: CheckTable | None = None) -> Result:
    """A recorded review event, relayed from default-branch code (trigger.relay): verify the
    newest review sign-off no verdict has judged yet; otherwise decide the head's status
    again (an edited, deleted or dismissed review sign-off no longer carries its verdict)."""
    from infx.signoff.trigger.relay import relayed_signoff

    options = options or Options()
    table = table or load_table()
    reader = ev.Reader(client, repo, table.settings.max_api_calls)
    identity = client.identity
    judged: set[tuple[str, int]] = set()
    for item in reader.comments(number):
        if ev.is_verdict(item, table.settings.marker, identity):
            named = binding.judged_signoff(render.read_signed(item.body, table.settings.marker))
            if named is not None:
                judged.add(named)
    ref = relayed_signoff([*reader.reviews(number), *reader.review_comments(number)], judged,
                          run_created_at)
    if ref is None:
        return head_status(client, repo, number, _as_decision(options), table)
    return verify(client, repo, gating.Trigger(True, "relayed review event", number, ref), options, table)


def _as_decision(options: Options) -> Options:
    """`options` whose status recorder notes each status as `decided`: the relay job's guard
    step turns a recorded `pending` into `error` (a verification that died while pending), but
    a head decided `pending` (a dismissed, edited or deleted review sign-off) is the answer."""
    record = options.on_status
    if record is None:
        return options
    return replace(options, on_status=lambda state, sha: record("decided", sha))


class _Session:
    def __init__(self, client: SignoffClient, reader: ev.Reader, repo: str, table: CheckTable,
                 options: Options, head_sha: str, pr_url: str) -> None:
        self.client, self.reader, self.repo = client, reader, repo
        self.table, self.settings, self.options = table, table.settings, options
        self.head_sha = head_sha
        # what explains a status no comment or check run does: this run, else the PR
        self.explained_at = options.run_url or pr_url
        self.last_target: str | None = None
        self.evidence: Evidence | None = None
        self.last_status: str | None = None
        self.bound: binding.Binding | None = None
        self._identity: Identity | None = None
        self._evidence_context: ev.Context | None = None

    def status(self, state: str, description: str, target_url: str | None = None) -> None:
        """Set the required status; it always links to what explains it (PRODUCT §4.8): the
        verdict comment or check run given, else this run (or the PR)."""
        self.last_status = state
        self.last_target = target_url or self.explained_at
        if not self.options.post:
            return
        with self.reader.writing():
            self.client.create_status(self.repo, self.head_sha, state, self.settings.status_context,
                                      description, self.last_target)
        if self.options.on_status is not None:
            self.options.on_status(state, self.head_sha)

    def run(self, trigger: gating.Trigger, pr: PullRequest, raw: dict) -> Result:
        problem = gating.pr_state_problem(pr.state, pr.draft, trigger.dispatched)
        if problem:
            return self._skip(problem)
        if trigger.ref is None and self.options.body_override is None:  # /reverify
            from dataclasses import replace

            from infx.signoff.trigger.relay import newest_signoff

            newest = newest_signoff([*self.reader.comments(pr.number), *self.reader.reviews(pr.number),
                                     *self.reader.review_comments(pr.number)])
            if newest is None:
                return self._skip("the PR has no standing sign-off to verify again")
            trigger = replace(trigger, ref=gating.SignoffRef(newest.kind, newest.id))
        signoff = self._signoff(trigger, pr)
        if not has_trigger(signoff.body):
            if trigger.dispatched:
                raise InfxError("the comment given to the dispatch is not a sign-off (it lacks "
                                "the phrase 'As a PR reviewer and CODEOWNER')")
            return self._skip("the text does not contain the sign-off phrase")
        if gating.is_bot(signoff.user):
            return self._skip("sign-offs posted by bots are ignored")
        withdrawn = gating.withdrawn_problem(signoff.kind, signoff.state,
                                             f"the sign-off {signoff.kind} {signoff.id}")
        if withdrawn:
            return self._skip(f"{withdrawn}; a dismissed review is not verified")
        if self.options.body_override is None:
            # a sign-off speaks only for the PR it is on: never a status for another PR's head
            problem = binding.belongs_problem(binding.signoff_pr(signoff, self.repo), pr.number,
                                              f"the sign-off {signoff.kind} {signoff.id}")
            if problem:
                return self._skip(problem)
        actor = trigger.actor or signoff.user
        permissions: dict[str, dict[str, str] | None] = {}
        if self.options.post:
            permissions[actor.lower()] = self.reader.permission(actor)
            problem = gating.actor_problem(actor, permissions[actor.lower()])
            if not problem and trigger.asked_again:
                problem = binding.dispatch_problem(actor, signoff.user, permissions[actor.lower()])
            if problem:
                return self._skip(problem)
        out_of_scope = scope_mod.target_problem(pr.base_ref, ev.default_branch_of(raw), "are verified")
        if out_of_scope:
            return self._skip(out_of_scope)
        evidence = self._scope(pr, raw, signoff, permissions)
        if isinstance(evidence, Result):
            return evidence
        self.evidence = evidence
        # what every check of the table declares it needs, and what publishing reads
        self._lazy(evidence).provide(self.table.checks, *PUBLISHING)
        # no status is written before the sign-off is known to be an owner's, bound to this
        # head and the newest: a non-owner or a stale sign-off never replaces a status
        held = self._hold(evidence) if self.options.post else None
        if held is not None:
            return held
        if not evidence.unreadable:
            self.status("pending", "Verifying the CODEOWNER sign-off.")
        evidence.live_head_sha = ev.optional(evidence, "live head",
                                             lambda: self.reader.pull(pr.number)[0].head_sha)
        return self._conclude(evidence)

    def head(self, pr: PullRequest, raw: dict) -> Result:
        """The status of a new head, before (or without) any sign-off on it."""
        if pr.state != "open":
            return self._skip(f"the PR is {pr.state}")
        out_of_scope = scope_mod.target_problem(pr.base_ref, ev.default_branch_of(raw), "get this status")
        if out_of_scope:
            # retargeted away: a `success` the bot left on this head would still speak for the
            # commit in a PR into the default branch, so it is withdrawn (PRODUCT §4.8)
            ours = self._our_newest_status(pr.head_sha)
            if ours is not None and ours.get("state") == "success":
                return self._head_result("pending", NOT_VERIFIED, out_of_scope)
            return self._skip(out_of_scope)
        evidence = self._scope(pr, raw, unposted(), {})
        if isinstance(evidence, Result):
            return evidence  # `success` no sign-off needed, or `error` (scope unreadable)
        self.evidence = evidence
        self._lazy(evidence).need("conversation")
        verdict = newest_verdict(evidence.comments, self.settings.marker, self.identity)
        if verdict is None:
            return self._head_result("pending", NOT_VERIFIED, "no verified CODEOWNER sign-off yet")
        verified = render.read_marker(verdict.body, self.settings.marker)[0]
        problem = self._basis_problem(verified, verdict, pr, evidence)
        if problem and evidence.unreadable:  # e.g. the team that makes the signer an owner
            reason = "Head status could not be decided: " + "; ".join(
                f"{key}: {why}" for key, why in sorted(evidence.unreadable.items()))
            self.status("error", reason)
            result = Result("error", reason, status="error", evidence=evidence)
            problem = self._withdraw_check_run(reason, "the head status could not be decided", result)
            result.reason += f"; {problem}" if problem else ""
            result.api_calls = self.reader.calls
            return result
        if problem:
            return self._head_result("pending", NOT_VERIFIED, problem)
        bound = binding.inherits(verified, pr.head_sha, evidence.files, None) if verified == pr.head_sha \
            else self._inheritance(evidence, verified, self.reader.compare(evidence.default_branch, verified))
        if not bound.covered:
            return self._head_result("pending", NOT_VERIFIED, bound.reason)
        if verified == pr.head_sha:
            return self._head_result("success", DESCRIPTIONS[Overall.PASS][1], bound.reason,
                                     verdict.html_url)
        return self._head_result(
            "success", f"CODEOWNER sign-off carried from {verified[:12]} (same PR changes).",
            bound.reason, verdict.html_url)

    def _basis_problem(self, verified: str, verdict: Comment, pr: PullRequest,
                       evidence: Evidence) -> str | None:
        """Why the verdict on `verified` may not be carried to this head (None: it may).

        A status is a decision, never a copy of a comment (PRODUCT §4.8 Head moves): the
        newest status of our context on the verified head must be a `success` the bot itself
        created, and the decision must still hold now: the sign-off it judged exists on this
        PR unchanged, and its author is still an owner (Check `codeowner`) on the default branch's
        CODEOWNERS. The binding rule is decided by the caller."""
        context = self.settings.status_context
        ours = self._our_newest_status(verified)
        if ours is None:
            return (f"the newest {context} status on {verified[:12]} was not set by the bot "
                    f"itself ({self.identity.login})")
        if ours.get("state") != "success":
            return f"the bot's newest status on {verified[:12]} is {ours.get('state')}, not success"
        record = render.read_signed(verdict.body, self.settings.marker)
        if record is None:
            return f"the verdict on {verified[:12]} does not record which sign-off it judged"
        problem, signoff = self._signoff_changed(record, pr.number, f"its verdict on {verified[:12]}")
        if problem or signoff is None:
            return problem
        evidence.signoff = signoff
        self._lazy(evidence).provide(c for c in self.table.checks if c.id == "codeowner")
        owner = run_check_by_id(self.table, "codeowner", evidence)
        if owner is None or owner.status != Status.PASS:
            why = owner.reason if owner is not None else "Check 0 is not configured"
            return (f"@{signoff.user} is no longer a CODEOWNER of this PR on "
                    f"{evidence.default_branch}: {why}")
        return None

    def _our_newest_status(self, sha: str) -> dict | None:
        """The newest status of our context on `sha` when the bot itself created it (trust.our_status), else None."""
        context = self.settings.status_context
        ours = [s for s in self.reader.statuses(sha) if s.get("context") == context]
        return ours[0] if ours and our_status(self.identity, ours[0]) else None

    def _signoff_changed(self, record: str, pr_number: int, since: str) -> tuple[str | None, Comment | None]:
        """Read the sign-off a verdict judged (`record`: binding.signoff_record) as it stands now:
        why it no longer stands (deleted, on another PR, dismissed, edited since `since`), or
        None with the sign-off as read."""
        named = binding.judged_signoff(record)
        if named is None:
            return f"the verdict's sign-off record {record!r} is not in the recorded form", None
        kind, source_id = named
        what = f"the sign-off {kind} {source_id}"
        try:
            signoff = self.reader.signoff(gating.SignoffRef(kind, int(source_id)), pr_number)
        except InfxError as exc:
            if getattr(exc, "status", None) not in ev.ABSENT_STATUSES:
                raise
            return f"{what} was deleted after {since}", None
        if binding.belongs_problem(binding.signoff_pr(signoff, self.repo), pr_number, what):
            return f"{what} is not on PR #{pr_number}", None
        withdrawn = gating.withdrawn_problem(signoff.kind, signoff.state, what)
        if withdrawn:
            return f"{withdrawn} after {since}", None
        if binding.signoff_record(signoff.kind, signoff.id, signoff.body) != record:
            return f"{what} was edited after {since}; a new verification is needed", None
        return None, signoff

    def _head_result(self, state: str, description: str, reason: str,
                     target_url: str | None = None) -> Result:
        self.status(state, description, target_url)
        result = Result("head-status", f"{description} ({reason})", status=state,
                        evidence=self.evidence, target_url=self.last_target)
        if state != "success":
            problem = self._withdraw_check_run(description, reason, result)
            if problem:
                result = Result("error", f"{description} ({reason}); {problem}", status=state,
                                evidence=self.evidence, target_url=self.last_target)
        result.api_calls = self.reader.calls
        return result

    def _withdraw_check_run(self, description: str, reason: str, result: Result) -> str | None:
        """The check run never says more than the status (README: The verdict as a check run):
        when the status just set on the head is not `success` and the bot's newest check run of
        that name on the head passed (the sign-off changed, its author is no longer an owner,
        the PR was retargeted or came back to a head it no longer speaks for), that check run
        becomes `action_required`, saying why; its text and annotations stay as the record of
        the verdict. None when done or nothing needed it; else why it could not be done (the
        caller fails: a job that cannot take back a success it left must not end green)."""
        if not self.options.post:
            return None
        name = self.settings.status_context
        try:
            with self.reader.writing():  # part of publishing: never refused by the read budget
                ours = [run for run in self.client.named_check_runs(self.repo, self.head_sha, name)
                        if our_check_run(self.identity, run.app_slug)]
                current = max(ours, key=lambda run: run.id) if ours else None
                if current is None or current.conclusion != "success":
                    return None
                output = checkrun.withdrawn_output(current.summary, current.text, description, reason,
                                                   self.last_target)
                run = self.client.update_check_run(self.repo, current.id, output, (),
                                                   conclusion=checkrun.WITHDRAWN,
                                                   details_url=self.last_target)
        except InfxError as exc:
            why = str(exc).split("\n")[0]
            result.check_run = f"not withdrawn: {why}"
            return (f"the verdict's check run on {self.head_sha[:12]} still says success and could "
                    f"not be withdrawn: {why}")
        result.check_run, result.check_run_url = "withdrawn", run.html_url or None
        return None

    def _hold(self, evidence: Evidence) -> Result | None:
        """Why this verification may not set the status (a Result), or None when it may.

        Unreadable evidence is an `error` (set here). A sign-off that does not cover the head
        (binding), a non-owner's sign-off (answered with a comment) and a sign-off with a
        newer owner's sign-off after it leave the status as it is."""
        if evidence.unreadable:
            return None  # _conclude publishes the `error`
        if evidence.branch_runs is None and self.options.body_override is None:
            reason = ("the PR branch's workflow runs, which tie the sign-off to the head it was "
                      "posted on, could not be read")
            evidence.unreadable["workflow runs"] = evidence.read_errors.get("workflow runs", reason)
            return None
        if evidence.timeline is None and binding.reviewed_head(evidence.signoff) is None \
                and self.options.body_override is None:
            reason = ("the PR's timeline, which shows whether the head moved without a workflow "
                      "run (a force-push, a push that skips workflows), could not be read")
            evidence.unreadable["timeline"] = evidence.read_errors.get("timeline", reason)
            return None
        if self.options.body_override is None:
            bound = self._binding(evidence)
            self.bound = bound
            if evidence.unreadable:
                return None  # e.g. the compare: _conclude publishes the `error`
            if not bound.covered:
                return self._skip(f"the sign-off does not cover head {evidence.pr.head_sha[:12]}: "
                                  f"{bound.reason}")
        owner = run_check_by_id(self.table, "codeowner", evidence)
        if owner is not None and owner.status == Status.FAIL and \
                not ownership.owns_some_path(evidence, self.table.settings):
            return self._answer_non_owner(evidence, owner.reason)  # a partial owner gets a verdict
        newer = newer_owner_signoff(evidence, self.table)
        if newer is not None:
            return self._skip(f"a newer sign-off by @{newer.user} ({newer.created_at}) decides the "
                              "status; this older one does not overwrite it")
        return None

    def _binding(self, evidence: Evidence) -> binding.Binding:
        """Whether the sign-off covers the head: inherited from the head it was posted on and
        from every commit pushed after that one which may have been the head then."""
        pr, signoff = evidence.pr, evidence.signoff
        found = binding.decide(posted_at=signoff.created_at or None, runs=evidence.branch_runs or [],
                               head=pr.head_sha, head_ref=pr.head_ref, head_repo=pr.head_repo,
                               head_files=evidence.files, signed_files=None,
                               timeline=evidence.timeline, review_commit=binding.reviewed_head(signoff),
                               pr_number=pr.number, pulls=evidence.branch_pulls)
        if found.seen is None or (found.covered and not found.later):
            return found
        first = found if found.seen == pr.head_sha else self._inherited(evidence, found.seen)
        if not first.covered or evidence.unreadable:
            return first
        for candidate in found.later:
            bound = first if candidate == pr.head_sha else self._inherited(evidence, candidate, after=found.seen)
            if not bound.covered:
                return bound
        return first

    def _inherited(self, evidence: Evidence, seen: str, after: str | None = None) -> binding.Binding:
        """Whether the PR head inherits what was signed on `seen` (its compare read here)."""
        pr = evidence.pr
        signed = ev.optional(evidence, f"compare:{seen}",
                             lambda: self.reader.compare(evidence.default_branch, seen))
        if signed is None:
            return binding.inherits(seen, pr.head_sha, evidence.files, None, after=after)
        return self._inheritance(evidence, seen, signed, after)

    def _inheritance(self, evidence: Evidence, seen: str, signed: Comparison,
                     after: str | None = None) -> binding.Binding:
        """Whether the PR head inherits what was signed (or verified) on `seen`, whose compare
        with the default branch is `signed`. Where the same change sits at other lines, the
        default branch's change between `seen`'s merge base and the head's (read only then: the
        head's compare gives its merge base, a compare of the two bases the change) tells a
        change the lines around it moved from one that itself moved."""
        pr = evidence.pr
        bound = binding.inherits(seen, pr.head_sha, evidence.files, signed.files, after=after)
        if bound.covered or not bound.moved or signed.merge_base is None:
            return bound
        now = ev.optional(evidence, f"compare:{pr.head_sha}",
                          lambda: self.reader.compare(evidence.default_branch, pr.head_sha))
        if now is None or now.merge_base is None:
            return bound  # not known: the moved change is not inherited
        since = ev.optional(evidence, f"compare:{signed.merge_base}...{now.merge_base}",
                            lambda: self.reader.compare(signed.merge_base, now.merge_base))
        if since is None or len(since.files) >= binding.COMPARE_FILE_LIMIT:
            return bound
        changes = {f.filename: f.patch for f in since.files}
        return binding.inherits(seen, pr.head_sha, evidence.files, signed.files, changes, after=after)

    def _answer_non_owner(self, evidence: Evidence, why: str) -> Result:
        """Answer a sign-off by someone who is not a CODEOWNER of this PR: a comment, no status."""
        context = self._context(evidence, ev.digest(evidence, self.settings.marker, self.identity))
        body = render.non_owner_body(context, why)
        result = Result("not-owner", f"@{evidence.signoff.user} is not a CODEOWNER of this PR; "
                        "the status is unchanged", body=body, evidence=evidence)
        if self.options.post:
            marker = _marker(self.settings.marker, context)
            listed = self.reader.counts.get(evidence.pr.number, {}).get("comments")
            with self.reader.writing():
                upsert = self.client.upsert_comment(self.repo, evidence.pr.number, marker, body,
                                                    expected=listed)
            result.posted = upsert.action != "unchanged"
            result.comment_url = upsert.comment.html_url or None
        result.api_calls = self.reader.calls
        return result

    def _skip(self, reason: str) -> Result:
        return Result("skipped", reason, api_calls=self.reader.calls)

    def _signoff(self, trigger: gating.Trigger, pr: PullRequest) -> Comment:
        if self.options.body_override is not None:
            from infx.signoff.trigger.checklist import parse

            author = self.options.signer_override or parse(self.options.body_override).signed
            if not author:
                raise InfxError("the draft has no `Signed:` line; pass --signer LOGIN")
            return unposted(author, self.options.body_override)
        return self.reader.signoff(trigger.ref, pr.number)

    def _scope(self, pr: PullRequest, raw: dict, signoff: Comment,
               permissions: dict[str, dict[str, str] | None]) -> Evidence | Result:
        try:
            branch = ev.default_branch_of(raw) or pr.base_ref
            default_sha = self.reader.branch_sha(branch)
            default_tree: dict[str, str | None] = self.reader.tree(default_sha)
            # CODEOWNERS comes from the tip of the branch the PR targets (resolved once to a
            # SHA used for both the errors API and the text), never from the PR's stale base
            # CODEOWNERS is the default branch's (PRODUCT §4.8 scope: only PRs into it are
            # verified, so the target's tip and the default tip are the same branch)
            target, owners_sha, owners_tree = branch, default_sha, default_tree
            errors = self.reader.codeowners_errors(owners_sha)
            if errors:
                first = errors[0]
                raise scope_mod.ScopeError(f"GitHub reports CODEOWNERS errors on {target} "
                                           f"(line {first.get('line')}: {first.get('message') or first.get('kind')})")
            owners_path = next((p for p in self.settings.codeowners_paths
                                if owners_tree.get(p) is not None), None)
            text = owners_tree[owners_path] if owners_path else None
            if not text or not text.strip():
                raise scope_mod.ScopeError(f"no CODEOWNERS file (or an empty one) on {target}")
            if owners_tree is not default_tree:
                # Check `codeowner` reads the trusted CODEOWNERS from here: make it the target's
                default_tree = {**{p: None for p in self.settings.codeowners_paths},
                                **{k: v for k, v in default_tree.items()
                                   if k not in self.settings.codeowners_paths},
                                owners_path: text}
            files = self.reader.files(pr.number, pr.changed_files)
            paths = touched_paths(files)

            def permission_of(login: str) -> dict[str, str] | None:
                if login.lower() not in permissions:
                    permissions[login.lower()] = self.reader.permission(login)
                return permissions[login.lower()]

            decision = scope_mod.decide(codeowners.parse(text), paths,
                                        self.settings.core_team_for(self.repo), permission_of,
                                        frozenset(permissions))
            again, _ = self.reader.pull(pr.number)
            if (again.head_sha, again.base_sha, again.changed_files) != \
                    (pr.head_sha, pr.base_sha, pr.changed_files):
                raise scope_mod.ScopeError("the PR head changed while determining scope; retry")
        except (scope_mod.ScopeError, InfxError) as exc:
            reason = f"Could not determine sign-off scope: {str(exc).splitlines()[0]}"
            self.status("error", reason)
            return Result("error", reason, status="error", api_calls=self.reader.calls)
        if not decision.required:
            self.status("success", decision.reason)
            return Result("not-applicable", decision.reason, status="success",
                          api_calls=self.reader.calls)
        now = self.options.now or ev.evidence_clock(self.client)
        base_files = default_tree if pr.base_sha == default_sha else {}
        return Evidence(repo=self.repo, default_branch=branch, now=now, pr=pr, signoff=signoff,
                        files=files, default_branch_files=default_tree, base_files=dict(base_files),
                        collaborators=dict(permissions))

    def _lazy(self, evidence: Evidence) -> ev.Context:
        """The lazy evidence context of this session's evidence (one per evidence object)."""
        if self._evidence_context is None or self._evidence_context.evidence is not evidence:
            self._evidence_context = ev.Context(self.reader, evidence, self.settings)
        return self._evidence_context

    @property
    def identity(self) -> Identity:
        """Who the bot is: what its own verdict comments and statuses are recognised by."""
        if self._identity is None:
            with self.reader.writing():  # needed to publish, so never refused by the budget
                self._identity = self.client.identity
        return self._identity

    def _context(self, evidence: Evidence, fingerprint: str, previous: str | None = None,
                 overall: str | None = None) -> render.Context:
        settings = self.settings
        return render.Context(
            marker=settings.marker, assessed_sha=evidence.pr.head_sha,
            signer=evidence.signoff.user, evidence_digest=fingerprint,
            live_head_sha=evidence.live_head_sha,
            head_unconfirmed=(evidence.live_head_sha is None
                              and "live head" in evidence.read_errors),
            supersedes=previous if previous and previous != overall else None,
            escalation_mentions=escalation_mentions(evidence, self.table),
            recommended_points=settings.recommended_frontier_points, repo=self.repo,
            signed=self._signed(evidence))

    def _signed(self, evidence: Evidence) -> str:
        """The record of the judged sign-off (none for a preview's draft)."""
        signoff = evidence.signoff
        if self.options.body_override is not None or not signoff.id:
            return ""
        return binding.signoff_record(signoff.kind, signoff.id, signoff.body)

    def _conclude(self, evidence: Evidence) -> Result:
        settings = self.settings
        identity = self.identity
        verdict = decide(self.table, evidence)
        fingerprint = ev.digest(evidence, settings.marker, identity)
        same_sha = [c for c in evidence.comments or [] if ev.is_verdict(c, settings.marker, identity)
                    and render.read_marker(c.body, settings.marker)[0] == evidence.pr.head_sha]
        earlier = [c for c in same_sha if render.read_marker(c.body, settings.marker)[1] != fingerprint]
        previous = _overall_of(earlier[-1].body) if earlier else None
        context = self._context(evidence, fingerprint, previous, verdict.overall.value)
        if evidence.unreadable:
            count = len(evidence.unreadable)
            return self._publish(render.unreadable_body(context, evidence.unreadable), None, "error",
                                 f"Not verified: {count} piece(s) of evidence could not be read; "
                                 "see the comment.", same_sha, fingerprint, evidence)
        body = render.render(verdict, context)
        problems = render.validate(body, self.table, settings.marker)
        if problems:
            return self._publish(render.invalid_body(context, problems[0]), None, "error",
                                 "Verification produced an invalid verdict; retry.", same_sha,
                                 fingerprint, evidence)
        state, description = DESCRIPTIONS[verdict.overall]
        carried = self.bound.carried_from if self.bound else None
        if carried and carried != evidence.pr.head_sha and state == "success":
            description = f"{description[:-1]}; carried from {carried[:12]} (same PR changes)."
        return self._publish(body, verdict, state, description, same_sha, fingerprint, evidence)

    def _publish(self, body: str, verdict: Verdict | None, state: str, description: str,
                 same_sha: list, fingerprint: str, evidence: Evidence) -> Result:
        result = Result("verdict" if verdict else "error", description, verdict=verdict, body=body,
                        evidence=evidence, status=state)
        if self.options.post:
            existing = next((c for c in reversed(same_sha) if c.body == body), None)
            if existing is not None:
                result.comment_url = existing.html_url
            else:
                marker = _marker(self.settings.marker, self._context(evidence, fingerprint))
                count = self.reader.counts.get(evidence.pr.number, {}).get("comments")
                with self.reader.writing():
                    # the evidence's listing of the conversation (read whole, against the PR's
                    # count) holds any comment of ours with this marker (sha, digest, sign-off):
                    # no need to list it again. Runs verifying one sign-off take turns (the
                    # workflows' concurrency groups); a POST whose outcome is unknown re-lists
                    upsert = self.client.upsert_comment(self.repo, evidence.pr.number, marker,
                                                        body, expected=count,
                                                        listed=evidence.comments)
                result.posted = upsert.action != "unchanged"
                result.comment_url = upsert.comment.html_url or None
            self._check_run(verdict, state, description, evidence, fingerprint, result,
                            verified_before=bool(same_sha))
            self.status(state, description, result.comment_url or result.check_run_url)
            result.target_url = self.last_target
            if state == "success":
                self._recheck_after_success(evidence, result)
        result.api_calls = self.reader.calls
        return result

    def _check_run(self, verdict: Verdict | None, state: str, description: str,
                   evidence: Evidence, fingerprint: str, result: Result, *,
                   verified_before: bool = True) -> None:
        """The verdict as a check run of the bot's app beside the status, updated in place on
        re-verification (the newest check run of the status's name on the head that the bot's
        app wrote). It is an extra: when it cannot be written (a token without `checks: write`,
        a GITHUB_TOKEN refused for another app's check run) the status is set all the same and
        `result.check_run` says why. The head's check runs are only looked up when the bot has
        verified this head before (`verified_before`: a verdict comment of ours for it exists;
        the check run is always written after that comment), so a first verdict costs one write."""
        name, sha = self.settings.status_context, evidence.pr.head_sha
        if verdict is not None:
            output = checkrun.verdict_output(verdict, evidence, description, result.comment_url,
                                             self.repo)
        else:
            output = checkrun.error_output(description, result.comment_url, sha)
        conclusion = checkrun.CONCLUSIONS[state]
        external_id = f"{self.settings.marker}:{sha}:{fingerprint}"
        try:
            with self.reader.writing():  # part of publishing: never refused by the read budget
                ours = [run for run in self.client.named_check_runs(self.repo, sha, name)
                        if our_check_run(self.identity, run.app_slug)] if verified_before else []
                current = max(ours, key=lambda run: run.id) if ours else None
                if current is not None and (current.external_id, current.conclusion,
                                            current.summary, current.text or "") == \
                        (external_id, conclusion, output.summary, output.text):
                    result.check_run, result.check_run_url = "unchanged", current.html_url or None
                    return
                if current is None:
                    batches = checkrun.batches(output.annotations)
                    run = self.client.create_check_run(
                        self.repo, sha, name, output, conclusion=conclusion,
                        details_url=result.comment_url, external_id=external_id)
                    action = "created"
                else:
                    # GitHub appends an update's annotations: only the new ones are sent
                    held = set(self.client.check_run_annotations(self.repo, current.id))
                    batches = checkrun.batches(tuple(a for a in output.annotations if a not in held))
                    run = self.client.update_check_run(
                        self.repo, current.id, output, batches[0], conclusion=conclusion,
                        details_url=result.comment_url, external_id=external_id)
                    action = "updated"
                for batch in batches[1:]:
                    run = self.client.update_check_run(self.repo, run.id, output, batch)
        except InfxError as exc:
            why = str(exc).split("\n")[0]
            if getattr(exc, "status", None) == 403 and "rate limit" not in why.lower():
                why = (f"{why} (the token may not write check runs: give the sign-off App "
                       "`checks: write`; the commit status is the required check)")
            result.check_run = f"not published: {why}"
            return
        result.check_run, result.check_run_url = action, run.html_url or None

    def _recheck_after_success(self, evidence: Evidence, result: Result) -> None:
        """Read the sign-off again once `success` is set: an edit, deletion or dismissal while
        it was being verified started a `reset` run that may have finished first, so this run,
        not that one, must take the status back to `pending` (the reset's decision then
        stands whichever of the two finishes last). A verify run never ends `pending` (its
        workflow's guard reads that as a run that died), so it ends in `error`, saying why."""
        record = self._signed(evidence)
        if not record:
            return
        with self.reader.writing():  # part of publishing: never refused by the read budget
            problem, _ = self._signoff_changed(record, evidence.pr.number,
                                               "this verification began")
        if problem:
            description = "Not verified: the sign-off changed while it was verified; verify it again."
            self.status("error", description, result.comment_url)
            result.status = "error"
            result.reason = f"{description} ({problem})"


def _marker(name: str, context: render.Context) -> Marker:
    """The marker the client finds the verdict comment by: its first line's fields."""
    fields = {"sha": context.assessed_sha, "evidence": context.evidence_digest}
    if context.signed:
        fields["signoff"] = context.signed
    return make_marker(name, **fields)


def escalation_mentions(evidence: Evidence, table: CheckTable) -> tuple[str, ...]:
    """Configured maintainers, else the catch-all owners of the trusted CODEOWNERS (core)."""
    if table.settings.escalation_mentions:
        return table.settings.escalation_mentions
    _, text = first_trusted_file(evidence, table.settings.codeowners_paths)
    return codeowners.parse(text).catch_all_owners() if text else ()


def newer_owner_signoff(evidence: Evidence, table: CheckTable) -> Comment | None:
    """The newest sign-off posted after this one by a recognised CODEOWNER of the PR (Check `codeowner`
    with that author as signer, on the evidence already read), or None.

    Two sign-offs verified at once finish in any order; the newest owner sign-off decides
    the status, so an older one's run leaves it alone. Team membership that was not read for
    the other author does not make them an owner here (both runs then set the status)."""
    from dataclasses import replace

    mine = github_time(evidence.signoff.created_at)
    if mine is None:
        return None
    later = []
    for item in [*(evidence.comments or []), *(evidence.reviews or [])]:
        when = github_time(item.created_at)
        if (item.id == evidence.signoff.id or when is None or when <= mine
                or not standing_signoff(item)):
            continue
        other = replace(evidence, signoff=replace(evidence.signoff, user=item.user))
        owner = run_check_by_id(table, "codeowner", other)
        if owner is not None and owner.status == Status.PASS:
            later.append((when, item.id, item))
    return max(later)[2] if later else None


def newest_verdict(comments: list[Comment], marker: str, identity: Identity) -> Comment | None:
    """The newest verdict comment the bot itself wrote (trust.our_comment), when it passed
    (PASS or WARN); None when there is none or the newest did not pass. Answers to non-owners
    do not count; an error verdict does (nothing verified before it can be carried)."""
    for item in reversed(comments):
        if not ev.is_verdict(item, marker, identity):
            continue
        lines = item.body.split("\n")
        if len(lines) > 1 and lines[1] == render.NON_OWNER_HEADER:
            continue
        overall = _overall_of(item.body)
        return item if overall in (Overall.PASS.value, Overall.WARN.value) else None
    return None


def _overall_of(body: str) -> str | None:
    lines = body.split("\n")
    for overall, header in render.HEADERS.items():
        if len(lines) > 1 and lines[1] == header:
            return overall.value
    return None
