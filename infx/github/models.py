"""One typed model per GitHub object, each built from GitHub's JSON in one place (issue 19)."""

from __future__ import annotations

from dataclasses import dataclass

from infx.github.urls import issue_of

COMMENT_KINDS = ("issue_comment", "review", "review_comment")


@dataclass(frozen=True)
class Comment:
    """A conversation comment, a review, or an inline review comment (`kind`)."""

    id: int
    user: str
    body: str
    author_association: str
    created_at: str
    updated_at: str | None = None
    kind: str = "issue_comment"  # issue_comment | review | review_comment
    html_url: str | None = None
    user_type: str = ""  # User | Bot | Organization, as GitHub reports the author
    # a review's state, upper case as the REST API spells it (APPROVED, COMMENTED, DISMISSED,
    # ...; webhooks send lower case); "" for the other kinds
    state: str = ""
    commit_id: str = ""  # the head a review or inline comment was written on; "" for comments
    path: str = ""  # the file an inline review comment is on; "" for the other kinds
    line: int | None = None  # its line in that file (None: outdated, or another kind)
    # the issue or PR it is on ("owner/name" and number), from GitHub's own `pull_request_url`
    # (reviews, inline comments) or `issue_url` (conversation comments); "" and None when the
    # answer names none. Whether that is a PR of the repository being verified is binding's
    # decision (infx.signoff.trigger.binding.signoff_pr)
    issue_repo: str = ""
    issue_number: int | None = None

    @classmethod
    def from_json(cls, data: dict, kind: str = "issue_comment") -> Comment:
        """From GitHub's JSON for a comment of `kind`, as the REST API lists it or a webhook
        payload carries it (a review has `submitted_at` and `state`)."""
        if kind not in COMMENT_KINDS:
            raise ValueError(f"comment kind must be one of {COMMENT_KINDS}, not {kind!r}")
        user = data.get("user") or {}
        # a review's commit_id is the head it was submitted on; an inline comment's commit_id
        # follows later pushes that keep its line, so the head it was written on is its original
        commit = data.get("original_commit_id" if kind == "review_comment" else "commit_id")
        line = data.get("line")
        urls = (data.get(key) for key in ("pull_request_url", "issue_url"))
        issue = next((named for url in urls if isinstance(url, str) and (named := issue_of(url))), None)
        return cls(id=data["id"], user=user.get("login", ""), body=data.get("body") or "",
                   author_association=data.get("author_association") or "",
                   created_at=data.get("created_at") or data.get("submitted_at") or "",
                   updated_at=data.get("updated_at"), kind=kind, html_url=data.get("html_url"),
                   user_type=user.get("type") or "",
                   state=str(data.get("state") or "").upper() if kind == "review" else "",
                   commit_id=commit if kind != "issue_comment" and isinstance(commit, str) else "",
                   path=str(data.get("path") or "") if kind == "review_comment" else "",
                   line=line if kind == "review_comment" and isinstance(line, int) else None,
                   issue_repo=issue[0] if issue else "", issue_number=issue[1] if issue else None)


@dataclass(frozen=True)
class Artifact:
    """A workflow run's artifact as GitHub lists it (its members are downloaded separately)."""

    id: int
    name: str
    expired: bool
    size_in_bytes: int = 0
    workflow_run_id: int | None = None

    @classmethod
    def from_json(cls, data: dict) -> Artifact:
        return cls(id=data["id"], name=data["name"], expired=bool(data.get("expired")),
                   size_in_bytes=int(data.get("size_in_bytes") or 0),
                   workflow_run_id=(data.get("workflow_run") or {}).get("id"))


@dataclass(frozen=True)
class Job:
    """One job of a workflow run as the Actions jobs API lists it (each attempt's, with
    `filter=all`); GitHub also shows it as a check run of the run's check suite."""

    id: int
    name: str
    status: str = "completed"  # queued | in_progress | completed | waiting | ...
    conclusion: str | None = None
    run_attempt: int = 1
    head_sha: str | None = None
    completed_at: str | None = None
    run_id: int | None = None
    started_at: str | None = None
    html_url: str | None = None
    workflow_name: str | None = None
    labels: tuple[str, ...] = ()
    runner_name: str | None = None

    @classmethod
    def from_json(cls, data: dict) -> Job:
        return cls(id=int(data["id"]), name=data.get("name") or "", status=data.get("status") or "",
                   conclusion=data.get("conclusion"), run_attempt=int(data.get("run_attempt") or 1),
                   head_sha=data.get("head_sha") or None, completed_at=data.get("completed_at"),
                   run_id=int(data["run_id"]), started_at=data.get("started_at"),
                   html_url=data.get("html_url"), workflow_name=data.get("workflow_name"),
                   labels=tuple(str(x) for x in data.get("labels") or ()),
                   runner_name=data.get("runner_name"))


