"""infx.plan.fingerprint: a row's identity plus the content its result depends on."""

from __future__ import annotations

import pytest
from lib.project_trees import BASE, ENTRY, HEAD, KEY, MASTER, ROOT, SIBLING, project_tree  # noqa: F401

from infx.plan.benchmark_content import Unreadable, differences
from infx.plan.fingerprint import annotate, content_of, fingerprint, fingerprints
from infx.plan.identity import FINGERPRINT_FIELD, job_name
from infx.plan.incremental import plan_from_trees
from infx.plan.planner import PlanFlags


def edit(tree: dict[str, str], old: str, new: str, count: int = 1) -> dict[str, str]:
    text = tree[MASTER]
    assert old in text
    return tree | {MASTER: text.replace(old, new, count)}


def prints(head: dict[str, str], base: dict[str, str] = BASE) -> dict[str, str]:
    plan = plan_from_trees(base, head, PlanFlags(), base_ref="base", head_ref="head")
    return fingerprints(plan.rows(), content_of(head, base))


@pytest.fixture(scope="module")
def head_prints() -> dict[str, str]:
    return prints(HEAD)


def test_fingerprints_are_sha256_hex_and_deterministic(head_prints):
    assert len(head_prints) >= 10
    assert all(len(p) == 64 and int(p, 16) >= 0 for p in head_prints.values())
    assert prints(dict(HEAD)) == head_prints
    assert len(set(head_prints.values())) == len(head_prints)  # the identity is part of it


def test_editing_one_search_space_entry_changes_only_its_rows(head_prints):
    # the tp4 entry of KEY gains a higher concurrency: tp4 c4..c64 keep their prints, c128 is new
    changed = edit(HEAD, "      - { tp: 4, conc-start: 4, conc-end: 64 }\n      - { tp: 8",
                   "      - { tp: 4, conc-start: 4, conc-end: 128 }\n      - { tp: 8")
    after = prints(changed)
    kept = {n for n in after if head_prints.get(n) == after[n]}
    new = set(after) - kept
    assert kept == {n for n in head_prints if " c128 " not in n} & set(after)
    assert new and all("TP4" in n and ("c128" in n or "c64" in n) for n in new), new


def test_the_image_the_block_recipe_and_launchers_change_every_row_of_the_key(head_prints):
    image = "lmsysorg/sglang:v0.5.12-rocm700-mi35x"
    for changed in (
        edit(HEAD, f"{KEY}:\n  image: {image}", f"{KEY}:\n  image: {image}-fixed"),
        edit(HEAD, f"{KEY}:\n  image: {image}\n", f"{KEY}:\n  image: {image}\n  router: {{name: r, version: '1'}}\n"),
        HEAD | {f"configs/recipes/{KEY}.yaml": "serve: {}\n"},
        HEAD | {"runners/launch_mi355x-amds.sh": HEAD["runners/launch_mi355x-amds.sh"] + "# x\n"},
        HEAD | {"benchmarks/single_node/fixed_seq_len/dsr1.sh": "run\n"},
    ):
        after = prints(changed)
        assert not set(after.values()) & set(head_prints.values())


def test_changelog_fields_that_shape_rows_count_but_the_description_does_not(head_prints):
    reworded = HEAD | {"perf-changelog.yaml": BASE["perf-changelog.yaml"] + ENTRY.replace("bump", "other words")}
    assert prints(reworded) == head_prints
    shaped = HEAD | {"perf-changelog.yaml": BASE["perf-changelog.yaml"]
                     + ENTRY.replace("  pr-link", "  eval-min-prefill-ep: 1\n  pr-link")}
    assert not set(prints(shaped).values()) & set(head_prints.values())


def test_an_unrelated_key_and_a_merge_of_main_are_neutral(head_prints):
    other = "qwen3.5-fp8-mi355x-sglang:\n  image: "
    main = edit(BASE, other, other + "x-", 1)
    merged = main | {"perf-changelog.yaml": HEAD["perf-changelog.yaml"]}
    assert prints(merged, main) == head_prints


def test_a_sibling_key_sharing_the_fields_is_conservatively_included():
    rows = plan_from_trees(BASE, HEAD, PlanFlags(), base_ref="b", head_ref="h").rows()
    row = rows[0]
    sibling = dict(row) | {"model": "amd/DeepSeek-R1-0528-MXFP4"}  # matches SIBLING only
    before = fingerprint(sibling, content_of(HEAD, BASE))
    touched = edit(HEAD, f"{SIBLING}:\n  image:", f"{SIBLING}:\n  router: {{name: r, version: '1'}}\n  image:")
    assert fingerprint(sibling, content_of(touched, BASE)) != before
    assert fingerprint(row, content_of(touched, BASE)) == fingerprint(row, content_of(HEAD, BASE))


def test_every_drift_difference_changes_some_fingerprint(head_prints):
    """The fingerprint is the per-row form of the drift rule: no reported difference leaves
    every row's fingerprint unchanged (except the entry's description, which shapes no row)."""
    variants = [edit(HEAD, "conc-end: 64 }\n      - { tp: 8, conc-start: 4, conc-end: 64 }",
                     "conc-end: 32 }\n      - { tp: 8, conc-start: 4, conc-end: 64 }"),
                HEAD | {"runners/hooks/new.sh": "x\n"}]
    for variant in variants:
        assert differences(HEAD, variant, BASE)
        assert prints(variant) != head_prints


def test_annotate_adds_the_field_outside_the_identity():
    plan = plan_from_trees(BASE, HEAD, PlanFlags(), base_ref="b", head_ref="h")
    marked = annotate(plan, content_of(HEAD, BASE))
    rows, before = marked.rows(), plan.rows()
    assert [job_name(r) for r in rows] == [job_name(r) for r in before]
    assert all(len(r[FINGERPRINT_FIELD]) == 64 for r in rows)
    assert marked.metadata == plan.metadata
    assert FINGERPRINT_FIELD not in plan.rows()[0]  # the input is not edited


def test_an_unparsable_master_config_is_unreadable():
    with pytest.raises(Unreadable, match=MASTER):
        content_of(HEAD | {MASTER: "key: [unclosed\n"}, BASE)
