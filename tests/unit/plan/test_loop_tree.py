"""The loop tests' benchmark repository is a whole one: every master-config key's launch finds its script."""

from __future__ import annotations

from lib.sweep_loop import RECIPES, ROOT

from infx import yamlio
from infx.plan.launch_graph import LaunchGraphError, launch_graph

MASTER, RUNNERS, LAUNCHER = "configs/amd-master.yaml", "configs/runners.yaml", "runners/launch_mi355x-amds.sh"


def loop_tree() -> dict[str, str | None]:
    """What make_base_repo puts on main that the launch graph reads: the configs, the launcher
    and the recipe scripts of tests/data/loop/benchmarks under benchmarks/."""
    tree: dict[str, str | None] = {p: (ROOT / p).read_text(encoding="utf-8") for p in (MASTER, RUNNERS, LAUNCHER)}
    tree |= {f"benchmarks/{f.relative_to(RECIPES).as_posix()}": f.read_text(encoding="utf-8")
             for f in sorted(RECIPES.rglob("*.sh"))}
    return tree


def test_every_master_config_key_has_its_script_in_the_loop_repository() -> None:
    """The sign-off follows every config's launch graph (not only the swept ones'), and a
    launcher that finds no script is an evidence gap: a key added to the master config without
    a script here fails every loop scenario's Checks `evals`-14."""
    tree = loop_tree()
    master = yamlio.load_text(tree[MASTER], MASTER)
    runners = yamlio.load_text(tree[RUNNERS], RUNNERS)
    problems = []
    for key, entry in master.items():
        try:
            launch_graph(tree, key, entry, runners, MASTER)
        except LaunchGraphError as exc:
            problems.append(str(exc))
    assert master and not problems, "\n".join(problems)
