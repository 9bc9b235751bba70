"""Our expression evaluator against GitHub's own (npm @actions/expressions), on our real workflows.

Every `${{ }}` in our workflow files (every `if:`, `concurrency`, `name`, `run-name`, `strategy`,
`with:`, `env:`, `outputs`, `runs-on` value) is evaluated in a generated set of contexts built
from real webhook payloads (events, actions, labels, drafts, forks, comment bodies and authors,
job results and outputs, real plan rows) by both evaluators; they must agree on the value, its
kind, its string form and its truthiness, and on which cases are errors. An `if:` is compared as
the runner reads it (`success() && (…)` unless it calls a status function).
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from lib import tools
from lib.expressions import Context, evaluate_if, evaluate_text, interpolate, to_string, truthy

from infx.plan.sweep_plan import Plan
from infx.workflow.shard import shard_outputs
from infx.yamlio import load_file

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
WEBHOOKS = REPO / "tests" / "data" / "github" / "webhooks"
UPSTREAM = REPO / "tests" / "data" / "upstream"
CONTEXT_NAMES = ("github", "env", "vars", "job", "jobs", "steps", "runner", "secrets", "strategy",
                 "matrix", "needs", "inputs")
SEED = 20261201
# 200 contexts in the suite (26,600 cases); benchmarks/bench_expressions_differential.py runs
# the same module on 3,000 (INFX_EXPRESSION_CONTEXTS sets the number; the first 200 are the same)
SAMPLED_CONTEXTS = int(os.environ.get("INFX_EXPRESSION_CONTEXTS", "200"))


# --- the expressions of our workflow files ---------------------------------------------------------

def _template_pieces(text: str) -> list[str]:
    pieces, pos = [], 0
    while (start := text.find("${{", pos)) != -1:
        end = text.find("}}", start)
        assert end != -1, f"unterminated ${{{{ in {text!r}"
        pieces.append(text[start + 3:end].strip())
        pos = end + 2
    return pieces


def _walk(node, path: tuple):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, (*path, str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, (*path, str(index)))
    else:
        yield path, node


def _kind(path: tuple) -> str:
    for part in reversed(path):
        if part in ("if", "concurrency", "name", "run-name", "strategy", "with", "env", "outputs",
                    "runs-on"):
            return part
    return "other"


def workflow_expressions() -> tuple[list[dict], list[dict]]:
    """(if-expressions, templates) of every workflow file, each with where it comes from."""
    conditions, templates = [], []
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for where, value in _walk(load_file(path), (path.name,)):
            if where[-1] == "if" and len(where) >= 3:
                text = value if isinstance(value, str) else json.dumps(value)
                stripped = text.strip()
                if stripped.startswith("${{") and stripped.endswith("}}"):
                    stripped = stripped[3:-2].strip()
                conditions.append({"where": "/".join(where), "text": stripped})
            elif isinstance(value, str) and "${{" in value:
                templates.append({"where": "/".join(where), "text": value, "kind": _kind(where),
                                  "pieces": _template_pieces(value)})
    return conditions, templates


# --- generated contexts ------------------------------------------------------------------------

def _payload(event: str, action: str | None) -> dict:
    name = f"{action}.payload.json" if action else "payload.json"
    return json.loads((WEBHOOKS / event / name).read_text(encoding="utf-8"))


def _plan_rows() -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "infx", "matrix", "full-sweep",
         "--config-files", str(UPSTREAM / "amd-master.yaml"),
         "--runner-config", str(UPSTREAM / "runners.yaml")],
        capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(done.stdout)


def _plans(rows: list[dict]) -> list[dict]:
    """Real plans of several shapes, bucketed as the planner does, a few rows per bucket."""
    def pick(predicate, count=4):
        return [r for r in rows if predicate(r)][:count]

    single = lambda r: "prefill" not in r  # noqa: E731
    multi = lambda r: "prefill" in r  # noqa: E731
    agentic = lambda r: "scenario-type" in r  # noqa: E731
    fixed = {isl: (lambda r, isl=isl: r.get("isl") == isl and "scenario-type" not in r)
             for isl in (1024, 8192)}
    evals = [dict(r, **{"eval-only": True}) for r in pick(lambda r: r.get("run-eval") and single(r)
                                                           and "scenario-type" not in r, 3)]
    full = {
        "single_node": {"1k1k": pick(lambda r: single(r) and fixed[1024](r)),
                        "8k1k": pick(lambda r: single(r) and fixed[8192](r)),
                        "agentic": pick(lambda r: single(r) and agentic(r))},
        "multi_node": {"8k1k": pick(lambda r: multi(r) and fixed[8192](r), 2),
                       "agentic": pick(lambda r: multi(r) and agentic(r), 2)},
        "evals": evals,
    }
    return [{}, {"single_node": {"8k1k": full["single_node"]["8k1k"]}}, {"evals": evals}, full]


def _plan_outputs(plan: dict, reuse: str, fail_fast: str) -> dict:
    if not plan:
        return {"reuse-enabled": reuse}
    out = shard_outputs(Plan.from_json(plan))
    return {"matrix": json.dumps(out["matrix"]), "shards": json.dumps(out["shards"]),
            "jobs": str(out["jobs"]), "has-throughput": str(out["has-throughput"]).lower(),
            "has-evals": str(out["has-evals"]).lower(), "fail-fast": fail_fast,
            "reuse-enabled": reuse, "reuse-source-run-id": "12345" if reuse == "true" else ""}


LABELS = ("full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled", "all-evals", "evals-only",
          "documentation", "Full-Sweep-Enabled")
BODIES = ("", "+1", "LGTM", "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] a",
          "as a pr reviewer and codeowner, i have reviewed", "/reuse-sweep-run",
          "/reuse-sweep-run 123456", "/use 42", "please /usefully review", None,
          "/help", "/retest", "flaky\n/retest-all", "see a/b\r\n/reuse", "x /y")
USERS = ("alice", "github-actions[bot]", "dependabot[bot]", "bot-lover", "BOT[BOT]")
RESULTS = ("success", "failure", "skipped", "cancelled")


def _github(rng: random.Random) -> dict:
    event = rng.choice(["pull_request"] * 5 + ["push", "issue_comment", "issue_comment",
                        "pull_request_review", "pull_request_review_comment", "workflow_dispatch"])
    action = {
        "pull_request": ("synchronize", "labeled", "unlabeled", "ready_for_review", "opened", "closed"),
        "issue_comment": ("created", "edited"),
        "pull_request_review": ("submitted", "dismissed"),
        "pull_request_review_comment": ("created", "edited"),
    }.get(event)
    action = rng.choice(action) if action else None
    payload = copy.deepcopy(_payload(event, action))
    repo = payload.get("repository", {}).get("full_name", "acme/inferencex")
    ctx = {"event_name": event, "event": payload, "repository": repo, "run_id": str(rng.randint(1, 10**10)),
           "sha": f"{rng.getrandbits(160):040x}", "token": "ghs_token", "server_url": "https://github.com"}
    if event == "push":
        ctx["ref"] = rng.choice(["refs/heads/main", "refs/heads/feature", "refs/tags/v1"])
        payload["head_commit"] = rng.choice([payload.get("head_commit"), None,
                                             {"message": "Merge pull request #7"}])
    pr = payload.get("pull_request")
    if pr is not None:
        pr["labels"] = [{"name": n} for n in rng.sample(LABELS, rng.randint(0, 4))]
        pr["draft"] = rng.choice([True, False])
        pr["title"] = rng.choice(["Add dsv4 fp4", "", "it's {0} {{x}}"])
        if rng.random() < 0.3:
            pr["head"]["repo"] = {"full_name": "forker/inferencex"}
        else:
            pr["head"]["repo"] = {"full_name": repo}
        ctx["base_ref"] = pr["base"]["ref"]
        ctx["ref"] = f"refs/pull/{pr['number']}/merge"
    if action in ("labeled", "unlabeled"):
        payload["label"] = {"name": rng.choice(LABELS)}
    for key in ("comment", "review"):
        if key in payload:
            payload[key]["body"] = rng.choice(BODIES)
            payload[key]["user"]["login"] = rng.choice(USERS)
    if event == "issue_comment":
        if rng.random() < 0.3:
            payload["issue"].pop("pull_request", None)
        else:
            payload["issue"]["pull_request"] = {"url": "https://api.github.com/repos/x/y/pulls/1"}
        if action == "edited":
            payload["changes"] = {"body": {"from": rng.choice(BODIES)}}
    if event == "workflow_dispatch":
        payload["inputs"] = {"pr-number": str(rng.randint(1, 999)),
                             "comment_url": "https://github.com/x/y/pull/1#issuecomment-1"}
    return ctx


def _needs(rng: random.Random, plans: list[dict]) -> dict:
    primary = rng.choice(["", "full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled"])
    validate = {"result": rng.choice(RESULTS), "outputs": {
        "primary": primary, "fail-fast": rng.choice(["true", "false"]),
        "trim-conc": rng.choice(["true", "false"]), "all-evals": rng.choice(["true", "false"]),
        "evals-only": rng.choice(["true", "false"]),
        "skip-pr-sweep": rng.choice(["true", "false", ""])}}
    gate = {"result": rng.choice(RESULTS),
            "outputs": {"skip-pr-sweep": rng.choice(["true", "false", ""])}}
    plan = {"result": rng.choice(RESULTS), "outputs": _plan_outputs(
        rng.choice(plans), rng.choice(["true", "false", ""]), rng.choice(["true", "false"]))}
    needs = {"validate": validate, "reuse-gate": gate, "plan": plan}
    for job in ("sweep-single-node-1k1k-1", "sweep-evals-1", "verify"):
        needs[job] = {"result": rng.choice(RESULTS), "outputs": {}}
    return needs


def _row_contexts(rng: random.Random, plans: list[dict]) -> dict:
    shards = shard_outputs(Plan.from_json(plans[-1]))["matrix"]
    row = rng.choice([r for rows in shards.values() for r in rows])
    name = rng.choice(["", "bmk_dsr1_fp4_x"])
    return {"matrix": {"config": row},
            "inputs": {"config": json.dumps(row), "pr-number": rng.randint(1, 999),
                       "comment_url": "https://github.com/x/y/pull/1#issuecomment-1"},
            "steps": {"row": {"outputs": {"result-name": name, "artifact-name": name and "a_" + name},
                              "outcome": "success", "conclusion": "success"},
                      "labels": {"outputs": {"primary": "full-sweep-enabled"}},
                      "shard": {"outputs": {"matrix": "{}", "shards": "[]"}},
                      "reuse": {"outputs": {"skip-pr-sweep": "", "reuse-enabled": "false"}}}}


def generated_contexts() -> list[dict]:
    rng = random.Random(SEED)
    plans = _plans(_plan_rows())
    contexts = []
    for _ in range(SAMPLED_CONTEXTS):
        values = {name: {} for name in CONTEXT_NAMES}
        values["github"] = _github(rng)
        values["needs"] = _needs(rng, plans)
        values.update(_row_contexts(rng, plans))
        values["secrets"] = {"HF_TOKEN": rng.choice(["hf_secret", ""]), "GITHUB_TOKEN": "ghs"}
        values["runner"] = {"temp": "/tmp/runner", "os": "Linux"}
        contexts.append({"values": values, "status": rng.choice(["success", "failure", "cancelled"])})
    return contexts


# --- comparison ----------------------------------------------------------------------------------

def _canon(value):
    """A JSON-ish value with every number as a float (Python keeps ints apart, JavaScript doesn't)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        number = float(value)
        return number if math.isfinite(number) else None  # JSON has no NaN or Infinity
    if isinstance(value, dict):
        return {k: _canon(v) for k, v in value.items()}
    return [_canon(v) for v in value]


def _kind_of(value) -> str:
    if value is None:
        return "Null"
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, (int, float)):
        return "Number"
    if isinstance(value, str):
        return "String"
    return "Array" if isinstance(value, list) else "Object"


