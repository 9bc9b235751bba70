"""`infx demo`: plan a bundled PR against our configs and replay its bots on the fake GitHub server."""

from __future__ import annotations

import copy
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
# A real reviewed PR rebuilt as a world: a stale checklist is REJECTED, the current one PASSES.
DEFAULT_SIGNOFF_WORLD = DEFAULT_DATA / "signoff_seed003.yaml"
SIGNOFF_PR, SIGNOFF_COMMENTS = 1902, (2003, 2004)
PR_NUMBER = 42


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
    return plan


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


def replay_step(world: dict, echo: Callable[[str], None]) -> dict:
    """Post the welcome and results-link comments and acknowledge reuse commands on the fake server."""
    from infx.github.fake import FakeGitHub

    repo = world["repo"]
    before = _snapshot(world)
    with FakeGitHub(world) as fake:
        client = fake.client()
        welcome = post_welcome(client, repo, PR_NUMBER)
        echo(f"welcome comment: {welcome.action}")
        green = [r for r in fake.world["workflow_runs"] if r.get("conclusion") == "success"]
        if green:
            run_id = max(r["id"] for r in green)
            echo(f"results-link comment for run {run_id}: {post_results_link(client, repo, PR_NUMBER, run_id)}")
        gateway = GitHubGateway(client, repo)
        for comment in sorted(before.values(), key=lambda c: c["created_at"]):
            if not looks_like_command(comment["body"]):
                continue
            event = CommentEvent("created", PR_NUMBER, True, comment["id"], comment["body"],
                                 comment["updated_at"])
            outcome = acknowledge(gateway, event)
            echo(f"comment {comment['id']} by {comment['user']} ({comment['author_association']}): "
                 f"{outcome.reaction or 'no reaction'} — {outcome.summary}")
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
    return after


def signoff_step(world_path: Path, echo: Callable[[str], None]) -> None:
    """Verify two sign-offs of a real reviewed PR: a stale checklist, then the current one."""
    from datetime import datetime

    from infx.github.fake import FakeGitHub

    _require_files(world_path)
    with FakeGitHub(world_path) as fake:
        now = datetime.fromisoformat(str(fake.world["now"]).replace("Z", "+00:00"))
        # replayed as it happened: each sign-off is verified before the next one is posted
        # (a verification never overrides a newer owner's sign-off)
        conversation = next(p for p in fake.world["pulls"] if p["number"] == SIGNOFF_PR)["comments"]
        later = [c for c in conversation if c["id"] in SIGNOFF_COMMENTS[1:]]
        conversation[:] = [c for c in conversation if c not in later]
        for comment_id in SIGNOFF_COMMENTS:
            conversation.extend(c for c in later if c["id"] == comment_id)
            trigger = gating.Trigger(True, "manual", SIGNOFF_PR,
                                     gating.SignoffRef("issue_comment", comment_id))
            result = publish.verify(fake.client(), fake.world["repo"], trigger,
                                    publish.Options(now=now))
            echo(f"sign-off comment {comment_id}: status {result.status} — {result.reason} "
                 f"({result.api_calls} API calls)")
            for line in (result.body or "").splitlines():
                if line.startswith(("## ", "❌", "⚠️")):
                    echo("    " + line)
        statuses = fake.world["statuses"].get(fake.world["pulls"][0]["head"]["sha"], [])
        echo("commit statuses set: " + " → ".join(s["state"] for s in statuses
                                                  if s["context"] == "codeowner-signoff-verify"))


@click.command()
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_DATA,
              show_default=True, help="Folder with pr-entry.yaml and world.yaml.")
@click.option("--configs", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_CONFIGS,
              show_default=True)
@click.option("--runners", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_RUNNERS,
              show_default=True)
@click.option("--signoff-world", type=click.Path(dir_okay=False, path_type=Path),
              default=DEFAULT_SIGNOFF_WORLD, show_default=True,
              help=f"World with PR #{SIGNOFF_PR} and sign-off comments {SIGNOFF_COMMENTS}.")
def demo(data_dir: Path, configs: Path, runners: Path, signoff_world: Path) -> None:
    """Plan a bundled example PR and replay the PR bots on a local fake GitHub (no network)."""
    echo = click.echo
    world_path = data_dir / "world.yaml"
    # every input checked before the first line is printed: a failing demo prints nothing
    _require_files(world_path, data_dir / "pr-entry.yaml", configs, runners, signoff_world)
    world = _load_world(world_path)
    labels: list[Any] = list(_pr(world).get("labels", []))
    _section(echo, "1. Plan the PR's changelog entry")
    plan_step(data_dir / "pr-entry.yaml", configs, runners, labels, echo)
    _section(echo, "2. Replay the PR bots on the fake GitHub server")
    replay_step(world, echo)
    _section(echo, "3. Verify CODEOWNER sign-offs of a real PR (rebuilt as a world)")
    signoff_step(signoff_world, echo)
