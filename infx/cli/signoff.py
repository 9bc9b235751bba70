"""`infx signoff verify|preview`: thin click commands over the sign-off pipeline."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from infx.errors import InfxError, Problem
from infx.loading import load, loading
from infx.signoff.trigger import gating

if TYPE_CHECKING:
    from infx.signoff.pipeline import Result


@click.group()
def signoff() -> None:
    """Verify CODEOWNER sign-offs (the deterministic sign-off bot)."""


@contextlib.contextmanager
def _github(world: str | None, repo: str | None = None) -> Iterator[tuple[Any, str | None, datetime | None]]:
    """(client, repo from the world, review time) — a live client (a GitHub App finds its
    installation on ``repo``, else on $GITHUB_REPOSITORY), or a fake server for --world."""
    if world is None:
        with loading():  # the first client imports PyGithub
            from infx.github.client import GitHubClient

            client = GitHubClient.from_env(repo=repo)
        yield client, None, None
        return
    with loading():
        from infx.github.fake import FakeGitHub
    with FakeGitHub(world) as fake:
        now = datetime.fromisoformat(str(fake.world["now"]).replace("Z", "+00:00"))
        with loading():
            client = fake.client()
        yield client, fake.world["repo"], now


def _trigger(pr: int | None, comment_id: int | None, comment_url: str | None, actor: str | None,
             dispatch: bool) -> gating.Trigger:
    if comment_url:
        try:
            number, ref = gating.parse_comment_url(comment_url)
        except ValueError as exc:
            raise InfxError(Problem(str(exc), key="--comment-url")) from None
        if pr is not None and pr != number:
            raise InfxError(Problem(f"--comment-url points at PR #{number} but --pr is {pr}",
                                    key="--pr", fix="pass the URL of a comment on that PR"))
        return gating.Trigger(True, "manual", number, ref, actor=actor, dispatched=dispatch)
    if pr is None or comment_id is None:
        raise InfxError(Problem("say which sign-off to verify", key="--pr",
                                fix="pass --pr N with --comment-id ID or --comment-url URL, or --event FILE"))
    return gating.Trigger(True, "manual", pr, gating.SignoffRef("issue_comment", comment_id),
                          actor=actor, dispatched=dispatch)


def _event_trigger(event_file: str, event_name: str | None) -> gating.Trigger:
    path = Path(event_file)
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InfxError(Problem(f"cannot read the event payload: {getattr(exc, 'strerror', None) or exc}",
                                file=str(path),
                                fix="pass the webhook payload JSON file (--event or GITHUB_EVENT_PATH)")) from None
    name = event_name or os.environ.get("GITHUB_EVENT_NAME")
    if not name:
        raise InfxError(Problem("the event name is unknown", key="--event-name",
                                fix="pass --event-name or set GITHUB_EVENT_NAME"))
    from infx.github.events import PARSERS, check_payload

    if name in PARSERS:  # another event is not a sign-off: gating skips it by name
        check_payload(name, payload, str(path))
    try:
        return gating.from_event(name, payload)
    except ValueError as exc:
        raise InfxError(Problem(str(exc), file=str(path), key="inputs")) from None


def _why(result: Result) -> str:
    """The result's reason, with what could not be read when evidence was unreadable (the
    status description stays short; the step's log and summary say which call failed and
    the permission it needs)."""
    unreadable = result.evidence.unreadable if result.evidence is not None else {}
    if not unreadable:
        return result.reason
    return result.reason + " Unreadable: " + "; ".join(f"{key}: {why}" for key, why in sorted(unreadable.items()))


def _check_run_note(result: Result) -> str:
    """What became of the verdict's check run on the head, when anything did."""
    if result.check_run is None:
        return ""
    where = f" {result.check_run_url}" if result.check_run_url else ""
    return f"; check run: {result.check_run}{where}"


def _emit(result: Result, fmt: str, dump_evidence: str | None) -> None:
    from infx.signoff.evidence import to_json
    from infx.workflow.actions import append_summary

    if dump_evidence and result.evidence is not None:
        Path(dump_evidence).write_text(json.dumps(to_json(result.evidence), indent=2, sort_keys=True),
                                       encoding="utf-8")
    append_summary(_summary(result))
    if result.kind == "error":
        return  # stderr gets the caller's one error line (the reason once); no partial output
    if fmt == "json":
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    elif result.body is not None:
        click.echo(result.body, nl=not result.body.endswith("\n"))
    click.echo(f"signoff: {result.kind}: {result.reason} ({result.api_calls} API calls)", err=True)


