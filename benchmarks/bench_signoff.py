"""Sign-off bot benchmark: a typical PR (30 files, 10 commits, 100 comments) against the fake server.

Prints wall-clock time and the requests the server saw, next to the bars of PRODUCT.md §5
(<= 3 s, <= 30 API requests): every HTTP request, and the API requests among them, which the
bar counts (the others are downloads from storage URLs an API answer redirects to: tree
tarballs, artifact zips; GitHub does not count those against the API either), and the requests of a PR touching only catch-all
paths whose signer is an owner through a team CODEOWNERS lists (Check `codeowner` reads team
memberships: tests/data/worlds/trust_catch_all_team.yaml). The bot's login is named in the
environment as the workflows name it (INFX_BOT_LOGIN), so no request asks GitHub for it.
Run: ``python benchmarks/bench_signoff.py``.
"""

from __future__ import annotations

import copy
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "tests/data/worlds/signoff_seed000.yaml"
CATCH_ALL = ROOT / "tests/data/worlds/trust_catch_all_team.yaml"
TIME_BAR, REQUEST_BAR = 3.0, 30


def typical_world() -> dict:
    """Seed 000 grown to a typical PR: 30 changed files, 10 commits, 100 conversation comments."""
    from infx import yamlio

    world = yamlio.load_file(SEED)
    pull = world["pulls"][0]
    sweep_sha, head = pull["commits"]
    commits = [sweep_sha]
    parent = sweep_sha
    for index in range(8):
        sha = hashlib.sha1(f"bench-commit-{index}".encode()).hexdigest()
        files = {f"docs/bench/page{index}_{k}.md": f"page {index}.{k}\n" for k in range(6 if index == 0 else 3)}
        world["commits"][sha] = {"parents": [parent], "files_from": parent, "files": files,
                                 "message": f"docs {index}"}
        commits.append(sha)
        parent = sha
    world["commits"][head] = copy.deepcopy(world["commits"][head]) | {"parents": [parent],
                                                                      "files_from": parent}
    # the green sweep sits on an older commit; each later push (one commit each, after the
    # /reuse-sweep-run at 08:00) started the PR's other workflow, as GitHub records every head
    model = next(r for r in world["workflow_runs"] if r["head_sha"] == head)
    for index, sha in enumerate(commits[1:]):
        when = f"2026-09-24T08:{10 + 5 * index:02d}:00Z"
        world["workflow_runs"].append(copy.deepcopy(model) | {
            "id": 35873197800 + index, "head_sha": sha, "created_at": when, "updated_at": when,
            "run_started_at": when})
    commits.append(head)
    pull["commits"] = commits
    chatter = [{"id": 6000 + i, "user": f"user{i % 7}", "author_association": "CONTRIBUTOR",
                "body": f"review note {i}", "created_at": f"2026-09-23T1{i % 10}:00:00Z",
                "updated_at": f"2026-09-23T1{i % 10}:00:00Z"} for i in range(97)]
    pull["comments"] = pull["comments"][:1] + chatter + pull["comments"][1:]
    return world


def changed_files(world: dict) -> int:
    from infx.github.fake import FakeGitHub

    with FakeGitHub(world) as fake:
        return len(fake.client().paginate(
            f"/repos/{world['repo']}/pulls/3412/files", action="count", permission="read"))


def in_process(world: dict, rounds: int = 5) -> tuple[float, int, int, str]:
    from infx.github.fake import FakeGitHub
    from infx.signoff import pipeline as publish
    from infx.signoff.trigger.gating import SignoffRef, Trigger

    times, requests, api, verdict = [], 0, 0, ""
    for _ in range(rounds):
        with FakeGitHub(copy.deepcopy(world)) as fake:
            trigger = Trigger(True, "bench", 3412, SignoffRef("issue_comment", 5003))
            start = time.perf_counter()
            result = publish.verify(fake.client(), world["repo"], trigger,
                                    publish.Options(now=datetime(2026, 9, 24, tzinfo=timezone.utc)))
            times.append(time.perf_counter() - start)
            requests = len(fake.requests)
            api = sum(1 for request in fake.requests if request["origin"] == "api")
            verdict = result.verdict.overall.value if result.verdict else result.kind
    return statistics.median(times), requests, api, verdict


def whole_process(world: dict) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "world.yaml"
        path.write_text(yaml.safe_dump(world, sort_keys=False))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "infx", "signoff", "verify", "--world", str(path),
                        "--pr", "3412", "--comment-id", "5003", "--format", "json"],
                       check=True, capture_output=True, cwd=ROOT, env=os.environ.copy())
        return time.perf_counter() - start


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("INFX_BOT_LOGIN", "github-actions[bot]")  # as .github/workflows/signoff-*.yml
    from infx import yamlio

    world = typical_world()
    pull = world["pulls"][0]
    print(f"typical PR: {changed_files(world)} changed files, {len(pull['commits'])} commits, "
          f"{len(pull['comments'])} comments")
    seconds, requests, api, verdict = in_process(world)
    process = whole_process(world)
    print(f"{'measure':<44}{'infx':>10}{'bar':>10}")
    print(f"{'verification wall-clock (in process, median)':<44}{seconds:>9.3f}s{TIME_BAR:>9.1f}s")
    print(f"{'whole CLI process incl. fake server start':<44}{process:>9.3f}s{TIME_BAR:>9.1f}s")
    print(f"{'HTTP requests seen by the fake server':<44}{requests:>10}{'':>10}")
    print(f"{'  of them API requests (storage downloads not)':<44}{api:>10}{REQUEST_BAR:>10}")
    _, catch_all, catch_all_api, catch_all_verdict = in_process(yamlio.load_file(CATCH_ALL), rounds=1)
    print(f"{'  catch-all-only PR, owner through a team':<44}{catch_all:>10}{'':>10}")
    print(f"{'    of them API requests':<44}{catch_all_api:>10}{REQUEST_BAR:>10}")
    print(f"verdict: {verdict}, catch-all: {catch_all_verdict} (the reference bot uses an LLM and "
          "takes minutes)")
    ok = seconds <= TIME_BAR and process <= TIME_BAR and api <= REQUEST_BAR and catch_all_api <= REQUEST_BAR
    print("within bars" if ok else "OVER A BAR")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
