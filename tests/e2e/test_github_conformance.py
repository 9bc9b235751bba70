"""The fake against GitHub's own OpenAPI description, on the bots' real traffic.

The demo, the sign-off bot on every shipped world, the reuse command and the workflow
posting steps run against the fake while every exchange is observed. Each JSON answer is
validated against the schema GitHub's description (npm @octokit/openapi, pinned; the subset
for our routes is tests/data/github/openapi/subset.json, MIT, see LICENSE there) gives for
that operation and status: required fields present, every field's type right. A second
test fails when the bots call a route the fake does not serve or the description lacks.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from datetime import datetime
from functools import cache, lru_cache
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from infx import yamlio
from infx.github.fake import FakeGitHub
from infx.github.fake.server import observe

DATA = Path(__file__).resolve().parents[1] / "data"
SUBSET = DATA / "github" / "openapi" / "subset.json"
SIGNOFF_PHRASE = "As a PR reviewer and CODEOWNER"


# --- the description -----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def description() -> dict:
    return json.loads(SUBSET.read_text())


def json_schema(node):
    """OpenAPI 3.0 schema -> JSON Schema: `nullable: true` becomes an allowed null."""
    if isinstance(node, list):
        return [json_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@lru_cache(maxsize=1)
def operations() -> list[tuple[re.Pattern, str, str]]:
    """(path regex, method, key) for every described operation, most specific first."""
    found = []
    for key in description()["operations"]:
        method, template = key.split(" ", 1)
        pattern = re.sub(r"\\\{(\w+)\\\}", lambda m: "(.+)" if m.group(1) == "path" else "([^/]+)",
                         re.escape(template))
        literal = len(re.sub(r"\{\w+\}", "", template))
        found.append((re.compile(pattern + "$"), method, key, literal))
    found.sort(key=lambda item: -item[3])
    return [(pattern, method, key) for pattern, method, key, _ in found]


def operation_for(method: str, path: str) -> str | None:
    return next((key for pattern, verb, key in operations()
                 if verb == method and pattern.match(path)), None)


@cache
def validator(key: str, status: str) -> Draft7Validator | None:
    schema = description()["operations"][key]["responses"].get(status)
    return None if schema is None else Draft7Validator(json_schema(schema))


# --- the bots' traffic ----------------------------------------------------------------------------


def run_signoffs(world_path: Path) -> None:
    """The sign-off bot on the first sign-off comment of every pull request of a world."""
    from infx.signoff import pipeline as publish
    from infx.signoff.trigger.gating import SignoffRef, Trigger

    world = yamlio.load_file(world_path)
    now = datetime.fromisoformat(world.get("now", "2026-01-01T00:00:00Z").replace("Z", "+00:00"))
    for pull in world.get("pulls", []):
        comment = next((c for c in pull.get("comments", []) if SIGNOFF_PHRASE in c["body"]), None)
        if comment is None:
            continue
        with FakeGitHub(copy.deepcopy(world)) as fake:
            trigger = Trigger(True, "conformance", pull["number"],
                              SignoffRef("issue_comment", comment["id"]), actor=comment["user"],
                              dispatched=True)
            publish.verify(fake.client(), world["repo"], trigger, publish.Options(now=now))


def run_reverification() -> None:
    """A verdict with located findings verified twice, the evidence changed in between: the
    check run is created, then updated in place (POST and PATCH /check-runs)."""
    from infx.signoff import pipeline as publish
    from infx.signoff.trigger.gating import SignoffRef, Trigger

    world = yamlio.load_file(DATA / "worlds" / "trust_injection.yaml")
    with FakeGitHub(world) as fake:
        trigger = Trigger(True, "conformance", 3412, SignoffRef("issue_comment", 5003))
        publish.verify(fake.client(), world["repo"], trigger, publish.Options())
        fake.world["pulls"][0]["comments"].append(
            {"id": 5090, "user": "someone", "author_association": "NONE", "body": "a question",
             "created_at": world["now"], "updated_at": world["now"], "reactions": []})
        assert publish.verify(fake.client(), world["repo"], trigger, publish.Options()).check_run == "updated"


def run_reuse_and_posting() -> None:
    from lib.reuse_world import REPO, add_comment, base_world

    from infx.reuse.ack import CommentEvent, acknowledge
    from infx.reuse.gateway import GitHubGateway
    from infx.workflow.posting import post_results_link, post_welcome

    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/use 101", "2026-09-29T19:00:00Z")
    with FakeGitHub(world) as fake:
        comment = next(c for p in fake.world["pulls"] for c in p["comments"] if c["id"] == cid)
        event = CommentEvent.of("created", 12, True, cid, comment["body"], comment["updated_at"])
        acknowledge(GitHubGateway(fake.client(), REPO), event)
        post_welcome(fake.client(), REPO, 12)
        post_results_link(fake.client(), REPO, 12, 101)


def run_demo() -> None:
    from click.testing import CliRunner

    from infx.cli.demo import demo

    result = CliRunner().invoke(demo, [])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def traffic() -> list[dict]:
    with observe() as seen:
        run_demo()
        for world_path in sorted((DATA / "worlds").glob("*.yaml")):
            run_signoffs(world_path)
        run_reverification()
        run_reuse_and_posting()
    assert seen, "no traffic observed"
    return seen


# --- the tests ------------------------------------------------------------------------------------


def test_every_response_validates_against_githubs_description(traffic) -> None:
    """Each distinct answer body of an operation and status is validated once: about a quarter
    of the bodies repeat one already seen byte for byte (the same listing read again), and a
    body's errors depend on nothing else."""
    validated: dict[str, int] = {}
    problems = []
    seen: set[tuple[str, str, str]] = set()
    for exchange in traffic:
        if exchange["origin"] != "api" or exchange["faulted"]:
            continue
        key = operation_for(exchange["method"], exchange["path"])
        if key is None or "json" not in exchange["headers"].get("Content-Type", ""):
            continue  # the route test below covers undescribed routes
        check = validator(key, str(exchange["status"]))
        if check is None or not exchange["body"]:
            continue
        validated[key] = validated.get(key, 0) + 1
        raw = exchange["body"]
        digest = hashlib.sha256(raw if isinstance(raw, bytes) else raw.encode()).hexdigest()
        if (key, str(exchange["status"]), digest) in seen:
            continue  # this very body was validated for this operation and status
        seen.add((key, str(exchange["status"]), digest))
        body = json.loads(exchange["body"])
        errors = sorted(check.iter_errors(body), key=lambda e: list(e.absolute_path))
        for error in errors[:3]:
            where = "/".join(str(p) for p in error.absolute_path)
            problems.append(f"{key} {exchange['status']} at {where or '<root>'}: {error.message[:160]}")
    assert not problems, "\n".join(sorted(set(problems))[:40])
    print(f"\nconformance: {sum(validated.values())} responses of {len(validated)} operations "
          f"({len(seen)} distinct) validated against {description()['source']}")
    assert len(validated) >= 20


