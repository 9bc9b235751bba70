"""Check `pareto` (advisory): Pareto coverage of each affected curve."""

from __future__ import annotations

import json

import pytest
from lib.signoff_policy_support import bare_evidence

from infx.signoff.checks import pareto
from infx.signoff.model import (
    Artifact,
    ArtifactMembers,
    ChangedFile,
    CheckRun,
    Comment,
    Evidence,
    Status,
)
from infx.signoff.table import load_table

SETTINGS = load_table().settings

HEAD = "b" * 40
AGENTIC = """k1:
  image: {image}
  model-prefix: minimaxm3
  runner: cluster:mi355x-amds
  framework: atom
  precision: fp4
  scenarios:
    agentic-coding:
    - search-space:
      - {{tp: 4, conc-list: [1, 2], spec-decoding: mtp}}
"""
FIXED = """k2:
  image: {image}
  model-prefix: dsr1
  runner: mi355x
  framework: sglang
  precision: fp8
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - {{tp: 8, conc-list: [4, 8], spec-decoding: mtp}}
      - {{tp: 8, conc-list: [4, 8]}}
"""


def point(x, y, **kw):
    return {"hw": "mi355x-amds_0", "infmax_model_prefix": "minimaxm3", "framework": "atom",
            "precision": "fp4", "scenario_type": "agentic-coding", "tput_per_gpu": y, "p90_e2el": x} | kw


def fixed_point(x, y, spec="mtp", **kw):
    return {"hw": "mi355x-a_1", "infmax_model_prefix": "dsr1", "framework": "sglang", "precision": "fp8",
            "isl": 8192, "osl": 1024, "spec_decoding": spec, "tput_per_gpu": y, "median_e2el": x} | kw


def evidence(points, artifacts=None, changed=True, entry=AGENTIC, comments=()) -> Evidence:
    runs = [CheckRun(1, "agentic / a", "completed", "success", "https://x/actions/runs/5/job/1"),
            CheckRun(2, "agentic eval / a", "completed", "success", "https://x/actions/runs/5/job/2"),
            CheckRun(3, "single-node 8k1k / a", "completed", "success", "https://x/actions/runs/5/job/3")]
    if artifacts is None:
        artifacts = [ArtifactMembers(Artifact(0, "results_bmk", False), {"agg_bmk.json": json.dumps(points).encode()})]
    head = entry.format(image="img:2")
    return bare_evidence(head_sha=HEAD, commits=[HEAD], check_runs={HEAD: runs},
                         artifacts={5: artifacts}, comments=list(comments),
                         files=[ChangedFile("configs/amd-master.yaml", "modified")],
                         head_files={"configs/amd-master.yaml": head},
                         base_files={"configs/amd-master.yaml": entry.format(image="img:1") if changed else head})


def test_enough_frontier_points_pass() -> None:
    points = [point(10 * k, 100 * k) for k in range(1, 9)] + [point(15, 50), point(70, 60)]
    outcome = pareto.run(evidence(points), SETTINGS)
    assert outcome.status is Status.PASS
    assert ("minimaxm3 / agentic-coding / MI355X atom / fp4: 10 measured, 0 invalid, "
            "8/5 on the P90 tput_per_gpu vs p90_e2el frontier") in outcome.reason


def test_scenario_12_three_of_five_warns() -> None:
    points = [point(10, 100), point(20, 200), point(30, 300)] + [point(40 + k, 50) for k in range(6)]
    outcome = pareto.run(evidence(points), SETTINGS)
    assert outcome.status is Status.WARN and "9 measured, 0 invalid, 3/5" in outcome.reason
    assert "strongly recommended" in outcome.reason and "admin bypass: none recorded" in outcome.reason


def test_p75_is_reported_separately_and_does_not_decide() -> None:
    points = [point(10 * k, 100 * k, p75_e2el=5.0) for k in range(1, 7)]
    outcome = pareto.run(evidence(points), SETTINGS)
    assert outcome.status is Status.PASS and "6/5 on the P90" in outcome.reason
    assert "(P75: 1/5, 0 invalid)" in outcome.reason


def test_invalid_points_warn_even_with_a_long_frontier() -> None:
    points = [point(10 * k, 100 * k) for k in range(1, 7)] + [point(None, 5)]
    outcome = pareto.run(evidence(points), SETTINGS)
    assert outcome.status is Status.WARN and "1 invalid" in outcome.reason


def test_unverifiable_is_a_warning_never_a_count() -> None:
    outcome = pareto.run(evidence([], artifacts=[ArtifactMembers(Artifact(0, "results_bmk", True), None)]), SETTINGS)
    assert outcome.status is Status.WARN and "unverifiable" in outcome.reason and "expired" in outcome.reason


def test_an_affected_curve_without_points_is_unverifiable() -> None:
    other = [point(10 * k, 100 * k, infmax_model_prefix="kimik3") for k in range(1, 9)]
    outcome = pareto.run(evidence(other), SETTINGS)
    assert outcome.status is Status.WARN
    assert "minimaxm3 / agentic-coding / MI355X atom / fp4: unverifiable (no measured points" in outcome.reason
    assert "kimik3" not in outcome.reason  # points of unaffected curves are not judged


def test_no_changed_config_is_not_applicable() -> None:
    assert pareto.run(evidence([point(1, 1)], changed=False), SETTINGS).status is Status.NA