def _summary(result: Result) -> str:
    """The step summary: the outcome, the check table of a verdict, and the check run's fate."""
    lines = [f"CODEOWNER sign-off: **{result.kind}** — {_why(result)}", ""]
    if result.verdict is not None:
        from infx.signoff.checkrun import check_table

        repo = result.evidence.repo if result.evidence is not None else ""
        lines += [check_table(result.verdict, repo)]
    if result.check_run is not None:
        where = f" ({result.check_run_url})" if result.check_run_url else ""
        lines += [f"The check run beside the status: {result.check_run}{where}", ""]
    if result.target_url:
        lines += [f"The commit status links to {result.target_url}", ""]
    return "\n".join(lines)


def _run_url() -> str | None:
    """This workflow run's page (what a status links to when no comment explains it)."""
    server, repo, run_id = (os.environ.get(k) for k in
                            ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    return f"{server.rstrip('/')}/{repo}/actions/runs/{run_id}" if server and repo and run_id else None


@signoff.command()
@click.option("--world", type=click.Path(dir_okay=False), help="Replay against a world file (in-process fake GitHub).")
@click.option("--repo", help="owner/name (default: $GITHUB_REPOSITORY, or the world's repo).")
@click.option("--pr", type=int, help="Pull request number.")
@click.option("--comment-id", type=int, help="Id of the sign-off conversation comment.")
@click.option("--comment-url", help="URL of the sign-off (#issuecomment-, #pullrequestreview-, #discussion_r).")
@click.option("--actor", help="Who started the verification (default: the sign-off author).")
@click.option("--dispatch", is_flag=True, help="Manual dispatch semantics: any PR state is verified.")
@click.option("--event", "event_file", type=click.Path(dir_okay=False), help="Webhook payload (default: $GITHUB_EVENT_PATH when no --pr).")
@click.option("--event-name", help="Event name (default: $GITHUB_EVENT_NAME).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--dump-evidence", type=click.Path(dir_okay=False), help="Write the gathered evidence as JSON.")
@click.option("--state-file", type=click.Path(dir_okay=False),
              help="Record '<state> <sha>' after each commit status (read by the workflow's guard step).")
def verify(world, repo, pr, comment_id, comment_url, actor, dispatch, event_file, event_name, fmt,
           dump_evidence, state_file) -> None:
    """Verify a sign-off and publish the verdict comment and commit status."""
    # deferred: the pipeline is heavy and `infx --help` needs none of it
    publish = load("infx.signoff.pipeline")

    event_file = event_file or (None if (pr or comment_url) else os.environ.get("GITHUB_EVENT_PATH"))
    if event_file:
        trigger = _event_trigger(event_file, event_name)
    else:
        trigger = _trigger(pr, comment_id, comment_url, actor, dispatch)
    if not trigger.run:
        click.echo(f"signoff: skipped: {trigger.reason}", err=True)
        return
    with _github(world, repo) as (client, world_repo, now):
        repo = _repo(repo, world_repo)
        options = publish.Options(now=now, on_status=_recorder(state_file), run_url=_run_url())
        result = publish.verify(client, repo, trigger, options)
    _emit(result, fmt, dump_evidence)
    if result.kind == "error":
        raise InfxError(Problem(f"verification failed: {_why(result)}", key="signoff"))


@signoff.command()
@click.option("--pr", type=int, required=True, help="Pull request number.")
@click.option("--body-file", type=click.Path(exists=True, dir_okay=False), required=True,
              help="The draft sign-off (markdown).")
@click.option("--signer", help="Whose sign-off this is (default: the draft's Signed: line).")
@click.option("--world", type=click.Path(dir_okay=False), help="Preview against a world file.")
@click.option("--repo", help="owner/name (default: $GITHUB_REPOSITORY, or the world's repo).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--dump-evidence", type=click.Path(dir_okay=False), help="Write the gathered evidence as JSON.")
def preview(pr, body_file, signer, world, repo, fmt, dump_evidence) -> None:
    """Show the verdict a draft sign-off would get, without posting anything."""
    publish = load("infx.signoff.pipeline")

    body = Path(body_file).read_text(encoding="utf-8")
    trigger = gating.Trigger(True, "preview", pr, None, dispatched=True)
    with _github(world, repo) as (client, world_repo, now):
        options = publish.Options(post=False, now=now, body_override=body, signer_override=signer)
        result = publish.verify(client, _repo(repo, world_repo), trigger, options)
    _emit(result, fmt, dump_evidence)
    if result.kind == "error":
        raise InfxError(Problem(f"preview failed: {result.reason}", key="signoff"))


@signoff.command("report")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True, help="owner/name")
@click.option("--pr", "pr_number", type=int, required=True, help="Pull request number.")
@click.option("--run-id", envvar="GITHUB_RUN_ID", type=int, required=True, help="The sweep run.")
@click.option("--run-attempt", envvar="GITHUB_RUN_ATTEMPT", type=int, default=1, show_default=True)
@click.option("--head-sha", required=True, help="The commit the run swept.")
@click.option("--results", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="agg_bmk.json of the run (absent: no benchmark results were collected).")
@click.option("--evals", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="agg_eval_all.json of the run (absent: no eval results were collected).")
@click.option("--reused", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The rows the plan job listed as reused (JSON: row job name -> run id); compared "
                   "with the rows re-derived from the evidence, never counted.")
