"""infx.plan.coverage: which plan rows earlier runs cover (green job, same fingerprint)."""

from __future__ import annotations

from infx.github.models import Job
from infx.plan.coverage import Coverage, RunRows, cover, green_rows, row_name

A, B, C = "dsr1 fp4 mi355x sglang 8k1k TP8 c4 #00000001", "… c8 #00000002", "… c16 #00000003"
WANTED = {A: "a" * 64, B: "b" * 64, C: "c" * 64}


def run(run_id: int, green: set[str], prints: dict[str, str] | None) -> RunRows:
    return RunRows(run_id, f"{run_id:040d}", frozenset(green), prints)


def test_row_name_strips_the_caller():
    assert row_name(f"single-node 8k1k / {A}") == A
    assert row_name(A) == A


def test_only_the_latest_attempt_of_a_job_counts_and_only_success_is_green():
    jobs = [Job(1, f"x / {A}", conclusion="failure", run_attempt=1),
            Job(2, f"x / {A}", conclusion="success", run_attempt=2),
            Job(3, f"x / {B}", conclusion="success", run_attempt=1),
            Job(4, f"x / {B}", conclusion="failure", run_attempt=2),
            Job(5, f"x / {C}", conclusion="cancelled"), Job(6, "setup", conclusion="success"),
            Job(7, f"y / {C}", "in_progress")]
    assert green_rows(jobs) == frozenset({A, "setup"})


def test_the_newest_matching_run_is_the_source_and_uncovered_rows_are_named():
    runs = [run(9, {A}, {A: "a" * 64}),                    # newest: covers A
            run(8, {A, B}, {A: "a" * 64, B: "x" * 64}),    # B green but on other content
            run(7, set(), {})]
    got = cover(WANTED, runs)
    assert got.reused == {A: 9}
    assert got.missing == (C,) and got.stale == {B: (8,)}
    assert not got.complete and got.uncovered == tuple(sorted((B, C)))
    text = got.describe()
    assert f"`{C}`" in text and f"`{B}` (run 8)" in text and "stale" in text


def test_a_union_of_runs_covers_the_plan():
    got = cover(WANTED, [run(9, {C}, {C: "c" * 64}), run(5, {A, B, C}, {A: "a" * 64, B: "b" * 64, C: "x" * 64})])
    assert got.complete and got.reused == {A: 5, B: 5, C: 9} and got.runs() == [9, 5]
    assert got.describe() == "every row is covered"


def test_a_run_whose_content_could_not_be_read_covers_nothing():
    got = cover({A: "a" * 64}, [run(4, {A}, None)])
    assert got.stale == {A: (4,)} and not got.reused


def test_an_empty_plan_is_covered():
    assert cover({}, []) == Coverage()
    assert Coverage().complete


def test_long_lists_are_cut():
    wanted = {f"row {i} #{i:08x}": "f" * 64 for i in range(9)}
    text = cover(wanted, []).describe(limit=3)
    assert "9 row(s)" in text and "and 6 more" in text
