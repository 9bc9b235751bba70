"""The sign-off world files are exactly what make_signoff_worlds.py builds (so they can be rebuilt)."""

from __future__ import annotations

import pytest
from lib.scripts import load_script

from infx import yamlio

WORLDS = ("signoff_seed000.yaml", "signoff_seed003.yaml", "signoff_seed003_stale.yaml")


@pytest.fixture(scope="module")
def generator(request):
    return load_script(request.config.rootpath / "tests/data/worlds/make_signoff_worlds.py", "make_signoff_worlds")


def without_embedded(world: dict, embedded: frozenset[str]) -> dict:
    """The world minus the repository policy texts copied into it at generation time."""
    for commit in world["commits"].values():
        commit["files"] = {path: text for path, text in commit["files"].items() if path not in embedded}
    return world


@pytest.mark.parametrize("name", WORLDS)
def test_committed_world_matches_the_generator(generator, repo_root, tmp_path, name) -> None:
    assert generator.main([str(tmp_path)]) == 0
    built = yamlio.load_file(tmp_path / name)
    committed = yamlio.load_file(repo_root / "tests/data/worlds" / name)
    # policy files may move on (re-run the generator to refresh them); everything else is fixed
    assert without_embedded(built, generator.EMBEDDED) == without_embedded(committed, generator.EMBEDDED)
    header = (tmp_path / name).read_text().splitlines()[:3]
    assert (repo_root / "tests/data/worlds" / name).read_text().splitlines()[:3] == header


def test_generated_worlds_embed_the_current_checklist(generator, tmp_path, repo_root) -> None:
    generator.main([str(tmp_path)])
    world = yamlio.load_file(tmp_path / "signoff_seed000.yaml")
    first = next(iter(world["commits"].values()))
    assert first["files"]["PR_REVIEW_CHECKLIST.md"] == (repo_root / "PR_REVIEW_CHECKLIST.md").read_text()