def _ours(text: str, context: Context) -> dict:
    try:
        value = evaluate_text(text, context)
    except Exception as exc:  # noqa: BLE001 - any failure is an "error" case to compare
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"kind": _kind_of(value), "json": _canon(value), "string": to_string(value),
            "truthy": truthy(value)}


def _theirs(cell: dict) -> dict:
    if "error" in cell:
        return cell
    return dict(cell, json=_canon(cell["json"]))


def _same(ours: dict, theirs: dict) -> bool:
    if "error" in ours or "error" in theirs:
        return ("error" in ours) == ("error" in theirs)
    return ours == theirs


@pytest.fixture(scope="module")
def cases():
    conditions, templates = workflow_expressions()
    contexts = generated_contexts()
    pieces = sorted({p for t in templates for p in t["pieces"]})
    requests = ([{"text": c["text"], "if": True} for c in conditions]
                + [{"text": p, "if": False} for p in pieces])
    results = tools.need(tools.github_expressions, requests, contexts)
    return conditions, templates, pieces, contexts, results


def test_the_collection_covers_every_kind_of_expression(cases):
    conditions, templates, pieces, contexts, _ = cases
    kinds = Counter(t["kind"] for t in templates)
    for kind in ("concurrency", "name", "run-name", "strategy", "with"):
        assert kinds[kind] > 0, kinds
    assert len(conditions) >= 20
    events = Counter(c["values"]["github"]["event_name"] for c in contexts)
    assert set(events) == {"pull_request", "push", "issue_comment", "pull_request_review",
                           "pull_request_review_comment", "workflow_dispatch"}


