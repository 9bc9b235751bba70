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
