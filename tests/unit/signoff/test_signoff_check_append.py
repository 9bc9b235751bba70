"""Check `append`: append-only sweeps add points only, and only new points change."""

from __future__ import annotations

from lib.signoff_policy_support import with_head_file, world_evidence

from infx.signoff.checks.append import run
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

LAUNCHER = "benchmarks/single_node/launch_mi355x.sh"
MASTER = "configs/amd-master.yaml"
CHANGELOG = "perf-changelog.yaml"
EXPORT = "export SGLANG_LARGE_BATCH_TUNING=1\n"


def scenario9(old=None, new=None, path=LAUNCHER):
    evidence = world_evidence("scenario9")
    if old is None:
        return evidence
    return with_head_file(evidence, path, evidence.head_files[path].replace(old, new))


def test_fail_unguarded_shared_edit_names_file_line_and_text():
    outcome = run(scenario9(), SETTINGS)
    assert outcome.status == Status.FAIL
    assert outcome.reason.startswith(f"{LAUNCHER}:4: unconditional change reaches existing points")
    assert "SGLANG_LARGE_BATCH_TUNING" in outcome.reason


def test_pass_when_guarded_to_new_concurrencies():
    outcome = run(scenario9(EXPORT, f'if [ "$CONC" -ge 48 ]; then\n  {EXPORT}fi\n'), SETTINGS)
    assert outcome.status == Status.PASS
    assert "dsr1-fp4-mi355x-sglang" in outcome.reason
    assert "conc [4, 8, 16, 32]" in outcome.reason and "conc [48, 64]" in outcome.reason


def test_fail_when_the_guard_also_matches_an_old_point():
    outcome = run(scenario9(EXPORT, f'if [[ $CONC -gt 16 ]]; then\n  {EXPORT}fi\n'), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "the guard also holds for an existing concurrency" in outcome.reason


def test_fail_when_the_guard_cannot_be_read():
    outcome = run(scenario9(EXPORT, f'if [ -n "$BIG" ]; then\n  {EXPORT}fi\n'), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "cannot prove isolation" in outcome.reason


def test_else_branch_of_a_guard_is_not_isolated():
    text = f'if [ "$CONC" -ge 48 ]; then\n  true\nelse\n  {EXPORT}fi\n'
    assert run(scenario9(EXPORT, text), SETTINGS).status == Status.FAIL


def test_fail_when_an_old_point_is_removed():
    outcome = run(scenario9("conc-list: [4, 8, 16, 32, 48, 64]", "conc-list: [8, 16, 32, 48, 64]", MASTER), SETTINGS)
    assert outcome.status == Status.FAIL
    assert outcome.reason == ("dsr1-fp4-mi355x-sglang: append-only may not remove existing "
                              "concurrency points: [4]")


def test_fail_when_mixed_with_a_regular_entry():
    evidence = scenario9(EXPORT, "")
    text = evidence.head_files[CHANGELOG] + (
        "\n- config-keys:\n    - dsr1-fp4-mi355x-sglang\n  description:\n    - \"x\"\n  pr-link: XXX\n")
    outcome = run(with_head_file(evidence, CHANGELOG, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "cannot be mixed" in outcome.reason


def test_na_without_append_only_entry():
    outcome = run(scenario9("  append-only: true\n", "", CHANGELOG), SETTINGS)
    assert outcome.status == Status.NA
    assert "append-only: true" in outcome.reason
    assert run(world_evidence("seed003"), SETTINGS).status == Status.NA


def test_fail_closed_when_history_is_rewritten():
    outcome = run(scenario9('"Add dsr1 SGLang on MI355X."', '"Rewritten."', CHANGELOG), SETTINGS)
    assert outcome.status == Status.FAIL
    assert outcome.reason.startswith("strict changelog validation failed: perf-changelog.yaml:1: "
                                      "entry 1 changed; existing entries are immutable")
    assert "Fix: restore the entry from the base revision" in outcome.reason


# --- strict changelog validation inside the verdict (PRODUCT §4.3, §4.8) ----------------------


def _link_line(evidence) -> int:
    lines = evidence.head_files[CHANGELOG].split("\n")
    return max(n for n, line in enumerate(lines, 1) if line.lstrip().startswith("pr-link:"))


def _new_link(evidence, link: str):
    text = evidence.head_files[CHANGELOG]
    head, _, last = text.rpartition("pr-link:")
    rest = last.split("\n", 1)[1]
    return with_head_file(evidence, CHANGELOG, f"{head}pr-link: {link}\n{rest}")


def test_a_tbd_pr_link_fails_with_the_changelog_line_and_the_fix():
    evidence = _new_link(world_evidence("seed000"), "TBD")
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    line = _link_line(evidence)
    assert outcome.reason.startswith(f"strict changelog validation failed: {CHANGELOG}:{line}: "
                                     "new PR entry must use ")
    assert "found 'TBD' ('TBD' is not a placeholder)" in outcome.reason
    assert "Fix: write 'pr-link: https://github.com/" in outcome.reason


def test_another_prs_link_and_trailing_spaces_fail_too():
    evidence = world_evidence("seed000")
    other = _new_link(evidence, f"https://github.com/{evidence.repo}/pull/1")
    assert "strict changelog validation failed" in run(other, SETTINGS).reason
    text = evidence.head_files[CHANGELOG]
    spaced = with_head_file(evidence, CHANGELOG, text[:-1] + "  \n")  # the appended entry's last line
    outcome = run(spaced, SETTINGS)
    assert outcome.status == Status.FAIL and "adds trailing whitespace" in outcome.reason
    assert f"{CHANGELOG}:{text.count(chr(10))}:" in outcome.reason


def test_a_valid_change_says_it_passed_strict_validation():
    for name in ("seed000", "seed003"):
        outcome = run(world_evidence(name), SETTINGS)
        assert outcome.status == Status.NA
        assert "1 appended entry passes the strict changelog validation" in outcome.reason
    outcome = run(scenario9(EXPORT, f'if [ "$CONC" -ge 48 ]; then\n  {EXPORT}fi\n'), SETTINGS)
    assert outcome.status == Status.PASS and outcome.reason.endswith("strict changelog validation")


def test_fail_closed_without_runners_file():
    evidence = world_evidence("scenario9")
    from dataclasses import replace
    base = {k: v for k, v in evidence.base_files.items() if k != "configs/runners.yaml"}
    outcome = run(replace(evidence, base_files=base), SETTINGS)
    assert outcome.status == Status.FAIL and "could not be verified" in outcome.reason
