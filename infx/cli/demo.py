"""`infx demo`: plan a bundled PR against our configs and replay its bots on the fake GitHub server."""

from __future__ import annotations

import copy
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from infx.errors import InfxError, Problem
from infx.plan.labels import sweep_flags
from infx.plan.planner import PlanFlags, build_plan, file_sources, parse_additions
from infx.plan.summary import summary_markdown
from infx.reuse.ack import CommentEvent, acknowledge, looks_like_command
from infx.reuse.gateway import GitHubGateway
from infx.signoff import pipeline as publish
from infx.signoff.trigger import gating
from infx.workflow.posting import post_results_link, post_welcome
from infx.workflow.shard import shard_outputs
from infx.workflow.shard_summary import shard_summary

# Package data (infx/cli/demodata/), so the demo runs from a plain install too. In the source tree
# the configs and the sign-off world are links to configs/ and tests/data/worlds/; a wheel
# carries copies of them.
DEFAULT_DATA = Path(__file__).resolve().parent / "demodata"
DEFAULT_CONFIGS = DEFAULT_DATA / "amd-master.yaml"
DEFAULT_RUNNERS = DEFAULT_DATA / "runners.yaml"
# A real reviewed PR rebuilt as a world, twice: before the owner's second sign-off (the stale
# checklist 2003 alone is REJECTED) and after it (the current one, 2004, PASSES).
DEFAULT_SIGNOFF_WORLD = DEFAULT_DATA / "signoff_seed003.yaml"
DEFAULT_STALE_WORLD = DEFAULT_DATA / "signoff_seed003_stale.yaml"
SIGNOFF_PR, STALE_SIGNOFF, CURRENT_SIGNOFF = 1902, 2003, 2004
PR_NUMBER = 42
EVENTS = "comment-{id}.json"  # the issue_comment payload of each command comment of the PR


def shown(path: Path) -> str:
    """A path as a command line should name it: relative to the working folder when inside it."""
    try:
        text = str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        text = str(path.absolute())
    return shlex.quote(text)


def _reproduce(echo: Callable[[str], None], lines: list[str], where: str = "") -> None:
    """The command lines that reproduce a step, each on its own '  $ ' line."""
    echo(f"reproduce{f' ({where})' if where else ''}:")
    for line in lines:
        echo("  $ " + line)


def _section(echo: Callable[[str], None], title: str) -> None:
    echo("")
    echo(f"== {title} " + "=" * max(0, 70 - len(title)))


def _load_world(path: Path) -> dict:
    from infx.github.fake.world import load_world

    return load_world(path)


def _pr(world: dict) -> dict:
    return next(p for p in world["pulls"] if p["number"] == PR_NUMBER)


def plan_step(entry_file: Path, configs: Path, runners: Path, labels: list[str],
              echo: Callable[[str], None]) -> dict | None:
    """Plan the bundled changelog entry in-process; a planner error is shown as the author sees it."""

    _require_files(entry_file, configs, runners)
    try:
        flags = sweep_flags(labels)
        entries = parse_additions(entry_file.read_text(encoding="utf-8"), str(entry_file))
        sources = file_sources([str(configs)], str(runners))
        plan = build_plan(entries, base_ref="demo-base", head_ref="demo-head",
                          flags=PlanFlags(trim=flags.trim_conc, all_evals=flags.all_evals,
                                          evals_only=flags.evals_only), sources=sources)
        shards = shard_outputs(plan)
        counts = summary_markdown(plan, sources.get("configs"))
    except InfxError as exc:
        echo("plan failed (this is what the PR author would see):")
        for problem in exc.problems:
            echo(f"  {problem}")
        return None
    echo(f"labels: {', '.join(labels) or '(none)'}")
    echo(counts.rstrip())
    echo("")
    echo(shard_summary(shards["matrix"]).rstrip())
    echo("")
    echo(f"matrix jobs that would start: {', '.join('sweep-' + s for s in shards['shards']) or 'none'}")
    echo("")
    _reproduce(echo, plan_commands(entry_file, configs, runners, flags),
               "in a clone of the repository, on a scratch branch")
    return plan


