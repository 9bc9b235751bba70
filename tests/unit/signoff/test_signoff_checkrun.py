"""The verdict as a check run (infx.signoff.checkrun): located findings, the 50-per-request
batches, the cap with its "and N more" note, the check table."""

from __future__ import annotations

from datetime import datetime, timezone

from infx.signoff import checkrun
from infx.signoff.model import ChangedFile, Comment, Evidence, Outcome, PullRequest, Status
from infx.signoff.table import load_table
from infx.signoff.verdict import from_outcomes

HEAD = "ab" * 20
CONFIG = "configs/amd-master.yaml"
SCRIPT = "benchmarks/single_node/x_mtp.sh"


def evidence(lines: int = 400) -> Evidence:
    pr = PullRequest(number=7, title="t", body="", author="carol", state="open", draft=False,
                  base_ref="main", base_sha="cd" * 20, head_ref="b", head_sha=HEAD, head_repo=None)
    text = "\n".join(f"line {i}" for i in range(1, lines + 1)) + "\n"
    return Evidence(repo="acme/x", default_branch="main", now=datetime(2026, 9, 30, tzinfo=timezone.utc),
                    pr=pr, signoff=Comment(1, "alice", "", "MEMBER", "2026-09-29T00:00:00Z"),
                    files=[ChangedFile(CONFIG, "modified"), ChangedFile(SCRIPT, "modified"),
                           ChangedFile("gone.yaml", "removed")],
                    head_files={CONFIG: text, SCRIPT: "a\nb\nc\n"})


def verdict(**outcomes: Outcome):
    table = load_table()
    passing = {spec.id: Outcome(Status.NA if spec.advisory else Status.PASS, "fine.")
               for spec in table.checks}
    return from_outcomes(table, passing | outcomes)


def test_each_located_finding_of_a_failing_or_warning_row_is_one_annotation() -> None:
    v = verdict(golden=Outcome(Status.FAIL, f"{CONFIG}:15 [k]: AL 2.50 pinned at {SCRIPT}:2; "
                                            f"{CONFIG}:40 [j]: AL 3.1 pinned"),
                reuse=Outcome(Status.WARN, f"{CONFIG}:9: stale command", (f"{SCRIPT}:3: also",)),
                sweep=Outcome(Status.PASS, f"{CONFIG}:12 is fine"))  # a passing row: no annotation
    found = checkrun.findings(v, checkrun.known_files(evidence()))
    where = [(f.path, f.line, f.row.spec.id) for f in found]
    assert where == [(CONFIG, 9, "reuse"), (SCRIPT, 3, "reuse"), (CONFIG, 15, "golden"),
                     (SCRIPT, 2, "golden"), (CONFIG, 40, "golden")]
    notes = checkrun.annotations(found)
    assert [n.level for n in notes] == ["warning", "warning", "failure", "failure", "failure"]
    assert notes[2].message == f"{CONFIG}:15 [k]: AL 2.50 pinned at {SCRIPT}:2"
    assert notes[2].title.startswith("Check ") and notes[2].title.endswith(": FAIL")


def test_a_place_outside_the_changed_files_or_past_their_end_is_not_annotated() -> None:
    # text from the PR that merely looks like a location points nowhere
    v = verdict(golden=Outcome(Status.FAIL, f"other/file.yaml:3 x; gone.yaml:1 y; {SCRIPT}:4 z; "
                                            f"{CONFIG}:0 w; x{CONFIG}:5 v; {CONFIG}:2:7 col"))
    found = checkrun.findings(v, checkrun.known_files(evidence()))
    assert [(f.path, f.line) for f in found] == [(CONFIG, 2)]


def test_annotations_go_in_requests_of_fifty_and_are_capped_with_a_note() -> None:
    parts = "; ".join(f"{CONFIG}:{i} [k{i}]: wrong" for i in range(1, 201))
    v = verdict(golden=Outcome(Status.FAIL, parts))
    out = checkrun.verdict_output(v, evidence(), "rejected.", "https://github.com/acme/x/pull/7#c", "acme/x")
    assert len(out.annotations) == checkrun.MAX_ANNOTATIONS == 150
    assert [len(b) for b in checkrun.batches(out.annotations)] == [50, 50, 50]
    assert "… and 50 more located finding(s), not annotated" in out.summary
    assert "https://github.com/acme/x/pull/7#c" in out.summary and f"`{HEAD}`" in out.summary
    few = checkrun.verdict_output(verdict(golden=Outcome(Status.FAIL, f"{CONFIG}:3 bad")), evidence(),
                                  "rejected.", None)
    assert [len(b) for b in checkrun.batches(few.annotations)] == [1] and "more located" not in few.summary
    assert checkrun.batches(()) == [()]


