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
from lib.loop_scenarios import LABEL, failed_jobs, sign, sweep
from lib.sweep_loop import verify

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

NO_SPEC = "- No speculative decoding in this config."
# what the replay cannot hold: the upstream SGLang cookbook page (Check 3 reads it from
# sgl-project/sglang), and the draft checkpoint's revision a reviewer would look up (Check 13)
UPSTREAM = ("3", "no sglang upstream recipe link")
DRAFT_RECORD = ("13", "no draft-precision record")


@dataclass(frozen=True)
class Case:
    number: int
    swept: bool  # the sweep itself is green
    failing: tuple[tuple[str, str], ...]  # (check, words of its reason) of every failing check
    label: str = LABEL
    details: tuple[str, ...] = (NO_SPEC,)


CASES = [
    # single-node image bump of an SGLang key and its MTP twin
    Case(2349, True, (UPSTREAM, DRAFT_RECORD), label="sweep-enabled"),
    # agentic MTP config added (SGLang): Checks 9 and 11 follow its launch and pass
    Case(2562, True, (UPSTREAM, DRAFT_RECORD), label="sweep-enabled"),
    # multi-node disaggregated image bump and re-layout
    Case(2606, True, (UPSTREAM,)),
    # true rejection: the entry follows history's whitespace-only last line with no empty line
    Case(2433, False, (("1", "No passing sweep"), ("2", "no in-PR commit has a passing sweep"),
                       UPSTREAM, DRAFT_RECORD,
                       ("12", "new changelog entries must be separated from history by one empty line"))),
    # true rejection: the entry is inserted before the last one (history changed). Check 11
    # follows $SPEC_DECODE_AL per concurrency (3.75 with 6 draft tokens at conc 1, 2.51 with 2
    # elsewhere) and compares it with the curve the launch selects: it names no draft sampling
    # or rejection method, so the plain DSpark curve (3.54, 2.45) applies; README, what is left
    Case(2697, False, (("1", "No passing sweep"), ("2", "no in-PR commit has a passing sweep"),
                       ("11", "(rows with CONC=1): --spec-decode-acceptance-length 3.75 at "
                              "benchmarks/single_node/agentic/kimik3_fp4_mi355x_atom_mtp.sh:219 "
                              "(SPEC_DECODE_AL=3.75 at benchmarks/single_node/agentic/"
                              "kimik3_fp4_mi355x_atom_mtp.sh:201) pins AL 3.75, but the golden value "
                              "is configs/golden_al_distribution/kimik3_dspark.yaml"),
                       DRAFT_RECORD, ("12", "existing entries are immutable"))),
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
    base = realprs.make_repo(pr, tmp_path / "base", project)
    repo = realprs.RealRepo(base, tmp_path / "repo", pr)
    opened = realprs.open_pr(repo, pr, [case.label])
    record, world = sweep(repo, opened, tmp_path, 90000 + case.number, start=pr.at(-1.5), now=pr.at(-0.1))
    assert (record.conclusion == "success") == case.swept, failed_jobs(record)
    verdict = verify(world, opened.number, sign(world, list(case.details), when=pr.at(-0.5)), tmp_path)
    failing = {k: c for k, c in verdict.checks.items() if c["status"] == "FAIL"}
    shown = "\n".join(f"Check {k}: {c['reason']}" for k, c in failing.items())
    assert sorted(failing) == sorted(k for k, _ in case.failing), shown
    for check, words in case.failing:
        assert words in failing[check]["reason"], shown
    assert verdict.verdict == ("PASS" if not case.failing else "REJECTED")
