"""The config keys the PR's plan sweeps (those its appended changelog entries name, at head),
and which affected configs Checks `evals`, `golden`, `recipe` and `pareto` therefore judge."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from infx.changelog.entry import KeyResolutionError
from infx.errors import InfxError
from infx.plan.planner import DEFAULT_CHANGELOG, appended_entries
from infx.signoff.model import Evidence
from infx.signoff.per_verdict import once
from infx.signoff.rules import configs_at
from infx.signoff.rules.affected import SHARED_ONLY
from infx.signoff.rules.policy_reads import EvidenceGap

T = TypeVar("T", bound=Any)  # infx.signoff.rules.affected.AffectedConfig (key, how)


def swept_keys(head_files: Mapping[str, str | None],
               base_files: Mapping[str, str | None]) -> list[str] | None:
    """Keys (head master order of the entries, no repeats) the appended entries resolve to;
    [] when the PR appends none (or has no changelog at head); None when unreadable."""
    head_text = head_files.get(DEFAULT_CHANGELOG)
    if head_text is None:
        return []
    try:
        files = configs_at.master_files(dict(head_files))
        entries = appended_entries(base_files.get(DEFAULT_CHANGELOG), head_text, DEFAULT_CHANGELOG)
        keys = [key for entry in entries for key in entry.resolve_keys(files)]
    except (InfxError, KeyResolutionError):
        return None
    return [key for key in dict.fromkeys(keys) if key in files]


def judged_configs(evidence: Evidence, configs: list[T]) -> list[T]:
    """The affected configs Checks `evals`, `golden`, `recipe`, `pareto`, `deprecated`, `images`,
    `draft`'s record and `patch`'s inherited patching judge: a config affected only through a file it
    shares with others (a launcher or sourced helper the PR changed) is judged only when the
    PR's plan sweeps it (an appended changelog entry names it); every other affected config
    is. An EvidenceGap when that needs the swept keys and they cannot be read."""
    if not any(config.how == SHARED_ONLY for config in configs):
        return configs
    keys = once(evidence, "swept keys", lambda: swept_keys(evidence.head_files, evidence.base_files))
    if keys is None:
        raise EvidenceGap(f"the configs the PR's plan sweeps could not be read from "
                          f"{DEFAULT_CHANGELOG} and the master configs at head")
    return [config for config in configs if config.how != SHARED_ONLY or config.key in keys]
