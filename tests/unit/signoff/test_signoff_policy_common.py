"""infx.signoff.rules.policy_reads: sign-off text helpers and fail-closed plumbing."""

from __future__ import annotations

from lib.signoff_policy_support import world_evidence

from infx.errors import InfxError
from infx.signoff.model import Outcome, Status
from infx.signoff.rules.policy_reads import (
    EvidenceGap,
    detail_lines,
    detail_section,
    exception_lines,
    fail_closed,
    policy,
)

BODY = """As a PR reviewer and CODEOWNER, I have reviewed this and have:

- [x] item

### Additional detail section:

- insert any additional info here
- **Exception:** new hardware (MI455X)
• Draft: org/x

Signed: @me
"""


def test_detail_section_drops_placeholder_and_signed():
    assert detail_section(BODY) == "- **Exception:** new hardware (MI455X)\n• Draft: org/x"
    assert detail_lines(BODY) == ["Exception: new hardware (MI455X)", "Draft: org/x"]
    assert exception_lines(BODY) == ["Exception: new hardware (MI455X)"]
    assert detail_section("no section here") == ""


def test_fail_closed_turns_gaps_and_errors_into_fail():
    @fail_closed("Thing")
    def gap(_, __):
        raise EvidenceGap("x was not read")

    @fail_closed("Thing")
    def invalid(_, __):
        raise InfxError("bad policy")

    @fail_closed("Thing")
    def fine(_, __):
        return Outcome(Status.PASS, "ok")

    assert gap(None, None) == Outcome(Status.FAIL, "Thing could not be verified: x was not read")
    assert invalid(None, None).status == Status.FAIL and "bad policy" in invalid(None, None).reason
    assert fine(None, None).status == Status.PASS


def test_policy_reads_only_the_default_branch():
    evidence = world_evidence("seed000")
    assert "deprecations" in policy(evidence).doc("deprecations")
    evidence.default_branch_files.pop("configs/policy/engines.yaml")
    try:
        policy(evidence).doc("engines")
    except EvidenceGap as gap:
        assert "was not read from the default branch" in str(gap)
    else:
        raise AssertionError("missing policy must be a gap")


def test_diffed_files_falls_back_to_the_whole_file_when_the_diff_is_missing():
    from dataclasses import replace as dc_replace

    from infx.signoff.rules.policy_reads import diffed_files

    evidence = world_evidence("scenario8")
    script = "benchmarks/single_node/agentic/kimik3_container_fixes.sh"
    files = [dc_replace(f, patch=None) if f.filename == script else f for f in evidence.files]
    full = next(f for f in diffed_files(dc_replace(evidence, files=files)) if f.filename == script)
    assert full.patch.startswith("@@ -0,0 +1,10 @@")
    assert "+python3 - \"$VLLM_DIR\" <<'PY'" in full.patch
