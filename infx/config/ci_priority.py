"""The CI queue priority policy (configs/ci-priority.yaml): loading, validation and its values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from infx.config.policy import validate_document
from infx.errors import InfxError, Problem

POLICY_PATH = "configs/ci-priority.yaml"


def _decimal(value: Any) -> Decimal:
    """A YAML number as the decimal its text shows (0.75 is 0.75, never a binary fraction)."""
    return Decimal(str(value))


def _table(doc: Mapping[str, Any], name: str) -> dict[str, Decimal]:
    return {str(k): _decimal(v) for k, v in (doc.get(name) or {}).items()}


@dataclass(frozen=True)
class PriorityPolicy:
    """The policy's values; every number is a Decimal, tables keep the file's order."""

    base: Decimal
    events: Mapping[str, Decimal]
    multi_node: Decimal
    agentic: Decimal
    eval_only: Decimal
    precision: Mapping[str, Decimal]
    spec_decoding: Mapping[str, Decimal]
    framework_prefix: Mapping[str, Decimal]  # first matching prefix counts (file order)
    model_prefix: Mapping[str, Decimal]  # exact model-prefix
    skip_queue_label: str
    checklist_labels: frozenset[str]
    checklist_adjustment: Decimal
    patchwork_labels: frozenset[str]
    patchwork_score: Decimal
    waiver_labels: frozenset[str]

    @classmethod
    def from_document(cls, doc: Mapping[str, Any]) -> PriorityPolicy:
        """From a document that passed the schema (ci-priority.schema.json)."""
        adjustments = doc["adjustments"]
        labels = doc["labels"]
        checklist = labels.get("checklist-complete") or {}
        patchwork = labels["patchwork"]
        return cls(
            base=_decimal(doc["base-score"]),
            events=_table(adjustments, "event"),
            multi_node=_decimal(adjustments.get("multi-node", 0)),
            agentic=_decimal(adjustments.get("agentic", 0)),
            eval_only=_decimal(adjustments.get("eval-only", 0)),
            precision=_table(adjustments, "precision"),
            spec_decoding=_table(adjustments, "spec-decoding"),
            framework_prefix=_table(adjustments, "framework-prefix"),
            model_prefix=_table(adjustments, "model-prefix"),
            skip_queue_label=labels["skip-queue"]["name"],
            checklist_labels=frozenset(checklist.get("names") or ()),
            checklist_adjustment=_decimal(checklist.get("adjustment", 0)),
            patchwork_labels=frozenset(patchwork["names"]),
            patchwork_score=_decimal(patchwork["score"]),
            waiver_labels=frozenset(patchwork.get("waived-by") or ()),
        )


def load_priority_policy(text: str | None, filename: str = POLICY_PATH) -> PriorityPolicy:
    """Parse and validate the policy text; every error names the file, the line and the key."""
    if text is None:
        raise InfxError(Problem("the CI priority policy could not be read", file=filename,
                                fix=f"restore {POLICY_PATH} on the default branch"))
    return PriorityPolicy.from_document(validate_document("ci-priority", text, filename))
