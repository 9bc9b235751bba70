"""Check `patch`: engine patching needs a complete waiver linked from the sign-off."""

from __future__ import annotations

from lib.signoff_policy_support import with_body, with_head_file, world_evidence

from infx.signoff.checks.patch import run
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

WAIVER = "docs/waiver/3801.md"
SCRIPT = "benchmarks/single_node/agentic/kimik3_container_fixes.sh"


def test_pass_with_complete_linked_waiver():
    outcome = run(world_evidence("scenario8"), SETTINGS)
    assert outcome.status == Status.PASS
    assert f"{SCRIPT}:4" in outcome.reason and WAIVER in outcome.reason


def test_pass_without_patching_names_what_was_scanned():
    outcome = run(world_evidence("seed000"), SETTINGS)
    assert outcome.status == Status.PASS
    assert "3 changed files" in outcome.reason


def test_fail_without_waiver():
    outcome = run(with_head_file(world_evidence("scenario8"), WAIVER, None), SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"{SCRIPT}:4" in outcome.reason
    assert f"no waiver {WAIVER} is added in this PR" in outcome.reason


def test_fail_when_waiver_is_incomplete():
    evidence = world_evidence("scenario8")
    text = evidence.head_files[WAIVER].replace("## Removal plan", "## Notes") \
        .replace("https://github.com/vllm-project/vllm/pull/51011", "upstream soon")
    outcome = run(with_head_file(evidence, WAIVER, text), SETTINGS)
    assert outcome.status == Status.FAIL
    details = " ".join(outcome.details)
    assert "lacks a heading for: removal plan" in details
    assert "has no GitHub PR/issue link" in details


def test_fail_when_waiver_does_not_cover_the_patch():
    evidence = world_evidence("scenario8")
    text = evidence.head_files[WAIVER].replace("benchmarks/single_node/agentic/kimik3_container_fixes.sh", "a script")
    outcome = run(with_head_file(evidence, WAIVER, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "does not name the patched file(s)" in " ".join(outcome.details)


def test_fail_when_not_linked():
    evidence = world_evidence("scenario8")
    outcome = run(with_body(evidence, evidence.signoff.body.replace(WAIVER, "the waiver")), SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"does not link {WAIVER}" in outcome.reason


def test_pending_waiver_name_does_not_count():
    evidence = world_evidence("scenario8")
    text = evidence.head_files[WAIVER]
    evidence = with_head_file(with_head_file(evidence, WAIVER, None), "docs/waiver/PENDING-k3.md", text)
    assert run(evidence, SETTINGS).status == Status.FAIL


def test_na_for_docs_only_changes():
    evidence = world_evidence("seed000")
    from dataclasses import replace
    evidence = replace(evidence, head_files=dict(evidence.base_files))
    outcome = run(with_head_file(evidence, "docs/notes.md", "text\n"), SETTINGS)
    assert outcome.status == Status.NA


def test_fail_closed():
    assert run(world_evidence("scenario8", files=None), SETTINGS).status == Status.FAIL


def test_missing_diff_is_scanned_as_a_whole_file():
    from dataclasses import replace
    evidence = world_evidence("scenario8")
    files = [replace(f, patch=None) for f in evidence.files]
    outcome = run(replace(evidence, files=files), SETTINGS)
    assert outcome.status == Status.PASS  # still found, still covered by the waiver
    assert SCRIPT in outcome.reason


LAUNCHER = "benchmarks/single_node/launchers/b300_sglang.sh"
OLD_WAIVER = """# Waiver for PR 2508
## What is patched
b300_sglang.sh applies fix.diff to the SGLang sources.
## Why the stock image cannot run it
It crashes without the fix.
## Upstream PR
https://github.com/sgl-project/sglang/pull/1
## Removal plan
Drop it after the next release.
"""


def _inherits_patch():
    from dataclasses import replace
    evidence = world_evidence("scenario11")
    text = evidence.head_files[LAUNCHER].replace("exec python3", "git apply /opt/fix.diff\nexec python3")
    return replace(evidence, head_files={**evidence.head_files, LAUNCHER: text},
                   base_files={**evidence.base_files, LAUNCHER: text})


def test_patching_already_on_the_default_branch_needs_its_waiver_there():
    outcome = run(_inherits_patch(), SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"{LAUNCHER}:3 (already on the default branch)" in outcome.reason
    assert "no waiver docs/waiver/<PR#>.md on the default branch names b300_sglang.sh" in outcome.reason


def test_existing_waiver_on_the_default_branch_covers_it_when_linked():
    from dataclasses import replace
    evidence = _inherits_patch()
    evidence = replace(evidence, default_branch_files={**evidence.default_branch_files,
                                                       "docs/waiver/2508.md": OLD_WAIVER})
    assert "does not link docs/waiver/2508.md" in run(evidence, SETTINGS).reason
    linked = with_body(evidence, evidence.signoff.body.replace("Signed:", "- Waiver: docs/waiver/2508.md\n\nSigned:"))
    outcome = run(linked, SETTINGS)
    assert outcome.status == Status.PASS
    assert "docs/waiver/2508.md" in outcome.reason
