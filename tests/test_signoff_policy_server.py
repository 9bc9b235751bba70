"""Acceptance through the fake server: the policy-check rows of scenarios 5-11 and seeds
000/003, verified end to end by ``infx.signoff.publish.verify`` over PyGithub on loopback."""

from __future__ import annotations

import copy
from datetime import datetime

import pytest
from signoff_policy_support import load_world, trusted_policy_files
from test_signoff_policy_scenarios import CHECKS, EXPECTED, F, P

from infx.signoff import gating, publish


def served(name: str) -> dict:
    """The policy world plus what the engine needs to reach the checks: the trusted policy
    files and a CODEOWNERS line naming the signer on the default branch, and write access."""
    world = copy.deepcopy(load_world(name))
    signer = world["pulls"][0]["comments"][0]["user"]
    main = world["commits"][world["branches"]["main"]]
    main["files"].update(trusted_policy_files())
    main["files"]["CODEOWNERS"] = f"* @acme/core\n/configs/ @{signer}\n/benchmarks/ @{signer}\n"
    world["collaborators"] = {signer: {"permission": "write", "role_name": "write"}}
    world.setdefault("teams", {})
    world.setdefault("token_login", "github-actions[bot]")
    return world


def rows(fake_github, world: dict) -> dict[str, str]:
    fake = fake_github(world)
    pull = world["pulls"][0]
    comment = pull["comments"][0]
    trigger = gating.Trigger(True, "manual", pull["number"], gating.SignoffRef("issue_comment", comment["id"]),
                             actor=comment["user"], dispatched=True)
    now = datetime.fromisoformat(world["now"].replace("Z", "+00:00"))
    result = publish.verify(fake.client(), world["repo"], trigger, publish.Options(now=now, post=False))
    assert result.kind == "verdict", result.reason
    found = {row["id"]: row for row in result.to_json()["checks"] if row["id"] in CHECKS}
    pulls = result.evidence.external_pulls.values()
    if any(pull is not None and not pull.files for pull in pulls):
        # evidence gathering read the recipe PR but not its files: Check 3 must fail closed
        assert found["recipe"]["status"] == F.value
        assert "could not be read" in found["recipe"]["reason"]
        found["recipe"]["status"] = "unverifiable (external PR files not gathered)"
    return found


def expected_row(name: str) -> dict[str, str]:
    return {c: s.value for c, s in EXPECTED[name].items()}


def head_files(world: dict) -> dict:
    return world["commits"][world["pulls"][0]["head"]["sha"]]["files"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_rows_through_the_fake_server(fake_github, name):
    found = {cid: row["status"] for cid, row in rows(fake_github, served(name)).items()}
    expected = expected_row(name)
    if found["recipe"].startswith("unverifiable"):
        expected["recipe"] = found["recipe"]
    assert found == expected


def test_variant_8b_unlinked_waiver(fake_github):
    world = served("scenario8")
    comment = world["pulls"][0]["comments"][0]
    comment["body"] = comment["body"].replace("- Engine patch waiver: docs/waiver/3801.md\n", "")
    assert rows(fake_github, world)["patch"]["status"] == F.value


def test_variant_8c_patch_lowers_draft_precision(fake_github):
    world = served("scenario8")
    script = "benchmarks/single_node/agentic/kimik3_container_fixes.sh"
    files = head_files(world)
    files[script] = files[script].replace('"stride = int(block_stride)", "stride = int(block_stride) * 1"',
                                          '"draft_quant = None", "draft_quant = \'fp8\'"')
    found = rows(fake_github, world)
    assert (found["patch"]["status"], found["draft"]["status"]) == (P.value, F.value)


def test_variant_9b_guarded_edit(fake_github):
    world = served("scenario9")
    launcher = "benchmarks/single_node/launch_mi355x.sh"
    files = head_files(world)
    files[launcher] = files[launcher].replace(
        "export SGLANG_LARGE_BATCH_TUNING=1\n", 'if [ "$CONC" -ge 48 ]; then\n  export SGLANG_LARGE_BATCH_TUNING=1\nfi\n')
    assert rows(fake_github, world)["append"]["status"] == P.value


def test_variant_11b_last_allowed_day(fake_github):
    world = served("scenario11")
    world["now"] = "2026-09-08T12:00:00Z"
    found = rows(fake_github, world)
    assert (found["deprecated"]["status"], found["draft"]["status"]) == (P.value, F.value)
    assert "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1" in found["draft"]["reason"]
