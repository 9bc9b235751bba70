"""`python -m infx.workflow …`: the small steps run-sweep.yml and friends call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click

from infx.changelog.gitio import git_message
from infx.errors import InfxError, Problem, report
from infx.github.session import open_client, world_option


def _load_json(text: str, what: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InfxError(Problem(f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, "
                                f"column {exc.colno}", key=what,
                                fix=f"pass {what} as JSON text (the step's output, unchanged)")) from None


def _commit_message(sha: str) -> str:
    result = subprocess.run(["git", "log", "-1", "--format=%B", sha, "--"],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise InfxError(Problem(f"cannot read the commit message of {sha}: {git_message(result.stderr)}",
                                key="HEAD_SHA", fix="check out the PR head with full history"))
    return result.stdout


@click.group()
def workflow() -> None:
    """Steps used by the GitHub workflows (also runnable locally)."""


@workflow.command("labels")
@click.option("--labels-json", envvar="LABELS_JSON", required=True,
              help="JSON list of the PR's label names (env LABELS_JSON).")
@click.option("--head-sha", envvar="HEAD_SHA", default="",
              help="PR head commit; its message is checked for [skip-sweep] (env HEAD_SHA).")
@click.option("--commit-message", default=None, help="Use this message instead of reading git.")
def labels_command(labels_json: str, head_sha: str, commit_message: str | None) -> None:
    """Check the sweep labels and write the sweep flags as step outputs."""
    from infx.plan.labels import has_skip_sweep, sweep_flags
    from infx.workflow.actions import write_outputs

    labels = _load_json(labels_json, "LABELS_JSON")
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise InfxError(Problem("LABELS_JSON must be a JSON list of strings", key="LABELS_JSON"))
    flags = sweep_flags(labels)
    message = commit_message if commit_message is not None else (
        _commit_message(head_sha) if head_sha else "")
    outputs = flags.outputs() | {"skip-pr-sweep": "true" if has_skip_sweep(message) else "false"}
    write_outputs(outputs)
    click.echo(json.dumps(outputs, sort_keys=True))


@workflow.command("shard")
@click.option("--plan", "plan_path", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--metadata-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the plan's changelog_metadata to this file.")
@click.option("--runner-config", default="configs/runners.yaml", show_default=True,
              help="Runner labels; every runner of a planned label needs a launcher.")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              help="Repository root holding runners/launch_<name>.sh.")
@click.option("--canary", envvar="CANARY", type=click.Choice(["true", "false", ""]), default="",
              help="true: take the canary row out of the plan into the `canary` output (env CANARY).")
def shard_command(plan_path: Path, metadata_out: Path | None, runner_config: str, root: Path,
                  canary: str) -> None:
    """Split a plan into ≤256-job shards named by row identity (the canary row, if asked for, in
    its own output); every planned runner must have a launcher; write the outputs and a summary."""
    from infx.config.runners import load_runners
    from infx.plan.sweep_plan import Plan
    from infx.workflow.actions import append_summary, compact_json, write_outputs
    from infx.workflow.canary import outputs as canary_outputs
    from infx.workflow.launch import launcher_problems
    from infx.workflow.shard_summary import shard_summary

    plan = Plan.read(plan_path)
    outputs, duplicates = canary_outputs(plan, canary == "true")
    rows = [row for shard in outputs["matrix"].values() for row in shard] + outputs["canary"]
    problems = launcher_problems(rows, load_runners(root / runner_config), root, runner_config)
    errors = [problem for problem in problems if problem.level == "error"]
    if errors:
        raise InfxError(errors)
    report([problem for problem in problems if problem.level == "warning"])
    write_outputs(outputs)
    if metadata_out is not None:
        metadata = plan.metadata or {}
        metadata_out.write_text(json.dumps(metadata, indent=1) + "\n", encoding="utf-8")
    summary = shard_summary(outputs["matrix"], duplicates, outputs["canary"])
    if not append_summary(summary):
        click.echo(summary, err=True)
    click.echo(compact_json({"shards": outputs["shards"], "jobs": outputs["jobs"],
                             "canary": [row["job-name"] for row in outputs["canary"]]}))


def _labels_arg(text: str) -> list[str]:
    """LABELS_JSON as a list of names; `null` (a push has no PR labels) is no labels."""
    labels = _load_json(text or "[]", "LABELS_JSON")
    if labels is None:
        return []
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise InfxError(Problem("LABELS_JSON must be a JSON list of strings", key="LABELS_JSON"))
    return labels


def _actor_elevated(repo: str, actor: str, world: Path | None) -> tuple[bool, str]:
    """(maintain or admin?, what the summary says) for the actor of the run; fail closed."""
    from infx.commands.authorization import Authority, is_bot

    if not actor or is_bot(actor):
        return False, f"the run's actor {actor or '(unknown)'} is not a person"
    if not repo:
        return False, "GITHUB_REPOSITORY is not set"
    try:
        with open_client(world) as client:
            authority = Authority.of(client.collaborator_permission(repo, actor))
    except InfxError as exc:
        return False, f"{actor}'s permission could not be read ({exc.problems[0].message})"
    return authority.elevated, f"{actor} has the role {authority.role_name}"


@workflow.command("annotate")
@click.option("--plan", "plan_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The plan `infx plan` wrote; rewritten with the annotations.")
@click.option("--event-name", envvar="EVENT_NAME", default="", help="github.event_name (env EVENT_NAME).")
@click.option("--labels-json", envvar="LABELS_JSON", default="[]", help="The PR's label names (env LABELS_JSON).")
@click.option("--pr-number", envvar="PR_NUMBER", default="", help="The PR (env PR_NUMBER; empty on a push).")
@click.option("--actor", envvar="ACTOR", default="", help="github.triggering_actor (env ACTOR).")
@click.option("--agentx-fast", envvar="AGENTX_FAST", type=click.Choice(["true", "false", ""]), default="",
              help="true: AgentX throughput rows run the short profile (env AGENTX_FAST).")
@click.option("--policy-ref", envvar="POLICY_REF", default="",
              help="git ref whose configs/ci-priority.yaml scores the rows (a PR's base, never its head); "
                   "default: the file in the working tree.")
@click.option("--run-id", envvar="GITHUB_RUN_ID", default="local")
@click.option("--run-attempt", envvar="GITHUB_RUN_ATTEMPT", default="1")
@click.option("--repo", envvar="GITHUB_REPOSITORY", default="", help="owner/name")
@world_option
def annotate_command(plan_path: Path, event_name: str, labels_json: str, pr_number: str, actor: str,
                     agentx_fast: str, policy_ref: str, run_id: str, run_attempt: str, repo: str,
                     world: Path | None) -> None:
    """After planning: mark agentx-fast rows, then give every row its queue priority and queue
    token (and skip-queue-pr when a maintainer's run honours the skip_queue label)."""
    from infx.changelog.gitio import show_file
    from infx.config.ci_priority import POLICY_PATH, load_priority_policy
    from infx.plan.agentx_fast import mark_fast
    from infx.plan.priority import (
        PriorityContext,
        annotate,
        honoured_skip_queue,
        skip_queue_requested,
    )
    from infx.plan.sweep_plan import Plan
    from infx.workflow.actions import append_summary

    plan = Plan.read(plan_path)
    labels = _labels_arg(labels_json)
    if policy_ref:
        try:
            text: str | None = show_file(policy_ref, POLICY_PATH).decode("utf-8")
        except (InfxError, UnicodeDecodeError):
            text = None
        where = f"{policy_ref}:{POLICY_PATH}"
    else:
        path = Path(POLICY_PATH)
        text, where = (path.read_text(encoding="utf-8") if path.is_file() else None), POLICY_PATH
    policy = load_priority_policy(text, where)
    number = int(pr_number) if pr_number.strip().isdigit() else None
    note = ""
    elevated = False
    if event_name == "pull_request" and number is not None and skip_queue_requested(policy, labels):
        elevated, why = _actor_elevated(repo, actor, world)
        note = (f"`{policy.skip_queue_label}`: honoured ({why})" if elevated else
                f"`{policy.skip_queue_label}`: ignored, it needs a run by a maintain or admin user ({why})")
    if agentx_fast == "true":
        plan = mark_fast(plan)
    context = PriorityContext(event_name, frozenset(labels), f"{run_id}:{run_attempt}",
                              honoured_skip_queue(policy, labels, event_name, number, elevated))
    plan = plan.map_rows(lambda row, place: annotate(row, policy, context, place.path))
    plan_path.write_text(plan.dump() + "\n", encoding="utf-8")
    scores = sorted({row["priority"] for row in plan.rows() if "priority" in row}, key=float)
    lines = [f"**Queue priority** ({where}): " + (", ".join(f"`{s}`" for s in scores) or "no rows")]
    if agentx_fast == "true":
        lines.append("`agentx-fast`: AgentX throughput rows run the short profile (not reuse-eligible)")
    if note:
        lines.append(note)
    summary = "\n\n".join(lines) + "\n"
    if not append_summary(summary):
        click.echo(summary, err=True)


@workflow.command("row-info")
@click.option("--config-json", envvar="CONFIG_JSON", required=True)
@click.option("--runner-name", envvar="RUNNER_NAME", required=True)
def row_info_command(config_json: str, runner_name: str) -> None:
    """Write the result and artifact names of one matrix row."""
    from infx.workflow.actions import write_outputs
    from infx.workflow.launch import artifact_prefix, check_job_name, result_name, row_env

    row = _load_json(config_json, "CONFIG_JSON")
    row_env(row)  # validates the row before anything runs
    check_job_name(row)
    name = result_name(row, runner_name)
    outputs = {"result-name": name, "artifact-name": artifact_prefix(row) + name}
    write_outputs(outputs)
    click.echo(json.dumps(outputs))


@workflow.command("launch")
@click.option("--config-json", envvar="CONFIG_JSON", required=True)
@click.option("--runner-name", envvar="RUNNER_NAME", required=True)
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."))
@click.option("--results-dir", envvar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Where the normalised results go (env RESULTS_DIR; default ROOT/results).")
def launch_command(config_json: str, runner_name: str, root: Path, results_dir: Path | None) -> None:
    """Run runners/launch_<prefix>.sh with the row's fields as environment variables, then
    normalise its raw output into RESULTS_DIR (the job's artifact)."""
    from infx.workflow.launch import check_job_name, finish, run_launch

    row = _load_json(config_json, "CONFIG_JSON")
    check_job_name(row)
    results = results_dir if results_dir is None or results_dir.is_absolute() else root / results_dir
    results = results if results is not None else root / "results"
    code = run_launch(row, runner_name, root, os.environ, results)
    if code != 0:
        raise InfxError(Problem(f"launch script exited with status {code}", key=runner_name))
    for path in finish(row, runner_name, results):
        click.echo(str(path))


@workflow.command("collect")
@click.option("--kind", type=click.Choice(["benchmark", "eval"]), required=True,
              help="benchmark: bmk_* artifacts (normalised rows); eval: eval_* artifacts (lm-eval files).")
@click.option("--input", "input_dir", type=click.Path(path_type=Path), required=True,
              help="Folder with one sub-folder per downloaded artifact.")
@click.option("--output", "output_file", type=click.Path(dir_okay=False, path_type=Path), required=True)
def collect_command(kind: str, input_dir: Path, output_file: Path) -> None:
    """Aggregate the jobs' result artifacts into one JSON array of schema rows, with a one-line-per-row
    step summary; a missing or empty input or anything that is not a row is an error."""
    from infx.workflow.actions import append_summary
    from infx.workflow.collect import collect, summary

    rows = collect(input_dir, kind)
    output_file.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    text = summary(rows, kind)
    if not append_summary(text):
        click.echo(text, err=True)
    click.echo(f"collected {len(rows)} {kind} row(s) into {output_file}", err=True)


@workflow.command("welcome")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True)
@click.option("--pr", "pr_number", type=int, required=True)
@click.option("--default-branch", default="main", show_default=True)
@world_option
def welcome_command(repo: str, pr_number: int, default_branch: str, world: Path | None) -> None:
    """Create or refresh the PR's welcome comment (one per PR, found by its marker)."""
    from infx.workflow.posting import post_welcome

    with open_client(world) as client:
        result = post_welcome(client, repo, pr_number, default_branch)
    click.echo(json.dumps({"action": result.action, "comment_id": result.comment.id}))


@workflow.command("welcome-from-run")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True)
@click.option("--event-path", envvar="GITHUB_EVENT_PATH", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The workflow_run event of the finished `PR welcome` run (env GITHUB_EVENT_PATH).")
@world_option
def welcome_from_run_command(repo: str, event_path: Path, world: Path | None) -> None:
    """Welcome the fork PR a finished `PR welcome` run belongs to (forks' own runs cannot write)."""
    from infx.github.events import load_event
    from infx.workflow.actions import append_summary
    from infx.workflow.posting import post_welcome, pulls_for_run_head, run_head

    event = load_event(event_path, "workflow_run")
    run = event.workflow_run
    if run is None or run.event != "pull_request":
        kind = run.event if run is not None else "no run"
        click.echo(json.dumps({"pulls": [], "reason": f"triggered by {kind}, not pull_request"}))
        return
    head = run_head(run)
    with open_client(world) as client:
        numbers = pulls_for_run_head(client, repo, head)
        actions = {n: post_welcome(client, repo, n, event.repository.default_branch).action for n in numbers}
    if numbers:
        append_summary("Welcome comment: " + ", ".join(f"#{n} {a}" for n, a in actions.items()))
    else:
        append_summary(f"No open pull request has head {head.repo}:{head.branch}; nothing to welcome.")
    click.echo(json.dumps({"pulls": numbers, "actions": [actions[n] for n in numbers]}))


@workflow.command("results-link")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True)
@click.option("--pr", "pr_number", type=int, required=True)
@click.option("--run-id", type=int, required=True)
@world_option
def results_link_command(repo: str, pr_number: int, run_id: int, world: Path | None) -> None:
    """Point the PR's results-link comment at this run, unless it already shows a newer one."""
    from infx.workflow.posting import post_results_link

    with open_client(world) as client:
        action = post_results_link(client, repo, pr_number, run_id)
    click.echo(json.dumps({"action": action}))


