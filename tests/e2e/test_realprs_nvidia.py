"""Real merged NVIDIA PRs of the reference repository, judged by the tree-only checks (issue 26).

Each corpus PR (tests/data/realprs_nvidia, re-extracted by make_realprs_nvidia.py, which checks
that its trimmed trees give every check the outcome the full trees give) becomes Evidence from
the policy world seed000 with the PR's trees (tests/lib/realprs_nvidia.py). The table holds
each check's expected status: the classes fixed while replaying these PRs must stay fixed, and
the true findings must keep being reported. The corpus README says why for each.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field

import pytest
from lib import realprs_nvidia as corpus

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(not corpus.corpus_numbers(), reason="tests/data/realprs_nvidia is missing"),
]

UNVERIFIED_H100 = ("runners/launch_h100-dgxc-slurm.sh finds no benchmark script; add "
                   "benchmarks/single_node/agentic/qwen3.5_fp8_h100_sglang.sh")
EVENTS_OFF = "runs with publish_events_and_metrics=false"
NEXTN_FP8 = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 lowers draft precision (prohibited)"
GLM_TRT = "benchmarks/multi_node/srt-slurm-recipes/trtllm/glm5.2/gb300-fp4/agentic/"


@dataclass(frozen=True)
class Case:
    number: int
    failing: dict[str, tuple[str, ...]]  # check -> words its FAIL reason holds; the rest PASS
    passing: dict[str, tuple[str, ...]] = field(default_factory=dict)  # words a PASS reason holds
    absent: dict[str, tuple[str, ...]] = field(default_factory=dict)  # words a reason must not hold
    not_applicable: tuple[str, ...] = ()  # checks that have nothing to judge (N/A)


CASES = [
    # golden: each multi-node row reads only the recipe its CONFIG_FILE names (mtp5 rows: 2.61
    # + 1 = thinking_on[5]; mtp3 rows: 1.99 + 1 = thinking_on[3]). arch: true finding
    Case(2657, {"arch": (EVENTS_OFF,)},
         passing={"golden": (f"=2.61 at {GLM_TRT}dynamo-disagg-gb300-1p4d-tep4-c30-b2-mtp5.yaml:48 matches",
                             "glm-5.2-fp8.thinking_on[5] = 3.61",
                             f"=1.99 at {GLM_TRT}dynamo-disagg-gb300-5p1d-dep16-c152-b16-mtp3.yaml:48 matches",
                             "glm-5.2-fp8.thinking_on[3] = 2.99"),
                  "images": ("engine-first satisfied by glm5.2-fp4-gb300-dynamo-sglang-agentic-agg",)}),
    # the draft method comes from TRT's decoding_type (golden compares with the dsv4 mtp
    # curve). arch: true finding. golden: the recipes disable Dynamo's default thinking mode
    # but pin the thinking-on AL (README: whether that is a true finding is open)
    Case(2690, {"arch": (EVENTS_OFF,),
                "golden": ("TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.49", "pins AL 2.49",
                           "dsv4_mtp.yaml deepseek-v4-pro.thinking_off[3] = 2.97")},
         passing={"draft": ("dsv4-fp4-gb300-dynamo-trt-agentx: no draft quantization",
                            "the sign-off records the draft")}),
    # chat through the srt-slurm recipe's benchmark command; acceptance injected by the launcher
    Case(2676, {}, passing={"chat": ("client uses the chat template",),
                            "golden": ("SYNTHETIC_ACCEPTANCE_LENGTH=2.49",
                                       "deepseek-v4-pro.thinking_on[3] = 2.49")}),
    # injected acceptance on the DSpark rows; the lanes without spec decoding (c48+) are skipped
    Case(2672, {}, passing={"golden": ("SYNTHETIC_ACCEPTANCE_LENGTH=3.84",
                                       "kimi-k3.thinking_on[7] = 3.84", "mooncake-c32-agentic.yaml")},
         absent={"golden": ("mooncake-c48-agentic", "mooncake-c96-agentic")}),
    # the squash put the changelog entry before one merged meanwhile: its configs are still judged
    Case(2700, {}, passing={"golden": ("kimik3-fp4-gb200-dynamo-vllm-agentic-dspark-mooncake-dcp16-agg",
                                       "kimi-k3.thinking_on[4] = 3.36",
                                       "kimik3-fp4-gb200-dynamo-vllm-agentic-dspark-mooncake-tp8pp2",
                                       "kimi-k3.thinking_on[7] = 3.84")}),
    # --speculative-config built with $(printf ...): followed to the JSON it prints
    Case(2611, {}, passing={"golden": ("synthetic_acceptance_length=2.78 at "
                                       "benchmarks/single_node/agentic/minimaxm3_fp4_b200_mtp.sh:198",
                                       "minimaxm3_eagle3_gqa.yaml minimax-m3.thinking_on[3] = 2.78")}),
    # disaggregated recipes: the draft length is the decode workers'. draft: true finding
    Case(2642, {"draft": ("disagg-gb200-1p4d-dep8-tp4-c48-mtp.yaml:83", NEXTN_FP8)},
         passing={"golden": ("SGLANG_SIMULATE_ACC_LEN=2.5 at", "glm-5.2-fp8.thinking_on[2] = 2.50",
                             "SGLANG_SIMULATE_ACC_LEN=3.33 at", "glm-5.2-fp8.thinking_on[4] = 3.33")}),
    # true finding: 2.49 is the golden AL at 3 draft tokens, the rows run 2
    Case(2567, {"golden": ("SYNTHETIC_ACCEPTANCE_LENGTH=2.49", "pins AL 2.49",
                           "dsv4_mtp.yaml deepseek-v4-pro.thinking_on[2] = 2.27")}),
    # true finding: the FP8 NextN MoE switch
    Case(2620, {"draft": ("glm5.2-agentx-agg.yaml:89", NEXTN_FP8)}),
    # chat: the sa-bench recipes leave use_chat_template at srt-slurm's default (true). arch:
    # true finding (publication unset where dynamo-trt supports it)
    Case(2218, {"arch": ("Event/metric publication could not be verified",)},
         passing={"chat": ("srt-slurm's benchmark.use_chat_template default (true)",
                           "ctx1dep2_gen1tep16_mtp3_c48.yaml")},
         not_applicable=("golden",)),
    # chat: one recipe composing variants (base + zip_override_*), each keeping the sa-bench
    # client and its default. draft: true finding
    Case(2115, {"draft": ("glm5-mtp.yaml:124", NEXTN_FP8)},
         passing={"chat": ("srt-slurm's benchmark.use_chat_template default (true)",
                           "sglang/glm5/gb200-fp4/glm5-mtp.yaml", "leaves benchmark.use_chat_template unset")},
         not_applicable=("golden",)),
    # true finding: a config added with no benchmark script; the checks reading its launch fail closed
    Case(2601, {"arch": ("Architecture integrity could not be verified", UNVERIFIED_H100),
                "chat": ("Chat-template use could not be verified", UNVERIFIED_H100),
                "patch": ("Engine patching could not be verified", UNVERIFIED_H100),
                "golden": ("Golden acceptance length could not be verified", UNVERIFIED_H100),
                "draft": ("Draft precision could not be verified", UNVERIFIED_H100)}),
]


def test_the_corpus_is_the_judged_one():
    assert corpus.corpus_numbers() == sorted(c.number for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"pr{c.number}")
def test_real_nvidia_pr(case):
    pr = corpus.load(case.number)
    outcomes = corpus.run_checks(corpus.pr_evidence(pr))
    shown = "\n".join(f"{name}: {o.status.value}: {o.reason}" for name, o in outcomes.items())
    statuses = {name: o.status.value for name, o in outcomes.items()}
    assert statuses == {name: "FAIL" if name in case.failing else "N/A" if name in case.not_applicable else "PASS"
                        for name in corpus.CHECKS}, shown
    for name, words in (case.failing | case.passing).items():
        for word in words:
            assert word in outcomes[name].reason, f"{name}: {word!r} not in its reason\n{shown}"
    for name, words in case.absent.items():
        for word in words:
            assert word not in outcomes[name].reason, f"{name}: {word!r} in its reason\n{shown}"
    # what the generator recorded from the full trees is what the trimmed trees give
    recorded = json.loads((corpus.CORPUS / str(case.number) / "pr.json").read_text(encoding="utf-8"))
    assert recorded["outcomes"] == statuses
