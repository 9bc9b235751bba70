"""Red team 19: carrying a sign-off to a head whose change sits at other lines of its file."""

from __future__ import annotations

import pytest
from lib.scripts import load_script

from infx.signoff import pipeline as publish
from infx.signoff.trigger.gating import SignoffRef, Trigger

CONTEXT = "codeowner-signoff-verify"


def _worlds(request):
    return load_script(request.config.rootpath / "tests/data/worlds/make_trust_worlds.py", "make_trust_worlds_rt19")


def _verify(fake):
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003), actor="chunfangamd", dispatched=True)
    return publish.verify(fake.client(), fake.world["repo"], trigger, publish.Options())


@pytest.mark.parametrize("main_edit", [
    # main appends to the file: nothing above the PR's change moves
    lambda m: m.NOTES_BASE + "# three\nmore\n",
    # main rewords a title line, which changes no line count
    lambda m: m.NOTES_BASE.replace("# one\n", "# One\n"),
])
def test_a_main_change_that_moves_nothing_does_not_carry_a_moved_change(request, fake_github, main_edit):
    """After the sign-off (X=2 in the first block) main changes docs/notes.md where it cannot
    move the first block's lines, the author merges main and, in the same push, moves X=2 to the
    second block: main moved no line above the change, the change itself moved and must not be
    carried (the hunk's new position is not the signed one shifted by main's change)."""
    m = _worlds(request)
    world = m._notes_signed()
    main = world["branches"]["main"]
    world["commits"][m.MAIN3] = {"parents": [main], "files_from": main, "message": "notes: more",
                                 "files": {m.NOTES: main_edit(m)}}
    world["branches"]["main"] = m.MAIN3
    world["pulls"][0]["base"]["sha"] = m.MAIN3
    moved = main_edit(m).replace("X=1\nd\ne\nf\n# two", "X=1\nd\ne\nf\n# two").split("# two\n")
    head = moved[0] + "# two\n" + moved[1].replace("X=1", "X=2")
    m._push(world, m.MERGED4, m.HEAD, {m.NOTES: head}, "Merge branch 'main'", "2026-09-24T10:00:00Z", 35873197712)
    world["commits"][m.MERGED4]["parents"] = [m.HEAD, m.MAIN3]
    fake = fake_github(world)
    result = _verify(fake)
    posted = [s["state"] for s in fake.world["statuses"].get(m.MERGED4, []) if s["context"] == CONTEXT]
    assert "success" not in posted, (posted, result.reason)