@workflow.command("fork-approve")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True)
@click.option("--event-path", envvar="GITHUB_EVENT_PATH", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The issue_comment event (env GITHUB_EVENT_PATH).")
@world_option
def fork_approve_command(repo: str, event_path: Path, world: Path | None) -> None:
    """`/approve-sweep <sha>`: a maintainer approves a fork PR's exact head; dispatch its sweep."""
    from infx.github.events import load_event
    from infx.reuse.ack import CommentEvent
    from infx.workflow.actions import append_summary
    from infx.workflow.fork_sweep import approve

    event = CommentEvent.from_event(load_event(event_path, "issue_comment"))
    with open_client(world) as client:
        outcome = approve(client, repo, event)
    append_summary(outcome.summary)
    click.echo(json.dumps({"reaction": outcome.reaction, "dispatched": outcome.dispatched,
                           "summary": outcome.summary}))
    if outcome.failed:
        raise InfxError(Problem(outcome.summary, key=f"comment {event.comment_id}"))


@workflow.command("fork-gate")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True)
@click.option("--pr", "pr_number", envvar="PR_NUMBER", type=int, required=True,
              help="The dispatch's pr-number input (env PR_NUMBER).")
@click.option("--head-sha", envvar="HEAD_SHA", required=True, help="The dispatch's head-sha input (env HEAD_SHA).")
@world_option
def fork_gate_command(repo: str, pr_number: int, head_sha: str, world: Path | None) -> None:
    """A fork sweep's first step: a maintainer's approval must hold for exactly this head."""
    from infx.workflow.actions import append_summary, write_outputs
    from infx.workflow.fork_sweep import gate

    try:
        with open_client(world) as client:
            outputs = gate(client, repo, pr_number, head_sha)
    except InfxError as exc:
        append_summary("**Fork sweep refused:** " + "; ".join(p.message for p in exc.problems))
        raise
    write_outputs(outputs)
    append_summary(f"Fork sweep of PR #{pr_number} at `{outputs['head-sha']}`, approved by "
                   f"`{outputs['approver']}`.")
    click.echo(json.dumps(outputs, sort_keys=True))


