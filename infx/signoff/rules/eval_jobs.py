"""Eval rows rebuilt from per-job `eval_*` artifacts, the batched-eval manifest rule and the eval score rule (pure)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from infx.results import normalise
from infx.signoff.model import ArtifactMembers

META_FILE = normalise.META_FILE
JobEvals = normalise.EvalJob  # one eval job's identity and rows (built by the one normaliser)
is_job_artifact = normalise.is_eval_job_artifact


def read_job(members: ArtifactMembers) -> JobEvals | str:
    """The job's rows, or why the artifact cannot be used (expired, unreadable, malformed).

    The rows come from the same normaliser `infx workflow collect` uses for `agg_eval_all.json`."""
    name = members.artifact.name
    if members.artifact.expired:
        return f"the eval artifact {name} has expired; re-run the evals."
    if members.files is None:
        return f"the eval artifact {name} could not be downloaded."
    return normalise.eval_job(name, members.files)


def manifest_problem(job: JobEvals, narrowed: frozenset[int] | None = None) -> str | None:
    """The batch rule collection uses (`normalise.batch_problem`), with the batch required whole:
    every requested concurrency completed, none failed, none added. ``narrowed`` is the
    changelog's `eval-concs` for this job's config: it replaces the job's own request as the
    expected set."""
    return normalise.batch_problem(job, complete=True, narrowed=narrowed)


def eval_score(row: Mapping[str, Any]) -> float | None:
    """An eval result row's score, the one rule for Check `evals` and the sweep report: `score`, else
    the first of em_strict, accuracy, em_flexible present; a number in [0, 1], else None."""
    value = row.get("score")
    if value is None:
        for name in ("em_strict", "accuracy", "em_flexible"):
            if row.get(name) is not None:
                value = row[name]
                break
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:  # an integer beyond the float range (JSON allows one)
        return None
    return value if math.isfinite(value) and 0.0 <= value <= 1.0 else None
