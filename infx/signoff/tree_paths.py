"""The files of a PR-controlled tree the checks read: the filter the tarball reader keeps.

A PR head is hostile (PRODUCT §4.8): its tarball is streamed under the archive caps, and
only the files some check reads are kept; every other member is skipped without being
held in memory or counted against the per-member and total caps (a large unrelated file
at the head is not evidence, and cannot end the verification in `error`).

What the checks read at a head: every file the PR changes (and the old name of a rename),
the changelog, master configs, recipes and `configs/runners.yaml` (everything under a
`configs/` folder), the launchers (`benchmarks/`, `runners/`), CODEOWNERS, the shared
multi-node helper folders the trusted engines policy names, and the sweep workflow files
provenance compares (run-sweep.yml and the local workflows and actions it calls, as the
default branch lists them). A check that needs any other
file reads it through `head_text`, which fails closed ("was not read") instead of
treating a skipped file as absent. Pure: nothing here reads GitHub.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from infx.benchmark_content import is_benchmark_path
from infx.errors import InfxError
from infx.signoff.model import Evidence
from infx.signoff.policy_common import changed_paths, policy
from infx.signoff.provenance import sweep_files

Wanted = Callable[[str], bool]

# configs/ at the root or one folder down (a monorepo's e.g. inferencex-e2e/configs/)
_CONFIG_DIR = re.compile(r"^(?:[^/]+/)?configs/")


def head_filter(evidence: Evidence, codeowners_paths: Iterable[str]) -> Wanted | None:
    """`wanted(path)` for a PR-controlled tree of this PR, or None (keep every file) when
    the trusted policy naming the helper folders cannot be read (the checks report that)."""
    try:
        rules = policy(evidence).doc("engines").get("multi-node-helpers") or []
        helpers = tuple(str(p) for rule in rules for p in rule["paths"])
    except Exception:  # noqa: BLE001 - unreadable policy: read everything, decide nothing here
        return None
    try:
        workflows = frozenset(sweep_files(evidence.default_branch_files))
    except InfxError:
        workflows = frozenset()  # no run can be shown to be ours; provenance says why
    exact = frozenset(changed_paths(evidence)) | frozenset(codeowners_paths) | workflows

    def wanted(path: str) -> bool:
        return (path in exact or is_benchmark_path(path) or _CONFIG_DIR.match(path) is not None
                or path.startswith(helpers))

    return wanted