@workflow.command("fork-drop")
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True)
@click.option("--event-path", envvar="GITHUB_EVENT_PATH", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The workflow_run event of the finished `Fork PR push` run (env GITHUB_EVENT_PATH).")
@world_option
def fork_drop_command(repo: str, event_path: Path, world: Path | None) -> None:
    """After a push to a fork PR: drop an approval of an earlier head (labels off, one note)."""
    from infx.github.events import load_event
    from infx.workflow.actions import append_summary
    from infx.workflow.fork_sweep import drop
    from infx.workflow.posting import pulls_for_run_head, run_head

    run = load_event(event_path, "workflow_run").workflow_run
    if run is None or run.event != "pull_request":
        kind = run.event if run is not None else "no run"
        click.echo(json.dumps({"pulls": [], "reason": f"triggered by {kind}, not pull_request"}))
        return
    head = run_head(run)  # the fork's run is data: validated, then only used to find the PR here
    with open_client(world) as client:
        outcomes = {n: drop(client, repo, n) for n in pulls_for_run_head(client, repo, head)}
    for outcome in outcomes.values():
        append_summary(outcome.summary)
    if not outcomes:
        append_summary(f"No open pull request has head {head.repo}:{head.branch}; nothing to drop.")
    click.echo(json.dumps({"pulls": sorted(outcomes), "summaries": [o.summary for o in outcomes.values()]}))


def main(argv: list[str] | None = None) -> int:
    """Run the group with infx's error reporting (located errors, exit 1, nothing on stdout)."""
    from infx.cli import run

    return run(workflow, argv, "python -m infx.workflow")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
