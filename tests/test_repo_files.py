"""Our own repository files: the changelog parses strictly and plans against our configs."""

from __future__ import annotations

from infx.changelog.plan import PlanFlags, build_plan, file_sources, parse_additions
from infx.changelog.strict import parse_changelog


def test_our_changelog_passes_the_strict_parser(repo_root):
    raw = (repo_root / "perf-changelog.yaml").read_bytes()
    parsed = parse_changelog(raw, "perf-changelog.yaml")
    assert len(parsed.entries) >= 1
    assert raw.endswith(b"\n") and not raw.endswith(b"\n\n")


def test_our_changelog_plans_every_mi355x_key(repo_root):
    text = (repo_root / "perf-changelog.yaml").read_text(encoding="utf-8")
    entries = parse_additions(text, "perf-changelog.yaml")
    sources = file_sources([str(repo_root / "configs" / "amd-master.yaml")],
                           str(repo_root / "configs" / "runners.yaml"))
    plan = build_plan(entries, base_ref="base", head_ref="head", flags=PlanFlags(),
                      sources=sources)
    runners = {row["runner"] for bucket in ("single_node", "multi_node")
               for rows in plan[bucket].values() for row in rows}
    assert runners == {"mi355x", "mi355x-disagg", "cluster:mi355x-amds"}