@click.option("--world", type=click.Path(dir_okay=False), help="Replay against a world file.")
@click.option("--format", "fmt", type=click.Choice(["json", "markdown"]), default="json",
              show_default=True,
              help="json: the action taken; markdown: the comment's text as posted.")
def report(repo, pr_number, run_id, run_attempt, head_sha, results, evals, reused, world,
           fmt) -> None:
    """Create or edit the PR's sweep report comment (jobs per config key, evals against their
    floors, Pareto charts, Checks `sweep`, `evals` and `pareto` as they stand)."""
    from infx.report.build import unread
    from infx.report.publish import post_report, read_report, report_body
    from infx.workflow.actions import append_summary

    with _github(world, repo) as (client, _world_repo, _now):
        data = read_report(client, repo, pr_number, run_id, run_attempt, head_sha,
                           results=results, evals=evals, reused=reused)
        action = post_report(client, repo, data)
    # a part GitHub did not return is shown as such in the comment; the step still succeeds
    # (a report job that failed would spoil the sweep run it reports on), and says what is missing
    missing = unread(data)
    for part in missing:
        click.echo(f"signoff: report: not read: {part}", err=True)
    append_summary(f"Sweep report comment on #{pr_number}: {action}.\n"
                   + "".join(f"- not read: {part}\n" for part in missing))
    if fmt == "markdown":
        click.echo(report_body(data))
    else:
        click.echo(json.dumps({"action": action, "run": run_id, "attempt": run_attempt}))


@signoff.command("head-status")
@click.option("--world", type=click.Path(dir_okay=False), help="Replay against a world file.")
@click.option("--repo", help="owner/name (default: $GITHUB_REPOSITORY, or the world's repo).")
@click.option("--pr", type=int, help="Pull request number (default: from --event).")
@click.option("--event", "event_file", type=click.Path(dir_okay=False),
              help="A pull_request payload, a changed sign-off's comment or review payload, or "
                   "the workflow_run of a finished pull_request run (default: $GITHUB_EVENT_PATH "
                   "when no --pr).")
@click.option("--state-file", type=click.Path(dir_okay=False),
              help="Record '<state> <sha>' after each commit status (read by the workflow's guard step).")
def head_status(world, repo, pr, event_file, state_file) -> None:
    """Set the status on a PR's new head: carried from a verified head, pending, or no sign-off needed."""
    from infx.signoff import pipeline as publish

    event_file = event_file or (None if pr else os.environ.get("GITHUB_EVENT_PATH"))
    if pr is None and not event_file:
        raise InfxError(Problem("say which PR", key="--pr", fix="pass --pr N or --event FILE"))
    with _github(world, repo) as (client, world_repo, now):
        repo = _repo(repo, world_repo)
        numbers = [pr] if pr is not None else _event_pulls(client, repo, Path(event_file))
        if not numbers:
            click.echo("signoff: head-status: no open pull request for this event", err=True)
            return
        options = publish.Options(now=now, on_status=_recorder(state_file), run_url=_run_url())
        results = [publish.head_status(client, repo, number, options) for number in numbers]
    for number, result in zip(numbers, results, strict=True):
        click.echo(f"signoff: head-status #{number}: {result.status or 'none'}: {_why(result)}"
                   f"{_check_run_note(result)} ({result.api_calls} API calls)", err=True)
    if any(r.kind == "error" for r in results):
        raise InfxError(Problem("the head status could not be decided", key="signoff"))


