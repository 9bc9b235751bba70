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
    base_text = base_files.get(DEFAULT_CHANGELOG)
    try:
        files = configs_at.master_files(dict(head_files))
        try:
            entries = appended_entries(base_text, head_text, DEFAULT_CHANGELOG)
        except InfxError:
            # not an append (a squash that put the entry before ones merged meanwhile, say;
            # Check `append` judges that): the entries the head holds that the base does not,
            # read as if appended
            entries = appended_entries(base_text, _with_new_entries_last(base_text or "", head_text),
                                       DEFAULT_CHANGELOG)
        keys = [key for entry in entries for key in entry.resolve_keys(files)]
    except (InfxError, KeyResolutionError):
        return None
    return [key for key in dict.fromkeys(keys) if key in files]


def _with_new_entries_last(base_text: str, head_text: str) -> str:
    """The base changelog with the head's top-level entries that it lacks (by their text,
    trailing blanks aside) appended in head order."""
    known = {block.rstrip() for block in _entries(base_text)}
    new = [block.rstrip() for block in _entries(head_text) if block.rstrip() not in known]
    return base_text.rstrip("\n") + "\n\n" + "\n\n".join(new) + "\n" if new else base_text


def _entries(text: str) -> list[str]:
    """The changelog's top-level list items as text (each from its ``- `` line)."""
    blocks: list[list[str]] = []
    for line in text.split("\n"):
        if line.startswith("- ") or line == "-":
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    return ["\n".join(block) for block in blocks]


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
