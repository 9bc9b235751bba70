"""Queue priority of planned jobs: each row's score and one-shot queue token (PRODUCT §4.4).

Rows are annotated after planning, as the reference's CI does: every JSON object of the plan
that has a `runner` and a `framework` gets

- `priority`: the policy's score (infx.config.ci_priority) as text with 3 decimals, rounded
  half-up; higher runs first;
- `queue-token`: the first 32 hex digits of sha256 over
  ``<namespace>:<path>:<row JSON>``, where the namespace is ``<run id>:<run attempt>``, the
  path the row's place in the plan (``single_node/1k1k/3``) and the row JSON its identity
  (infx.plan.identity.identity_fields: annotations never feed it) with sorted keys and no spaces;
- `skip-queue-pr`: the PR number, when the run honours the PR's skip-queue label
  (``skip_queue_pr`` of the context; who may ask for it is decided by the caller).

The three fields are annotations (infx.plan.identity.ANNOTATIONS): they never change a row's
identity, job name or fingerprint. Pure and deterministic.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from infx.config.ci_priority import PriorityPolicy
from infx.plan.identity import identity_fields

PRIORITY_FIELD = "priority"
QUEUE_TOKEN_FIELD = "queue-token"
SKIP_QUEUE_FIELD = "skip-queue-pr"
_FIELDS = (PRIORITY_FIELD, QUEUE_TOKEN_FIELD, SKIP_QUEUE_FIELD)
_QUANTUM = Decimal("0.001")
TOKEN_LENGTH = 32


@dataclass(frozen=True)
class PriorityContext:
    """What the run contributes: its event, the PR's labels, the queue namespace, and the PR
    number when the skip-queue request is honoured (else None)."""

    event_name: str = ""
    labels: frozenset[str] = frozenset()
    namespace: str = "local"
    skip_queue_pr: int | None = None


def _framework_adjustment(framework: str, table: Mapping[str, Decimal]) -> Decimal:
    for prefix, adjustment in table.items():
        if framework == prefix or framework.startswith(prefix + "-"):
            return adjustment
    return Decimal(0)


def _text(row: Mapping[str, Any], field: str) -> str:
    return str(row.get(field, ""))


def score(row: Mapping[str, Any], policy: PriorityPolicy, event_name: str = "",
          labels: Iterable[str] = ()) -> Decimal:
    """The row's score, rounded half-up to 3 decimals."""
    names = frozenset(labels)
    if names & policy.patchwork_labels and not names & policy.waiver_labels:
        return policy.patchwork_score.quantize(_QUANTUM, ROUND_HALF_UP)
    total = policy.base + policy.events.get(event_name, Decimal(0))
    if row.get("prefill") is not None:
        total += policy.multi_node
    if row.get("scenario-type") == "agentic-coding":
        total += policy.agentic
    if row.get("eval-only") is True:
        total += policy.eval_only
    total += policy.precision.get(_text(row, "precision"), Decimal(0))
    total += policy.spec_decoding.get(_text(row, "spec-decoding"), Decimal(0))
    total += _framework_adjustment(_text(row, "framework"), policy.framework_prefix)
    total += policy.model_prefix.get(_text(row, "model-prefix"), Decimal(0))
    if names & policy.checklist_labels:
        total += policy.checklist_adjustment
    return total.quantize(_QUANTUM, ROUND_HALF_UP)


def format_score(value: Decimal) -> str:
    """`1.750`: the score as the job's runner label shows it."""
    return f"{value:.3f}"


def queue_token(row: Mapping[str, Any], namespace: str, path: Iterable[str]) -> str:
    """The row's one-shot queue token in this run attempt (see the module docstring)."""
    canonical = json.dumps(identity_fields(row), sort_keys=True, separators=(",", ":"))
    material = f"{namespace}:{'/'.join(path)}:{canonical}"
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:TOKEN_LENGTH]


def skip_queue_requested(policy: PriorityPolicy, labels: Iterable[str]) -> bool:
    """Does the PR carry the policy's skip-queue label?"""
    return policy.skip_queue_label in set(labels)


def is_job(value: Any) -> bool:
    """A JSON object the annotator scores: it has a runner and a framework."""
    return isinstance(value, Mapping) and "runner" in value and "framework" in value


def annotate(value: Any, policy: PriorityPolicy, context: PriorityContext,
             path: tuple[str, ...] = ()) -> Any:
    """A copy of a plan (or a list of rows, or any JSON) with every job annotated. Earlier
    annotations are replaced, so annotating twice gives the same result as once."""
    if isinstance(value, list):
        return [annotate(item, policy, context, (*path, str(i))) for i, item in enumerate(value)]
    if not isinstance(value, Mapping):
        return value
    out = {key: annotate(item, policy, context, (*path, str(key)))
           for key, item in value.items() if not (is_job(value) and key in _FIELDS)}
    if is_job(value):
        out[PRIORITY_FIELD] = format_score(score(value, policy, context.event_name, context.labels))
        out[QUEUE_TOKEN_FIELD] = queue_token(value, context.namespace, path)
        if context.skip_queue_pr is not None:
            out[SKIP_QUEUE_FIELD] = context.skip_queue_pr
    return out


def honoured_skip_queue(policy: PriorityPolicy, labels: Iterable[str], event_name: str,
                        pr_number: int | None, actor_elevated: bool) -> int | None:
    """The PR number to put in `skip-queue-pr`, or None. The request counts only on a PR's own
    run, when the PR carries the label and the actor of the run (who labelled, pushed or re-ran)
    has maintain or admin on the repository; anyone else's request is ignored (fail closed)."""
    if event_name != "pull_request" or pr_number is None or not skip_queue_requested(policy, labels):
        return None
    return pr_number if actor_elevated else None
