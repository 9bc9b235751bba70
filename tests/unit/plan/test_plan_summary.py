"""Markdown plan summary (the plan step's $GITHUB_STEP_SUMMARY): jobs and GPUs per bucket, config key and runner."""

from __future__ import annotations

import re

import cmarkgfm

from infx.plan.gpus import row_gpus
from infx.plan.summary import COLLAPSE_AFTER, summary_markdown, write_summary
from infx.plan.sweep_plan import Plan


def row(key_image, conc, spec="none", runner="r1", tp=1, **extra):
    return {"image": key_image, "model": "m", "model-prefix": "p", "precision": "fp8",
            "framework": "vllm", "runner": runner, "conc": conc, "spec-decoding": spec, "tp": tp, **extra}


def config(image, spec="none", runner="r1"):
    return {"image": image, "model": "m", "model-prefix": "p", "precision": "fp8",
            "framework": "vllm", "runner": runner,
            "scenarios": {"fixed-seq-len": [{"search-space": [{"spec-decoding": spec}]}]}}


CONFIGS = {"a": config("i1"), "a-mtp": config("i1", "mtp"), "b": config("i2", runner="r2"),
           "unplanned": config("i1")}


def plan(entries, single=None, evals=None):
    return Plan.from_json({
        "single_node": {"8k1k": single if single is not None else [row("i1", 4, tp=8), row("i1", 8, "mtp", tp=4)]},
        "multi_node": {}, "evals": evals if evals is not None else [row("i2", 16, runner="r2", tp=2)],
        "agentic_evals": [], "multinode_evals": [], "multinode_agentic_evals": [],
        "changelog_metadata": {"entries": [{"config-keys": k} for k in entries]}})


def table(text: str, title: str) -> list[list[str]]:
    """The rows of the table headed `| title | jobs | GPUs |`, as cells."""
    lines = text.split("\n")
    start = lines.index(f"| {title} | jobs | GPUs |") + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("| "):
            break
        rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


def test_jobs_and_gpus_per_bucket_key_and_runner():
    text = summary_markdown(plan([["a*"], ["b"]]), CONFIGS)
    assert "3 job(s) on 14 GPU(s) in all" in text
    assert table(text, "bucket") == [["`single_node.8k1k`", "2", "12"], ["`evals`", "1", "2"], ["**total**", "3", "14"]]
    assert table(text, "config key") == [["`a`", "1", "8"], ["`a-mtp`", "1", "4"], ["`b`", "1", "2"]]
    assert table(text, "runner") == [["`r1`", "2", "12"], ["`r2`", "1", "2"]]
    assert "unplanned" not in text and "<details>" not in text


def test_tables_are_sorted_by_jobs_most_first_then_by_name():
    single = [row("i1", c, runner="r-few") for c in (1, 2)] + [row("i1", c, runner="r-many") for c in range(5)]
    text = summary_markdown(plan([["a"]], single=single, evals=[row("i1", 1, runner="a-one")]), CONFIGS)
    assert [r[0] for r in table(text, "runner")] == ["`r-many`", "`r-few`", "`a-one`"]


def test_unknown_origin_is_marked():
    assert table(summary_markdown(plan([["zzz"]]), CONFIGS), "config key") == [["`?`", "3", "14"]]


def test_a_long_table_is_folded_in_details_and_still_renders_as_a_table():
    runners = [f"runner-{i:02d}" for i in range(COLLAPSE_AFTER + 1)]
    single = [row("i1", 4, runner=name) for name in runners]
    text = summary_markdown(plan([["a"]], single=single, evals=[]), CONFIGS)
    short = summary_markdown(plan([["a"]], single=single[:COLLAPSE_AFTER], evals=[]), CONFIGS)
    assert "<details>" not in short
    folded = re.search(r"<details><summary>([^<]*)</summary>\n\n(.*?)\n\n</details>", text, re.S)
    assert folded and folded.group(1) == f"{len(runners)} runners, most jobs first: 11 jobs, 11 GPUs"
    assert folded.group(2).startswith("| runner | jobs | GPUs |")
    html = cmarkgfm.github_flavored_markdown_to_html(text, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)
    inside = html[html.index("<details>"):html.index("</details>")]
    assert "<table>" in inside and inside.count("<tr>") == len(runners) + 1


def test_names_from_the_configs_render_inert():
    """Runner labels and config keys come from the PR's head: a pipe, HTML or a mention in one
    never makes structure, and the <details> summary line (raw HTML) holds no name at all."""
    hostile = ["x|y <img src=q> @org/team `z` [l](https://e.test)"] + [f"r{i}" for i in range(COLLAPSE_AFTER)]
    single = [row("i1", 4, runner=name) for name in hostile]
    text = summary_markdown(plan([["a"]], single=single, evals=[]), CONFIGS)
    summary_line = next(line for line in text.split("\n") if line.startswith("<details>"))
    assert "img" not in summary_line and "r0" not in summary_line
    html = cmarkgfm.github_flavored_markdown_to_html(text)
    assert "<img" not in html and "<a " not in html
    assert len(table(text, "runner")) == len(hostile)  # the pipe did not split a row's cells
    assert all(len(cells) == 3 for cells in table(text, "runner"))


def test_gpus_of_a_row():
    assert row_gpus({"tp": 8}) == 8 and row_gpus({"tp": 4, "pp": 2, "pcp-size": 2}) == 16
    assert row_gpus({"tp": "8"}) == 1  # a factor that is no whole number counts as 1
    disagg = {"prefill": {"num-worker": 2, "tp": 4}, "decode": {"num-worker": 1, "tp": 8, "pp": 2}}
    assert row_gpus(disagg) == 2 * 4 + 16
    assert row_gpus({"prefill": {"num-worker": 1, "tp": 4}, "decode": {"num-worker": 0, "tp": 8}}) == 4


def test_write_summary_targets(tmp_path, monkeypatch, capsys):
    target = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    write_summary("one\n")
    write_summary("two\n")
    assert target.read_text() == "one\ntwo\n"
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    write_summary("three\n")
    assert capsys.readouterr().err == "three\n"
