"""infx.plan.sweep_plan: the plan object reads and writes the planner's JSON unchanged and rejects every other shape with one located error."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from lib.project_trees import BASE, HEAD, project_tree  # noqa: F401

from infx.cli import main
from infx.errors import InfxError
from infx.plan.incremental import plan_from_trees
from infx.plan.planner import PlanFlags
from infx.plan.sweep_plan import EVAL_BUCKETS, METADATA, NODES, Place, Plan

ROW = {"model-prefix": "dsr1", "precision": "fp4", "runner": "mi355x", "framework": "sglang",
       "isl": 1024, "osl": 1024, "tp": 8, "conc": 4}


@pytest.fixture(scope="module")
def planned() -> Plan:
    """The real planner's plan of this repository's own PR trees."""
    return plan_from_trees(BASE, HEAD, PlanFlags(), base_ref="base", head_ref="head")


def reference_plans(upstream: Path) -> dict[str, str]:
    """The reference planner's four expected plans, each as one compact JSON line."""
    out = {}
    for n in range(1, 5):
        doc = json.loads((upstream / "expected" / f"plan-{n}.json").read_text(encoding="utf-8"))
        out[f"plan-{n}"] = json.dumps(doc["plan"], separators=(",", ":"), ensure_ascii=False)
    return out


def test_reading_and_writing_a_plan_keeps_its_text(planned, upstream_dir):
    texts = reference_plans(upstream_dir) | {"ours": planned.dump()}
    for name, text in texts.items():
        plan = Plan.parse(text, name)
        assert plan.dump() == text, name
        assert Plan.from_json(plan.to_json()) == plan
        assert plan.map_rows(lambda row, _place: row).dump() == text
        assert plan.filter_rows(lambda _row, _place: True).dump() == text


def test_the_planners_plan_has_every_bucket_and_its_rows_in_plan_order(planned):
    doc = planned.to_json()
    assert list(doc) == [*NODES, *EVAL_BUCKETS, METADATA]
    every = [row for node in NODES for rows in doc[node].values() for row in rows]
    every += [row for name in EVAL_BUCKETS for row in doc[name]]
    assert planned.rows() == every and len(every) > 5
    assert [path for path, _ in planned.buckets()] == (
        [(node, name) for node in NODES for name in doc[node]] + [(name,) for name in EVAL_BUCKETS])
    assert planned.entries() == doc[METADATA]["entries"] and planned.entries()


def test_places_name_each_row_where_it_sits(planned):
    seen: list[Place] = []
    planned.map_rows(lambda row, place: seen.append(place) or row)
    assert [planned.bucket(p.bucket)[p.index] for p in seen] == planned.rows()
    first = seen[0]
    assert first.path == (*first.bucket, "0")


def test_new_plans_leave_the_old_one_as_it_was(planned):
    before = planned.dump()
    marked = planned.map_rows(lambda row, place: {**row, "mark": place.index})
    assert [r["mark"] for r in marked.rows()] != [] and planned.dump() == before
    kept = planned.filter_rows(lambda _row, place: place.index == 0)
    assert len(kept.rows()) == len(planned.buckets()) - sum(1 for _, rows in planned.buckets() if not rows)
    assert list(kept.to_json()) == list(planned.to_json())  # empty buckets stay
    noted = planned.with_metadata("reused-rows", {"x": 1})
    assert noted.metadata["reused-rows"] == {"x": 1} and "reused-rows" not in planned.metadata
    bare = Plan.from_json({"evals": [ROW]})
    assert bare.with_metadata("reused-rows", {}) is bare and bare.metadata is None
    doc = planned.to_json()
    doc[NODES[0]].clear()
    assert planned.dump() == before  # to_json hands out a copy


def test_a_plan_written_by_another_tool_may_leave_buckets_out():
    plan = Plan.from_json({"single_node": {"1k1k": [ROW]}})
    assert plan.rows() == [ROW] and plan.bucket(("evals",)) == [] and plan.bucket(("multi_node", "8k1k")) == []
    assert plan.bucket(("nowhere",)) == []