def test_if_conditions_agree_with_github(cases):
    conditions, _, _, contexts, results = cases
    disagreements = []
    for index, condition in enumerate(conditions):
        for context, cell in zip(contexts, results[index], strict=True):
            ctx = Context(context["values"], job_status=context["status"])
            try:
                ours = {"truthy": evaluate_if(condition["text"], ctx)}
            except Exception as exc:  # noqa: BLE001
                ours = {"error": str(exc)}
            theirs = cell if "error" in cell else {"truthy": cell["truthy"]}
            if not _same(ours, theirs):
                disagreements.append((condition["where"], context["status"], ours, theirs))
    assert not disagreements, f"{len(disagreements)} disagreements, first: {disagreements[:3]}"


def test_template_expressions_agree_with_github(cases):
    conditions, templates, pieces, contexts, results = cases
    offset = len(conditions)
    disagreements, agreed = [], 0
    for index, piece in enumerate(pieces):
        for context, cell in zip(contexts, results[offset + index], strict=True):
            ours = _ours(piece, Context(context["values"], job_status=context["status"]))
            if _same(ours, _theirs(cell)):
                agreed += 1
            else:
                disagreements.append((piece, ours, cell))
    assert not disagreements, f"{len(disagreements)} disagreements, first: {disagreements[:3]}"
    assert agreed == len(pieces) * len(contexts)


