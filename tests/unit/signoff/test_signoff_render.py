"""Verdict comment layout (signoff.md §3.2) and the publisher's self-check (§3.3, G7)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from infx.signoff import render
from infx.signoff.model import Outcome, Status
from infx.signoff.table import load_table
from infx.signoff.verdict import from_outcomes

SHA = "a" * 40
MARKER = "codeowner-signoff-verify"


def outcomes(**overrides: Outcome) -> dict[str, Outcome]:
    base = {c.id: Outcome(Status.PASS, f"{c.id} verified.") for c in load_table().checks}
    base["append"] = Outcome(Status.NA, "no append-only entry.")
    return base | overrides


def context(**kw) -> render.Context:
    return render.Context(marker=MARKER, assessed_sha=SHA, signer="alice",
                          evidence_digest="0123456789abcdef", **kw)


def body(**overrides: Outcome) -> str:
    return render.render(from_outcomes(load_table(), outcomes(**overrides)), context())


def test_pass_layout() -> None:
    text = body()
    lines = text.split("\n")
    assert lines[0] == f"<!-- {MARKER} sha={SHA} evidence=0123456789abcdef -->"
    assert lines[1] == "## ✅✅✅ **Verdict: PASS** ✅✅✅"
    assert "<details>\n<summary>Passed and not applicable checks</summary>\n\n✅ Check 0" in text
    assert "➖ Check 12 (Append-only): N/A — no append-only entry." in text
    assert text.endswith(f"</details>\n\nAssessed commit: `{SHA}`.\n")
    assert "@alice" not in text and "open" not in text.split("<details")[1][:2]
    assert render.validate(text, load_table(), MARKER) == []


def test_rejected_layout_puts_failures_and_warnings_first() -> None:
    text = body(template=Outcome(Status.FAIL, "missing 3 items."),
                sweep=Outcome(Status.FAIL, "No passing sweep."),
                reuse=Outcome(Status.WARN, "no command."))
    lines = text.split("\n")
    assert lines[1] == "## ❌❌❌ **REJECTED** ❌❌❌"
    assert lines[3].startswith("@alice — blocking: Check 1 (Passing sweep on in-PR commit), Check 5")
    shown = [line for line in text.split("<details>")[0].split("\n") if "Check" in line and line[0] in "❌⚠"]
    assert [s.split(" (")[0] for s in shown] == ["❌ Check 1", "❌ Check 5", "⚠️ Check 4"]
    assert "Pareto coverage needs a maintainer" not in text  # a Check `reuse` warning never escalates
    assert render.validate(text, load_table(), MARKER) == []


def test_pareto_warning_escalates_even_without_rejection() -> None:
    text = render.render(from_outcomes(load_table(), outcomes(pareto=Outcome(Status.WARN, "3/5"))),
                         context(escalation_mentions=("maint1", "maint2")))
    assert text.split("\n")[1] == "## ⚠️ **Verdict: WARN** ⚠️"
    assert "⚠️ @maint1 @maint2: Pareto coverage needs a maintainer" in text
    assert "blocking" not in text


def test_head_moved_and_supersede_notes() -> None:
    text = render.render(from_outcomes(load_table(), outcomes()),
                         context(live_head_sha="b" * 40, supersedes="REJECTED"))
    assert "Supersedes the earlier REJECTED verdict for this commit." in text
    assert f"moved to `{'b' * 40}`" in text and "not assessed" in text


def test_same_input_gives_identical_bytes() -> None:
    assert body(evals=Outcome(Status.FAIL, "below bar.")) == body(evals=Outcome(Status.FAIL, "below bar."))


def test_untrusted_reason_text_cannot_forge_rows() -> None:
    text = body(evals=Outcome(Status.FAIL, "x\n✅ Check 3 (Recipe linked/merged): PASS — forged <!-- c -->"))
    assert render.validate(text, load_table(), MARKER) == []
    rows = [line for line in text.split("\n") if re.match(r"^\S+ Check 3 \(", line)]
    assert len(rows) == 1 and "forged" not in rows[0]
    assert "<!-- c" not in text.split("\n", 1)[1].replace("\\<", "")


def test_self_check_rejects_duplicate_rows_and_wrong_header() -> None:
    table = load_table()
    good = body()
    duplicated = good.replace("✅ Check 3", "✅ Check 3 (Recipe linked/merged): PASS — x\n\n✅ Check 3", 1)
    assert any("more than once" in p for p in render.validate(duplicated, table, MARKER))
    lying = body(template=Outcome(Status.FAIL, "stale.")).replace(
        "## ❌❌❌ **REJECTED** ❌❌❌", "## ✅✅✅ **Verdict: PASS** ✅✅✅")
    assert any("header does not match" in p for p in render.validate(lying, table, MARKER))


def test_self_check_rejects_grammar_and_placement_errors() -> None:
    table = load_table()
    good = body()
    assert render.validate(good.replace("✅ Check 2 (Evals pass): PASS", "❌ Check 2 (Evals pass): PASS"),
                           table, MARKER)
    assert render.validate(good.replace("✅ Check 2 (Evals pass): PASS —", "✅ Check 2 (Evals pass) PASS"),
                           table, MARKER)
    assert render.validate(good.replace("✅ Check 4 (Reuse command): PASS", "✅ Check 4 (Reuse cmd): PASS"),
                           table, MARKER)
    moved = body(evals=Outcome(Status.FAIL, "bad.")).replace("<details>\n", "", 1)
    assert render.validate(moved, table, MARKER)
    assert render.validate("no marker\n" + good, table, MARKER)
    warned = good.replace("✅ Check 2 (Evals pass): PASS", "⚠️ Check 2 (Evals pass): WARN")
    assert any("may not report WARN" in p for p in render.validate(warned, table, MARKER))


def test_invalid_body_is_a_rejection_asking_to_retry() -> None:
    text = render.invalid_body(context(), "Check 3 appears more than once")
    assert text.split("\n")[1] == "## ❌❌❌ **REJECTED** ❌❌❌"
    assert "retry verification" in text and render.read_marker(text, MARKER) == (SHA, "0123456789abcdef")


def test_marker_must_open_the_body() -> None:
    text = body()
    assert render.read_marker(text, MARKER) == (SHA, "0123456789abcdef")
    assert render.read_marker("hi\n" + text, MARKER) is None
    assert render.read_marker(text, "other-marker") is None


def test_details_repeating_the_reason_are_not_repeated() -> None:
    text = body(evals=Outcome(Status.FAIL, "row a is low; see run 5.", ("row a is low", "row b is low")))
    line = next(li for li in text.split("\n") if li.startswith("❌ Check 2"))
    assert line == "❌ Check 2 (Evals pass): FAIL — row a is low; see run 5. Also: row b is low"


def test_blocking_line_is_one_short_sentence() -> None:
    text = body(template=Outcome(Status.FAIL, "the sign-off is missing 2 item(s) (a; b); re-post it."))
    assert "@alice — blocking: Check 5 (Latest checklist template) failed: the sign-off is missing " \
           "2 item(s)." in text


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_any_allowed_combination_renders_a_valid_verdict(data) -> None:
    table = load_table()
    chosen = {c.id: Outcome(data.draw(st.sampled_from(sorted(c.statuses, key=lambda s: s.value))),
                            data.draw(st.text(min_size=1, max_size=30)))
              for c in table.checks}
    verdict = from_outcomes(table, chosen)
    text = render.render(verdict, context())
    assert render.validate(text, table, MARKER) == []
    assert text.split("\n")[1] == render.HEADERS[verdict.overall]


def test_a_row_shows_the_parts_that_fit_and_counts_the_rest() -> None:
    parts = [f"configs/amd-master.yaml:{i} [key-{i}]: client uses the chat template" for i in range(1, 900)]
    details = tuple(f"detail {i} " + "yy " * 100 for i in range(40))
    text = render.render(from_outcomes(load_table(), outcomes(
        **{c.id: Outcome(Status.WARN if c.advisory else Status.FAIL, "; ".join(parts), details)
           for c in load_table().checks})), context())
    assert len(text) <= 65_536  # what GitHub keeps of a comment: no row is cut off whole
    assert render.validate(text, load_table(), MARKER) == []
    rows = [line for line in text.split("\n") if render._ROW_START.match(line)]
    assert len(rows) == len(load_table().checks)
    for line in rows:
        shown = line.count("client uses the chat template")
        assert 0 < shown < len(parts)
        assert f"; … and {len(parts) - shown} more part(s) not shown" in line
        assert line.endswith(" Also: … and 40 more detail(s) not shown")  # a cut reason: details counted
    short = render.row_line(from_outcomes(load_table(), outcomes(
        golden=Outcome(Status.FAIL, "short reason.", details))).rows[11])
    assert short.count("detail ") == 6 and "; … and 34 more detail(s) not shown" in short


def test_one_overlong_part_is_cut_with_an_ellipsis_and_a_short_reason_is_untouched() -> None:
    assert render.shown_reason("a; b", 10) == "a; b"
    assert render.shown_reason("x" * 50 + "; tail", 10) == "x" * 9 + "…; … and 1 more part(s) not shown"
    code = render.shown_reason(render.inert.code("k" * 50), 10)  # a span cut open renders plain
    assert render.inert.render_inert(code) == "k" * 8 + "…"  # the opening sentinel counted


def test_a_detail_made_of_the_reasons_parts_is_not_repeated() -> None:
    """A detail that is several of the reason's parts (one config's finding with a `; ` in it)
    is in the reason; one that is only partly there is shown."""
    reason = "k1: vendor atom; first by v1; k2: vendor atom; first by v2"
    text = body(evals=Outcome(Status.FAIL, reason, ("k1: vendor atom; first by v1", "k2: vendor atom; new fact",
                                                    "k2:   vendor atom")))
    line = next(li for li in text.split("\n") if li.startswith("❌ Check 2"))
    assert line == f"❌ Check 2 (Evals pass): FAIL — {reason} Also: k2: vendor atom; new fact"


def test_an_overlong_word_is_shown_by_its_head_and_tail() -> None:
    """A path (or value) the PR makes thousands of characters long is shortened in the middle,
    so the finding after it stays in the row; the verdict keeps it whole."""
    path = "benchmarks/" + "d" * 3000 + "/x.sh"
    reason = f"{path}:2: overrides num_hidden_layers=30; second part"
    shown = render.shown_reason(reason)
    assert shown.endswith("/x.sh:2: overrides num_hidden_layers=30; second part")
    assert shown.startswith("benchmarks/ddd") and len(shown) < 250
    word = shown.split(" ", 1)[0]
    assert len(word) == render.WORD_CHARS and "…" in word
    assert render.shown_reason("short; words") == "short; words"
