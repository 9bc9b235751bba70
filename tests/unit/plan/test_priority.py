"""infx.plan.priority: the reference's queue priority, checked against an independent reading
of the policy file on the reference's real full sweeps and planner cases."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pytest
import yaml
from lib.project_trees import BASE, HEAD, project_tree  # noqa: F401

from infx.config.ci_priority import load_priority_policy
from infx.errors import InfxError
from infx.plan import priority
from infx.plan.fingerprint import annotate as fingerprint_rows
from infx.plan.fingerprint import content_of, fingerprint
from infx.plan.identity import canonical_json, digest, identity_fields, job_name, result_slug
from infx.plan.incremental import plan_from_trees
from infx.plan.planner import PlanFlags
from infx.plan.priority import PriorityContext, annotate, score
from infx.plan.sweep_plan import Plan

ROOT = Path(__file__).resolve().parents[3]
OURS = ROOT / "configs" / "ci-priority.yaml"
LABEL_SETS = ([], ["skip_queue"], ["ci-checklist-complete"], ["ci-patchwork"], ["engine-patch", "documentation"],
              ["ci-patchwork", "ci-patchwork-waived"], ["engine-patch", "ci-patchwork-waived", "ci-checklist-complete"])
EVENTS = ("pull_request", "push", "")


# --- an independent reading of the documented formula ------------------------------------------

def thousandths(value: object) -> int:
    """A policy number in exact thousandths of its decimal text, rounded half away from zero
    (every number of the policy has at most 3 decimals except where a test says otherwise)."""
    text = str(value)
    sign = -1 if text.startswith("-") else 1
    whole, _, frac = text.lstrip("-").partition(".")
    frac = (frac + "0000")[:4]
    tenths_of_milli = int(whole) * 10_000 + int(frac)
    return sign * ((tenths_of_milli + 5) // 10)


def expected_priority(row: dict, policy: dict, event: str, labels: set[str]) -> str:
    """Base score plus each adjustment the row and run select, to 3 decimals (half-up)."""
    patch = policy["labels"]["patchwork"]
    if labels & set(patch["names"]) and not labels & set(patch.get("waived-by", [])):
        total = thousandths(patch["score"])
    else:
        adj = policy["adjustments"]
        parts = [policy["base-score"], adj.get("event", {}).get(event, 0)]
        parts.append(adj["multi-node"] if "prefill" in row and row["prefill"] is not None else 0)
        parts.append(adj["agentic"] if row.get("scenario-type") == "agentic-coding" else 0)
        parts.append(adj["eval-only"] if row.get("eval-only") is True else 0)
        parts.append(adj["precision"].get(row.get("precision"), 0))
        parts.append(adj["spec-decoding"].get(row.get("spec-decoding"), 0))
        framework = row.get("framework", "")
        parts.append(next((v for k, v in adj["framework-prefix"].items()
                           if framework == k or framework.startswith(k + "-")), 0))
        parts.append(adj["model-prefix"].get(row.get("model-prefix"), 0))
        checklist = policy["labels"]["checklist-complete"]
        parts.append(checklist["adjustment"] if labels & set(checklist["names"]) else 0)
        total = sum(thousandths(p) for p in parts)
    return f"{total // 1000}.{total % 1000:03d}" if total >= 0 else f"-{-total // 1000}.{-total % 1000:03d}"


def expected_token(row: dict, namespace: str, path: str) -> str:
    text = json.dumps(row, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{namespace}:{path}:{text}".encode()).hexdigest()[:32]


def jobs_with_paths(value, path=()):
    """(path, job) for every dict with a runner and a framework, at any depth (a scalar holds
    none, so the walk does not step into one)."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, (list, dict)):
                yield from jobs_with_paths(item, (*path, str(i)))
    elif isinstance(value, dict):
        if "runner" in value and "framework" in value:
            yield "/".join(path), value
        for key, item in value.items():
            if isinstance(item, (list, dict)):
                yield from jobs_with_paths(item, (*path, key))


