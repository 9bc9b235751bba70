"""`infx reuse …`: resolve sweep reuse for a workflow event, acknowledge, retest and answer slash commands, parse them."""

from __future__ import annotations

import json
from pathlib import Path

import click

from infx.errors import InfxError, Problem
from infx.github.session import open_client, world_option
from infx.reuse.sources import DEFAULT_WORKFLOW, INCOMPATIBLE_LABELS


@click.group()
def reuse() -> None:
    """The slash commands: resolve and acknowledge reuse, retest, answer /help, parse."""


@reuse.command("resolve")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True, help="owner/name")
@click.option("--event-name", envvar="GITHUB_EVENT_NAME", required=True)
@click.option("--event-action", default="")
@click.option("--pr-number", type=int, default=None)
@click.option("--ref", default="")
@click.option("--commit-sha", default="")
@click.option("--before-sha", default="", help="a push's previous tip (plans the merge commit)")
@click.option("--workflow-id", default=DEFAULT_WORKFLOW, show_default=True)
@click.option("--reuse-incompatible-label", default=",".join(INCOMPATIBLE_LABELS), show_default=True,
              help="Comma-separated labels that make a PR ineligible for reuse.")
@click.option("--default-branch", default="main", show_default=True)
@click.option("--github-output", envvar="GITHUB_OUTPUT", default=None,
              type=click.Path(dir_okay=False, path_type=Path))
@world_option
def resolve_command(repo: str, event_name: str, event_action: str, pr_number: int | None, ref: str,
                    commit_sha: str, before_sha: str, workflow_id: str, reuse_incompatible_label: str,
                    default_branch: str, github_output: Path | None, world: Path | None) -> None:
    """Decide whether this event reuses an earlier sweep; write the reuse-* step outputs."""
    from infx.reuse.gateway import GitHubGateway
    from infx.reuse.resolver import ResolveRequest, resolve
    from infx.workflow.actions import append_summary, write_outputs

    request = ResolveRequest(
        event_name=event_name, event_action=event_action, pr_number=pr_number, ref=ref,
        commit_sha=commit_sha, before_sha=before_sha, workflow=workflow_id, default_branch=default_branch,
        incompatible_labels=tuple(x.strip() for x in reuse_incompatible_label.split(",") if x.strip()))
    try:
        with open_client(world) as client:
            result = resolve(GitHubGateway(client, repo), request)
    except InfxError as exc:  # fail closed: no outputs, the reason in the summary and on stderr
        append_summary("**Sweep reuse failed:** " + "; ".join(p.message for p in exc.problems))
        raise
    outputs = result.outputs()
    write_outputs(outputs, str(github_output) if github_output else None)
    append_summary(f"**Sweep reuse:** {result.reason}")
    click.echo(json.dumps(outputs, sort_keys=True))


@reuse.command("ack")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True, help="owner/name")
@click.option("--event-path", envvar="GITHUB_EVENT_PATH", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--workflow-id", default=DEFAULT_WORKFLOW, show_default=True)
@world_option
def ack_command(repo: str, event_path: Path, workflow_id: str, world: Path | None) -> None:
    """React 👍/👎 to a reuse command comment and say why in the step summary."""
    from infx.reuse.ack import acknowledge
    from infx.reuse.gateway import GitHubGateway

    outcome = _answer_comment(event_path, world, "Reuse acknowledgement", lambda client, event:
                              acknowledge(GitHubGateway(client, repo), event, workflow=workflow_id),
                              repo=repo, kind="reuse")
    click.echo(json.dumps({"reaction": outcome.reaction, "summary": outcome.summary}))


@reuse.command("retest")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True, help="owner/name")
@click.option("--event-path", envvar="GITHUB_EVENT_PATH", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--workflow-id", default=DEFAULT_WORKFLOW, show_default=True)
@world_option
def retest_command(repo: str, event_path: Path, workflow_id: str, world: Path | None) -> None:
    """`/retest-failed` or `/retest`: re-run the failed rows of the PR's latest sweep (triage or above)."""
    from infx.retest.failed import retest

    outcome = _answer_comment(event_path, world, "Retest", lambda client, event:
                              retest(client, repo, event, workflow=workflow_id), repo=repo, kind="retest")
    click.echo(json.dumps({"reaction": outcome.reaction, "run": outcome.run_id, "summary": outcome.summary}))


@reuse.command("answer")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True, help="owner/name")
@click.option("--event-path", envvar="GITHUB_EVENT_PATH", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path))
@world_option
def answer_command(repo: str, event_path: Path, world: Path | None) -> None:
    """Answer `/help` with the help comment and a near-miss of a command with 😕 and the suggestion."""
    from infx.commands.answer import answer

    outcome = _answer_comment(event_path, world, "Command answer", lambda client, event:
                              answer(client, repo, event))
    click.echo(json.dumps({"reaction": outcome.reaction, "help": outcome.help, "summary": outcome.summary}))