def test_the_text_is_the_check_table_and_untrusted_text_stays_inert() -> None:
    v = verdict(golden=Outcome(Status.FAIL, "see <img src=x> @someone | cell"))
    out = checkrun.verdict_output(v, evidence(), "rejected.", None)
    table = out.text.splitlines()
    assert table[0] == "| | Check | Status | Reason |" and len(table) == 2 + len(v.rows)
    row = next(line for line in table if "| FAIL |" in line)
    assert " <img" not in row and "\\<img" in row and "@\u200b" in row and "\\| cell" in row
    assert out.title.startswith("REJECTED: Check ")
    assert verdict().overall.value == "PASS"
    assert checkrun.verdict_output(verdict(), evidence(), "ok.", None).title == "Verdict: PASS"


def test_an_overlong_table_is_cut_to_what_github_keeps_so_a_rerun_compares_equal(monkeypatch) -> None:
    from infx.github.checks import MAX_CHECK_OUTPUT_CHARS, TRUNCATED
    from infx.signoff import render

    monkeypatch.setattr(render, "ROW_CHARS", 1_000_000)  # rows long enough to reach the last resort
    v = verdict(golden=Outcome(Status.FAIL, "x " * 40_000))
    out = checkrun.verdict_output(v, evidence(), "rejected.", None)
    assert len(out.text) == MAX_CHECK_OUTPUT_CHARS and out.text.endswith(TRUNCATED)
    assert checkrun.verdict_output(v, evidence(), "rejected.", None) == out
    short = checkrun.verdict_output(verdict(golden=Outcome(Status.FAIL, "key [k] is wrong")), evidence(),
                                    "rejected.", None)
    assert "key \\[k\\] is wrong" in short.summary  # the blocking line escaped once, not twice
    assert out.title == "REJECTED: Check 11 (Agentic golden AL) failed"


def test_a_withdrawn_check_run_says_why_first_and_keeps_the_verdict_as_its_record() -> None:
    output = checkrun.withdrawn_output("## PASS\n\nThe verdict comment: https://x/1", "| table |",
                                       "Not verified: a CODEOWNER sign-off is needed for this head.",
                                       "the sign-off @mallory edited <img src=x>", "https://github.com/o/r/pull/7")
    assert checkrun.WITHDRAWN == "action_required"  # never passing, unlike neutral or skipped
    assert output.title == "Withdrawn: not verified now" and output.annotations == ()
    lines = output.summary.splitlines()
    assert lines[0] == "## **Withdrawn: this head is not verified now**"
    assert output.summary.index("Why:") < output.summary.index("## PASS")  # the reason first
    assert "@mallory" not in output.summary and "\\<img" in output.summary  # untrusted text inert
    assert "https://github.com/o/r/pull/7" in output.summary and output.text == "| table |"
    bare = checkrun.withdrawn_output(None, None, "Not verified.", "retargeted", None)
    assert "before" not in bare.summary and bare.text == ""


def test_every_row_of_a_verdict_with_huge_reasons_fits_and_annotations_keep_every_finding() -> None:
    from infx.github.checks import MAX_CHECK_OUTPUT_CHARS, TRUNCATED
    from infx.signoff import render

    parts = [f"key k{i:04d} has <odd> value [x]" for i in range(3000)]
    parts.append(f"{CONFIG}:399: the last finding")  # far past what a row shows
    table = load_table()
    v = from_outcomes(table, {spec.id: Outcome(Status.FAIL, "; ".join(parts)) for spec in table.checks})
    out = checkrun.verdict_output(v, evidence(), "rejected.", None)
    assert not out.text.endswith(TRUNCATED) and len(out.text) <= MAX_CHECK_OUTPUT_CHARS
    rows = out.text.splitlines()[2:]
    assert len(rows) == len(table.checks)
    for line in rows:
        assert line.endswith("; … and " + str(len(parts) - line.count("key k")) + " more part(s) not shown |")
        assert len(line) < 2 * render.ROW_CHARS
    assert {(a.path, a.start_line) for a in out.annotations} == {(CONFIG, 399)}
