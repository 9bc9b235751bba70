"""`infx demo`: plans the bundled PR, replays the bots on the fake server, degrades gracefully."""

from __future__ import annotations

import sys

from infx.cli import main


def _run(capsys, *args: str) -> str:
    assert main(["demo", *args]) == 0
    return capsys.readouterr().out


def test_demo_plans_and_replays(capsys):
    out = _run(capsys)
    assert "labels: full-sweep-fail-fast" in out
    assert "| `dsr1-fp8-mi355x-sglang` |" in out and "| `mi355x` |" in out  # per config key, per runner
    assert "| sweep-single-node-8k1k-1 |" in out
    assert "matrix jobs that would start: sweep-" in out
    assert "welcome comment: created" in out
    assert "results-link comment for run 7001: created" in out
    assert "comment 9001 by vendor-dev (CONTRIBUTOR): -1" in out
    assert "comment 9002 by maintainer (MEMBER): +1 — Reuse accepted for PR #42: run 7001" in out
    assert "reaction +1 by github-actions[bot] on comment 9002" in out
    assert "<!-- infx-welcome -->" in out and "<!-- infx-results-link run=7001 -->" in out


def test_demo_is_deterministic(capsys):
    assert _run(capsys) == _run(capsys)


def test_missing_configs_degrade_with_a_message(tmp_path, capsys):
    out = _run(capsys, "--configs", str(tmp_path / "nope.yaml"))
    assert "plan skipped:" in out and "nope.yaml is missing" in out
    assert "welcome comment: created" in out  # the replay still runs


def test_missing_planner_degrades(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "infx.matrix.plan", None)  # import now raises ImportError
    out = _run(capsys)
    assert "plan skipped: the planner is not available" in out


def test_missing_data_degrades(tmp_path, capsys):
    out = _run(capsys, "--data", str(tmp_path))
    assert "plan skipped:" in out and "replay skipped:" in out


def test_bad_entry_shows_the_planner_error(tmp_path, capsys):
    (tmp_path / "pr-entry.yaml").write_text("- config-keys: [no-such-key-mi355x]\n  description: [x]\n"
                                            "  pr-link: XXX\n")
    out = _run(capsys, "--data", str(tmp_path))
    assert "plan failed (this is what the PR author would see):" in out
