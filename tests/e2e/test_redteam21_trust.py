"""Red team 21: drift through files executed_paths leaves neutral, replayed on the fake server.

Each world is seed 000 (a PASS sign-off, tests/data/worlds/make_trust_worlds.py) where the swept
commit's recipe script also runs one more file of the PR, and the signed head changes only that
file (the PR's own change: its compares list it). The sweep's results are of the old file, so an
honest reading posts no `success`.
"""

from __future__ import annotations

from lib.trust_replay import posted as _posted
from lib.trust_replay import trust_worlds
from lib.trust_replay import verify_seed as _verify

SWEPT = "export ATOM_PA_FLYDSL_PLAN=1\n"
HEAD = "export ATOM_PA_FLYDSL_PLAN=1\nexport ATOM_DECODE_GRAPH_BS=4096\n"


def _worlds(request):
    return trust_worlds(request, "make_trust_worlds_rt21")


def _changed_after_sweep(request, fake_github, path: str, call: str):
    m = _worlds(request)
    world = m.SEED.seed000()
    files = world["commits"][m.SWEEP]["files"]
    files[m.SCRIPT] = files[m.SCRIPT].replace("export ATOM_PA_FLYDSL=1\n", "export ATOM_PA_FLYDSL=1\n" + call)
    files[path] = SWEPT
    world["commits"][m.HEAD]["files"][path] = HEAD
    fake = fake_github(world)
    return fake, _verify(fake), m.HEAD


def test_control_a_docs_script_the_recipe_names_is_drift(request, fake_github):
    fake, result, head = _changed_after_sweep(request, fake_github, "docs/engine_env.sh", "source docs/engine_env.sh\n")
    assert "success" not in _posted(fake, head), result.reason


def test_a_github_actions_script_the_recipe_sources_is_drift(request, fake_github):
    fake, result, head = _changed_after_sweep(request, fake_github, ".github/actions/env/engine_env.sh",
                                              "source .github/actions/env/engine_env.sh\n")
    assert "success" not in _posted(fake, head), result.reason


def test_a_docs_script_sourced_relative_to_bash_source_is_drift(request, fake_github):
    fake, result, head = _changed_after_sweep(request, fake_github, "docs/engine_env.sh",
                                              'source "${BASH_SOURCE%/*}/../../../docs/engine_env.sh"\n')
    assert "success" not in _posted(fake, head), result.reason