def plan_commands(entry_file: Path, configs: Path, runners: Path, flags: Any) -> list[str]:
    """Append the entry in a commit, plan it against the commit before, split it into jobs."""
    options = [name for name, on in (("--trim-conc", flags.trim_conc), ("--all-evals", flags.all_evals),
                                      ("--evals-only", flags.evals_only)) if on]
    if (configs, runners) != (DEFAULT_CONFIGS, DEFAULT_RUNNERS):
        options += ["--config-files", shown(configs), "--runner-config", shown(runners)]
    return [f"{{ echo; cat {shown(entry_file)}; }} >> perf-changelog.yaml",
            "git commit -qam 'Append the demo entry'",
            " ".join(["infx plan --base-ref HEAD~1 --head-ref HEAD", *options,
                      "--summary > plan.json"]),
            "infx workflow shard --plan plan.json"]


def _require_files(*paths: Path) -> None:
    missing = [Problem("demo input is missing", file=str(p), fix="run from a checkout of infx, "
                       "or point --data/--configs/--runners at existing files")
               for p in paths if not p.is_file()]
    if missing:
        raise InfxError(missing)


def _snapshot(world: dict) -> dict[int, dict]:
    return {c["id"]: copy.deepcopy(c) for c in _pr(world)["comments"]}


def _first_lines(body: str, count: int = 4) -> str:
    lines = body.splitlines()
    shown = "\n".join("    " + line for line in lines[:count])
    return shown + (f"\n    … ({len(lines) - count} more lines)" if len(lines) > count else "")


def replay_step(world: dict, echo: Callable[[str], None], world_path: Path | None = None) -> dict:
    """Post the welcome and results-link comments and acknowledge reuse commands on the fake
    server; with the world's file, also the commands that replay each post on their own."""
    from infx.github.fake import FakeGitHub

    repo = world["repo"]
    before = _snapshot(world)
    on_world = f"--world {shown(world_path)} --repo {shlex.quote(repo)}" if world_path else ""
    commands = [f"infx workflow welcome {on_world} --pr {PR_NUMBER}"]
    with FakeGitHub(world) as fake:
        client = fake.client()
        welcome = post_welcome(client, repo, PR_NUMBER)
        echo(f"welcome comment: {welcome.action}")
        green = [r for r in fake.world["workflow_runs"] if r.get("conclusion") == "success"]
        if green:
            run_id = max(r["id"] for r in green)
            echo(f"results-link comment for run {run_id}: {post_results_link(client, repo, PR_NUMBER, run_id)}")
            commands.append(f"infx workflow results-link {on_world} --pr {PR_NUMBER} --run-id {run_id}")
        gateway = GitHubGateway(client, repo)
        for comment in sorted(before.values(), key=lambda c: c["created_at"]):
            if not looks_like_command(comment["body"]):
                continue
            event = CommentEvent.of("created", PR_NUMBER, True, comment["id"], comment["body"],
                                 comment["updated_at"])
            outcome = acknowledge(gateway, event)
            echo(f"comment {comment['id']} by {comment['user']} ({comment['author_association']}): "
                 f"{outcome.reaction or 'no reaction'} — {outcome.summary}")
            payload = world_path.parent / EVENTS.format(id=comment["id"]) if world_path else None
            if payload is not None and payload.is_file():
                refused = "  # a refused command fails its job: exit 1" if outcome.reaction == "-1" else ""
                commands.append(f"infx reuse ack {on_world} --event-path {shown(payload)}{refused}")
        after = copy.deepcopy(fake.world)
        requests = len(fake.requests)
    _section(echo, "What the bots posted")
    for cid, comment in sorted(_snapshot(after).items()):
        if cid not in before:
            echo(f"new comment {cid} by {comment['user']}:")
            echo(_first_lines(comment["body"]))
        added = [r for r in comment.get("reactions", []) if r not in before.get(cid, {}).get("reactions", [])]
        for reaction in added:
            echo(f"reaction {reaction['content']} by {reaction['user']} on comment {cid}")
    echo(f"({requests} API requests served by the fake GitHub server)")
    if world_path is not None:
        echo("")
        _reproduce(echo, commands, "each command on the unchanged world")
    return after


def signoff_step(stale_world: Path, world: Path, echo: Callable[[str], None]) -> None:
    """Verify the two sign-offs of a real reviewed PR, each on the world as it stood when it was
    posted (the stale checklist alone; then the current one after it), and show the PR's sweep
    report; every step also as the command that replays it."""
    _require_files(stale_world, world)
    commands = []
    for path, comment_id in ((stale_world, STALE_SIGNOFF), (world, CURRENT_SIGNOFF)):
        _verify(path, comment_id, echo)
        commands.append(f"infx signoff verify --world {shown(path)} --pr {SIGNOFF_PR} "
                        f"--comment-id {comment_id}")
    commands.append(_report(world, echo))
    echo("")
    _reproduce(echo, commands)