def test_fixed_seq_curves_split_by_spec_method_and_use_median_e2el() -> None:
    fixed = [fixed_point(k, k * 10, spec) for k in range(1, 6) for spec in ("mtp", "none")]
    outcome = pareto.run(evidence(fixed, entry=FIXED), SETTINGS)
    assert outcome.status is Status.PASS and outcome.reason.startswith("2 affected curve(s)")
    assert "dsr1 / 8192/1024 / MI355X sglang spec=mtp / fp8: 5 measured" in outcome.reason
    assert "vs median_e2el" in outcome.reason


def test_images_and_config_keys_on_one_series_merge_into_one_curve() -> None:
    points = [point(10 * k, 100 * k, image="img:1" if k % 2 else "img:2") for k in range(1, 6)]
    outcome = pareto.run(evidence(points), SETTINGS)
    assert outcome.status is Status.PASS and outcome.reason.startswith("1 affected curve(s)")


def bypass(user: str, sha: str = HEAD) -> Comment:
    return Comment(9, user, f"thin curve accepted\n/pareto-bypass {sha}\n", "MEMBER", "2026-09-29T00:00:00Z",
                   html_url="https://github.com/o/r/pull/1#issuecomment-9")


THIN = [point(10, 100), point(20, 200)]


@pytest.mark.parametrize("user,record,text", [
    ("root", {"permission": "admin", "role_name": "admin"},
     "admin bypass: recorded by @root (repository admin) for bbbbbbbb (https://github.com/o/r/pull/1#issuecomment-9)"),
    ("maint", {"permission": "write", "role_name": "maintain"}, "@maint's bypass does not count: not a repository admin"),
    ("ghost", None, "@ghost's bypass does not count: admin access could not be verified"),
])
def test_admin_bypass_is_reported_but_the_row_stays_a_warning(user, record, text) -> None:
    ev = evidence(THIN, comments=[bypass(user)])
    if record is not None:
        ev.collaborators[user] = record
    outcome = pareto.run(ev, SETTINGS)
    assert outcome.status is Status.WARN and text in outcome.reason


def test_a_bypass_for_another_commit_or_inside_a_sentence_does_not_count() -> None:
    stale = bypass("root", "a" * 40)
    inline = Comment(10, "root", f"please /pareto-bypass {HEAD} later", "OWNER", "2026-09-29T00:00:00Z")
    ev = evidence(THIN, comments=[stale, inline])
    ev.collaborators["root"] = {"permission": "admin", "role_name": "admin"}
    assert "admin bypass: none recorded" in pareto.run(ev, SETTINGS).reason


def test_series_of_an_entry() -> None:
    from infx import yamlio

    entry = yamlio.load_text(FIXED.format(image="i"), "x")["k2"]
    assert {s.label() for s in pareto.series_of(entry)} == {
        "dsr1 / 8192/1024 / MI355X sglang spec=mtp / fp8", "dsr1 / 8192/1024 / MI355X sglang spec=none / fp8"}


@pytest.mark.parametrize("body", [
    "```\n/pareto-bypass {sha}\n```", "<!--\n/pareto-bypass {sha}\n-->", "> /pareto-bypass {sha}",
    "    /pareto-bypass {sha}", "`/pareto-bypass {sha}`", "<details>\n/pareto-bypass {sha}\n</details>",
])
def test_a_bypass_line_counts_only_as_github_shows_it(body) -> None:
    """Read like every slash command (infx.commands.grammar): a line inside code, a quote or an
    HTML comment is no bypass, even from an admin."""
    ev = evidence(THIN, comments=[Comment(11, "root", body.format(sha=HEAD), "OWNER", "2026-09-29T00:00:00Z")])
    ev.collaborators["root"] = {"permission": "admin", "role_name": "admin"}
    assert "admin bypass: none recorded" in pareto.run(ev, SETTINGS).reason


# --- what the plan sweeps (infx.signoff.swept): a curve affected only through a shared file -------

K1_LISTED = "- config-keys:\n    - k1\n  description:\n    - \"Re-run\"\n  pr-link: XXX\n"


def _shared_only(monkeypatch, changelog: str | None) -> Evidence:
    """k1 is unchanged; the PR changes a helper its launch sources (Check `pareto` is told so)."""
    from dataclasses import replace

    from infx.signoff.rules.affected import AffectedConfig
    from infx.signoff.swept import SHARED_ONLY

    ev = evidence([point(10 * k, 100 * k) for k in range(1, 9)], changed=False)
    head = dict(ev.head_files) | ({"perf-changelog.yaml": changelog} if changelog is not None else {})
    ev = replace(ev, head_files=head)
    import yaml

    entry = yaml.safe_load(ev.head_files["configs/amd-master.yaml"])["k1"]
    config = AffectedConfig("k1", entry, SHARED_ONLY, "configs/amd-master.yaml", files=("benchmarks/benchmark_lib.sh",))
    monkeypatch.setattr(pareto, "affected_configs", lambda _: [config])
    return ev


def test_a_curve_affected_only_through_a_shared_file_and_not_swept_is_not_judged(monkeypatch) -> None:
    outcome = pareto.run(_shared_only(monkeypatch, None), SETTINGS)
    assert outcome.status is Status.NA, outcome.reason


def test_a_swept_curve_affected_through_a_shared_file_is_judged(monkeypatch) -> None:
    outcome = pareto.run(_shared_only(monkeypatch, K1_LISTED), SETTINGS)
    assert outcome.status is Status.PASS and "minimaxm3 / agentic-coding" in outcome.reason
