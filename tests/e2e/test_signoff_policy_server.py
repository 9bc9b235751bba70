"""Acceptance through the fake server: the policy-check rows of scenarios 5-11 and seeds
000/003, verified end to end by ``infx.signoff.pipeline.verify`` over PyGithub on loopback."""

from __future__ import annotations

import copy
from datetime import datetime

import pytest
from lib.policy_scenarios import CHECKS, EXPECTED, F, N, P
from lib.signoff_policy_support import load_world, trusted_policy_files

from infx.signoff import pipeline as publish
from infx.signoff.trigger import gating
from infx.yamlio import load_file


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
    return {row["id"]: row for row in result.to_json()["checks"] if row["id"] in CHECKS}


def head_files(world: dict) -> dict:
    return world["commits"][world["pulls"][0]["head"]["sha"]]["files"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_rows_through_the_fake_server(fake_github, name):
    found = {cid: row["status"] for cid, row in rows(fake_github, served(name)).items()}
    assert found == {c: s.value for c, s in EXPECTED[name].items()}


def test_scenario6_reason_reaches_the_verdict(fake_github):
    golden = rows(fake_github, served("scenario6"))["golden"]
    assert "SGLANG_SIMULATE_ACC_LEN=3.50" in golden["reason"] and "3.39" in golden["reason"]
    assert len(golden["details"]) == 2


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


def _first_signoff_rows(fake_github, world_file):
    world = load_file(world_file)
    pull = world["pulls"][0]
    comment = next(c for c in pull["comments"] if "As a PR reviewer and CODEOWNER" in c["body"])
    fake = fake_github(world)
    trigger = gating.Trigger(True, "manual", pull["number"], gating.SignoffRef("issue_comment", comment["id"]),
                             actor=comment["user"], dispatched=True)
    now = datetime.fromisoformat(str(world["now"]).replace("Z", "+00:00"))
    result = publish.verify(fake.client(), world["repo"], trigger, publish.Options(now=now, post=False))
    return {row["id"]: row["status"] for row in result.to_json()["checks"] if row["id"] in CHECKS}


def test_engine_seed_worlds_pass_our_checks(fake_github, test_data):
    """The sign-off engine's own seed worlds: 000 passes every policy check, and the first
    sign-off of 003 (which fails only the template check) passes or skips every one of ours."""
    seed000 = _first_signoff_rows(fake_github, test_data / "worlds" / "signoff_seed000.yaml")
    assert seed000 == {c: s.value for c, s in EXPECTED["seed000"].items()}
    seed003 = _first_signoff_rows(fake_github, test_data / "worlds" / "signoff_seed003.yaml")
    assert set(seed003.values()) <= {P.value, N.value}
