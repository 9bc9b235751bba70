"""Helpers of the signoff report tests, shared with other test modules."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from infx.plan.sweep_plan import Plan
from infx.report.publish import post_report, read_report
from infx.workflow.launch import artifact_prefix, finish, raw_dir, result_name
from infx.workflow.shard import caller_name, shard_plan
from lib.fake_results import write_raw

REPO = "acme/inferencex"


BASE_SHA, HEAD_SHA = "a" * 40, "b" * 40


RUN = 5


KEY = "dsr1-fp8-mi355x-sglang"


CONFIG = """dsr1-fp8-mi355x-sglang:
  image: lmsysorg/sglang:IMAGE
  model: deepseek-ai/DeepSeek-R1
  model-prefix: dsr1
  runner: mi355x
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - {tp: 8, conc-list: [4, 8, 16, 32, 64, 128]}
"""


ROW = {"image": "lmsysorg/sglang:v1", "model": "deepseek-ai/DeepSeek-R1", "model-prefix": "dsr1",
       "precision": "fp8", "framework": "sglang", "runner": "mi355x", "isl": 8192, "osl": 1024, "tp": 8,
       "pp": 1, "dcp-size": 1, "pcp-size": 1, "ep": 1, "dp-attn": False, "spec-decoding": "none",
       "max-model-len": 9472, "exp-name": "dsr1_8k1k", "disagg": False}


OLD_ENTRY = f"- config-keys: [{KEY}]\n  description: [first]\n  pr-link: https://github.com/{REPO}/pull/1\n"


NEW_ENTRY = f"\n- config-keys: [{KEY}]\n  description: [bump the image]\n  pr-link: XXX\n"


THRESHOLDS = "default:\n  gsm8k: 0.90\nmodels:\n  dsr1:\n    gsm8k: 0.91\n"


FAILED_CONC = 16


LOW_CONC = 64


def plan() -> dict:
    return {"single_node": {"8k1k": [ROW | {"conc": c, "run-eval": False} for c in (4, 8, 16, 32, 64, 128)]},
            "evals": [ROW | {"conc": c, "run-eval": True, "eval-only": True} for c in (LOW_CONC, 128)]}


def shards() -> dict[str, list[dict]]:
    return shard_plan(Plan.from_json(plan()))


def run_the_jobs(downloaded: Path, work: Path) -> None:
    """Each job of the plan as the workflow runs it; the row at FAILED_CONC crashes (no
    artifact), the eval at LOW_CONC scores below its floor."""
    for rows in shards().values():
        for index, row in enumerate(rows):
            if not row.get("eval-only") and row["conc"] == FAILED_CONC:
                continue
            runner = f"mi355x-amds_0{index % 9}"
            results = work / f"job{len(list(work.glob('job*')))}" / "results"
            write_raw(raw_dir(results), row, score=0.5 if row["conc"] == LOW_CONC else 0.95)
            results.mkdir(parents=True)
            finish(row, runner, results)
            shutil.copytree(results, downloaded / (artifact_prefix(row) + result_name(row, runner)))


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> tuple[Path, Path]:
    """agg_bmk.json and agg_eval_all.json as `python -m infx.workflow collect` writes them."""
    from infx.cli.workflow import main

    tmp = tmp_path_factory.mktemp("collected")
    (tmp / "downloaded").mkdir()
    run_the_jobs(tmp / "downloaded", tmp / "work")
    for kind, name in (("benchmark", "agg_bmk.json"), ("eval", "agg_eval_all.json")):
        assert main(["collect", "--kind", kind, "--input", str(tmp / "downloaded"), "--output", str(tmp / name)]) == 0
    return tmp / "agg_bmk.json", tmp / "agg_eval_all.json"


def world(attempt: int = 1) -> dict:
    """PR #12 bumps the image of one config; run 5 swept its head, one benchmark job failed."""
    base_files = {"configs/amd-master.yaml": CONFIG.replace("IMAGE", "v0"), "perf-changelog.yaml": OLD_ENTRY,
                  "configs/evals/thresholds.yaml": THRESHOLDS, "CODEOWNERS": "* @acme/core\n"}
    head_files = {"configs/amd-master.yaml": CONFIG.replace("IMAGE", "v1"),
                  "perf-changelog.yaml": OLD_ENTRY + NEW_ENTRY}
    check_runs, job_id = [], 9000
    for shard, rows in shards().items():
        bucket = shard.rsplit("-", 1)[0]
        title = caller_name(next(b for b in _buckets() if b.id == bucket), int(shard.rsplit("-", 1)[1]))
        for row in rows:
            job_id += 1
            failed = not row.get("eval-only") and row["conc"] == FAILED_CONC
            check_runs.append({
                "id": job_id, "name": f"{title} / {row['job-name']}", "status": "completed",
                "conclusion": "failure" if failed else "success", "run_id": RUN, "run_attempt": attempt,
                "started_at": "2026-09-29T10:00:00Z", "completed_at": "2026-09-29T11:00:00Z",
                "details_url": f"https://github.com/{REPO}/actions/runs/{RUN}/job/{job_id}"})
    return {
        "repo": REPO, "default_branch": "main", "now": "2026-09-30T12:00:00Z",
        "token_login": "github-actions[bot]", "branches": {"main": BASE_SHA, "carol/bump": HEAD_SHA},
        "commits": {BASE_SHA: {"parents": [], "message": "initial", "files": base_files},
                    HEAD_SHA: {"parents": [BASE_SHA], "message": "Bump the image", "files_from": BASE_SHA,
                               "files": head_files}},
        "collaborators": {"carol": {"permission": "write", "role_name": "write"}},
        "teams": {"acme/core": ["root"]}, "codeowners_errors": [],
        "pulls": [{"number": 12, "title": "Bump the image", "user": "carol", "state": "open", "draft": False,
                   "base": {"ref": "main", "sha": BASE_SHA},
                   "head": {"ref": "carol/bump", "sha": HEAD_SHA, "repo": REPO},
                   "labels": ["full-sweep-enabled"], "commits": [HEAD_SHA], "comments": []}],
        "check_runs": {HEAD_SHA: check_runs}, "statuses": {},
        "workflow_runs": [{"id": RUN, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
                           "event": "pull_request", "status": "completed", "conclusion": "failure",
                           "head_sha": HEAD_SHA, "head_branch": "carol/bump", "run_attempt": attempt,
                           "created_at": "2026-09-29T10:00:00Z", "artifacts": []}],
    }