@pytest.fixture
def reference_cases(upstream_dir) -> dict[str, object]:
    upstream = upstream_dir
    cases = {f"plan-{n}": json.loads((upstream / "expected" / f"plan-{n}.json").read_text())["plan"]
             for n in range(1, 5)}
    for name in ("full-sweep-amd", "full-sweep-amd-no-evals"):
        cases[name] = json.loads((upstream / "expected" / f"{name}.json").read_text())
    return cases


@pytest.mark.parametrize("policy_file", ["reference", "ours"])
def test_every_row_of_the_reference_cases_gets_the_documented_priority_and_token(
        upstream_dir, reference_cases, policy_file):
    path = upstream_dir / "configs" / "ci-priority.yaml" if policy_file == "reference" else OURS
    text = path.read_text()
    raw = yaml.safe_load(text)
    policy = load_priority_policy(text, str(path))
    checked = 0
    # each case's rows and their expected tokens (which depend on neither event nor labels), once
    wanted = {name: dict(jobs_with_paths(case)) for name, case in reference_cases.items()}
    tokens = {(name, where): expected_token(row, "987:2", where)
              for name, rows in wanted.items() for where, row in rows.items()}
    for (name, case), event, labels in itertools.product(reference_cases.items(), EVENTS, LABEL_SETS):
        skip = 1321 if "skip_queue" in labels else None
        got = annotate(case, policy, PriorityContext(event, frozenset(labels), "987:2", skip))
        got_jobs = dict(jobs_with_paths(got))
        want_jobs = wanted[name]
        assert got_jobs.keys() == want_jobs.keys()
        for where, row in want_jobs.items():
            out = got_jobs[where]
            assert out["priority"] == expected_priority(row, raw, event, set(labels)), (name, where, event, labels)
            assert out["queue-token"] == tokens[name, where]
            assert out.get("skip-queue-pr") == skip
            assert {k: v for k, v in out.items() if k not in ("priority", "queue-token", "skip-queue-pr")} == row
            checked += 1
    # 465 + 393 full-sweep rows and the four planner cases, under every event and label set
    assert checked > 20 * 800


def test_our_policy_file_is_the_reference_policy(upstream_dir):
    reference = load_priority_policy((upstream_dir / "configs" / "ci-priority.yaml").read_text())
    assert load_priority_policy(OURS.read_text(), str(OURS)) == reference


BASELINE = {"runner": "h100", "framework": "trt", "precision": "fp8", "model-prefix": "other",
            "spec-decoding": "none"}


@pytest.mark.parametrize(("row", "event", "labels", "want"), [
    (BASELINE, "pull_request", set(), "1.000"),
    (BASELINE, "push", set(), "3.000"),
    (BASELINE | {"prefill": {"tp": 8}, "decode": {"tp": 8}, "scenario-type": "agentic-coding",
                 "precision": "fp4", "spec-decoding": "mtp", "framework": "sglang", "model-prefix": "dsv4"},
     "pull_request", set(), "6.000"),
    (BASELINE | {"framework": "sglang", "precision": "fp4"}, "pull_request", {"skip_queue"}, "2.250"),
    (BASELINE | {"framework": "sglang-disagg"}, "", set(), "1.500"),  # prefix then a dash
    (BASELINE | {"framework": "sglangx"}, "", set(), "1.000"),  # not a prefix match
    (BASELINE | {"framework": "dynamo-vllm"}, "", set(), "1.500"),
    (BASELINE | {"model-prefix": "glm5.2"}, "", set(), "1.000"),  # model prefixes match exactly
    (BASELINE | {"model-prefix": "kimik3"}, "", {"ci-checklist-complete"}, "2.750"),
    (BASELINE | {"eval-only": True, "prefill": None}, "", set(), "1.000"),  # prefill null: single-node
    (BASELINE | {"precision": "fp4"}, "push", {"ci-patchwork"}, "0.000"),
    (BASELINE | {"precision": "fp4"}, "push", {"engine-patch", "ci-patchwork-waived"}, "3.750"),
])
def test_named_scores(row, event, labels, want):
    policy = load_priority_policy(OURS.read_text())
    assert priority.format_score(score(row, policy, event, labels)) == want


def _policy_with(extra: str) -> str:
    return OURS.read_text().replace("  agentic: 1.0", "  agentic: 1.0\n" + extra, 1)


