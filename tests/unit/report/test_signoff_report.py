"""infx.report.build + report_publish: the PR's sweep report comment, from real collected results.

The jobs' artifacts are produced the way the workflow produces them (shard names the rows, the
fake node writes raw output, `finish` normalises it, `collect` aggregates), the run is a world
on the fake GitHub server, and the comment is read back from it."""

from __future__ import annotations

import copy
import json
import re

import cmarkgfm
import pytest
from lib import tools
from lib.report_charts import (
    HEAD_SHA,
    KEY,
    REPO,
    RUN,
    THRESHOLDS,
    chart_blocks,
    mermaid_source,
    parse_xychart,
    post,
    report_comments,
    world,
)

from infx.config.thresholds import load_thresholds_text
from infx.github.fake import FakeGitHub
from infx.github.models import Job
from infx.report.build import (
    LIMIT,
    CheckResult,
    Report,
    curves,
    eval_verdict,
    mermaid,
    render,
    reused_rows,
)
from infx.report.chart import SAMPLES
from infx.report.publish import post_report, read_report
from infx.signoff.model import Outcome, Status


def test_one_failed_job_and_one_low_eval_are_listed_with_job_links_and_the_floor_source(collected):
    with FakeGitHub(world()) as fake:
        assert post(fake, collected) == "created"
        (comment,) = report_comments(fake)
    body = comment["body"]
    failed = next(c for c in world()["check_runs"][HEAD_SHA] if c["conclusion"] == "failure")
    job = failed["name"].split(" / ", 1)[1]
    # the config key row: 5 passed + 2 evals, 1 failed, the failing job linked to its page
    row = next(line for line in body.split("\n") if line.startswith(f"| `{KEY}` |"))
    assert row.startswith(f"| `{KEY}` | 7 | 1 | 0 | 0 |")
    assert f"({failed['details_url']})" in row and job.split(" #")[0].replace("_", "\\_") in row
    # the low eval: its verdict, score, floor, where the floor comes from, and its job's page
    low = next(line for line in body.split("\n") if "below floor" in line)
    assert "| 0.5000 | 0.9100 | `models.dsr1.gsm8k` |" in low
    eval_job = next(c for c in world()["check_runs"][HEAD_SHA]
                    if c["name"].startswith("eval / ") and " c64 " in c["name"])
    assert f"({eval_job['details_url']})" in low
    assert "Floors from `configs/evals/thresholds.yaml on main`" in body
    assert sum("✅ ok" in line for line in body.split("\n")) == 1
    # Checks `sweep`, `evals`, `pareto` as the sign-off would say now: no passing sweep yet
    check1 = next(line for line in body.split("\n") if line.startswith("| 1 | Passing sweep"))
    assert "| FAIL |" in check1 and "No passing sweep" in check1
    assert "| 2 | Evals pass | FAIL |" in body and "| 14 | Pareto coverage | WARN |" in body
    # the Pareto chart of the one curve, drawn from the real collected rows
    assert body.count("```mermaid") == 1 and "5 measured point(s), 0 invalid" in body
    assert len(body) < LIMIT


def test_a_rerun_edits_the_one_comment_in_place(collected):
    with FakeGitHub(world()) as fake:
        assert post(fake, collected) == "created"
        first = report_comments(fake)[0]
        assert post(fake, collected) == "unchanged"
        fake.state.world = fake.state.world | {"check_runs": {HEAD_SHA: [
            c | {"conclusion": "success", "run_attempt": 2} if c["conclusion"] == "failure" else c
            for c in fake.state.world["check_runs"][HEAD_SHA]]}}
        fake.state.world["workflow_runs"][0]["run_attempt"] = 2
        assert post(fake, collected, attempt=2) == "updated"
        (comment,) = report_comments(fake)
        assert comment["id"] == first["id"]
        assert comment["body"].startswith(f"<!-- infx-sweep-report run={RUN} attempt=2 -->")
        assert f"| `{KEY}` | 8 | 0 | 0 | 0 | — |" in comment["body"]
        # a late collection of an older run never replaces the newer report
        assert post(fake, collected, run_id=RUN - 1) == "kept-newer"
        assert len(report_comments(fake)) == 1


