"""Master-config entries read from evidence trees."""

from __future__ import annotations

import pytest

from infx.signoff.rules import configs_at

BASE = {"configs/amd-master.yaml": "a:\n  image: x:1\nb:\n  image: y:1\n", "README.md": "hi"}


def test_changed_keys_lists_added_and_changed_only() -> None:
    head = {"configs/amd-master.yaml": "a:\n  image: x:2\nc:\n  image: z:1\n",
            "inferencex-e2e/configs/nvidia-master.yaml": "n:\n  image: n:1\n"}
    assert configs_at.changed_keys(head, BASE) == ["a", "c", "n"]


def test_unparseable_tree_is_none() -> None:
    assert configs_at.changed_keys({"configs/amd-master.yaml": "a: [\n"}, BASE) is None
    assert configs_at.master_entries({"configs/amd-master.yaml": "- 1\n"}) is None


def test_runner_sku() -> None:
    assert configs_at.runner_sku("cluster:mi355x-amds") == "mi355x"
    assert configs_at.runner_sku("MI355X") == "mi355x"
    # an eval row of an agentic config: the runner label upper-cased (`hw`)
    assert configs_at.runner_sku("CLUSTER:MI355X-AMDS") == "mi355x"
    assert configs_at.runner_sku(None) == ""


@pytest.mark.parametrize("runner, sku", [
    ("cluster:mi355x-amds", "mi355x"), ("mi355x-disagg", "mi355x"), ("B200", "b200"), ("gb300", "gb300")])
def test_runner_sku_of_labels(runner, sku):
    assert configs_at.runner_sku(runner) == sku


ENTRY = {"image": "x:1", "runner": "mi355x", "scenarios": {
    "fixed-seq-len": [
        {"isl": 1024, "osl": 1024, "search-space": [{"tp": 4, "conc-start": 4}, {"tp": 8, "conc-start": 4}]},
        {"isl": 8192, "osl": 1024, "search-space": [{"tp": 4, "conc-start": 4}, {"tp": 8, "conc-start": 8}]}],
    "agentic-coding": [{"search-space": [{"tp": 8, "conc-list": [1, 4]}]}]}}


def _without(entry: dict, *, kind: str | None = None, item: int | None = None, lane: int | None = None) -> dict:
    import copy

    out = copy.deepcopy(entry)
    if lane is not None:
        del out["scenarios"][kind][item]["search-space"][lane]
    elif item is not None:
        del out["scenarios"][kind][item]
    else:
        del out["scenarios"][kind]
    return out


def test_an_entry_that_only_loses_rows_runs_nothing_new() -> None:
    """Retiring 1k1k (#2263), or one of its search-space entries: every remaining row runs as
    before, and no eval moves (evals are chosen among 8k1k and agentic rows only)."""
    assert not configs_at.runs_new_rows(ENTRY, _without(ENTRY, kind="fixed-seq-len", item=0))
    assert not configs_at.runs_new_rows(ENTRY, _without(ENTRY, kind="fixed-seq-len", item=0, lane=1))
    assert configs_at.runs_new_rows(None, ENTRY)
    assert not configs_at.runs_new_rows(ENTRY, ENTRY)


def test_losing_rows_evals_are_chosen_from_is_a_change() -> None:
    """Taking out 8k1k or agentic rows may move an eval onto a row that never ran one, in this
    config or in another of its group (red team 22b)."""
    assert configs_at.runs_new_rows(ENTRY, _without(ENTRY, kind="fixed-seq-len", item=1, lane=0))
    assert configs_at.runs_new_rows(ENTRY, _without(ENTRY, kind="fixed-seq-len", item=1))
    assert configs_at.runs_new_rows(ENTRY, _without(ENTRY, kind="agentic-coding"))
    assert configs_at.runs_new_rows(ENTRY, {**ENTRY, "scenarios": {}})


def test_values_are_compared_with_their_types() -> None:
    import copy

    floated = copy.deepcopy(ENTRY)
    floated["scenarios"]["fixed-seq-len"][0]["search-space"][0]["tp"] = 4.0  # TP=4.0 reaches the job
    assert configs_at.runs_new_rows(ENTRY, floated)
    assert configs_at.runs_new_rows(ENTRY, {**ENTRY, "image": True}) and configs_at.runs_new_rows(
        {**ENTRY, "image": 1}, {**ENTRY, "image": True})


def test_any_other_difference_runs_something_new() -> None:
    import copy

    changed = copy.deepcopy(ENTRY)
    changed["scenarios"]["fixed-seq-len"][1]["search-space"][1]["conc-start"] = 4  # a lane edited
    assert configs_at.runs_new_rows(ENTRY, changed)
    assert configs_at.runs_new_rows(ENTRY, {**_without(ENTRY, kind="fixed-seq-len", item=0), "image": "x:2"})
    reordered = copy.deepcopy(ENTRY)
    reordered["scenarios"]["fixed-seq-len"].reverse()  # not a subsequence: rows and evals may move
    assert configs_at.runs_new_rows(ENTRY, reordered)
    added = copy.deepcopy(ENTRY)
    added["scenarios"]["fixed-seq-len"][0]["search-space"].append({"tp": 2, "conc-start": 4})
    assert configs_at.runs_new_rows(ENTRY, added)
    dropped = {k: v for k, v in ENTRY.items() if k != "runner"}  # a setting taken out is a change
    assert configs_at.runs_new_rows(ENTRY, dropped)
    moved = copy.deepcopy(ENTRY)
    moved["scenarios"]["agentic-coding"][0]["isl"] = 1  # an item's own field
    assert configs_at.runs_new_rows(ENTRY, moved)


def test_changed_keys_leaves_out_pruned_entries() -> None:
    import yaml

    base = {"configs/amd-master.yaml": yaml.safe_dump({"k": ENTRY, "j": ENTRY})}
    head = {"configs/amd-master.yaml": yaml.safe_dump({"k": _without(ENTRY, kind="fixed-seq-len", item=0),
                                                       "j": {**ENTRY, "image": "x:2"}})}
    assert configs_at.changed_keys(head, base) == ["j"]