def _verify(world_path: Path, comment_id: int, echo: Callable[[str], None]) -> None:
    from datetime import datetime

    from infx.github.fake import FakeGitHub

    with FakeGitHub(world_path) as fake:
        now = datetime.fromisoformat(str(fake.world["now"]).replace("Z", "+00:00"))
        trigger = gating.Trigger(True, "manual", SIGNOFF_PR,
                                 gating.SignoffRef("issue_comment", comment_id))
        result = publish.verify(fake.client(), fake.world["repo"], trigger, publish.Options(now=now))
        echo(f"sign-off comment {comment_id} ({world_path.name}): status {result.status} — "
             f"{result.reason} ({result.api_calls} API calls)")
        for line in (result.body or "").splitlines():
            if line.startswith(("## ", "❌", "⚠️")):
                echo("    " + line)
        head = next(p for p in fake.world["pulls"] if p["number"] == SIGNOFF_PR)["head"]["sha"]
        states = [s["state"] for s in fake.world["statuses"].get(head, [])
                  if s["context"] == "codeowner-signoff-verify"]
        echo("    commit statuses set: " + " → ".join(states))


def _report(world_path: Path, echo: Callable[[str], None]) -> str:
    """The PR's sweep report comment for its newest sweep run: its per-key table; the command."""
    from infx.github.fake import FakeGitHub
    from infx.report.publish import post_report, read_report, report_body

    with FakeGitHub(world_path) as fake:
        repo = fake.world["repo"]
        run = max((r for r in fake.world["workflow_runs"]
                   if r.get("path", "").endswith("run-sweep.yml")), key=lambda r: r["created_at"])
        data = read_report(fake.client(), repo, SIGNOFF_PR, run["id"], run.get("run_attempt", 1),
                           run["head_sha"], results=None, evals=None, reused=None)
        action = post_report(fake.client(), repo, data)
    body = report_body(data).splitlines()
    echo(f"sweep report comment for run {run['id']}: {action}")
    table = body.index("### Jobs per config key") if "### Jobs per config key" in body else None
    if table is not None:
        rows = body[table + 2:]
        echo("\n".join("    " + line for line in rows[:rows.index("") if "" in rows else None]))
    return (f"infx signoff report --world {shown(world_path)} --repo {shlex.quote(repo)} "
            f"--pr {SIGNOFF_PR} --run-id {run['id']} --head-sha {run['head_sha']} --format markdown")


@click.command()
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_DATA,
              show_default=True, help="Folder with pr-entry.yaml and world.yaml.")
@click.option("--configs", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_CONFIGS,
              show_default=True)
@click.option("--runners", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_RUNNERS,
              show_default=True)
@click.option("--signoff-world", type=click.Path(dir_okay=False, path_type=Path),
              default=DEFAULT_SIGNOFF_WORLD, show_default=True,
              help=f"World with PR #{SIGNOFF_PR}, its sweep and sign-off comment {CURRENT_SIGNOFF}.")
@click.option("--stale-signoff-world", type=click.Path(dir_okay=False, path_type=Path),
              default=DEFAULT_STALE_WORLD, show_default=True,
              help=f"PR #{SIGNOFF_PR} before comment {CURRENT_SIGNOFF}: the stale sign-off "
                   f"{STALE_SIGNOFF} alone.")
def demo(data_dir: Path, configs: Path, runners: Path, signoff_world: Path,
         stale_signoff_world: Path) -> None:
    """Plan a bundled example PR and replay the PR bots on a local fake GitHub (no network)."""
    echo = click.echo
    world_path = data_dir / "world.yaml"
    # every input checked before the first line is printed: a failing demo prints nothing
    _require_files(world_path, data_dir / "pr-entry.yaml", configs, runners, signoff_world,
                   stale_signoff_world)
    world = _load_world(world_path)
    labels: list[Any] = list(_pr(world).get("labels", []))
    _section(echo, "1. Plan the PR's changelog entry")
    plan_step(data_dir / "pr-entry.yaml", configs, runners, labels, echo)
    _section(echo, "2. Replay the PR bots on the fake GitHub server")
    replay_step(world, echo, world_path)
    _section(echo, "3. Verify CODEOWNER sign-offs of a real PR (rebuilt as a world)")
    signoff_step(stale_signoff_world, signoff_world, echo)