def test_the_bots_check_run_writes_validate_against_githubs_request_schema(traffic) -> None:
    """POST /check-runs and PATCH /check-runs/{id}: the bot's request bodies are what GitHub's
    description accepts (the subset keeps those operations' request schemas)."""
    checked, problems = 0, []
    for exchange in traffic:
        key = operation_for(exchange["method"], exchange["path"])
        request = description()["operations"].get(key, {}).get("request") if key else None
        if request is None:
            continue
        body = exchange["request_body"]
        for error in Draft7Validator(json_schema(request)).iter_errors(body):
            where = "/".join(str(p) for p in error.absolute_path)
            problems.append(f"{key} request at {where or '<root>'}: {error.message[:160]}")
        checked += 1
    assert not problems, "\n".join(sorted(set(problems))[:20])
    writes = {operation_for(e["method"], e["path"]) for e in traffic if e["method"] in ("POST", "PATCH")}
    assert {"POST /repos/{owner}/{repo}/check-runs",
            "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}"} <= writes and checked > 0


def test_the_bots_call_only_routes_the_fake_serves_and_github_describes(traffic) -> None:
    unserved = sorted({f"{e['method']} {e['path']}" for e in traffic if e["route"] is None})
    assert not unserved, f"routes the fake does not serve: {unserved}"
    undescribed = sorted({f"{e['method']} {e['path']}" for e in traffic
                          if e["origin"] == "api" and operation_for(e["method"], e["path"]) is None})
    assert not undescribed, f"routes GitHub's description lacks: {undescribed}"
    storage = {e["route"] for e in traffic if e["origin"] == "storage"}
    assert storage >= {"tarball", "artifact_zip"}  # downloads really left the API host


def test_the_subset_covers_every_route_of_the_fake() -> None:
    """Regenerating the subset (make_subset.py) is needed when a route is added."""
    from infx.github.fake import routes

    described = {key.split(" ", 1)[0] + " " + key.split(" ", 1)[1] for key in description()["operations"]}
    assert described
    missing = []
    for method, pattern in routes.route_templates("api"):
        if not any(verb == method and re.fullmatch(pattern, _sample(key.split(" ", 1)[1]))
                   for key in described for verb in [key.split(" ", 1)[0]]):
            missing.append(f"{method} {pattern}")
    # the older status listing spelling PyGithub uses is not in GitHub's description
    assert missing == ["GET /repos/(?P<owner>[^/]+)/(?P<name>[^/]+)/statuses/(?P<ref>[^/]+)$"]


def _sample(template: str) -> str:
    from infx.github.fake.routes import sample_value

    return re.sub(r"\{(\w+)\}", lambda m: sample_value(m.group(1)), template)
