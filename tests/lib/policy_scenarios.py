"""Helpers of the signoff policy scenarios tests, shared with other test modules."""

from __future__ import annotations

import importlib

from infx.signoff.model import Status
from infx.signoff.table import load_table

P, F, N = Status.PASS, Status.FAIL, Status.NA


CHECKS = ("recipe", "images", "deprecated", "arch", "chat", "patch", "golden", "append", "draft")


EXPECTED = {
    "seed000": dict(recipe=N, images=P, deprecated=P, arch=P, chat=P, patch=P, golden=P, append=N, draft=P),
    "seed003": dict(recipe=N, images=P, deprecated=P, arch=P, chat=N, patch=P, golden=N, append=N, draft=N),
    "scenario5": dict(recipe=N, images=F, deprecated=P, arch=P, chat=P, patch=P, golden=P, append=N, draft=P),
    "scenario6": dict(recipe=P, images=P, deprecated=P, arch=P, chat=P, patch=P, golden=F, append=N, draft=P),
    "scenario7": dict(recipe=N, images=P, deprecated=P, arch=P, chat=P, patch=P, golden=F, append=N, draft=P),
    "scenario8": dict(recipe=P, images=P, deprecated=P, arch=P, chat=P, patch=P, golden=P, append=N, draft=P),
    "scenario9": dict(recipe=P, images=P, deprecated=P, arch=P, chat=N, patch=P, golden=N, append=F, draft=N),
    "scenario11": dict(recipe=P, images=P, deprecated=F, arch=P, chat=P, patch=P, golden=N, append=N, draft=F),
}


SETTINGS = load_table().settings


def outcomes(evidence):
    return {cid: importlib.import_module(f"infx.signoff.checks.{cid}").run(evidence, SETTINGS) for cid in CHECKS}


def statuses(evidence):
    return {cid: o.status for cid, o in outcomes(evidence).items()}

