"""Check `template`: the sign-off carries the current checklist template."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lib.signoff_policy_support import bare_evidence

from infx.signoff.checks import template
from infx.signoff.model import Evidence, Status
from infx.signoff.table import load_table
from infx.signoff.trigger import checklist

SETTINGS = load_table().settings


@pytest.fixture
def checklist_text(repo_root) -> str:
    return (repo_root / "PR_REVIEW_CHECKLIST.md").read_text()


def filled(text: str, *, drop=(), unchecked=(), detail="- insert any additional info here") -> str:
    block = checklist.template_block(text).split("### Additional detail section:")[0].rstrip()
    lines = []
    for line in block.split("\n"):
        if any(d in line for d in drop):
            continue
        if "[ ]" in line and not any(u in line for u in unchecked) and "cannot reasonably" not in line:
            line = line.replace("[ ]", "[x]", 1)
        lines.append(line)
    return "\n".join(lines) + f"\n\n### Additional detail section:\n{detail}\n\nSigned: @alice\n"


def evidence(body: str, checklist_text: str | None) -> Evidence:
    files = {"PR_REVIEW_CHECKLIST.md": checklist_text} if checklist_text is not None else {}
    return bare_evidence(body=body, default_branch_files=files)


def test_each_template_item_has_its_own_anchor(checklist_text) -> None:
    anchors = [template.anchor_for(item, SETTINGS.template_anchors) for item in checklist.template_items(checklist_text)]
    assert None not in anchors
    assert len({a.label for a in anchors}) == len(anchors) == 17


def test_full_template_passes_with_the_escape_hatch_unchecked(checklist_text) -> None:
    outcome = template.run(evidence(filled(checklist_text), checklist_text), SETTINGS)
    assert outcome.status is Status.PASS and "17 items" in outcome.reason


def test_stale_copy_lists_missing_items(checklist_text) -> None:
    body = filled(checklist_text, drop=("chat template", "FLOPs", "Docker images"))
    outcome = template.run(evidence(body, checklist_text), SETTINGS)
    assert outcome.status is Status.FAIL
    assert "missing 3 current-template item(s) (spec-decode chat templates; no FLOP-reducing " \
           "benchmark hacks; upstream vLLM/SGLang images)" in outcome.reason


def test_scenario_4_missing_items_and_unexplained_recipe(checklist_text) -> None:
    body = filled(checklist_text, drop=("draft model", "Pareto"), unchecked=("serving recipe",))
    outcome = template.run(evidence(body, checklist_text), SETTINGS)
    assert outcome.status is Status.FAIL
    assert "draft served as shipped; Pareto counts" in outcome.reason
    assert "unchecked with no explanation" in outcome.reason and "upstream recipe documented" in outcome.reason


def test_unchecked_item_explained_in_the_detail_section(checklist_text) -> None:
    body = filled(checklist_text, unchecked=("serving recipe", "Linked the upstream recipe"),
                  detail="- N/A: the upstream recipe requirement does not apply to ATOM; recipe merged upstream anyway")
    assert template.run(evidence(body, checklist_text), SETTINGS).status is Status.PASS


def test_reworded_lines_match_by_anchor(checklist_text) -> None:
    body = filled(checklist_text).replace(
        "Reported the measured Pareto frontier count for every affected curve",
        "Counted Pareto points per curve")
    assert template.run(evidence(body, checklist_text), SETTINGS).status is Status.PASS


def test_unreadable_template_fails_closed(checklist_text) -> None:
    assert template.run(evidence(filled(checklist_text), None), SETTINGS).status is Status.FAIL
    assert template.run(evidence(filled(checklist_text), "# no template\n"), SETTINGS).status is Status.FAIL


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_dropping_items_reports_exactly_those_items(checklist_text, data) -> None:
    items = [i for i in checklist.template_items(checklist_text) if "cannot reasonably" not in i.text]
    dropped = data.draw(st.sets(st.sampled_from(range(len(items))), max_size=5))
    body = filled(checklist_text, drop=tuple(items[i].text for i in dropped))
    outcome = template.run(evidence(body, checklist_text), SETTINGS)
    if not dropped:
        assert outcome.status is Status.PASS
    else:
        assert outcome.status is Status.FAIL
        assert f"missing {len(dropped)} current-template item(s)" in outcome.reason