def test_the_plan_jobs_list_of_reused_rows_is_compared_never_counted(collected, tmp_path):
    """The plan job runs the PR's code, so its list of reused rows is the PR's word: the reused
    column comes from the sign-off's coverage rule over the evidence (here: no earlier run), and
    rows the plan job claims beyond it are named as not counted."""
    claimed = tmp_path / "reused_rows.json"
    names = [c["name"].split(" / ", 1)[1] for c in world()["check_runs"][HEAD_SHA]][:3]
    claimed.write_text(json.dumps({name: RUN - 1 for name in names}))
    results, evals = collected
    with FakeGitHub(world()) as fake:
        data = read_report(fake.client(), REPO, 12, RUN, 1, HEAD_SHA, results=results, evals=evals,
                           reused=claimed)
        assert data.reused == {} and set(data.claimed) == set(names)
        assert post_report(fake.client(), REPO, data) == "created"
        (comment,) = report_comments(fake)
    body = comment["body"]
    assert next(line for line in body.split("\n") if line.startswith(f"| `{KEY}` |")).startswith(
        f"| `{KEY}` | 7 | 1 | 0 | 0 |")
    assert "3 row(s) the plan job listed as reused have no green job" in body
    assert f"runs/{RUN - 1})" not in body  # the claimed source run is never linked as a source


def test_reused_rows_are_the_covered_rows_this_run_did_not_run():
    jobs = (Job(1, "single-node 8k1k / a", conclusion="failure"), Job(2, "eval / b", conclusion="success"))
    covered = {"a": 4, "b": RUN, "c": 4, "d": RUN}
    assert reused_rows(covered, RUN, jobs) == {"c": 4}  # a: this run ran it (and failed it)
    assert reused_rows(covered, RUN, "the jobs could not be read") == {"a": 4, "c": 4}
    unverified = Report(REPO, 12, RUN, 1, HEAD_SHA, jobs=jobs, reused="the PR could not be read",
                        claimed={"c": 4})
    body = render(unverified)
    assert "Reused rows are not counted: they could not be verified (the PR could not be read)." in body
    assert "| `(no changelog config key)` | 1 | 1 | 0 | 0 | `a` |" in body