def test_whole_templates_interpolate_as_github_renders_them(cases):
    conditions, templates, pieces, contexts, results = cases
    by_piece = {p: results[len(conditions) + i] for i, p in enumerate(pieces)}
    checked = 0
    for template in templates:
        for number, context in enumerate(contexts):
            cells = [by_piece[p][number] for p in template["pieces"]]
            ctx = Context(context["values"], job_status=context["status"])
            if any("error" in c for c in cells):
                with pytest.raises(Exception):  # noqa: B017 - GitHub fails the run here too
                    interpolate(template["text"], ctx)
                continue
            text = template["text"]
            for piece, cell in zip(template["pieces"], cells, strict=True):
                start = text.find("${{")
                end = text.find("}}", start)
                assert text[start + 3:end].strip() == piece
                text = text[:start] + "\0" + cell["string"] + "\0" + text[end + 2:]
            assert interpolate(template["text"], ctx) == text.replace("\0", ""), template["where"]
            checked += 1
    assert checked > 0


def test_report_the_number_of_cases(cases, capsys):
    conditions, templates, pieces, contexts, _ = cases
    total = (len(conditions) + len(pieces)) * len(contexts)
    with capsys.disabled():
        print(f"\nexpression differential: {len(conditions)} if: + {len(pieces)} template pieces "
              f"({len(templates)} templates) x {len(contexts)} contexts = {total} cases")
    assert total == (len(conditions) + len(pieces)) * SAMPLED_CONTEXTS


