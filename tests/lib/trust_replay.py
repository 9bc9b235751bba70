"""Seed 000's trust worlds replayed on the fake server: the generator, one verification of the
seed's sign-off, and the verdict statuses posted on a head (red-team trust tests)."""

from __future__ import annotations

from infx.signoff import pipeline as publish
from infx.signoff.trigger.gating import SignoffRef, Trigger
from lib.scripts import load_script

CONTEXT = "codeowner-signoff-verify"


def trust_worlds(request, name: str):
    """tests/data/worlds/make_trust_worlds.py loaded as module `name` (SEED, HEAD, SWEEP, …)."""
    return load_script(request.config.rootpath / "tests/data/worlds/make_trust_worlds.py", name)


def verify_seed(fake, pr: int = 3412, comment_id: int = 5003) -> publish.Result:
    """The seed's sign-off verified again by its signer, as a dispatched re-verification."""
    trigger = Trigger(True, "test", pr, SignoffRef("issue_comment", comment_id), actor="chunfangamd", dispatched=True)
    return publish.verify(fake.client(), fake.world["repo"], trigger, publish.Options())


def posted(fake, sha: str) -> list[str]:
    """The states of the verdict statuses posted on `sha`, oldest first."""
    return [s["state"] for s in fake.world["statuses"].get(sha, []) if s["context"] == CONTEXT]