def test_the_cli_posts_through_a_world_file(collected, tmp_path):
    from click.testing import CliRunner

    from infx.cli.signoff import signoff

    path = tmp_path / "world.json"
    path.write_text(json.dumps(world()))
    results, evals = collected
    out = CliRunner().invoke(signoff, ["report", "--repo", REPO, "--pr", "12", "--run-id", str(RUN),
                                       "--head-sha", HEAD_SHA, "--results", str(results), "--evals",
                                       str(evals), "--reused", str(tmp_path / "absent.json"),
                                       "--world", str(path)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output.strip().splitlines()[-1]) == {"action": "created", "run": RUN, "attempt": 1}


def test_the_mermaid_block_parses(collected):
    rows = json.loads(collected[0].read_text())
    (curve,) = curves(rows)
    chart = parse_xychart(mermaid(curve))
    assert chart["title"] == "dsr1 / 8192/1024 / MI355X sglang spec=none / fp8"
    assert chart["x_title"] == "median e2e latency (s)" and chart["x"][0] == 0
    assert chart["x"][1] >= max(x for x, _, _ in curve.points)
    assert chart["y"][0] == 0 and chart["y"][1] >= max(y for _, y, _ in curve.points)
    # one layout (TP8) and the frontier; both reach the curve's best point by the axis end
    assert len(chart["lines"]) == 2 and all(len(line) == SAMPLES for line in chart["lines"])
    lane, front = chart["lines"]
    assert lane == sorted(lane) and front == sorted(front) and lane[0] == 0
    assert abs(front[-1] - max(y for _, y, _ in curve.points)) < 1


def test_the_report_lists_the_lanes_under_each_chart(collected):
    rows = json.loads(collected[0].read_text())
    report = Report(REPO, 12, RUN, 1, HEAD_SHA, jobs=(), benchmark_rows=rows, eval_rows=None)
    body = render(report)
    (block,) = chart_blocks(body)
    after = body[body.index(block) + len(block):].split("\n")
    table = [line for line in after[:8] if line.startswith("| ")]
    assert table[0] == "| line | layout | points | best tok/s/GPU | at latency (s) |"
    assert table[1].startswith("| 🟥 red | frontier (every layout) | ")
    assert table[2].startswith("| 🟦 blue | TP8 | 5 | ")
    assert "to scale" in body and "bars" not in body


def test_hostile_row_text_never_reaches_the_chart_or_breaks_the_comment():
    rows = [{"infmax_model_prefix": 'x"]\n```\n<img src=x> @everyone', "hw": "mi355x", "framework": "a`b",
             "precision": "fp8", "isl": 1, "osl": 1, "tput_per_gpu": 10.0 + i, "median_e2el": 1.0 + i,
             "conc": i, "job_name": f"@admin <b>#{i}</b>"} for i in range(3)]
    report = Report(REPO, 12, RUN, 1, HEAD_SHA, jobs=(), benchmark_rows=rows, eval_rows=None)
    body = render(report)
    block = body[body.index("```mermaid"):body.index("```", body.index("```mermaid") + 3) + 3]
    parse_xychart(block)
    assert [line for line in body.split("\n") if line.startswith("```")] == ["```mermaid", "```"]
    html = cmarkgfm.github_flavored_markdown_to_html(body)
    assert "<img" not in html and "<b>" not in html  # shown as text, never as HTML
    outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
    assert "@admin" not in outside_code and "@everyone" not in outside_code  # no mention fires


@pytest.mark.parametrize("field,value", [
    ("tput_per_gpu", 10**400), ("median_e2el", 10**400), ("tput_per_gpu", 1.7e308),
    ("infmax_model_prefix", ["x"]), ("conc", {"a": 1}), ("job_name", ["j"]), ("isl", None),
])
def test_hostile_numbers_and_types_in_the_aggregates_never_crash_the_report(field, value):
    """The aggregates are written by jobs that run the PR's code: any JSON may come back."""
    good = {"infmax_model_prefix": "dsr1", "hw": "mi355x", "framework": "sglang", "precision": "fp8",
            "isl": 8192, "osl": 1024, "conc": 4, "job_name": "j"}
    rows = [good | {"tput_per_gpu": 10.0, "median_e2el": 1.0}, good | {"tput_per_gpu": 20.0, "median_e2el": 2.0},
            good | {"tput_per_gpu": 15.0, "median_e2el": 3.0, field: value}]
    evals = [{"model_prefix": value if field == "infmax_model_prefix" else "dsr1", "task": "gsm8k",
              "score": value if field == "tput_per_gpu" else 0.95, "infrastructure_success": True,
              "conc": 4, "job_name": "j"}]
    report = Report(REPO, 12, RUN, 1, HEAD_SHA, jobs=(), benchmark_rows=rows, eval_rows=evals,
                    thresholds=load_thresholds_text(THRESHOLDS, "t.yaml"), thresholds_source="t.yaml on main")
    body = render(report)
    for start in [m.start() for m in re.finditer("```mermaid", body)]:
        parse_xychart(body[start:body.index("\n```", start) + 4])
    eval_line = next(line for line in body.split("\n") if "`gsm8k`" in line)
    # a score must be a number in [0, 1] (Check `evals`'s rule): 1.7e308 is no score
    assert ("✅ ok" in eval_line) is (field not in ("infmax_model_prefix", "tput_per_gpu"))


@pytest.mark.parametrize("scores", [
    {"score": 1.7}, {"em_strict": 0.95}, {"score": 0.95}, {"accuracy": 0.5}, {"score": 10**400},
    {"score": -0.1}, {"em_strict": 0.95, "score": None}, {"score": True}, {"em_flexible": "0.99"},
], ids=str)
def test_the_report_and_check_2_judge_the_same_eval_row_alike(scores):
    """One score rule (infx.signoff.rules.eval_jobs.eval_score): a score of 1.7 is no valid score
    in both, an em_strict-only row that Check `evals` accepts is ok in the report too."""
    from infx.signoff.checks import evals as check2

    row = {"model_prefix": "dsr1", "task": "gsm8k", "infrastructure_success": True, "conc": 4, "job_name": "j",
           "hw": "mi355x", "framework": "sglang", "precision": "fp8"} | scores
    thresholds = load_thresholds_text(THRESHOLDS, "t.yaml")
    verdict = eval_verdict(row, thresholds)[0]
    assert (verdict == "ok") is (check2._row_problem(row, thresholds) is None)
    expected = {"{'score': 1.7}": "no valid score", "{'em_strict': 0.95}": "ok"}.get(str(scores))
    if expected:
        assert verdict == expected


def test_a_long_frontier_is_drawn_at_the_same_sample_count():
    """Every point counts on its lane's line (none is dropped to fit a point budget): the line
    reaches the best throughput of the curve however many points it has."""
    good = {"infmax_model_prefix": "dsr1", "hw": "mi355x", "framework": "sglang", "precision": "fp8",
            "isl": 8192, "osl": 1024, "conc": 4, "tp": 8}
    for on_front in (39, 40, 41, 90):
        rows = [good | {"tput_per_gpu": 10.0 + i, "median_e2el": 1.0 + i} for i in range(on_front)]
        rows += [good | {"tput_per_gpu": 1.0, "median_e2el": 500.0 + i} for i in range(7)]  # dominated
        (curve,) = curves(rows)
        assert len(curve.frontier) == on_front
        chart = parse_xychart(mermaid(curve))
        assert [len(line) for line in chart["lines"]] == [SAMPLES, SAMPLES]
        assert chart["lines"][-1][-1] == 10.0 + on_front - 1 and chart["x"][1] >= 506


def test_a_700_row_plan_stays_under_the_limit_and_links_the_run():
    jobs, bmk, evals = [], [], []
    for i in range(700):
        tp = 1 + (i // 12) % 8  # every curve (model prefix m0..m11) has 8 layouts
        name = f"dsr1 fp8 mi355x sglang 8k1k TP{tp} c{i} #{i:08x}"
        jobs.append(Job(100000 + i, f"single-node 8k1k / {name}", conclusion="failure" if i % 3 == 0 else "success",
                        html_url=f"https://github.com/{REPO}/actions/runs/{RUN}/job/{100000 + i}"))
        bmk.append({"infmax_model_prefix": f"m{i % 12}", "hw": "mi355x", "framework": "sglang",
                    "precision": "fp8", "isl": 8192, "osl": 1024, "tput_per_gpu": 100.0 + (i * 37) % 900,
                    "median_e2el": 1.0 + (i * 13) % 97 / 7, "conc": i, "job_name": name, "tp": tp})
        evals.append({"model_prefix": "dsr1", "hw": "mi355x", "framework": "sglang", "precision": "fp8",
                      "conc": i, "task": "gsm8k", "score": 0.5 if i % 2 else 0.95, "infrastructure_success": True,
                      "integration_error": None, "job_name": name})
    configs = {f"dsr1-fp8-mi355x-sglang-{i}": {"model-prefix": "dsr1", "precision": "fp8", "runner": "mi355x",
                                               "framework": "sglang"} for i in range(40)}
    checks = tuple(CheckResult(n, f"Check {n}", Outcome(Status.FAIL, "x" * 3000, ("y" * 500,) * 3))
                   for n in (1, 2, 14))
    report = Report(REPO, 12, RUN, 1, HEAD_SHA, jobs=tuple(jobs), configs=configs, benchmark_rows=bmk,
                    eval_rows=evals, thresholds=load_thresholds_text(THRESHOLDS, "t.yaml"),
                    thresholds_source="configs/evals/thresholds.yaml on main", checks=checks)
    body = render(report)
    assert len(body) <= LIMIT - 500
    assert f"[run {RUN}](https://github.com/{REPO}/actions/runs/{RUN})" in body.split("\n")[-2]
    fences = [line for line in body.split("\n") if line.startswith("```")]
    assert fences == ["```mermaid", "```"] * (len(fences) // 2)  # no chart is cut in half
    # every chart of the plan's 12 curves (the comment has room for none of them here)
    blocks = chart_blocks(body) + [mermaid(curve) for curve in curves(bmk)]
    assert len(blocks) == len(fences) // 2 + 12
    for block in blocks:
        assert len(parse_xychart(block)["lines"]) == 7  # 6 of the 8 layouts, and the frontier
    answers = tools.need(tools.mermaid, [mermaid_source(block) for block in blocks])
    assert [answer.get("error") for answer in answers if not answer["ok"]] == []
    with FakeGitHub(copy.deepcopy(world())) as fake:
        assert post_report(fake.client(), REPO, report) == "created"
        (comment,) = report_comments(fake)
        assert len(comment["body"]) <= LIMIT


def test_the_cli_prints_the_comment_it_posts_as_markdown(collected, tmp_path):
    from click.testing import CliRunner

    from infx.cli.signoff import signoff
    from infx.github.fake import FakeGitHub

    path = tmp_path / "world.json"
    path.write_text(json.dumps(world()))
    results, evals = collected
    out = CliRunner().invoke(signoff, ["report", "--repo", REPO, "--pr", "12", "--run-id", str(RUN),
                                       "--head-sha", HEAD_SHA, "--results", str(results), "--evals",
                                       str(evals), "--world", str(path), "--format", "markdown"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith(f"<!-- infx-sweep-report run={RUN} attempt=1 -->\n")
    # the same text the report posts: posting it to the same world again changes nothing
    with FakeGitHub(path) as fake:
        client = fake.client()
        data = read_report(client, REPO, 12, RUN, 1, HEAD_SHA, results=results, evals=evals,
                           reused=None)
        assert post_report(client, REPO, data) == "created"
        posted = fake.world["pulls"][0]["comments"][-1]["body"]
    assert out.output == posted + "\n"


def test_the_per_key_table_agrees_with_check_1_on_a_real_prs_world(repo_root, capsys):
    """Seed PR 1902's sweep jobs are named without our digest: the table must still attribute
    every green job to its config key, summing to what Check `sweep` counts in the same comment."""
    from infx import yamlio
    from infx.cli import main

    world = repo_root / "infx" / "cli" / "demodata" / "signoff_seed003.yaml"
    run = yamlio.load_file(world)["workflow_runs"][0]
    code = main(["signoff", "report", "--world", str(world), "--repo", "SemiAnalysisAI/InferenceX",
                 "--pr", "1902", "--run-id", str(run["id"]), "--head-sha", run["head_sha"],
                 "--format", "markdown"])
    body = capsys.readouterr().out
    assert code == 0
    check_1 = re.search(r"has (\d+) benchmark and (\d+) eval check-runs at success", body)
    assert check_1 is not None
    rows = dict(re.findall(r"^\| `([^`]+)` \| (\d+) \| \d+ \| \d+ \| \d+ \|", body, re.MULTILINE))
    assert "(no changelog config key)" not in body  # its two skipped jobs have no column
    assert set(rows) == {"minimaxm3-fp4-mi355x-atom-disagg-mtp", "minimaxm3-fp8-mi355x-atom-disagg-mtp"}
    assert all(int(passed) > 0 for passed in rows.values())
    assert sum(int(p) for p in rows.values()) == int(check_1.group(1)) + int(check_1.group(2))

