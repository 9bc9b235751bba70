"""Split a sweep plan into GitHub matrices of at most 256 jobs, one or more shard jobs per bucket."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from infx.config.scenarios import AGENTIC_ID
from infx.errors import InfxError, Problem
from infx.plan import contract, identity
from infx.plan.sweep_plan import (
    AGENTIC_EVALS,
    EVAL_BUCKETS,
    EVALS,
    MULTI_NODE,
    MULTINODE_AGENTIC_EVALS,
    MULTINODE_EVALS,
    SINGLE_NODE,
    BucketPath,
    Plan,
)

MAX_MATRIX_JOBS = 256  # GitHub's hard limit per matrix


@dataclass(frozen=True)
class Bucket:
    """A plan bucket and the workflow jobs ("shard slots") that can run it."""

    id: str  # used in job ids and output keys
    path: BucketPath  # where the rows live in the plan (infx.plan.sweep_plan)
    title: str  # the job's display name prefix (check-run names start with it)
    slots: int  # shard jobs declared for it in run-sweep.yml

    @property
    def is_eval(self) -> bool:
        return self.path[0] in EVAL_BUCKETS


BUCKETS: tuple[Bucket, ...] = (
    Bucket("single-node-1k1k", (SINGLE_NODE, "1k1k"), "single-node 1k1k", 2),
    Bucket("single-node-8k1k", (SINGLE_NODE, "8k1k"), "single-node 8k1k", 2),
    # the reference names this family plain "agentic"; reviewers and dashboards know it so
    Bucket("single-node-agentic", (SINGLE_NODE, AGENTIC_ID), "agentic", 1),
    Bucket("multi-node-1k1k", (MULTI_NODE, "1k1k"), "multi-node 1k1k", 1),
    Bucket("multi-node-8k1k", (MULTI_NODE, "8k1k"), "multi-node 8k1k", 1),
    Bucket("multi-node-agentic", (MULTI_NODE, AGENTIC_ID), "multi-node agentic", 1),
    Bucket("evals", (EVALS,), "eval", 1),
    Bucket("agentic-evals", (AGENTIC_EVALS,), "agentic eval", 1),
    Bucket("multinode-evals", (MULTINODE_EVALS,), "multi-node eval", 1),
    Bucket("multinode-agentic-evals", (MULTINODE_AGENTIC_EVALS,), "multi-node agentic eval", 1),
)
# The canary job of run-sweep.yml (infx.workflow.canary): one single-node fixed-seq-len row
# run before every family; not a plan bucket, but its check runs count like its family's.
CANARY = Bucket("canary", (SINGLE_NODE, "canary"), "canary", 1)


def shard_id(bucket: Bucket, index: int) -> str:
    """Output key / job suffix of the index-th (1-based) shard of a bucket."""
    return f"{bucket.id}-{index}"


def caller_name(bucket: Bucket, index: int) -> str:
    """The display name run-sweep.yml gives the index-th shard job of a bucket; GitHub names
    the matrix jobs it calls `<caller name> / <job name>`."""
    return bucket.title if index == 1 else f"{bucket.title} (shard {index})"


_CALLERS = {caller_name(b, i): b for b in BUCKETS for i in range(1, b.slots + 1)} | {CANARY.title: CANARY}


def bucket_of_job(name: str) -> Bucket | None:
    """The bucket whose shard job ran the check run / job called `name`, or None for every
    other job (setup, collect-*, lint, …). Names are matched exactly as run-sweep.yml spells them,
    after an adopter's `sweep / ` (identity.sweep_job_name: its sweep calls ours as one job)."""
    name = identity.sweep_job_name(name)
    if " / " not in name:
        return None
    return _CALLERS.get(name.split(" / ", 1)[0])


def all_shard_ids() -> list[str]:
    return [shard_id(b, i) for b in BUCKETS for i in range(1, b.slots + 1)]


def split_evenly(rows: list[Any], limit: int = MAX_MATRIX_JOBS) -> list[list[Any]]:
    """Contiguous chunks of at most `limit` rows whose sizes differ by at most one."""
    if not rows:
        return []
    count = math.ceil(len(rows) / limit)
    base, extra = divmod(len(rows), count)
    chunks, start = [], 0
    for index in range(count):
        size = base + (1 if index < extra else 0)
        chunks.append(rows[start:start + size])
        start += size
    return chunks


def _check_known_buckets(plan: Plan) -> None:
    known = {b.path for b in BUCKETS}
    for path, _ in plan.buckets():
        if path not in known:
            raise InfxError(Problem(
                f"plan has a bucket {'.'.join(path)} that run-sweep.yml has no job for",
                key=".".join(path),
                fix="add the bucket to infx.workflow.shard.BUCKETS and a job to run-sweep.yml"))


@dataclass(frozen=True)
class Duplicate:
    """Copies of one row the shard step dropped: the row was planned more than once, identical in
    every field (the reference NVIDIA master repeats some agentic search-space entries)."""

    bucket: str
    job_name: str
    dropped: int