@dataclass(frozen=True)
class CheckRun:
    """A check run as the Checks API answers for it: a commit's or a check suite's listing
    entry and the answer to a create or update are the same object. The sweep's jobs appear
    as check runs of Actions (`details_url` names the run and job); the verdict's own check
    run is written by the bot's app (`app_slug`, read by infx.trust) with its `output`."""

    id: int
    name: str
    status: str
    conclusion: str | None
    details_url: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    head_sha: str | None = None
    app_slug: str = ""  # the app that wrote it
    html_url: str = ""
    external_id: str = ""
    # its output (what the writer says in it: never evidence, see infx.signoff.evidence.digest)
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    annotations_count: int = 0

    @classmethod
    def from_json(cls, data: dict) -> CheckRun:
        output = data.get("output") or {}
        return cls(id=int(data["id"]), name=data.get("name") or "", status=data.get("status") or "",
                   conclusion=data.get("conclusion"), details_url=data.get("details_url"),
                   started_at=data.get("started_at"), completed_at=data.get("completed_at"),
                   head_sha=data.get("head_sha"), app_slug=(data.get("app") or {}).get("slug") or "",
                   html_url=data.get("html_url") or "", external_id=data.get("external_id") or "",
                   title=output.get("title"), summary=output.get("summary"), text=output.get("text"),
                   annotations_count=int(output.get("annotations_count") or 0))


@dataclass(frozen=True)
class WorkflowRun:
    """A workflow run as GitHub records it: the REST run and listing entries and a
    `workflow_run` webhook's run are the same object. Whether a run is ours is infx.trust's
    decision alone (the only reader of `path` and `head_repo`)."""

    id: int
    name: str = ""
    path: str | None = None  # the workflow file (with an `@ref` suffix for a called workflow)
    event: str = ""
    status: str = ""
    conclusion: str | None = None
    head_sha: str = ""
    head_branch: str | None = None
    run_attempt: int = 1
    created_at: str = ""  # when GitHub created the run (ISO 8601), from GitHub itself
    head_repo: str | None = None  # owner/name the run's head commit came from (a fork's, for fork PRs)
    display_title: str | None = None  # GitHub's title; a fork sweep's names its pinned head (infx.trust)
    html_url: str = ""
    pull_requests: tuple[int, ...] = ()  # empty for runs from forks (GitHub leaves them out)

    @classmethod
    def from_json(cls, data: dict) -> WorkflowRun:
        return cls(id=int(data["id"]), name=data.get("name") or "", path=data.get("path"),
                   event=data.get("event") or "", status=data.get("status") or "",
                   conclusion=data.get("conclusion"), head_sha=data.get("head_sha") or "",
                   head_branch=data.get("head_branch"), run_attempt=int(data.get("run_attempt") or 1),
                   created_at=data.get("created_at") or "",
                   head_repo=(data.get("head_repository") or {}).get("full_name"),
                   display_title=data.get("display_title"), html_url=data.get("html_url") or "",
                   pull_requests=tuple(pr["number"] for pr in data.get("pull_requests") or []
                                       if isinstance(pr, dict) and isinstance(pr.get("number"), int)))


@dataclass(frozen=True)
class PullRequest:
    """A pull request as GitHub answers for it: the REST pull, a listing entry and a webhook
    payload's `pull_request` are the same object (a listing has no `changed_files` or
    `merged`; its `merged_at` says the same)."""

    number: int
    title: str = ""
    body: str = ""
    author: str = ""  # the login that opened it
    state: str = ""  # open | closed
    draft: bool = False
    base_ref: str = ""
    base_sha: str = ""
    head_ref: str = ""
    head_sha: str = ""
    head_repo: str | None = None  # owner/name of the head's repository; None once a fork is deleted
    labels: tuple[str, ...] = ()
    changed_files: int = 0
    merged: bool = False
    author_association: str = ""
    base_repo: str | None = None  # owner/name of the repository it is opened against
    default_branch: str = ""  # that repository's, from GitHub's answer (base.repo.default_branch)

    @classmethod
    def from_json(cls, data: dict) -> PullRequest:
        head, base = data.get("head") or {}, data.get("base") or {}
        base_repo = base.get("repo") or {}
        return cls(number=int(data["number"]), title=data.get("title") or "", body=data.get("body") or "",
                   author=(data.get("user") or {}).get("login") or "", state=data.get("state") or "",
                   draft=bool(data.get("draft")), base_ref=base.get("ref") or "",
                   base_sha=base.get("sha") or "", head_ref=head.get("ref") or "",
                   head_sha=head.get("sha") or "", head_repo=(head.get("repo") or {}).get("full_name"),
                   labels=tuple(label.get("name") or "" for label in data.get("labels") or []
                                if isinstance(label, dict)),
                   changed_files=int(data.get("changed_files") or 0),
                   merged=bool(data.get("merged") or data.get("merged_at")),
                   author_association=data.get("author_association") or "",
                   base_repo=base_repo.get("full_name"), default_branch=base_repo.get("default_branch") or "")
