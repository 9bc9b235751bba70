"""Validate every configuration file of a benchmark repository at once (`infx config validate`).

Each area is one row of AREAS: which files it covers and the loader the product itself uses
for them, so a file passes here exactly when the planner, the launcher or the sign-off bot
would accept it. A loader's located problems are collected (never the first one only), and
a missing optional area is skipped, a missing required one is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from infx.errors import InfxError, Problem

MASTER_GLOB = "configs/*-master.yaml"
RUNNERS = "configs/runners.yaml"
THRESHOLDS = "configs/evals/thresholds.yaml"


@dataclass(frozen=True)
class Area:
    """One kind of configuration file and the product's own check of it."""

    name: str
    patterns: tuple[str, ...]
    check: Callable[[Path, list[Path]], list[Problem]]
    required: bool = False


@dataclass
class Outcome:
    """What validation found, and which files it read."""

    problems: list[Problem]
    files: list[str]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.level != "warning"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.level == "warning"]


def _collect(read: Callable[[], object]) -> list[Problem]:
    try:
        read()
    except InfxError as exc:
        return list(exc.problems)
    return []


def _read(path: Path) -> str:
    """A file of the checkout as text, through the one capped reader (yamlio.read_text): an
    oversized, unreadable or non-UTF-8 file is a located problem, never a crash."""
    from infx.yamlio import read_text

    return read_text(path, what="configuration file")


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _masters(root: Path, paths: list[Path]) -> list[Problem]:
    from infx.config.master import load_master_configs_from_texts
    from infx.config.runners import load_runners_from_text, unknown_label_problems

    found: list[Problem] = []
    try:
        configs = load_master_configs_from_texts([(_rel(root, p), _read(p)) for p in paths])
    except InfxError as exc:
        return list(exc.problems)
    runners = root / RUNNERS
    if runners.is_file():
        try:
            labels = load_runners_from_text(RUNNERS, _read(runners))
        except InfxError:
            return found  # reported by the runners area
        found += unknown_label_problems(configs, labels)
    return found


def _runners(root: Path, paths: list[Path]) -> list[Problem]:
    from infx.config.runners import load_runners_from_text

    return [p for path in paths for p in _collect(
        lambda path=path: load_runners_from_text(_rel(root, path), _read(path)))]


def _thresholds(root: Path, paths: list[Path]) -> list[Problem]:
    from infx.config.thresholds import load_thresholds_text

    return [p for path in paths for p in _collect(
        lambda path=path: load_thresholds_text(_read(path), _rel(root, path)))]


def _golden(root: Path, paths: list[Path]) -> list[Problem]:
    from infx.config.policy import load_golden_curve

    return [p for path in paths for p in _collect(
        lambda path=path: load_golden_curve(_read(path), _rel(root, path)))]


def _policy(root: Path, paths: list[Path]) -> list[Problem]:
    from infx.config.policy import POLICY_NAMES, load_policy_document

    found: list[Problem] = []
    for path in paths:
        name = path.stem
        if name not in POLICY_NAMES:
            from difflib import get_close_matches

            near = get_close_matches(name, POLICY_NAMES, n=1)
            found.append(Problem(f"unknown policy file '{path.name}': the sign-off never reads it",
                                 file=_rel(root, path), level="warning",
                                 fix=(f"did you mean {near[0]}.yaml? " if near else "")
                                 + "policy files are " + ", ".join(f"{n}.yaml" for n in POLICY_NAMES)))
            continue
        found += _collect(lambda path=path, name=name: load_policy_document(
            name, _read(path), _rel(root, path)))
    return found


def _queue_priority(root: Path, paths: list[Path]) -> list[Problem]:
    from infx.config.ci_priority import load_priority_policy

    return [p for path in paths for p in _collect(
        lambda path=path: load_priority_policy(_read(path), _rel(root, path)))]


AREAS: tuple[Area, ...] = (
    Area("master configs", (MASTER_GLOB,), _masters, required=True),
    Area("runners", (RUNNERS,), _runners, required=True),
    Area("eval thresholds", (THRESHOLDS,), _thresholds),
    Area("golden AL curves", ("configs/golden_al_distribution/*.yaml",), _golden),
    Area("sign-off policy", ("configs/policy/*.yaml",), _policy),
    Area("CI queue priority", ("configs/ci-priority.yaml",), _queue_priority),
)


def validate_repository(root: Path) -> Outcome:
    """Every configuration problem under `root` (a checkout of the benchmark repository)."""
    problems: list[Problem] = []
    files: list[str] = []
    for area in AREAS:
        # the checkout is a PR's (data): a link out of it is never followed
        paths = sorted({p for pattern in area.patterns for p in root.glob(pattern)
                        if p.is_file() and not p.is_symlink()})
        if not paths:
            if area.required:
                problems.append(Problem(f"no {area.name} found ({', '.join(area.patterns)})",
                                        file=area.patterns[0],
                                        fix="run from the repository root or pass --repo-dir"))
            continue
        files += [_rel(root, p) for p in paths]
        problems += area.check(root, paths)
    prefix = f"{root}/"
    for problem in problems:  # the capped reader names files by their path on disk
        if problem.file and problem.file.startswith(prefix):
            problem.file = problem.file[len(prefix):]
    return Outcome(problems, files)
