"""The sweep loop for tests: a git test repository of this project, PR events, local workflow runs,
and the world file the sign-off bot verifies (tests only).

A scenario starts from a copy of this repository's own files (infx, configs, workflows, ...) as
`main`, adds the PR's commits, runs `.github/workflows/run-sweep.yml` with the local runner
(the GPU step replaced by tests/lib/fake_gpu.py), records the run's jobs (check runs),
workflow run and artifacts into a world for the fake GitHub server, and runs
`infx signoff verify` on a CODEOWNER's sign-off.
"""

from __future__ import annotations

import copy
import dataclasses
import fcntl
import hashlib
import json
import os
import pickle
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lib import fake_amd_smi, stub_slurm
from lib.actions_runner import (
    Clock,
    DeploymentEnvironment,
    Event,
    LocalRunner,
    ProgressHook,
    RunRecord,
)

ROOT = Path(__file__).resolve().parents[2]
WEBHOOKS = ROOT / "tests" / "data" / "github" / "webhooks"
FAKE_GPU = Path(__file__).resolve().parent / "fake_gpu.py"
# the benchmark repository's recipe scripts for the swept configs (copied to benchmarks/)
RECIPES = ROOT / "tests" / "data" / "loop" / "benchmarks"
REPO = "inferencex-amd/inferencex"
SWEEP_WORKFLOW = ".github/workflows/run-sweep.yml"
# what the test repository copies from this one: everything a workflow job or the bot reads
EXCLUDED_TOP = ("tests/", "benchmarks/")
WORLD_SKIPS = ("infx/",)
SIGNER = "mi355x-owner"
MAINTAINER = "core-maintainer"
AUTHOR = "vendor-dev"
# the sign-off App's environment as the README (Sign-off GitHub App) tells operators to create
# it: deployment branches, the default branch only
SIGNOFF_ENVIRONMENTS = {"signoff-app": DeploymentEnvironment(branches=("main",))}
GIT_ENV = {"GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
           "GIT_COMMITTER_NAME": "Test Author", "GIT_COMMITTER_EMAIL": "author@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str, date: str = "2026-09-20T10:00:00Z", stdin: str | None = None) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), **GIT_ENV,
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          input=stdin, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.strip()}")
    return proc.stdout