def _answer_comment(event_path: Path, world: Path | None, what: str, act, *, repo: str = "",
                    kind: str | None = None):
    """Answer one issue_comment event with `act(client, event)` and say what happened in the
    step summary (and, for a command `kind`, in its status comment on the PR: a 👎's reason
    there too). GitHub unreadable (or refusing) and a refused command both end in an error."""
    from infx.commands.status import post_status
    from infx.github.events import load_event
    from infx.reuse.ack import CommentEvent
    from infx.workflow.actions import append_summary

    event = CommentEvent.from_event(load_event(event_path, "issue_comment"))
    try:
        with open_client(world) as client:
            outcome = act(client, event)
            if kind is not None:
                post_status(client, repo, event.issue_number, kind, outcome.reaction, outcome.summary,
                            event.html_url)
    except InfxError as exc:  # GitHub could not be read or refused the write: no answer, say why
        append_summary(f"**{what} failed:** " + "; ".join(p.message for p in exc.problems))
        raise
    append_summary(outcome.summary)
    if getattr(outcome, "failed", False):
        raise InfxError(Problem(outcome.summary, key=f"comment {event.comment_id}"))
    return outcome


@reuse.command("parse")
@click.argument("body_file", type=click.File("r", encoding="utf-8"), default="-")
def parse_command_cli(body_file) -> None:
    """Print the command a comment body holds (the last valid line), as JSON."""
    from infx.commands.grammar import parse_command

    command = parse_command(body_file.read())
    click.echo(json.dumps(None if command is None else
                          {"command": command.name, "run_id": command.run_id}))


@reuse.command("publish")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True, help="owner/name")
@click.option("--run-ids", required=True, help="comma-separated ids of the runs whose results are published")
@click.option("--pr-number", type=int, default=None, help="the merged PR the runs belong to")
@click.option("--commit-sha", envvar="GITHUB_SHA", required=True, help="the merge commit on the default branch")
@world_option
def publish_command(repo: str, run_ids: str, pr_number: int | None, commit_sha: str, world: Path | None) -> None:
    """Hand a GPU-free merge's source runs to ingestion: a `repository_dispatch` event
    (`infx-sweep-results`) whose payload names the runs, the PR and the merge commit."""
    from infx.reuse.facts import PUBLISH_EVENT, publish_payload
    from infx.workflow.actions import append_summary

    payload = publish_payload(run_ids, pr_number, commit_sha, repo)
    with open_client(world) as client:
        client.repository_dispatch(repo, PUBLISH_EVENT, payload)
    runs = ", ".join(map(str, payload["run_ids"]))
    append_summary(f"**Published without a sweep:** {PUBLISH_EVENT} dispatched for run(s) {runs} "
                   f"of PR #{pr_number} at {commit_sha[:12]}.")
    click.echo(json.dumps({"event_type": PUBLISH_EVENT, "client_payload": payload}, sort_keys=True))