@signoff.command("relay")
@click.option("--world", type=click.Path(dir_okay=False), help="Replay against a world file.")
@click.option("--repo", help="owner/name (default: $GITHUB_REPOSITORY, or the world's repo).")
@click.option("--event", "event_file", type=click.Path(dir_okay=False),
              help="The workflow_run of a finished signoff-verify run for a review or inline "
                   "comment event (default: $GITHUB_EVENT_PATH).")
@click.option("--state-file", type=click.Path(dir_okay=False),
              help="Record '<state> <sha>' after each commit status (read by the workflow's guard step).")
def relay_command(world, repo, event_file, state_file) -> None:
    """Verify the newest unjudged review sign-off of a relayed review event, or decide the head again."""
    from infx.github.events import load_event
    from infx.signoff import pipeline as publish
    from infx.workflow.posting import pulls_for_run_head, run_head

    event_file = event_file or os.environ.get("GITHUB_EVENT_PATH")
    if not event_file:
        raise InfxError(Problem("say which event", key="--event",
                                fix="pass --event FILE or set GITHUB_EVENT_PATH"))
    run = load_event(Path(event_file), "workflow_run").workflow_run
    if run is None or run.event not in publish.RELAYED_EVENTS:
        click.echo(f"signoff: relay: skipped: the run was for {run.event if run else 'no'} event, "
                   "not a review or inline comment", err=True)
        return
    with _github(world, repo) as (client, world_repo, now):
        repo = _repo(repo, world_repo)
        numbers = pulls_for_run_head(client, repo, run_head(run))
        if not numbers:
            click.echo("signoff: relay: no open pull request for this run's head", err=True)
            return
        options = publish.Options(now=now, on_status=_recorder(state_file), run_url=_run_url())
        results = [publish.relay(client, repo, number, run.created_at, options) for number in numbers]
    for number, result in zip(numbers, results, strict=True):
        click.echo(f"signoff: relay #{number}: {result.kind}: {result.status or 'none'}: {_why(result)}"
                   f"{_check_run_note(result)} ({result.api_calls} API calls)", err=True)
    if any(r.kind == "error" for r in results):
        raise InfxError(Problem("the relayed review event could not be decided", key="signoff"))


def _event_pulls(client: Any, repo: str, path: Path) -> list[int]:
    """The PR numbers an event names: a pull_request's own number, or the open PRs of this
    repository whose head is a finished pull_request run's head (never the run's own list)."""
    from infx.github.events import load_event
    from infx.workflow.posting import pulls_for_run_head, run_head

    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InfxError(Problem(f"cannot read the event payload: {getattr(exc, 'strerror', None) or exc}",
                                file=str(path),
                                fix="pass the webhook payload JSON file (--event or GITHUB_EVENT_PATH)")) from None
    if isinstance(payload, dict) and "workflow_run" in payload:
        run = load_event(path, "workflow_run").workflow_run
        if run is None or run.event != "pull_request":
            return []
        return pulls_for_run_head(client, repo, run_head(run))
    number = payload.get("number") if isinstance(payload, dict) else None
    if not isinstance(number, int) and isinstance(payload, dict):
        # a changed sign-off: an issue_comment on a PR, or a review or review comment
        issue = payload.get("issue")
        if isinstance(issue, dict) and not issue.get("pull_request"):
            return []  # a comment on a plain issue
        owner = payload.get("pull_request") or issue
        number = owner.get("number") if isinstance(owner, dict) else None
    if not isinstance(number, int):
        raise InfxError(Problem("the event names no pull request", file=str(path), key="number"))
    return [number]


def _recorder(state_file: str | None):
    """Overwrite the state file with the latest status, or None when no file was asked for."""
    if not state_file:
        return None

    def record(state: str, sha: str) -> None:
        Path(state_file).write_text(f"{state} {sha}\n", encoding="utf-8")

    return record


def _repo(repo: str | None, world_repo: str | None) -> str:
    chosen = repo or world_repo or os.environ.get("GITHUB_REPOSITORY")
    if not chosen:
        raise InfxError(Problem("the repository is unknown", key="--repo",
                                fix="pass --repo owner/name or set GITHUB_REPOSITORY"))
    return chosen