# the evaluator's own edge cases, beyond what the workflows use, against the oracle
EDGE_EXPRESSIONS = [
    "1 == '1'", "'' == 0", "null == 0", "null == ''", "true == 1", "'abc' == 'ABC'", "'0x10' == 16",
    "' 12 ' == 12", "'1e2' == 100", "'x' < 'Y'", "1 < '2'", "null < 1", "'a' < 1", "[1] == [1]",
    "!''", "!'0'", "!0", "!-0", "!null", "0 || 'x'", "'' && 'x'", "1 && 2", "format('{0}', 1.5)",
    "format('{0}{{}}', 'a')", "format('{1}', 'a')", "format('{0', 'a')", "contains('Hello', 'ELL')",
    "contains(fromJSON('[1,2]'), '1')", "startsWith('Hello', 'he')", "endsWith('Hello', 'LO')",
    "join(fromJSON('[1,true,null,\"a\"]'), '-')", "join('abc')", "toJSON(fromJSON('[1,2.5]'))",
    "toJSON('a')", "toJSON(null)", "fromJSON('1.0')", "fromJSON('\"x\"')", "fromJSON('')",
    "fromJSON('{\"a\":{\"B\":1}}').a.b", "fromJSON('[[1],[2]]').*[0]", "fromJSON('[1,2]')[1]",
    "fromJSON('[1,2]')['1']", "fromJSON('[1,2]')[1.5]", "fromJSON('[1,2]')[-1]",
    "fromJSON('{\"a\":1}').*", "github.nope.deeper", "0x1F == 31", "-1.5e1 == -15", ".5 == 0.5",
    "1.0", "2147483648", "format('{0}', 1e21)", "format('{0}', 0.1)", "format('{0}', -0)",
    "format('{0} {1}', fromJSON('[1]'), fromJSON('{}'))", "format('{0}', true)",
    "case(true, 'a', 'b')", "'it''s'", "NULL == null", "TRUE", "fromJSON('1e400')",
    "toJSON(fromJSON('{\"a\":[1,{\"b\":null}]}'))", "contains('', '')", "1 != '1.0'",
    "'NaN' == 'NaN'", "fromJSON('[1]') != fromJSON('[1]')", "inputs.x == null",
    "GitHub.x == null", "format('{0:x}', 1)", "format('}')", "format('a}}b{{c')",
    "contains(fromJSON('{}'), 'a')", "join(fromJSON('{}'))", "toJSON(fromJSON('{\"A\":1,\"a\":2}'))",
    "fromJSON('[1,2]')[null]", "fromJSON('{\"1\":2}')[1]", "startsWith(fromJSON('[]'), '')",
    "1 < true", "'b' > 'A'", "true > false", "null <= null", "-0x10", "0b101 == 5", "'0b101' == 5",
    "' ' == 0", "'Infinity' == Infinity", "NaN == NaN", "fromJSON('0.1')",
    "fromJSON('123456789012345678901234')", "format('{0}', fromJSON('0.000001'))",
    "format('{0}', fromJSON('1e-7'))", "format('{0}', fromJSON('123.456789012345678'))",
    "fromJSON('[{\"a\":null},{\"b\":1}]').*.a", "unknown.x", "nosuch(1)", "contains('a')",
    "case(true, 'a')", "case(1, 'a', 'b')", "join(fromJSON('[1,2]'), fromJSON('[]'))",
    "fromJSON('NaN')", "fromJSON(' ')", "toJSON(fromJSON('\"\\u0001\\u2028é\"'))",
    "fromJSON('{\"a\":1}')['A']", "!fromJSON('[]')", "fromJSON('[]') || 'x'",
    "format('{0}', 100000000000000000000)", "format('{0}', 0.1 )", "1 == 1.0000000000000001",
    "'abc' < 'abd'", "'ı' == 'I'", "'ß' == 'SS'", "!NaN", "NaN || 'x'", "!Infinity",
]


def test_edge_cases_agree_with_github():
    contexts = [{"values": {name: {} for name in CONTEXT_NAMES}, "status": s}
                for s in ("success", "failure")]
    results = tools.need(tools.github_expressions,
                         [{"text": e, "if": False} for e in EDGE_EXPRESSIONS], contexts)
    disagreements = []
    for text, row in zip(EDGE_EXPRESSIONS, results, strict=True):
        for context, cell in zip(contexts, row, strict=True):
            ours = _ours(text, Context(context["values"], job_status=context["status"]))
            if not _same(ours, _theirs(cell)):
                disagreements.append((text, ours, cell))
    assert not disagreements, "\n".join(map(str, disagreements))


def test_status_functions_and_implicit_success_agree_with_github():
    texts = ["true", "false", "always()", "failure()", "cancelled()", "success() || failure()",
             "!cancelled() && true", "always() && false", "github.x == null", "!failure()"]
    contexts = [{"values": {name: {} for name in CONTEXT_NAMES}, "status": s}
                for s in ("success", "failure", "cancelled")]
    results = tools.need(tools.github_expressions, [{"text": t, "if": True} for t in texts],
                         contexts)
    for text, row in zip(texts, results, strict=True):
        for context, cell in zip(contexts, row, strict=True):
            ctx = Context(context["values"], job_status=context["status"])
            assert evaluate_if(text, ctx) == cell["truthy"], (text, context["status"], cell)
