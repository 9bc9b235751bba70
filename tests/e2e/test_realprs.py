"""Real merged PRs of the reference repository, replayed through the sweep loop (issue 26).

Each corpus PR (tests/data/realprs, re-extracted by make_realprs.py) becomes a PR of the loop's
test repository: its real base tree and real changes, swept by the real run-sweep.yml on the
fake MI355X node (job names and artifacts from the product's own plan, shard, launch and collect
steps), signed by a CODEOWNER with every checklist item ticked, verified by `infx signoff verify`.
The expected verdicts are what the PR's content earns; the README of the corpus says why for
each, and which findings are still evidence the replay lacks rather than a fault of the PR.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import pytest
from lib import realprs
from lib.loop_scenarios import LABEL, failed_jobs
from lib.sweep_loop import verify

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

NO_SPEC = ["- No speculative decoding in this config."]
# what the replay cannot hold: the upstream recipe page (Check 3 reads it from
# sgl-project/sglang or vllm-project/recipes, which the world does not serve)
UPSTREAM = ("3", "no sglang upstream recipe link")
UPSTREAM_VLLM = ("3", "no vllm upstream recipe link")
NO_SWEEP = (("1", "No passing sweep"), ("2", "no in-PR commit has a passing sweep"))


@dataclass(frozen=True)
class Case:
    number: int
    swept: bool  # the sweep itself is green
    failing: tuple[tuple[str, str], ...]  # (check, words of its reason) of every failing check
    label: str = "sweep-enabled"
    details: tuple[str, ...] = tuple(NO_SPEC)


def drafted(draft: str) -> tuple[str, ...]:
    """A spec-decode PR's sign-off: the reviewer's draft-precision record (Check 13)."""
    return tuple(realprs.draft_record(draft))


CASES = [
    # single-node image bump of an SGLang key and its MTP twin (the checkpoint's own MTP head)
    Case(2349, True, (UPSTREAM,), details=drafted("embedded")),
    # agentic MTP config added (SGLang): Checks 9 and 11 follow its launch and pass
    Case(2562, True, (UPSTREAM,), details=drafted("embedded")),
    # multi-node disaggregated image bump and re-layout
    Case(2606, True, (UPSTREAM,), label=LABEL),
    # true rejection: the entry follows history's whitespace-only last line with no empty line
    Case(2433, False, (*NO_SWEEP, UPSTREAM,
                       ("12", "new changelog entries must be separated from history by one empty line")),
         label=LABEL, details=drafted("embedded")),
    # true rejection: the entry is inserted before the last one (history changed). Check 11
    # follows $SPEC_DECODE_AL per concurrency (3.75 with 6 draft tokens at conc 1, 2.51 with 2
    # elsewhere) and compares it with the curve the launch selects: it names no draft sampling
    # or rejection method, so the plain DSpark curve (3.54, 2.45) applies; README, what is left
    Case(2697, False, (*NO_SWEEP,
                       # (KV_OFFLOADING: the launch tests it around lines the rows run or not)
                       ("11", "(rows with CONC=1 KV_OFFLOADING=none): --spec-decode-acceptance-length 3.75 at "
                              "benchmarks/single_node/agentic/kimik3_fp4_mi355x_atom_mtp.sh:219 "
                              "(SPEC_DECODE_AL=3.75 at benchmarks/single_node/agentic/"
                              "kimik3_fp4_mi355x_atom_mtp.sh:201) pins AL 3.75, but the golden value "
                              "is configs/golden_al_distribution/kimik3_dspark.yaml"),
                       ("12", "existing entries are immutable")),
         label=LABEL, details=drafted("Inferact/Kimi-K3-DSpark")),
    # agentic vLLM MTP config added with a benchmark_lib.sh change: the 28 configs that only
    # source the helper are not judged (Checks 3, 14); Check 11 follows the escaped JSON
    # --speculative-config to AL 2.78 at k=3. True rejection: --hf-overrides turns on
    # use_index_cache / index_topk_freq, which reuses the indexer's top-k across layers (Check 8)
    Case(2487, True, (UPSTREAM_VLLM,
                      ("8", "minimaxm3_fp4_mi355x_mtp.sh:223: overrides use_index_cache=True")),
         details=drafted("Inferact/MiniMax-M3-EAGLE3-GQA")),
    # agentic ATOM MTP config added: Check 11 reads the AL from a shell array
    # (SPEC_ARGS+=(--spec-decode-acceptance-length ...)). True rejection: the entry is inserted
    # before the last one
    Case(2698, False, (*NO_SWEEP, ("12", "existing entries are immutable")), details=drafted("embedded")),
    # agentic ATOM MTP config added: Check 11 computes the rate awk derives from the golden AL.
    # True rejection: ptpc_fp8 online quantization does not exclude the embedded MTP layer
    Case(2576, True, (("13", "exclude_layer does not cover the draft module(s) model.layers.78"),),
         details=drafted("embedded")),
    # multi-node agentic disaggregated MTP arm (SGLang). Check 11 follows the launch the runner
    # makes (script -> cd amd_utils; submit.sh -> job.slurm -> server.sh -> server_sglang.sh, the
    # engine chosen by ENGINE=${FRAMEWORK}) to the golden AL picked in a `case
    # "${MODEL_NAME}:${DECODE_MTP_SIZE}"` arm (MODEL_NAME exported by the launch) and passes
    Case(2309, True, (UPSTREAM,), details=drafted("embedded")),
    # multi-node agentic image bump with shared helper changes; Check 11 passes as on #2309.
    # True rejection: the entry adds a whitespace-only line. Its plan has no eval row (multi-node
    # agentic rows get none), so Check 2 asks for none (N/A) although the sweep is red
    Case(2643, False, (NO_SWEEP[0], UPSTREAM, ("12", "adds a whitespace-only line")), details=drafted("embedded")),
    # a retirement: 72 configs only lose their 1k1k rows (configs_at.runs_new_rows), so none is a
    # changed config and nothing needs a sweep, an eval or a review of its launch (Checks 1, 3, 9,
    # 10, 13 failed on all 72). The replay runs the sweep workflow although the changelog is
    # untouched (GitHub would not start it: its paths filter), so the sweep itself is red
    Case(2263, False, ()),
]


@pytest.fixture(scope="module")
def corpus():
    return {n: realprs.load(n) for n in realprs.corpus_numbers()}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The project's packed commit every replay's repository starts from; git makes clones
    without the sample hooks (a dozen files in each of the sweep's checkouts)."""
    templates = tmp_path_factory.mktemp("git-templates")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_TEMPLATE_DIR", str(templates))
        yield realprs.make_project_repo(tmp_path_factory.mktemp("realprs") / "project")


def test_the_corpus_is_the_replayed_one(corpus):
    assert sorted(corpus) == sorted(c.number for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"pr{c.number}")
def test_real_pr_replay(corpus, project, case, tmp_path):
    pr = corpus[case.number]
    record, world, number, comment = realprs.replay(pr, tmp_path, project, case.label, list(case.details),
                                                    90000 + case.number)
    assert (record.conclusion == "success") == case.swept, failed_jobs(record)
    verdict = verify(world, number, comment, tmp_path)
    failing = {k: c for k, c in verdict.checks.items() if c["status"] == "FAIL"}
    shown = "\n".join(f"Check {k}: {c['reason']}" for k, c in failing.items())
    assert sorted(failing) == sorted(k for k, _ in case.failing), shown
    for check, words in case.failing:
        assert words in failing[check]["reason"], shown
    assert verdict.verdict == ("PASS" if not case.failing else "REJECTED")