@reuse.command("incremental")
@click.option("--plan", "plan_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The plan `infx plan` wrote; rewritten with fingerprints, less the reused rows.")
@click.option("--base-ref", required=True, help="git ref of the PR's base (what the plan diffed against)")
@click.option("--head-ref", required=True, help="git commit the plan is for (the PR head, or the push)")
@click.option("--repo", envvar="GITHUB_REPOSITORY", default="", help="owner/name")
@click.option("--event-action", default="", help="only `synchronize` reuses earlier runs' rows")
@click.option("--pr-number", type=int, default=None)
@click.option("--run-id", envvar="GITHUB_RUN_ID", type=int, default=None, help="this run (never a source)")
@click.option("--workflow-id", default=DEFAULT_WORKFLOW, show_default=True)
@click.option("--reused-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the reused rows (job name -> source run id) as JSON.")
@world_option
def incremental_command(plan_path: Path, base_ref: str, head_ref: str, repo: str, event_action: str,
                        pr_number: int | None, run_id: int | None, workflow_id: str,
                        reused_out: Path | None, world: Path | None) -> None:
    """Fingerprint every planned row; on a PR push, drop the rows an earlier in-PR run ran green
    on identical content (the step summary lists them with their source run)."""
    from infx.changelog.gitio import read_tree
    from infx.plan.coverage import REUSED_ROWS, Coverage
    from infx.plan.fingerprint import annotate, content_of
    from infx.plan.incremental import summary, without
    from infx.plan.sweep_plan import Plan
    from infx.reuse.covering import coverage, wanted_rows
    from infx.reuse.gateway import GitHubGateway
    from infx.reuse.resolver import sweep_runs, tree_reader
    from infx.workflow.actions import append_summary, write_outputs

    plan = Plan.read(plan_path)
    # whole trees: what a sweep job executes may lie anywhere (benchmark_content.executed_paths)
    head, base = read_tree(head_ref), read_tree(base_ref)
    for ref, tree in ((head_ref, head), (base_ref, base)):
        if tree is None:
            raise InfxError(Problem(f"commit {ref} is not in this checkout", key="--head-ref",
                                    fix="check out with fetch-depth: 0"))
    content = content_of(head, base)
    plan = annotate(plan, content)
    cov, urls, note = Coverage(), {}, ""
    if event_action == "synchronize" and pr_number is not None and repo:
        wanted = wanted_rows(plan, content)
        try:
            with open_client(world) as client:
                gateway = GitHubGateway(client, repo)
                pull = gateway.pull(pr_number)
                # a commit a rebase removed from the PR may be missing from the checkout
                remote = tree_reader(gateway)

                def tree(sha: str) -> dict[str, str | None] | None:
                    return read_tree(sha) or remote(sha)

                runs = sweep_runs(gateway, pull, gateway.pull_commits(pr_number), workflow=workflow_id,
                                  exclude=(run_id,) if run_id else (), wanted=wanted, tree=tree,
                                  base=base)
                cov, rows = coverage(wanted, runs, jobs_of=gateway.run_jobs, tree=tree, base=base)
                urls = {r.run_id: r.url for r in rows}
        except InfxError as exc:  # reuse is an optimisation: when runs cannot be read, sweep all
            cov, note = Coverage(), ("**Incremental re-sweep off:** earlier runs could not be read ("
                                     + "; ".join(p.message for p in exc.problems) + "); every row runs.\n")
        plan = without(plan, set(cov.reused))
        # the run's changelog-metadata artifact says which rows it took from earlier runs: a run
        # that reused rows is never a whole sweep on its own (the sign-off reads it)
        plan = plan.with_metadata(REUSED_ROWS, dict(sorted(cov.reused.items())))
    planned = len(plan.rows())
    plan_path.write_text(plan.dump() + "\n", encoding="utf-8")
    if reused_out is not None:
        reused_out.write_text(json.dumps(cov.reused, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    write_outputs({"reused-rows": str(len(cov.reused)),
                   "reused-runs": ",".join(map(str, cov.runs()))})
    append_summary(note + summary(cov, planned, urls))
    click.echo(json.dumps({"planned": planned, "reused": len(cov.reused), "runs": cov.runs()}))