BAD = [
    ([], "", "the plan is not a JSON object"),
    ({"single_node": []}, "single_node", "plan key single_node is not a JSON object of buckets"),
    ({"single_node": {"1k1k": {"x": 1}}}, "single_node.1k1k", "plan bucket single_node.1k1k is not a list of rows"),
    ({"evals": {"x": 1}}, "evals", "plan bucket evals is not a list of rows"),
    ({"evals": [ROW, 3]}, "evals", "row 1 of bucket evals is not a JSON object"),
    ({"multi_node": {"agentic": [None]}}, "multi_node.agentic", "row 0 of bucket multi_node.agentic is not"),
    ({"changelog_metadata": []}, "changelog_metadata", "plan key changelog_metadata is not a JSON object"),
    ({"changelog_metadata": {"entries": [1]}}, "changelog_metadata.entries", "entries is not a list of JSON"),
    ({"evals": [], "surprise": []}, "", "the plan has an unknown key 'surprise'"),
    ({"x" * 500: 1}, "", "unknown key 'xxxxx"),
]


@pytest.mark.parametrize(("value", "key", "message"), BAD, ids=[m for _, _, m in BAD])
def test_a_wrong_shape_is_one_located_error(value, key, message):
    with pytest.raises(InfxError) as info:
        Plan.from_json(value, "plan.json")
    [problem] = info.value.problems
    assert message in problem.message and problem.file == "plan.json" and (problem.key or "") == key
    assert problem.fix and len(problem.message) < 260  # a hostile key is cut short
    with pytest.raises(InfxError):
        Plan(value)  # the constructor checks as from_json does


@pytest.mark.parametrize(("text", "message", "line"), [
    ('{"evals": [}', "the plan is not valid JSON: Expecting value at line 1", 1),
    ('{"evals": [],\n "evals": []}', "the plan repeats the key 'evals' in one object", None),
    ('{"evals": [{"conc": NaN}]}', "NaN is not a JSON number", None),
    # a literal too large for a double is infinity by another spelling (dump() would write Infinity)
    ('{"evals": [{"conc": 1e999}]}', "1e999 is not a finite JSON number", None),
    ('{"evals": [{"conc": -1E400}]}', "-1E400 is not a finite JSON number", None),
    ("[" * 100_000 + "]" * 100_000, "the plan nests too deeply", None),
    ("", "the plan is not valid JSON", 1),
])
def test_bad_json_is_one_located_error(text, message, line):
    with pytest.raises(InfxError) as info:
        Plan.parse(text, "plan.json")
    [problem] = info.value.problems
    assert message in problem.message and problem.file == "plan.json" and problem.line == line


def test_assemble_refuses_a_bucket_the_plan_does_not_have():
    with pytest.raises(ValueError, match="no plan bucket"):
        Plan.assemble([(("triple_node", "1k1k"), ROW)], None)


@pytest.mark.parametrize("content", [
    '{"single_node": {"1k1k": "rows"}}', "[1, 2]", '{"evals": [1]}', "\udcff", "{",
])
@pytest.mark.parametrize("command", [
    ["workflow", "shard"], ["workflow", "annotate"],
    ["reuse", "incremental", "--base-ref", "HEAD", "--head-ref", "HEAD"],
])
def test_every_command_reading_a_plan_file_fails_with_one_error_line(tmp_path, monkeypatch, capsys,
                                                                     command, content):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q",
                    "--allow-empty", "-m", "empty"], check=True)
    path = repo / "plan.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(repo)
    capsys.readouterr()
    code = main([*command, "--plan", str(path)])
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1 and not out and "Traceback" not in err
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}") and "(fix: " in lines[0], lines
    assert path.read_bytes() == content.encode("utf-8", "surrogateescape")  # nothing written
