"""infx.plan.identity: one identity per row, injective per bucket over real full sweeps."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from infx.config.master import load_master_configs
from infx.config.runners import load_runners
from infx.plan import generate
from infx.plan.identity import (
    MAX_JOB_NAME,
    digest,
    job_name,
    parse_job_name,
    readable_tokens,
    result_slug,
)
from infx.plan.shaping import bucket_name, is_multi_node
from infx.plan.sweep_plan import eval_bucket
from infx.workflow.shard import Bucket, name_rows

ROOT = Path(__file__).resolve().parents[3]
UPSTREAM = ROOT.parent / "shared" / "fixtures" / "upstream-inferencex" / "configs"
MODES = ("default", "none", "subset", "all")  # no flag, --no-evals, --evals-only, --all-evals
SAFE_SLUG = re.compile(r"[A-Za-z0-9.+_-]+")

SINGLE = {"image": "img:1", "model": "m", "model-prefix": "dsr1", "precision": "fp4",
          "framework": "sglang", "runner": "mi355x", "isl": 8192, "osl": 1024, "tp": 8, "pp": 1,
          "dcp-size": 1, "pcp-size": 1, "conc": 64, "max-model-len": 9472, "ep": 8,
          "dp-attn": True, "spec-decoding": "mtp", "exp-name": "dsr1_8k1k", "disagg": False,
          "run-eval": False}


def _bucket(row: dict) -> str:
    if row.get("eval-only"):
        return eval_bucket(row)
    return ("multi_node." if is_multi_node(row) else "single_node.") + bucket_name(row)


def _sweeps(config_files: list[Path], runners_file: Path):
    configs = load_master_configs([str(p) for p in config_files])
    runners = load_runners(str(runners_file))
    for mode in MODES:
        yield mode, generate.generate_full_sweep(configs, runners, evals=mode)


def _assert_injective(config_files: list[Path], runners_file: Path) -> tuple[int, int]:
    """(rows that run, exact repeats dropped), over every mode: the rows of each bucket go through
    the shard step (which drops a row planned twice, identical in every field) and, among the
    rows that run, no two share a job name or a result slug, in a bucket or in the whole run."""
    checked = dropped = 0
    for mode, rows in _sweeps(config_files, runners_file):
        by_bucket: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            by_bucket[_bucket(row)].append(row)
        seen: dict = {}
        duplicates: dict = {}
        slugs: set[str] = set()
        for key, bucket_rows in by_bucket.items():
            bucket = Bucket(key, (key,), key, 1)
            named = name_rows(bucket_rows, bucket, seen, duplicates)
            names = [r["job-name"] for r in named]
            assert len(set(names)) == len(names), f"{mode}: two rows of {key} share a job name"
            for row in named:
                name, slug = row["job-name"], result_slug(row)
                assert name == job_name(row) and len(name) <= MAX_JOB_NAME and SAFE_SLUG.fullmatch(slug)
                assert slug not in slugs, f"{mode}: slug {slug} repeats"
                slugs.add(slug)
                parsed = parse_job_name(f"single-node 8k1k / {name}")
                assert parsed is not None and parsed.digest == digest(row)
            checked += len(named)
            assert len(named) + sum(d.dropped for d in duplicates.values() if d.bucket == key) == len(bucket_rows)
        # what was dropped is identical, field for field, to a row that runs
        dropped += sum(d.dropped for d in duplicates.values())
    return checked, dropped


def test_injective_on_our_full_sweep():
    checked, dropped = _assert_injective([ROOT / "configs" / "amd-master.yaml"],
                                         ROOT / "configs" / "runners.yaml")
    assert checked > 700 and dropped == 0


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason="../shared/fixtures is absent")
def test_injective_on_the_reference_full_sweep():
    files = [UPSTREAM / "amd-master.yaml", UPSTREAM / "nvidia-master.yaml"]
    checked, dropped = _assert_injective(files, UPSTREAM / "runners.yaml")
    # the NVIDIA master repeats five qwen3.5 agentic rows (identical in every field) in three of
    # the four modes: the shard step runs each once, so identity is injective over what runs
    assert checked > 5000 and dropped == 15


def test_every_distinguishing_field_changes_the_name():
    base = job_name(SINGLE)
    variants = [{"tp": 4}, {"ep": 4}, {"pp": 2}, {"dcp-size": 2}, {"pcp-size": 2}, {"dp-attn": False},
                {"spec-decoding": "none"}, {"conc": 32}, {"isl": 1024}, {"image": "img:2"},
                {"model": "m2"}, {"runner": "mi355x-amds_01"}, {"eval-only": True},
                {"kv-offloading": "dram", "kv-offload-backend": {"name": "hicache"}},
                {"router": {"name": "r", "version": "1"}}]
    names = {job_name(SINGLE | change) for change in variants}
    assert base not in names and len(names) == len(variants)


def test_readable_layout_of_each_row_kind():
    assert job_name(SINGLE).startswith("dsr1 fp4 mi355x sglang 8k1k TP8/EP8/DPA mtp c64 #")
    multi = {"model-prefix": "dsv4", "precision": "fp4", "runner": "mi355x-disagg",
             "framework": "sglang-disagg", "isl": 8192, "osl": 1024, "conc": [8, 16],
             "prefill": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True, "pp": 1},
             "decode": {"num-worker": 2, "tp": 8, "ep": 1, "dp-attn": False},
             "eval-only": True, "eval-conc": 16}
    assert readable_tokens(multi)[4:] == ["8k1k", "P1xTP8/EP8/DPA", "D2xTP8", "c8x16", "eval@c16"]
    agentic = {"model-prefix": "qwen3.5", "precision": "fp4", "runner": "cluster:mi355x-amds",
               "framework": "sglang", "scenario-type": "agentic-coding", "tp": 2, "conc": 1,
               "kv-offloading": "dram", "kv-offload-backend": {"name": "hicache"}}
    assert readable_tokens(agentic)[4:] == ["agentic", "TP2", "kv-dram-hicache", "c1"]
    assert ":" not in result_slug(agentic)


def test_annotations_and_json_numbers_do_not_change_identity():
    annotated = SINGLE | {"job-name": "x", "priority": 1.5, "queue-token": "ab"}
    assert job_name(annotated) == job_name(SINGLE)
    assert job_name(SINGLE | {"conc": 64.0}) == job_name(SINGLE)


def test_hostile_values_stay_one_token_and_bounded():
    row = SINGLE | {"model-prefix": "a b\nc / d", "framework": "x" * 500, "conc": list(range(200))}
    name = job_name(row)
    assert len(name) <= MAX_JOB_NAME and "\n" not in name and " / " not in name
    parsed = parse_job_name("eval / " + name)
    assert parsed is not None and parsed.model_prefix == "a-b-c-/-d"
    assert parsed.matches(row) and not parsed.matches(SINGLE)


def test_names_not_made_by_job_name_do_not_parse():
    for name in ("single-node 8k1k / dsr1 fp4 mi355x sglang c4", "collect-results", "x #zz"):
        assert parse_job_name(name) is None