def _buckets():
    from infx.workflow.shard import BUCKETS

    return BUCKETS


def report_comments(fake) -> list[dict]:
    return [c for c in fake.state.world["pulls"][0]["comments"] if c["body"].startswith("<!-- infx-sweep-report")]


def post(fake, collected, attempt: int = 1, run_id: int = RUN) -> str:
    results, evals = collected
    data = read_report(fake.client(), REPO, 12, run_id, attempt, HEAD_SHA, results=results, evals=evals)
    return post_report(fake.client(), REPO, data)


_NUMBER = r"\d+(?:\.\d+)?"  # what the report writes: no sign, no exponent
_CHARTS_SEEN: list[str] = []  # every block parse_xychart read, for mermaid_reads_every_chart
_MERMAID_READ: dict[str, dict] = {}  # diagram text -> mermaid's answer, read once per session


def mermaid_reads(texts: list[str]) -> list[dict]:
    """Mermaid's answer for each diagram text, starting the Node.js parser (about 1 s) once for
    all the texts it has not read yet in this session; raises tools.ToolMissing without it."""
    from lib import tools

    new = [text for text in dict.fromkeys(texts) if text not in _MERMAID_READ]
    if new:
        _MERMAID_READ.update(zip(new, tools.mermaid(new), strict=True))
    return [_MERMAID_READ[text] for text in texts]


def mermaid_source(block: str) -> str:
    """The diagram text inside a ```mermaid fence."""
    assert block.startswith("```mermaid\n") and block.endswith("\n```"), block[:40]
    return block[len("```mermaid\n"):-len("```")]


def chart_blocks(body: str) -> list[str]:
    """Every ```mermaid block of a comment body, fences included."""
    return [match.group(0) for match in re.finditer(r"^```mermaid\n.*?\n```$", body, re.M | re.S)]


def parse_xychart(block: str) -> dict:
    """The structure of one chart block of the report, checked line by line: front matter with
    the line colours, then an xychart with a numeric latency axis and only lines. Mermaid's own
    parser reads every block seen here at the end of the test module (mermaid_reads_every_chart)."""
    _CHARTS_SEEN.append(block)
    lines = block.split("\n")
    assert lines[:5] == ["```mermaid", "---", "config:", "  themeVariables:", "    xyChart:"], lines[:5]
    palette = re.fullmatch(r'      plotColorPalette: "((?:#[0-9a-f]{6}(?:, )?)+)"', lines[5])
    assert palette and lines[6:8] == ["---", "xychart-beta"] and lines[-1] == "```", lines[5:8]
    found: dict = {"palette": palette.group(1).split(", "), "lines": []}
    for line in lines[8:-1]:
        title = re.fullmatch(r'    title "([^"`%<>&]*)"', line)
        axis = re.fullmatch(r'    ([xy])-axis "([^"`%<>&]*)" (' + _NUMBER + r') --> (' + _NUMBER + r')', line)
        series = re.fullmatch(r"    line \[((?:" + _NUMBER + r"(?:, )?)+)\]", line)
        if title:
            found["title"] = title.group(1)
        elif axis:
            found[axis.group(1) + "_title"] = axis.group(2)
            found[axis.group(1)] = (float(axis.group(3)), float(axis.group(4)))
            found[axis.group(1) + "_top"] = axis.group(4)
        elif series:
            found["lines"].append([float(v) for v in series.group(1).split(", ")])
        else:
            raise AssertionError(f"not a line of the report's xychart: {line!r}")
    assert {"title", "x", "y"} <= set(found) and found["lines"], block
    assert len(found["palette"]) == len(found["lines"])
    return found


@pytest.fixture(autouse=True, scope="module")
def mermaid_reads_every_chart():
    """Every chart block a test module gave parse_xychart is also read by mermaid's own parser
    (npm mermaid, tests/lib/mermaid_oracle.mjs) when the module ends: one it rejects fails."""
    start = len(_CHARTS_SEEN)
    yield
    blocks = list(dict.fromkeys(_CHARTS_SEEN[start:]))
    del _CHARTS_SEEN[start:]
    if not blocks:
        return
    from lib import tools

    try:
        answers = mermaid_reads([mermaid_source(block) for block in blocks])
    except tools.ToolMissing as exc:
        if tools.required():
            pytest.fail(f"required tool missing: {exc}")
        return
    rejected = [(block, answer["error"]) for block, answer in zip(blocks, answers, strict=True)
                if not answer["ok"]]
    assert not rejected, f"mermaid rejects {len(rejected)} of {len(blocks)} chart(s); first: {rejected[0]}"
