"""Check 14 (advisory): Pareto coverage of each affected curve."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from infx.signoff.checks import pareto
from infx.signoff.model import Artifact, CheckRun, Evidence, PullInfo, SignOff, Status

HEAD = "b" * 40
ENTRY = "k1:\n  image: {image}\n  model-prefix: minimaxm3\n  runner: mi355x\n  framework: atom\n  precision: fp4\n"


def point(x, y, **kw):
    return {"hw": "mi355x-amds_0", "infmax_model_prefix": "minimaxm3", "framework": "atom",
            "precision": "fp4", "scenario_type": "agentic-coding", "tput_per_gpu": y, "p90_e2el": x} | kw


def evidence(points, artifacts=None, changed=True) -> Evidence:
    pr = PullInfo(1, "t", "", "carol", "open", False, "main", "c" * 40, "x", HEAD, "o/r")
    runs = [CheckRun(1, "agentic / a", "completed", "success", "https://x/actions/runs/5/job/1"),
            CheckRun(2, "agentic eval / a", "completed", "success", "https://x/actions/runs/5/job/2")]
    if artifacts is None:
        artifacts = [Artifact("results_bmk", False, {"agg_bmk.json": json.dumps(points).encode()})]
    head = ENTRY.format(image="img:2")
    return Evidence(repo="o/r", default_branch="main", now=datetime(2026, 9, 30, tzinfo=timezone.utc),
                    pr=pr, signoff=SignOff("alice", "", None, 1, "issue_comment"), commits=[HEAD],
                    check_runs={HEAD: runs}, artifacts={5: artifacts},
                    head_files={"configs/amd-master.yaml": head},
                    base_files={"configs/amd-master.yaml": ENTRY.format(image="img:1") if changed else head})


def test_enough_frontier_points_pass() -> None:
    points = [point(10 * k, 100 * k) for k in range(1, 9)] + [point(15, 50), point(70, 60)]
    outcome = pareto.run(evidence(points))
    assert outcome.status is Status.PASS
    assert "minimaxm3 / agentic-coding / MI355X atom / fp4: 10 measured, 0 invalid, 8/5" in outcome.reason


def test_scenario_12_three_of_five_warns() -> None:
    points = [point(10, 100), point(20, 200), point(30, 300)] + [point(40 + k, 50) for k in range(6)]
    outcome = pareto.run(evidence(points))
    assert outcome.status is Status.WARN and "9 measured, 0 invalid, 3/5" in outcome.reason


def test_invalid_points_warn_even_with_a_long_frontier() -> None:
    points = [point(10 * k, 100 * k) for k in range(1, 7)] + [point(None, 5)]
    outcome = pareto.run(evidence(points))
    assert outcome.status is Status.WARN and "1 invalid" in outcome.reason


def test_unverifiable_is_a_warning_never_a_count() -> None:
    outcome = pareto.run(evidence([], artifacts=[Artifact("results_bmk", True, None)]))
    assert outcome.status is Status.WARN and "unverifiable" in outcome.reason and "expired" in outcome.reason


def test_no_changed_config_is_not_applicable() -> None:
    assert pareto.run(evidence([point(1, 1)], changed=False)).status is Status.NA


def test_fixed_seq_curves_split_by_spec_method() -> None:
    fixed = [point(k, k * 10, scenario_type="fixed-seq-len", isl=8192, osl=1024, median_e2el=k,
                   spec_decoding=spec) for k in range(1, 6) for spec in ("mtp", "none")]
    outcome = pareto.run(evidence(fixed))
    assert outcome.reason.startswith("2 curve(s)")