def _same_row(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return identity.canonical_json(a) == identity.canonical_json(b)


def name_rows(rows: list[Any], bucket: Bucket, seen: dict[str, tuple[str, Mapping[str, Any]]],
              duplicates: dict[str, Duplicate] | None = None) -> list[dict[str, Any]]:
    """Each distinct row with its `job-name` (the row identity), in plan order.

    A row identical in every identity field to one already named is the same job planned twice:
    it is dropped (one GPU job per row; identity stays injective over the rows that run) and
    counted in ``duplicates``. Two different rows with one identity (a digest collision) are
    refused. ``seen`` maps the result slugs already named in this plan to their bucket and row
    (artifact names derive from the identity and must be unique in the whole run).
    """
    named = []
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise InfxError(Problem(f"row {index} of bucket {bucket.id} is not a JSON object", key=bucket.id))
        row = contract.with_defaults(dict(row))  # a row from another tool runs as its complete form
        name = identity.job_name(row)
        slug = identity.result_slug(row)
        if slug in seen:
            first_bucket, first = seen[slug]
            if not _same_row(first, row):
                raise InfxError(Problem(
                    f"two different rows of the plan have the same identity {name!r} (bucket {bucket.id}, "
                    f"row {index}; first in {first_bucket})", key=bucket.id,
                    fix="report this identity digest collision; change a field of one of the rows"))
            if duplicates is not None:
                known = duplicates.get(slug)
                duplicates[slug] = Duplicate(bucket.id, name, (known.dropped if known else 0) + 1)
            continue
        seen[slug] = (bucket.id, row)
        kept = {f: row[f] for f in (identity.FINGERPRINT_FIELD,) if isinstance(row.get(f), str)}
        named.append({**identity.identity_fields(row), identity.JOB_NAME_FIELD: name, **kept})
    return named


@dataclass(frozen=True)
class Sharding:
    """The plan's rows named, de-duplicated and split: shard id -> rows, and what was dropped."""

    shards: dict[str, list[Any]]
    duplicates: tuple[Duplicate, ...]


def shard_rows(plan: Plan, limit: int = MAX_MATRIX_JOBS) -> Sharding:
    """Name every row of every bucket, drop exact repeats, split each bucket into ≤`limit` shards;
    fail if a bucket overflows its slots or two different rows share an identity."""
    _check_known_buckets(plan)
    shards: dict[str, list[Any]] = {}
    seen: dict[str, tuple[str, Mapping[str, Any]]] = {}
    duplicates: dict[str, Duplicate] = {}
    for bucket in BUCKETS:
        rows = name_rows(plan.bucket(bucket.path), bucket, seen, duplicates)
        chunks = split_evenly(rows, limit)
        if len(chunks) > bucket.slots:
            raise InfxError(Problem(
                f"bucket {bucket.id} has {len(rows)} jobs; run-sweep.yml can run at most "
                f"{bucket.slots * limit} ({bucket.slots} shard job(s) of {limit}, GitHub's matrix limit)",
                key=bucket.id,
                fix="split the changelog entry across PRs, or add shard jobs for this bucket"))
        for index, chunk in enumerate(chunks, start=1):
            shards[shard_id(bucket, index)] = chunk
    return Sharding(shards, tuple(duplicates.values()))


def shard_plan(plan: Plan, limit: int = MAX_MATRIX_JOBS) -> dict[str, list[Any]]:
    """Map shard id -> named rows for every non-empty shard (see ``shard_rows``)."""
    return shard_rows(plan, limit).shards


def shard_outputs(plan: Plan | Sharding, limit: int = MAX_MATRIX_JOBS) -> dict[str, Any]:
    """The plan job's outputs: `matrix` (shard id -> rows), `shards` (non-empty ids), `jobs`."""
    shards = (plan if isinstance(plan, Sharding) else shard_rows(plan, limit)).shards
    evals = {b.id for b in BUCKETS if b.is_eval}
    eval_shards = [name for name in shards if name.rsplit("-", 1)[0] in evals]
    outputs = {
        "matrix": shards,
        "shards": list(shards),
        "jobs": sum(len(rows) for rows in shards.values()),
        "has-throughput": len(eval_shards) < len(shards),
        "has-evals": bool(eval_shards),
    }
    check_output_size(outputs)
    return outputs


def check_output_size(outputs: Mapping[str, Any], limit: int | None = None) -> None:
    """Fail, naming the largest shards, when the plan job's outputs together exceed GitHub's
    per-job output limit (checked before anything is written)."""
    from infx.workflow.actions import JOB_OUTPUT_LIMIT, output_size, output_text

    limit = JOB_OUTPUT_LIMIT if limit is None else limit
    size = sum(output_size(f"{name}={output_text(value)}\n") for name, value in outputs.items())
    if size <= limit:
        return
    shard_sizes = sorted(((output_size(output_text(rows)), name)
                          for name, rows in outputs["matrix"].items()), reverse=True)
    largest = ", ".join(f"{name} {bytes_:,} bytes" for bytes_, name in shard_sizes[:3])
    raise InfxError(Problem(
        f"the plan's matrix output is {size:,} bytes; GitHub allows {limit:,} bytes of outputs "
        f"per job (largest shards: {largest})", key=shard_sizes[0][1] if shard_sizes else None,
        fix="split the changelog entry across PRs so each plan stays under the limit"))
