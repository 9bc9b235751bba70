"""This repository's own configs as an in-memory tree, and a head that appends one changelog entry."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MASTER = "configs/amd-master.yaml"
KEY = "dsr1-fp4-mi355x-sglang"
SIBLING = "dsr1-fp4-mi355x-sglang-mtp"  # same prefix/precision/framework/image, other model
ENTRY = f"\n- config-keys:\n    - {KEY}\n  description:\n    - bump\n  pr-link: XXX\n"


def project_tree() -> dict[str, str]:
    """The master config, runners, changelog, runner scripts and recipes as path -> text."""
    files = [MASTER, "configs/runners.yaml", "perf-changelog.yaml",
             *(p.relative_to(ROOT).as_posix() for p in (ROOT / "runners").rglob("*") if p.is_file()),
             *(p.relative_to(ROOT).as_posix() for p in (ROOT / "configs" / "recipes").glob("*.yaml"))]
    return {f: (ROOT / f).read_text(encoding="utf-8") for f in files}


BASE = project_tree()
HEAD = BASE | {"perf-changelog.yaml": BASE["perf-changelog.yaml"] + ENTRY}
