"""A false rejection, now mended, found by replaying merged MI355X PRs of the reference (REPLAY20.md).

#2508 (Kimi-K3 MXFP4 vLLM DSpark, 39324e441): apply_k3_container_patches.sh rewrites the MLA
attention backend (rocm_aiter_mla.py) in a Python heredoc so DSpark's multi-token verify reaches
the ASM persistent decode kernel. It touches neither the draft's weights nor its dtype, but two
comment lines name both "DSpark" and "fp8" (the target's fp8 KV cache), and Check 13 reports
"patch changes draft loading/precision". (The patch itself is Check 10's business: the PR adds
docs/waiver/2508.md for it.)
"""

from __future__ import annotations

from infx.signoff.checks.draft import _lowers_draft

# trimmed from benchmarks/single_node/agentic/apply_k3_container_patches.sh at 39324e441 (lines 880-911)
HEREDOC = "\n".join([
    "heredoc rewrites engine files: python - \"$ROOT/vllm/v1/attention/backends/mla/rocm_aiter_mla.py\" <<'PYDSPARK'",
    'OLD1 = "        self._mtp_decode_qlen = self.reorder_batch_threshold or 1\\n"',
    "NEW1 = (",
    "    OLD1",
    '    + "        # Local DSpark PS extension: reorder_batch_threshold\'s method\\n"',
    '    + "        # whitelist does not size DSpark, leaving its verify (qlen =\\n"',
    ")",
    '    "        # asm fp8 q-row-fold verify faults on gfx950 (HSA 0x1016 in DSpark).\\n"',
    '    "        # Local DSpark PS extension: with aiter #4521 the asm fp8 q-row-fold\\n"',
])


def test_attention_kernel_patch_mentioning_dspark_and_fp8_kv_does_not_lower_the_draft():
    assert not _lowers_draft(HEREDOC)


def test_a_real_draft_dtype_rewrite_still_counts():
    assert _lowers_draft('sed -i "s/draft_dtype = None/draft_dtype = torch.float8_e4m3fn/" eagle.py')