def project_files(root: Path = ROOT) -> dict[str, bytes]:
    """This repository's tracked and new files as they are on disk (uncommitted edits included)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=root, capture_output=True, check=True).stdout.decode().split("\0")
    files = {}
    for rel in sorted(set(p for p in listed if p)):
        path = root / rel
        if rel.startswith(EXCLUDED_TOP) or not path.is_file() or "__pycache__" in rel:
            continue
        files[rel] = path.read_bytes()
    return files


def make_base_repo(path: Path) -> Path:
    """A repository whose `main` is one commit holding this project's files and the recipe
    scripts of tests/data/loop/benchmarks (this project's own benchmarks/ are speed scripts)."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    files = project_files()
    files |= {f"benchmarks/{f.relative_to(RECIPES).as_posix()}": f.read_bytes()
              for f in sorted(RECIPES.rglob("*.sh"))}
    for rel, data in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if rel.endswith(".sh"):
            target.chmod(0o755)
    git(path, "add", "--all")
    git(path, "commit", "--quiet", "-m", "main: the control plane and the MI355X configs")
    # one pack instead of a loose object per file: each job's clone links one file, and its
    # checkout reads one (about half the CPU of a checkout)
    git(path, "repack", "-a", "-d", "-q")
    return path


# the infx repository an adopter's workflows name, and what it holds: this checkout's files
INFX_REPO = "infx-project/infx"
# what an adopter's repository starts from (`infx init` writes the rest): the reference configs
ADOPTER_FILES = ("configs/", "runners/", "perf-changelog.yaml", "CODEOWNERS")


def _write_tree(path: Path, files: dict[str, bytes]) -> None:
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    for rel, data in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if rel.endswith(".sh"):
            target.chmod(0o755)


def _commit_all(path: Path, message: str) -> str:
    git(path, "add", "--all")
    git(path, "commit", "--quiet", "-m", message)
    git(path, "repack", "-a", "-d", "-q")
    return git(path, "rev-parse", "HEAD").strip()


def make_infx_repo(path: Path) -> str:
    """The infx repository at one commit holding this checkout's files; its SHA."""
    _write_tree(path, project_files())
    return _commit_all(path, "infx")


def make_adopter_repo(path: Path, infx: str, infx_sha: str) -> str:
    """A new repository with only the reference configs (no infx, no workflows, no
    `configs/policy/`: `infx init` writes those) and the recipe scripts, into which `infx init
    --write` pinned to `infx`@`infx_sha` is run as a new user runs it; `main` is one commit of
    the lot. Returns init's output."""
    files = {rel: data for rel, data in project_files().items()
             if rel.startswith(ADOPTER_FILES) and not rel.startswith("configs/policy/")}
    files |= {f"benchmarks/{f.relative_to(RECIPES).as_posix()}": f.read_bytes()
              for f in sorted(RECIPES.rglob("*.sh"))}
    _write_tree(path, files)
    proc = subprocess.run([sys.executable, "-m", "infx", "init", str(path), "--infx", f"{infx}@{infx_sha}",
                           "--write"], cwd=path, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode != 0:
        raise RuntimeError(f"infx init failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    _commit_all(path, "main: our MI355X configs, launchers and recipes, and infx init")
    return proc.stdout


class SweepRepo:
    """One scenario's repository: `main` plus the PR's branch, refs/pull/N/{head,merge}."""

    def __init__(self, base: Path, path: Path) -> None:
        git(base.parent, "clone", "--quiet", str(base), str(path))
        self.path = path
        self._day = 21

    def _date(self) -> str:
        self._day += 1
        return f"2026-09-{self._day:02d}T10:00:00Z"

    def sha(self, ref: str) -> str:
        return git(self.path, "rev-parse", ref).strip()

    def read(self, ref: str, rel: str) -> str:
        return git(self.path, "show", f"{ref}:{rel}")

    def commit(self, branch: str, start: str, files: dict[str, str | None], message: str) -> str:
        """Commit `files` (None deletes) on `branch` (created from `start` if new)."""
        exists = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"],
                                cwd=self.path, capture_output=True, check=False).returncode == 0
        git(self.path, "checkout", "--quiet", branch if exists else "-b", *([] if exists else [branch, start]))
        for rel, text in files.items():
            target = self.path / rel
            if text is None:
                git(self.path, "rm", "--quiet", rel)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            git(self.path, "add", rel)
        git(self.path, "commit", "--quiet", "--allow-empty", "-m", message, date=self._date())
        return self.sha("HEAD")

    def merge_main_into(self, branch: str) -> str:
        git(self.path, "checkout", "--quiet", branch)
        git(self.path, "merge", "--quiet", "--no-ff", "--no-edit", "-m", "Merge branch 'main'", "main",
            date=self._date())
        return self.sha("HEAD")

    def pull_refs(self, number: int, head: str) -> str:
        """refs/pull/N/head and the test merge commit refs/pull/N/merge (what pull_request runs)."""
        git(self.path, "checkout", "--quiet", "--detach", "main")
        git(self.path, "merge", "--quiet", "--no-ff", "--no-edit", "-m", f"Merge {head} into main", head,
            date=self._date())
        merge = self.sha("HEAD")
        git(self.path, "update-ref", f"refs/pull/{number}/head", head)
        git(self.path, "update-ref", f"refs/pull/{number}/merge", merge)
        git(self.path, "checkout", "--quiet", "main")
        return merge

    def commits_between(self, base: str, head: str) -> list[str]:
        return git(self.path, "rev-list", "--reverse", "--topo-order", f"{base}..{head}").split()

    def tree(self, sha: str) -> dict[str, str]:
        """path -> text of every (UTF-8) file at a commit."""
        listing = git(self.path, "ls-tree", "-r", "-z", sha).split("\0")
        blobs = [(line.split("\t", 1)[1], line.split()[2]) for line in listing if line]
        proc = subprocess.run(["git", "cat-file", "--batch"], cwd=self.path, check=True, capture_output=True,
                              input="".join(f"{b}\n" for _, b in blobs).encode())
        out, pos, files = proc.stdout, 0, {}
        for rel, _ in blobs:
            header_end = out.index(b"\n", pos)
            size = int(out[pos:header_end].split()[2])
            data = out[header_end + 1:header_end + 1 + size]
            pos = header_end + 1 + size + 1
            try:
                files[rel] = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
        return files

    def world_commits(self, shas: list[str]) -> dict[str, Any]:
        """World `commits` entries: the first commit's full tree, the others as changes.

        The control plane's own package (`infx/`) is left out of the trees: the bot never reads
        it from the repository, and it would make the world several times larger."""
        commits: dict[str, Any] = {}
        trees: dict[str, dict[str, str]] = {}
        for sha in shas:
            parents = git(self.path, "rev-list", "--parents", "-n", "1", sha).split()[1:]
            message = git(self.path, "log", "-1", "--format=%B", sha).strip()
            tree = trees[sha] = {p: t for p, t in self.tree(sha).items() if not p.startswith(WORLD_SKIPS)}
            base = next((p for p in parents if p in trees), None)
            if base is None:
                commits[sha] = {"parents": parents, "message": message, "files": tree}
                continue
            old = trees[base]
            changed: dict[str, str | None] = {p: t for p, t in tree.items() if old.get(p) != t}
            changed |= {p: None for p in old if p not in tree}
            commits[sha] = {"parents": parents, "message": message, "files_from": base, "files": changed}
        return commits


# ---- events -----------------------------------------------------------------------------------

def _payload(name: str) -> dict[str, Any]:
    return json.loads((WEBHOOKS / "pull_request" / name).read_text(encoding="utf-8"))


@dataclass
class PullRequest:
    number: int
    title: str
    branch: str
    base_sha: str
    head_sha: str
    commits: list[str]
    labels: list[str]
    user: str = AUTHOR
    draft: bool = False
    body: str = ""
    comments: list[dict[str, Any]] = field(default_factory=list)


def pull_request_event(pr: PullRequest, action: str, merge_sha: str, *, label: str | None = None,
                       before: str | None = None) -> Event:
    """A real `pull_request` webhook payload (octokit's example), rewritten for this PR."""
    payload = _payload("synchronize.payload.json" if action == "synchronize" else "labeled.payload.json")
    owner, name = REPO.split("/")
    repository = payload["repository"]
    repository |= {"name": name, "full_name": REPO, "default_branch": "main", "private": False}
    repository["owner"] = dict(repository["owner"]) | {"login": owner}
    payload["action"] = action
    payload["number"] = pr.number
    body = payload["pull_request"]
    body |= {"number": pr.number, "title": pr.title, "body": pr.body, "draft": pr.draft, "state": "open",
             "merged": False, "merge_commit_sha": merge_sha, "commits": len(pr.commits),
             "html_url": f"https://github.com/{REPO}/pull/{pr.number}"}
    body["user"] = dict(body["user"]) | {"login": pr.user}
    template = (body.get("labels") or [{"id": 1, "node_id": "L", "url": "", "color": "ededed",
                                        "default": False, "description": ""}])[0]
    body["labels"] = [dict(template) | {"name": n, "id": 1000 + i} for i, n in enumerate(pr.labels)]
    body["head"] = dict(body["head"]) | {"ref": pr.branch, "sha": pr.head_sha, "label": f"{owner}:{pr.branch}",
                                         "repo": copy.deepcopy(repository)}
    body["base"] = dict(body["base"]) | {"ref": "main", "sha": pr.base_sha, "label": f"{owner}:main",
                                         "repo": copy.deepcopy(repository)}
    if action in ("labeled", "unlabeled"):
        payload["label"] = dict(template) | {"name": label, "id": 999}
    else:
        payload.pop("label", None)
    if action == "synchronize":
        payload["before"], payload["after"] = before or pr.base_sha, pr.head_sha
    payload["sender"] = dict(payload["sender"]) | {"login": pr.user}
    return Event("pull_request", payload, merge_sha, f"refs/pull/{pr.number}/merge",
                 head_ref=pr.branch, base_ref="main")


def review_event(world: dict[str, Any], pr: PullRequest, review_id: int, merge_sha: str,
                 action: str = "submitted") -> Event:
    """A real `pull_request_review` webhook payload (octokit's example) for a review of the
    world's PR; like every pull_request event it runs on the PR's merge ref."""
    payload = json.loads((WEBHOOKS / "pull_request_review" / "submitted.payload.json").read_text(encoding="utf-8"))
    review = next(r for r in world["pulls"][0]["reviews"] if r["id"] == review_id)
    pull = pull_request_event(pr, "opened", merge_sha).payload
    payload["action"] = action
    payload["pull_request"], payload["repository"] = pull["pull_request"], pull["repository"]
    payload["review"] = payload["review"] | {
        "id": review_id, "body": review["body"], "commit_id": review["commit_id"],
        "submitted_at": review["submitted_at"], "state": review["state"].lower(),
        "author_association": review.get("author_association", "MEMBER"),
        "html_url": f"https://github.com/{REPO}/pull/{pr.number}#pullrequestreview-{review_id}",
        "user": dict(payload["review"]["user"]) | {"login": review["user"]}}
    payload["sender"] = dict(payload["sender"]) | {"login": review["user"]}
    return Event("pull_request_review", payload, merge_sha, f"refs/pull/{pr.number}/merge",
                 head_ref=pr.branch, base_ref=pull["pull_request"]["base"]["ref"])


def review_comment_event(world: dict[str, Any], pr: PullRequest, comment_id: int, merge_sha: str,
                         action: str = "created") -> Event:
    """A real `pull_request_review_comment` webhook payload (octokit's example) for an inline
    comment of the world's PR, on the PR's merge ref."""
    payload = json.loads((WEBHOOKS / "pull_request_review_comment" / "created.payload.json")
                         .read_text(encoding="utf-8"))
    comment = next(c for c in world["pulls"][0]["review_comments"] if c["id"] == comment_id)
    pull = pull_request_event(pr, "opened", merge_sha).payload
    payload["action"] = action
    payload["pull_request"], payload["repository"] = pull["pull_request"], pull["repository"]
    payload["comment"] = payload["comment"] | {
        "id": comment_id, "body": comment["body"], "path": comment["path"], "line": comment["line"],
        # the head it was written on, as the fake server answers for it (Comment.from_json reads
        # original_commit_id: commit_id follows later pushes)
        "commit_id": comment.get("commit_id", pr.head_sha),
        "original_commit_id": comment.get("commit_id", pr.head_sha), "created_at": comment["created_at"],
        "updated_at": comment.get("updated_at", comment["created_at"]),
        "author_association": comment.get("author_association", "MEMBER"),
        "html_url": f"https://github.com/{REPO}/pull/{pr.number}#discussion_r{comment_id}",
        "user": dict(payload["comment"]["user"]) | {"login": comment["user"]}}
    payload["sender"] = dict(payload["sender"]) | {"login": comment["user"]}
    payload.pop("installation", None)
    return Event("pull_request_review_comment", payload, merge_sha, f"refs/pull/{pr.number}/merge",
                 head_ref=pr.branch, base_ref=pull["pull_request"]["base"]["ref"])


def workflow_run_event(record: RunRecord, trigger: Event, default_sha: str) -> Event:
    """The `workflow_run` `completed` event GitHub sends when the run `record` (started by
    `trigger`) finishes: octokit's example filled from the finished run. Such runs use the
    default branch's workflow files and run on its ref."""
    payload = json.loads((WEBHOOKS / "workflow_run" / "completed.with-pull-requests.payload.json")
                         .read_text(encoding="utf-8"))
    repository = copy.deepcopy(trigger.payload["repository"])
    pull = trigger.payload.get("pull_request")
    head_repository = copy.deepcopy(pull["head"]["repo"]) if pull else repository
    # GitHub lists a run's PRs only when the head is in this repository (never for a fork)
    pulls = [{"number": pull["number"], "head": {"ref": pull["head"]["ref"], "sha": pull["head"]["sha"]},
              "base": {"ref": pull["base"]["ref"], "sha": pull["base"]["sha"]}}] \
        if pull and head_repository["full_name"] == repository["full_name"] else []
    finished = max((j.completed_at for j in record.jobs if j.completed_at), default=record.created_at)
    payload["workflow_run"] = payload["workflow_run"] | {
        "id": record.run_id, "name": record.name, "path": record.path, "display_title": record.display_title,
        "event": record.event, "status": "completed", "conclusion": record.conclusion,
        "head_sha": record.head_sha, "head_branch": record.head_branch, "head_repository": head_repository,
        "repository": repository, "created_at": record.created_at, "run_started_at": record.created_at,
        "updated_at": finished, "run_attempt": 1, "pull_requests": pulls,
        "html_url": f"https://github.com/{REPO}/actions/runs/{record.run_id}"}
    payload["workflow"] = payload["workflow"] | {"name": record.name, "path": record.path}
    payload["repository"] = repository
    payload["sender"] = copy.deepcopy(trigger.payload["sender"])
    payload.pop("organization", None)
    return Event("workflow_run", payload, default_sha, "refs/heads/main")


# ---- running a sweep ------------------------------------------------------------------------------

@dataclass
class GpuPlan:
    """Which rows the fake node fails or scores low (subsets of row fields)."""

    fail: list[dict[str, Any]] = field(default_factory=list)
    low_eval: list[dict[str, Any]] = field(default_factory=list)
    # GPU power tool on the nodes (tests/lib/fake_amd_smi.py): None (neither amd-smi nor
    # rocm-smi), "amd-smi", "rocm-smi", or "amd-smi:<mode>" (garbled, partial, fail)
    power: str | None = None


def runner_labels() -> dict[str, list[str]]:
    from infx.yamlio import load_file

    return dict(load_file(ROOT / "configs" / "runners.yaml")["labels"])


@dataclass
class FakeNode:
    """What the MI355X machines add to every self-hosted job: `docker` (tests/lib/fake_gpu.py),
    Slurm's `srun`/`scancel`/`scontrol` (tests/lib/stub_slurm.py), a model cache, and the
    runner's .env settings. The real `runners/launch_mi355x-amds.sh` runs on them."""

    work: Path
    plan: GpuPlan

    def __post_init__(self) -> None:
        self.bin = self.work / "node-bin"
        self.docker_log = self.work / "docker.jsonl"
        self.slurm_log = self.work / "slurm.jsonl"
        cache = self.work / "model-cache"
        cache.mkdir(parents=True, exist_ok=True)
        plan_file = self.work / "gpu-plan.json"
        plan_file.write_text(json.dumps({"fail": self.plan.fail, "low_eval": self.plan.low_eval}), encoding="utf-8")
        self.bin.mkdir(parents=True, exist_ok=True)
        docker = self.bin / "docker"
        docker.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -S {shlex.quote(str(FAKE_GPU))} \"$@\"\n",
                          encoding="utf-8")
        docker.chmod(0o755)
        stub_slurm.install(self.bin)
        self.env = {"INFX_MODEL_CACHE": str(cache), "FAKE_GPU_PLAN": str(plan_file),
                    "FAKE_GPU_LOG": str(self.docker_log), "STUB_SLURM_LOG": str(self.slurm_log)}
        if self.plan.power:
            tool, _, mode = self.plan.power.partition(":")
            fake_amd_smi.install(self.bin, (tool,))
            self.env |= {"FAKE_AMD_SMI_MODE": mode or "ok", "INFX_POWER_INTERVAL": "0.1",
                         "FAKE_GPU_SECONDS": "0.3"}

    def containers(self) -> list[dict[str, Any]]:
        """Every `docker run` of the sweep: container env (no token) and mounts."""
        if not self.docker_log.exists():
            return []
        calls = [json.loads(line) for line in self.docker_log.read_text(encoding="utf-8").splitlines()]
        return [c for c in calls if c["argv"][0] == "run"]

    def sruns(self) -> list[list[str]]:
        return [c["argv"] for c in stub_slurm.calls(self.slurm_log) if c["tool"] == "srun"]


def run_sweep(repo: SweepRepo, event: Event, run_id: int, work: Path, *, api_url: str = "",
              gpu: GpuPlan | None = None, start: str = "2026-09-29T10:00:00Z",
              token: str = "ghs_test", on_progress: ProgressHook | None = None,
              repositories: dict[str, Path] | None = None) -> RunRecord:
    work.mkdir(parents=True, exist_ok=True)
    node = FakeNode(work, gpu or GpuPlan())
    runner = LocalRunner(repo_dir=repo.path, repository=REPO, event=event, run_id=run_id, work_dir=work,
                         api_url=api_url, token=token, actor=event.payload["sender"]["login"],
                         runners=runner_labels(), secrets={"HF_TOKEN": "hf_test_token"},
                         clock=Clock(start), self_hosted_env=node.env, self_hosted_path=[str(node.bin)],
                         on_progress=on_progress, repositories=repositories)
    record = runner.run(SWEEP_WORKFLOW)
    record.node = node
    return record


# ---- the world ---------------------------------------------------------------------------------------

def base_world(repo: SweepRepo, pr: PullRequest, now: str = "2026-09-30T12:00:00Z") -> dict[str, Any]:
    main = repo.sha("main")
    shas = [repo.sha(f"{pr.base_sha}")] + repo.commits_between(pr.base_sha, pr.head_sha)
    history = repo.commits_between(pr.base_sha, main) if main != pr.base_sha else []
    ordered = list(dict.fromkeys([shas[0], *history, *shas[1:]]))
    return {
        "repo": REPO, "default_branch": "main", "now": now, "token_login": "github-actions[bot]",
        "branches": {"main": main, pr.branch: pr.head_sha},
        "commits": repo.world_commits(ordered),
        "collaborators": {SIGNER: {"permission": "write", "role_name": "write"},
                          AUTHOR: {"permission": "write", "role_name": "write"},
                          MAINTAINER: {"permission": "admin", "role_name": "admin"}},
        "teams": {"inferencex-amd/core": [MAINTAINER], "inferencex-amd/mi355x-owners": [SIGNER]},
        "codeowners_errors": [],
        "pulls": [{
            "number": pr.number, "title": pr.title, "body": pr.body, "user": pr.user, "state": "open",
            "draft": pr.draft, "merged": False, "merged_at": None,
            "base": {"ref": "main", "sha": pr.base_sha},
            "head": {"ref": pr.branch, "sha": pr.head_sha, "repo": REPO},
            "labels": list(pr.labels), "commits": list(pr.commits), "comments": list(pr.comments),
            "reviews": [], "review_comments": [],
        }],
        "check_runs": {}, "statuses": {}, "workflow_runs": [],
    }


def _text(data: bytes) -> str:
    return data.decode("utf-8")


def record_run(world: dict[str, Any], record: RunRecord, *, running: bool = False) -> None:
    """Add the run, its jobs (as check runs in its check suite) and its artifacts to the world, or
    bring them up to date. While the run goes on (`running`), GitHub lists it in progress with
    the jobs that have finished and the artifacts uploaded so far; every job gets its check-run
    id once, in job order, so the links a running job reads are the ones of the finished run."""
    runs = world["check_runs"].setdefault(record.head_sha, [])
    known = sum(1 for c in runs if c.get("run_id") == record.run_id)
    taken = [c["id"] for listed in world["check_runs"].values() for c in listed]
    next_id = max(taken, default=record.run_id * 1000) + 1
    for job in record.jobs[known:]:
        entry = {"id": next_id, "name": job.name, "status": "completed", "conclusion": job.conclusion,
                 "started_at": job.started_at or record.created_at,
                 "completed_at": job.completed_at or record.created_at,
                 "details_url": f"https://github.com/{REPO}/actions/runs/{record.run_id}/job/{next_id}",
                 "run_id": record.run_id, "run_attempt": 1}
        if job.labels:
            entry |= {"labels": list(job.labels), "runner_name": job.runner_name}
        runs.append(entry)
        next_id += 1
    existing = next((r for r in world["workflow_runs"] if r["id"] == record.run_id), None)
    # an artifact keeps the id it was listed with while the run was going on
    ids = {a["name"]: a["id"] for a in (existing or {}).get("artifacts", []) if "id" in a}
    next_artifact = max((a["id"] for r in world["workflow_runs"] for a in r.get("artifacts", []) if "id" in a),
                        default=0) + 1
    artifacts = []
    for artifact in record.artifacts.items.values():
        if artifact.name not in ids:
            ids[artifact.name], next_artifact = next_artifact, next_artifact + 1
        artifacts.append({"id": ids[artifact.name], "name": artifact.name, "expired": False,
                          "files": {rel: _text(data) for rel, data in sorted(artifact.files.items())}})
    entry = {
        "id": record.run_id, "name": record.name, "display_title": record.display_title,
        "path": record.path, "event": record.event, "status": "in_progress" if running else "completed",
        "conclusion": None if running else record.conclusion,
        "head_sha": record.head_sha, "head_branch": record.head_branch, "run_attempt": 1,
        "created_at": record.created_at, "artifacts": artifacts,
    }
    if existing is None:
        world["workflow_runs"].append(entry)
    else:
        existing.clear()
        existing.update(entry)


def comment_event(world: dict[str, Any], comment_id: int, default_sha: str) -> Event:
    """A real `issue_comment` webhook payload (octokit's example) for a comment of the world's PR;
    comment workflows run on the default branch's tip."""
    payload = json.loads((WEBHOOKS / "issue_comment" / "created.payload.json").read_text(encoding="utf-8"))
    pull = world["pulls"][0]
    comment = next(c for c in pull["comments"] if c["id"] == comment_id)
    owner, name = REPO.split("/")
    repository = payload["repository"] | {"name": name, "full_name": REPO, "default_branch": "main"}
    repository["owner"] = dict(repository["owner"]) | {"login": owner}
    payload["repository"] = repository
    payload["action"] = "created"
    payload["issue"] = payload["issue"] | {
        "number": pull["number"], "title": pull["title"], "state": "open",
        "pull_request": {"url": f"https://api.github.com/repos/{REPO}/pulls/{pull['number']}"}}
    payload["comment"] = payload["comment"] | {
        "id": comment_id, "body": comment["body"], "created_at": comment["created_at"],
        "updated_at": comment["updated_at"], "author_association": comment["author_association"],
        "user": dict(payload["comment"]["user"]) | {"login": comment["user"]}}
    payload["sender"] = dict(payload["sender"]) | {"login": comment["user"]}
    return Event("issue_comment", payload, default_sha, "refs/heads/main")


def run_comment_workflow(world: dict[str, Any], repo: SweepRepo, event: Event, workflow: str, run_id: int,
                         work: Path, *, environments: dict[str, DeploymentEnvironment] | None = None,
                         start: str = "2026-09-29T10:00:00Z", repositories: dict[str, Path] | None = None
                         ) -> tuple[RunRecord, dict[str, Any]]:
    """Run a comment-triggered (or any bot) workflow while the fake GitHub serves `world`, its
    jobs deploying to `environments` (GitHub's deployment branch rules), the run starting at
    `start`; the run and the world after it."""
    from infx.github.fake import FakeGitHub

    work.mkdir(parents=True, exist_ok=True)
    with FakeGitHub(copy.deepcopy(world)) as fake:
        runner = LocalRunner(repo_dir=repo.path, repository=REPO, event=event, run_id=run_id, work_dir=work,
                             api_url=fake.url, token=fake.env()["GITHUB_TOKEN"],
                             actor=event.payload["sender"]["login"], runners=runner_labels(),
                             clock=Clock(start), environments=environments, repositories=repositories)
        record = runner.run(workflow)
        after = copy.deepcopy(fake.world)
    return record, after


def checklist_body(signer: str, details: list[str]) -> str:
    """PR_REVIEW_CHECKLIST.md's template, every item ticked but the escape hatch, signed."""
    template = (ROOT / "PR_REVIEW_CHECKLIST.md").read_text(encoding="utf-8").split("```")[1].strip("\n")
    lines = []
    for line in template.split("\n"):
        if line.startswith("### Additional"):
            break
        if "[ ]" in line and "cannot reasonably be satisfied" not in line:
            line = line.replace("[ ]", "[x]", 1)
        lines.append(line.rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join([*lines, "", "### Additional detail section:", *details, "", f"Signed: @{signer}"])


def add_comment(world: dict[str, Any], user: str, association: str, body: str, when: str) -> int:
    pull = world["pulls"][0]
    taken = [c["id"] for p in world["pulls"] for c in p["comments"]]
    comment_id = max(taken, default=7000) + 1
    pull["comments"].append({"id": comment_id, "user": user, "author_association": association, "body": body,
                             "created_at": when, "updated_at": when, "reactions": []})
    return comment_id


@dataclass
class Verdict:
    result: str  # verdict | error | skipped ...
    verdict: str | None
    status: str | None
    checks: dict[str, dict[str, Any]]
    log: str
    raw: dict[str, Any]

    def check(self, number: int) -> dict[str, Any]:
        return self.checks[str(number)]


def verify(world: dict[str, Any], pr: int, comment_id: int, work: Path) -> Verdict:
    """`infx signoff verify --world` on the recorded world, as an operator would run it."""
    path = work / "world.json"
    path.write_text(json.dumps(world, indent=1, ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "infx", "signoff", "verify", "--world", str(path),
                           "--pr", str(pr), "--comment-id", str(comment_id), "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)} | {"GITHUB_STEP_SUMMARY": ""})
    if proc.returncode != 0 or not proc.stdout.strip():
        raise AssertionError(f"infx signoff verify failed ({proc.returncode}):\n{proc.stderr}")
    raw = json.loads(proc.stdout)
    checks = {str(c.get("number", c.get("id"))): c for c in raw.get("checks", [])}
    return Verdict(raw.get("result"), raw.get("overall"), raw.get("status"), checks, proc.stderr, raw)


# A folder shared by the session's processes (the xdist workers) where a run of
# run_with_github is kept by its inputs (tests/conftest.py sets it; unset, nothing is kept).
RUN_CACHE_ENV = "INFX_TEST_RUN_CACHE"


def _run_key(world: dict[str, Any], repo: SweepRepo, event: Event, run_id: int, gpu: GpuPlan | None,
             start: str) -> str:
    """Everything a run of run_with_github depends on: the world it is served, every ref of the
    repository (the commits the runner can check out, by content), the event, the run id, the
    fake node's plan and the clock's start (the code under test is the session's)."""
    refs = git(repo.path, "show-ref", "--head")
    inputs = [world, refs, dataclasses.asdict(event), run_id, dataclasses.asdict(gpu or GpuPlan()), start]
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def run_with_github(world: dict[str, Any], repo: SweepRepo, event: Event, run_id: int, work: Path,
                    gpu: GpuPlan | None = None, start: str = "2026-09-29T10:00:00Z",
                    repositories: dict[str, Path] | None = None) -> tuple[RunRecord, dict[str, Any]]:
    """Run the sweep while the fake GitHub serves `world` (the gate's resolver, the
    results-link and report jobs talk to it, and see the run itself in progress with its
    finished jobs and uploaded artifacts); return the run and the world after it, run recorded.

    Several scenarios start with the same sweep (the same world, commits, event and run id):
    the session runs it once and each caller gets its own unpickled copy of the record and the
    world. The runner only reads the repository, so the caller's repository is the same as
    after a run of its own; of the run's folder the cache keeps what the record reads later
    (the fake node's docker and Slurm logs), as the folder of a passed test is deleted."""
    cache = os.environ.get(RUN_CACHE_ENV)
    if not cache or repositories is not None:
        return _run_with_github(world, repo, event, run_id, work, gpu, start, repositories)
    folder = Path(cache) / _run_key(world, repo, event, run_id, gpu, start)
    folder.mkdir(parents=True, exist_ok=True)
    result = folder / "result.pickle"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker running the same sweep: wait for it
        if not result.exists():
            ran = _run_with_github(world, repo, event, run_id, work, gpu, start, None)
            node = ran[0].node
            for name in ("docker_log", "slurm_log"):
                log = getattr(node, name)
                kept = folder / log.name
                if log.exists():
                    kept.write_bytes(log.read_bytes())
                setattr(node, name, kept)
            partial = folder / "result.pickle.part"
            partial.write_bytes(pickle.dumps(ran))
            partial.rename(result)
            return ran
        data = result.read_bytes()
    return pickle.loads(data)


def _run_with_github(world: dict[str, Any], repo: SweepRepo, event: Event, run_id: int, work: Path,
                     gpu: GpuPlan | None, start: str, repositories: dict[str, Path] | None
                     ) -> tuple[RunRecord, dict[str, Any]]:
    from infx.github.fake import FakeGitHub

    with FakeGitHub(copy.deepcopy(world)) as fake:
        def progress(record: RunRecord) -> None:  # what the API shows of the running run
            with fake.state.lock:
                record_run(fake.state.world, record, running=True)

        record = run_sweep(repo, event, run_id, work, api_url=fake.url, gpu=gpu, start=start,
                           token=fake.env()["GITHUB_TOKEN"], on_progress=progress, repositories=repositories)
        after = copy.deepcopy(fake.world)
    record_run(after, record)
    return record, after
