"""Replays of real reference PRs (tests/data/realprs) through the sweep loop (tests only).

A corpus PR's trimmed base tree (the reference's master config, changelog slice and the launch
files of its MI355X keys) replaces this project's sample configs, changelog and recipes in the
loop's test repository; the PR's head files are its one commit. The sweep, the world and the
verdict are the loop's own (tests/lib/sweep_loop.py): the real run-sweep.yml on a fake MI355X
node, a CODEOWNER's fully checked sign-off, `infx signoff verify`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from lib.sweep_loop import ROOT, PullRequest, SweepRepo, git, project_files

CORPUS = ROOT / "tests" / "data" / "realprs"
# this project's sample data the reference's trees replace
REPLACED = ("configs/amd-master.yaml", "perf-changelog.yaml", "configs/recipes/")
PROJECT_DATE = "2026-01-05T10:00:00Z"  # before every corpus PR's base commit


@dataclass(frozen=True)
class CorpusPR:
    number: int
    title: str
    merged_at: datetime
    base: dict[str, str]
    head: dict[str, str | None]  # changed files (None: deleted)

    def at(self, days: float) -> str:
        """An ISO time ``days`` after the merge (negative: before it)."""
        when = self.merged_at + timedelta(days=days)
        return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _files(folder: Path) -> dict[str, str]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.is_file()}


def corpus_numbers() -> list[int]:
    return sorted(int(p.name) for p in CORPUS.iterdir() if p.is_dir() and p.name.isdigit())


def load(number: int) -> CorpusPR:
    folder = CORPUS / str(number)
    meta = json.loads((folder / "pr.json").read_text(encoding="utf-8"))
    head: dict[str, str | None] = dict(_files(folder / "head"))
    head |= {p: None for p in meta["deleted"]}
    return CorpusPR(number, meta["title"], datetime.fromisoformat(meta["merged_at"]),
                    _files(folder / "base"), head)


def _write(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if rel.endswith(".sh"):
            target.chmod(0o755)


def pack(repo: Path) -> None:
    """Put every object of ``repo`` in one pack: each job's checkout clones the repository,
    and a local clone hard-links every loose object file (a few hundred) where a pack is two."""
    git(repo, "repack", "-a", "-d", "-q")


def make_project_repo(path: Path) -> Path:
    """One packed commit of this project's files without the sample data a corpus PR's base
    tree replaces; the replays of a module clone it (make_repo)."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    _write(path, {rel: data for rel, data in project_files().items() if not rel.startswith(REPLACED)})
    git(path, "add", "--all")
    git(path, "commit", "--quiet", "-m", "main: the control plane", date=PROJECT_DATE)
    pack(path)
    return path


def make_repo(pr: CorpusPR, path: Path, project: Path) -> Path:
    """A repository whose `main` is one root commit: the project's files (a clone of
    make_project_repo's, sharing its pack) with the PR's base tree in place of the sample
    configs, changelog and recipes (a root, as the world holds no commit before it)."""
    git(project.parent, "clone", "--quiet", str(project), str(path))
    _write(path, {rel: text.encode("utf-8") for rel, text in pr.base.items()})
    git(path, "add", "--all")
    tree = git(path, "write-tree").strip()
    root = git(path, "commit-tree", tree, "-m", "main: the control plane and the reference's MI355X configs",
               date=pr.at(-3)).strip()
    git(path, "reset", "--quiet", "--soft", root)
    return path


class RealRepo(SweepRepo):
    """A scenario repository whose commits are dated in the days before the real merge."""

    def __init__(self, base: Path, path: Path, pr: CorpusPR) -> None:
        super().__init__(base, path)
        self._pr, self._step = pr, 0

    def _date(self) -> str:
        self._step += 1
        return self._pr.at(-3 + self._step / 24)

    def pull_refs(self, number: int, head: str) -> str:
        merge = super().pull_refs(number, head)
        pack(self.path)  # the sweep's checkouts clone it next
        return merge


def open_pr(repo: SweepRepo, pr: CorpusPR, labels: list[str]) -> PullRequest:
    main = repo.sha("main")
    head = repo.commit(f"realpr/{pr.number}", "main", dict(pr.head), pr.title)
    return PullRequest(pr.number, pr.title, f"realpr/{pr.number}", main, head, [head], labels)


def draft_record(draft: str) -> list[str]:
    """The draft-precision record (Check `draft`) a reviewer writes for a spec-decode PR: the
    draft (``embedded``: the checkpoint's own MTP head), its stored precision, the pinned
    image's default handling and the effective precision, as the launch leaves them."""
    where = ("the MTP head embedded in the served checkpoint (in-checkpoint, the target's revision)"
             if draft == "embedded" else f"{draft}, at the revision the pinned image downloads")
    return [f"- Draft checkpoint and revision: {where}.",
            "- Shipped precision: the draft runs as stored in its checkpoint (bf16 or the checkpoint's "
            "own quantization config).",
            "- Default handling of the pinned image: the launch passes no draft quantization or dtype "
            "flag, so the image loads the draft with its default handling.",
            "- Effective serving precision: the same as shipped (no draft fp8/fp4 override in the launch)."]


def replay(pr: CorpusPR, work: Path, project: Path, label: str, details: list[str], run_id: int):
    """The PR through the sweep loop, then signed by a CODEOWNER: (sweep record, world, PR
    number, sign-off comment id), ready for `infx signoff verify`."""
    from lib.loop_scenarios import sign, sweep

    base = make_repo(pr, work / "base", project)
    repo = RealRepo(base, work / "repo", pr)
    opened = open_pr(repo, pr, [label])
    record, world = sweep(repo, opened, work, run_id, start=pr.at(-1.5), now=pr.at(-0.1))
    comment = sign(world, details, when=pr.at(-0.5))
    return record, world, opened.number, comment