def test_scores_round_half_up_at_the_third_decimal():
    text = OURS.read_text().replace("base-score: 1.0", "base-score: 1.0005").replace(
        "    fp4: 0.75", "    fp4: 0.0015")
    policy = load_priority_policy(text)
    assert priority.format_score(score(BASELINE, policy)) == "1.001"  # half-even would give 1.000
    assert priority.format_score(score(BASELINE | {"precision": "fp4"}, policy)) == "1.002"


def test_annotating_twice_is_annotating_once_and_skip_queue_is_withdrawn():
    policy = load_priority_policy(OURS.read_text())
    plan = {"single_node": {"1k1k": [BASELINE | {"conc": 4}]}, "changelog_metadata": {"entries": []}}
    once = annotate(plan, policy, PriorityContext("pull_request", frozenset({"skip_queue"}), "1:1", 7))
    again = annotate(once, policy, PriorityContext("pull_request", frozenset({"skip_queue"}), "1:1", 7))
    assert once == again and once["single_node"]["1k1k"][0]["skip-queue-pr"] == 7
    later = annotate(once, policy, PriorityContext("pull_request", frozenset(), "1:1", None))
    assert "skip-queue-pr" not in later["single_node"]["1k1k"][0]
    assert once["changelog_metadata"] == plan["changelog_metadata"]
    other_attempt = annotate(plan, policy, PriorityContext("pull_request", frozenset(), "1:2", None))
    assert other_attempt["single_node"]["1k1k"][0]["queue-token"] != once["single_node"]["1k1k"][0]["queue-token"]


@pytest.mark.parametrize(("edit", "line", "key"), [
    (("version: 1", "version: 2"), 5, "version"),
    (("  agentic: 1.0", "  agentic: lots"), 13, "adjustments.agentic"),
    (("    fp4: 0.75", "    fp4: [0.75]"), 16, "adjustments.precision.fp4"),
    (("  agentic: 1.0", "  agentic: 1.0\n  runner: 2.0"), 14, "adjustments.runner"),
    (("    name: skip_queue", "    name: ''"), None, "labels.skip-queue.name"),
    (("    score: 0.0", "    score: true"), None, "labels.patchwork.score"),
])
def test_a_bad_policy_is_a_located_error(edit, line, key):
    text = OURS.read_text()
    assert edit[0] in text
    with pytest.raises(InfxError) as err:
        load_priority_policy(text.replace(edit[0], edit[1], 1))
    problem = err.value.problems[0]
    assert problem.file == "configs/ci-priority.yaml" and problem.key == key
    if line is not None:
        assert problem.line == line
    else:
        assert problem.line is not None


def test_a_missing_policy_is_an_error():
    with pytest.raises(InfxError, match="could not be read"):
        load_priority_policy(None)


# --- annotations never change identity or fingerprints ----------------------------------------

def test_annotations_never_change_identity_job_names_or_fingerprints(reference_cases):
    policy = load_priority_policy(OURS.read_text())
    plan = plan_from_trees(BASE, HEAD, PlanFlags(), base_ref="base", head_ref="head")
    content = content_of(HEAD, BASE)
    cases = dict(reference_cases) | {"project": plan.to_json(),
                                     "project-fingerprinted": fingerprint_rows(plan, content).to_json()}
    for name, case in cases.items():
        rows = Plan.from_json(case).rows() if isinstance(case, dict) else case
        for event, labels in (("pull_request", {"skip_queue", "ci-checklist-complete"}), ("push", set())):
            got = annotate(case, policy, PriorityContext(event, frozenset(labels), "5:1", 3))
            got_rows = Plan.from_json(got).rows() if isinstance(got, dict) else got
            assert len(got_rows) == len(rows) > 0, name
            for before, after in zip(rows, got_rows, strict=True):
                assert after["priority"] and after["queue-token"]
                assert identity_fields(after) == identity_fields(before)
                assert canonical_json(after) == canonical_json(before)
                assert digest(after) == digest(before)
                assert job_name(after) == job_name(before)
                assert result_slug(after) == result_slug(before)
                assert fingerprint(after, content) == fingerprint(before, content)
