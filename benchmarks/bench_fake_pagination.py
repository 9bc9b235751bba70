"""Fake GitHub pagination: server CPU against client CPU for a 5,000-item listing, before and after.

The fake server runs in a child process (`infx fake-github`) so that its CPU time (utime +
stime from /proc) is measured apart from the client's (this process, `time.process_time`).
The client is the product's own `GitHubClient.paginate` (PyGithub on loopback, 100 per page).
Listed: the 5,000 check runs of one check suite, the 5,000 jobs of that workflow run, and
5,000 commit statuses. "before" serves the same world with every page deriving and shaping the
whole list first (what the fake did until pages were shaped after slicing); "after" is the fake as
it is (each listing derived once, on its first page). Bar (issue 21): server CPU at 5,000 items <= 2x the client's.

Then one sign-off verification of the truncation world (5,000 check runs on the swept commit,
the sweep's jobs past the ref listing's 1,000-result cap) and of a PR with 60 commits and a
failed sweep, in-process: verdict, budget used and HTTP requests served.
Run: python benchmarks/bench_fake_pagination.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

ITEMS = 5_000
SHA = "a" * 40
RUN_ID = 4242
REPO = "acme/bench"
# the child: serve the world; with "before", every list is shaped whole before slicing
SERVE = """
import sys
from infx.github.fake import routes, server
if sys.argv[2] == "before":
    server._listing_key = lambda req: None  # every page derives its listing again
    real_match = routes.match
    def eager(method, path, origin="api"):
        found = real_match(method, path, origin)
        if found is None:
            return None
        handler, params = found
        def whole(*args, **kwargs):
            response = handler(*args, **kwargs)
            if response.items is not None and response.shape is not None:
                response.items = [response.shape(item) for item in response.items]
                response.shape = None
            return response
        whole.__name__ = handler.__name__
        return whole, params
    routes.match = eager
from infx.cli import main
sys.exit(main(["fake-github", "--world", sys.argv[1]]))
"""


def world() -> dict:
    runs = [{"id": 10_000 + i, "name": f"single-node / job {i}", "status": "completed",
             "conclusion": "success", "started_at": "2026-09-01T00:00:00Z",
             "completed_at": "2026-09-01T01:00:00Z",
             "details_url": f"https://github.com/{REPO}/actions/runs/{RUN_ID}/job/{10_000 + i}"}
            for i in range(ITEMS)]
    statuses = [{"context": f"ctx-{i}", "state": "success", "description": "ok",
                 "target_url": None, "creator": "bot"} for i in range(ITEMS)]
    return {"repo": REPO, "default_branch": "main", "now": "2026-09-30T12:00:00Z",
            "token_login": "github-actions[bot]", "branches": {"main": SHA},
            "commits": {SHA: {"parents": [], "message": "init", "files": {"README.md": "x\n"}}},
            "check_runs": {SHA: runs}, "statuses": {SHA: statuses},
            "workflow_runs": [{"id": RUN_ID, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
                               "event": "pull_request", "status": "completed", "conclusion": "success",
                               "head_sha": SHA, "head_branch": "b", "run_attempt": 1,
                               "created_at": "2026-09-01T00:00:00Z"}]}


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def listings(client, suite_id: int) -> list[tuple[str, str, dict]]:
    return [("check runs of the check suite", f"/repos/{REPO}/check-suites/{suite_id}/check-runs",
             {"list_key": "check_runs"}),
            ("jobs of the workflow run", f"/repos/{REPO}/actions/runs/{RUN_ID}/jobs",
             {"list_key": "jobs", "params": {"filter": "all"}}),
            ("commit statuses", f"/repos/{REPO}/commits/{SHA}/statuses", {})]


def measure(world_file: str, mode: str) -> list[tuple[str, int, float, float]]:
    from infx.github.client import GitHubClient
    from infx.github.fake.shapes import stable_id
    from infx.github.retry import RetryPolicy

    child = subprocess.Popen([sys.executable, "-c", SERVE, world_file, mode], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        url = child.stdout.readline().strip()
        client = GitHubClient(token="x", base_url=url, policy=RetryPolicy(sleep=lambda s: None))
        client.get(f"/repos/{REPO}", action="warming up", permission="read")
        out = []
        for label, path, options in listings(client, stable_id(f"suite:{RUN_ID}")):
            server0, client0 = cpu_of(child.pid), time.process_time()
            items = client.paginate(path, action=f"listing {label}", permission="read", **options)
            client_cpu = time.process_time() - client0
            time.sleep(0.05)  # let the child's last answer finish before reading its clock
            out.append((label, len(items), cpu_of(child.pid) - server0, client_cpu))
        return out
    finally:
        child.terminate()
        child.wait(timeout=10)


def verdicts() -> list[tuple[str, str, int, int, float]]:
    """(world, verdict, requests counted by the budget, requests the fake served, CPU s)."""
    from datetime import datetime

    from lib import listing_worlds as worlds

    from infx.github.fake import FakeGitHub
    from infx.signoff import pipeline as publish
    from infx.signoff.trigger.gating import SignoffRef, Trigger

    cases = [(f"{n:,} check runs on the swept commit", worlds.truncation(n)) for n in (1_000, 5_000)]
    cases += [(f"{n} commits, failed sweep", worlds.many_commits(n)) for n in (2, 60, 240)]
    out = []
    for label, world in cases:
        with FakeGitHub(world) as fake:
            now = datetime.fromisoformat(world["now"].replace("Z", "+00:00"))
            trigger = Trigger(True, "bench", worlds.PR, SignoffRef("issue_comment", worlds.SIGNOFF))
            start = time.process_time()
            result = publish.verify(fake.client(), world["repo"], trigger, publish.Options(now=now))
            cpu = time.process_time() - start
            overall = result.verdict.overall.value if result.verdict else result.kind
            out.append((label, overall, result.api_calls, len(fake.requests), cpu))
    return out


def main() -> int:
    from infx.signoff.table import load_table

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "world.json"
        path.write_text(json.dumps(world()))
        results = {mode: measure(str(path), mode) for mode in ("before", "after")}
    print(f"fake pagination, {ITEMS:,} items, 100 per page (CPU seconds)")
    print(f"{'listing':32} {'items':>6} {'server before':>14} {'server after':>13} {'client':>7} "
          f"{'after/client':>13}")
    worst = 0.0
    for (label, count, before, _), (_, count_after, after, client) in zip(results["before"], results["after"], strict=True):
        ratio = after / client if client else float("inf")
        worst = max(worst, ratio)
        print(f"{label:32} {count_after:>6} {before:>14.2f} {after:>13.2f} {client:>7.2f} {ratio:>12.2f}x")
        assert count == count_after == ITEMS, (label, count, count_after)
    print(f"bar: server <= 2x client at {ITEMS:,} items: {'met' if worst <= 2 else 'NOT met'} "
          f"(worst {worst:.2f}x)")
    cap = load_table().settings.max_api_calls
    print(f"\nrequests per verdict (budget {cap} HTTP requests; in-process, server and client CPU)")
    print(f"{'world':38} {'verdict':>9} {'budget used':>12} {'served':>7} {'CPU s':>6}")
    ok = True
    for label, overall, used, served, cpu in verdicts():
        print(f"{label:38} {overall:>9} {used:>12} {served:>7} {cpu:>6.2f}")
        ok = ok and used == served <= cap and overall in ("PASS", "REJECTED")
    print(f"every verdict within budget, counted as served: {'yes' if ok else 'NO'}")
    return 0 if worst <= 2 and ok else 1


if __name__ == "__main__":
    sys.exit(main())
