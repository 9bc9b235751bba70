"""Markdown plan summary: counts per bucket, config key and runner."""

from __future__ import annotations

from infx.plan.summary import summary_markdown, write_summary


def row(key_image, conc, spec="none", runner="r1"):
    return {"image": key_image, "model": "m", "model-prefix": "p", "precision": "fp8",
            "framework": "vllm", "runner": runner, "conc": conc, "spec-decoding": spec}


def config(image, spec="none", runner="r1"):
    return {"image": image, "model": "m", "model-prefix": "p", "precision": "fp8",
            "framework": "vllm", "runner": runner,
            "scenarios": {"fixed-seq-len": [{"search-space": [{"spec-decoding": spec}]}]}}


CONFIGS = {"a": config("i1"), "a-mtp": config("i1", "mtp"), "b": config("i2", runner="r2"),
           "unplanned": config("i1")}


def plan(entries):
    return {"single_node": {"8k1k": [row("i1", 4), row("i1", 8, "mtp")]},
            "multi_node": {}, "evals": [row("i2", 16, runner="r2")], "agentic_evals": [],
            "multinode_evals": [], "multinode_agentic_evals": [],
            "changelog_metadata": {"entries": [{"config-keys": k} for k in entries]}}


def test_counts_per_bucket_key_and_runner():
    text = summary_markdown(plan([["a*"], ["b"]]), CONFIGS)
    assert "| `single_node.8k1k` | 2 |" in text and "| `evals` | 1 |" in text
    assert "| **total** | 3 |" in text
    assert "| `a` | 1 |" in text and "| `a-mtp` | 1 |" in text and "| `b` | 1 |" in text
    assert "unplanned" not in text
    assert "| `r1` | 2 |" in text and "| `r2` | 1 |" in text


def test_unknown_origin_is_marked():
    assert "| `?` | 3 |" in summary_markdown(plan([["zzz"]]), CONFIGS)


def test_write_summary_targets(tmp_path, monkeypatch, capsys):
    target = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    write_summary("one\n")
    write_summary("two\n")
    assert target.read_text() == "one\ntwo\n"
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    write_summary("three\n")
    assert capsys.readouterr().err == "three\n"
