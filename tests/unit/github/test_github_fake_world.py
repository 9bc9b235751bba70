"""World files: validation with located errors, defaults, tree inheritance, ref resolution."""

import copy

import pytest

from infx.errors import InfxError
from infx.github.fake.world import find_comment, load_world, next_comment_id, resolve_ref, tree_at

BASE = "c0ffee0000000000000000000000000000000000"
MID = "beef000000000000000000000000000000000000"
HEAD = "beef010000000000000000000000000000000000"


@pytest.fixture
def world_path(test_data):
    return test_data / "github" / "worlds" / "basic.yaml"


@pytest.fixture
def world(world_path):
    return load_world(world_path)


def test_loads_and_fills_defaults(world):
    assert world["repo"] == "acme/inferencex"
    pull = world["pulls"][0]
    assert pull["state"] == "open" and pull["draft"] is False
    assert pull["base"]["repo"] == "acme/inferencex"
    assert [a["id"] for a in world["workflow_runs"][0]["artifacts"]] == [1, 2]


def test_minimal_world_gets_every_default():
    world = load_world({"repo": "o/r", "commits": {}})
    assert world["token_login"] == "github-actions[bot]"
    assert world["default_branch"] == "main"
    assert world["pulls"] == [] and world["faults"] == []


def test_files_from_inherits_and_null_deletes(world):
    head = tree_at(world, HEAD)
    assert "docs/old-name.md" not in head and "scripts/remove-me.sh" not in head
    assert head["docs/new-name.md"].startswith("line one")
    assert "rocm/sgl:v2" in head["configs/amd-master.yaml"]
    assert "rocm/sgl:v1" in tree_at(world, BASE)["configs/amd-master.yaml"]
    assert tree_at(world, MID)["scripts/remove-me.sh"] == "echo bye\n"


def test_resolve_ref(world):
    assert resolve_ref(world, "main") == BASE
    assert resolve_ref(world, "refs/heads/main") == BASE
    assert resolve_ref(world, HEAD) == HEAD
    assert resolve_ref(world, "beef01") == HEAD
    assert resolve_ref(world, "beef") is None  # ambiguous prefix
    assert resolve_ref(world, "refs/pull/12/head") == HEAD
    assert resolve_ref(world, "nope") is None


def test_comment_lookup_and_next_id(world):
    pull, comment = find_comment(world, 101)
    assert pull["number"] == 12 and comment["user"] == "alice"
    assert find_comment(world, 999) is None
    assert next_comment_id(world) == 302


def test_schema_error_names_file_line_and_key(tmp_path, world_path):
    text = world_path.read_text().replace("state: APPROVED", "state: LGTM")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(InfxError) as info:
        load_world(bad)
    problem = info.value.problems[0]
    assert problem.file == str(bad)
    assert problem.key == "pulls.0.reviews.0.state"
    assert problem.line == next(i for i, line in enumerate(text.splitlines(), 1) if "LGTM" in line)


def test_short_sha_key_points_at_the_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("repo: o/r\ncommits:\n  abc: {}\n")
    with pytest.raises(InfxError) as info:
        load_world(bad)
    assert info.value.problems[0].line == 3


def test_dangling_references_are_all_reported(world):
    raw = copy.deepcopy(world)
    raw["branches"]["dev"] = "d" * 40
    raw["pulls"][0]["head"]["sha"] = "e" * 40
    raw["commits"][HEAD]["files_from"] = "f" * 40
    with pytest.raises(InfxError) as info:
        load_world(raw)
    keys = {p.key for p in info.value.problems}
    assert keys == {"branches.dev", "pulls.0.head.sha", f"commits.{HEAD}.files_from"}


def test_files_from_cycle(world):
    raw = copy.deepcopy(world)
    raw["commits"][BASE]["files_from"] = HEAD
    with pytest.raises(InfxError, match="cycle"):
        load_world(raw)


def test_duplicate_pull_numbers_and_bad_fault_regex(world):
    raw = copy.deepcopy(world)
    raw["pulls"].append(copy.deepcopy(raw["pulls"][0]))
    raw["faults"] = [{"path": "([", "status": 500}]
    with pytest.raises(InfxError) as info:
        load_world(raw)
    messages = " ".join(p.message for p in info.value.problems)
    assert "duplicate pull number 12" in messages and "regular expression" in messages


def test_fault_needs_status_or_truncate():
    with pytest.raises(InfxError):
        load_world({"repo": "o/r", "commits": {}, "faults": [{"path": "x"}]})
    load_world({"repo": "o/r", "commits": {}, "faults": [{"path": "x", "truncate": True}]})


def test_fault_after_is_a_count_of_requests_let_through():
    faults = [{"path": "x", "status": 502, "after": 2}]
    assert load_world({"repo": "o/r", "commits": {}, "faults": faults})["faults"] == faults
    for bad in (-1, "2", 1.5):
        with pytest.raises(InfxError, match="after"):
            load_world({"repo": "o/r", "commits": {},
                        "faults": [{"path": "x", "status": 502, "after": bad}]})


def test_unknown_fields_pass_through(world):
    raw = copy.deepcopy(world)
    raw["pulls"][0]["milestone"] = {"title": "v1"}
    raw["custom"] = 1
    loaded = load_world(raw)
    assert loaded["pulls"][0]["milestone"] == {"title": "v1"} and loaded["custom"] == 1


def test_not_a_mapping(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(InfxError, match="mapping"):
        load_world(path)


def test_missing_file(tmp_path):
    with pytest.raises(InfxError, match="cannot read world file"):
        load_world(tmp_path / "none.yaml")


@pytest.mark.parametrize("check_run,message", [
    ({"run_id": 1}, "unknown workflow run 1"),
    ({"run_id": 35873197630, "run_attempt": 3}, "attempt 3 of a run with run_attempt 2"),
    ({"run_attempt": 2}, "run_attempt without run_id"),
])
def test_job_links_are_checked(world, check_run, message):
    bad = copy.deepcopy(world)
    bad["check_runs"][HEAD].append({"id": 1, "name": "x", "status": "queued"} | check_run)
    with pytest.raises(InfxError, match=message):
        load_world(bad)


def test_a_job_lives_under_its_runs_head_commit(world):
    bad = copy.deepcopy(world)
    bad["check_runs"][BASE] = [{"id": 1, "name": "x", "status": "queued", "run_id": 35873197630}]
    with pytest.raises(InfxError, match="list the job under its run's head_sha"):
        load_world(bad)


@pytest.mark.parametrize("role,served", [("maintain", "write"), ("triage", "read")])
def test_a_role_written_as_permission_is_refused_with_the_fix(world_path, tmp_path, role, served):
    text = world_path.read_text().replace("alice: {permission: write, role_name: write}",
                                          f"alice: {{permission: {role}}}")
    path = tmp_path / "w.yaml"
    path.write_text(text)
    with pytest.raises(InfxError) as refused:
        load_world(path)
    problem = refused.value.problems[0]
    assert problem.key == "collaborators.alice.permission" and problem.line == 33
    assert f"role_name: {role}" in problem.fix and f"permission: {served}" in problem.fix


def test_role_and_permission_must_agree(world):
    bad = copy.deepcopy(world)
    bad["collaborators"]["dave"] = {"permission": "admin", "role_name": "maintain"}
    with pytest.raises(InfxError, match="role_name maintain is served with permission write"):
        load_world(bad)


@pytest.mark.parametrize("entry,expected", [
    ({"role_name": "maintain"}, ("write", "maintain")),
    ({"role_name": "triage"}, ("read", "triage")),
    ({"permission": "admin"}, ("admin", "admin")),
    ({"permission": "write", "role_name": "release-manager"}, ("write", "release-manager")),
])
def test_collaborator_access_is_derived_like_github(entry, expected):
    from infx.github.fake.world import collaborator_access

    assert collaborator_access(entry) == expected


# --- JSON worlds are read as JSON --------------------------------------------------------

def _json_world(world_path, body: str) -> dict:
    import yaml

    data = yaml.safe_load(world_path.read_text())
    data["pulls"][0]["body"] = body
    return data


@pytest.mark.parametrize("ensure_ascii", [True, False], ids=["surrogate-pair-escape", "utf-8"])
def test_json_world_with_a_character_outside_the_bmp(tmp_path, world_path, ensure_ascii):
    import json

    path = tmp_path / "w.json"
    path.write_text(json.dumps(_json_world(world_path, "Ship it \U0001f680"),
                               ensure_ascii=ensure_ascii), encoding="utf-8")
    assert load_world(path)["pulls"][0]["body"] == "Ship it \U0001f680"
    other = tmp_path / "w.world"  # not named .json, but JSON text: read as JSON too
    other.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_world(other)["pulls"][0]["body"] == "Ship it \U0001f680"


def test_json_world_errors_are_located(tmp_path, world_path):
    import json

    path = tmp_path / "w.json"
    path.write_text('{\n  "repo": "o/r",\n  "commits": {,}\n}\n')
    with pytest.raises(InfxError) as caught:
        load_world(path)
    assert caught.value.problems[0].line == 3 and "invalid JSON" in str(caught.value)
    text = json.dumps(_json_world(world_path, "half \U0001f680")).replace("\\ude80", "")
    path.write_text(text)
    with pytest.raises(InfxError, match="unpaired surrogate"):
        load_world(path)


def test_a_yaml_flow_mapping_world_is_still_yaml(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("{repo: o/r, commits: {}}\n")
    assert load_world(path)["repo"] == "o/r"


def test_a_status_without_its_creator_is_a_schema_error(world_path):
    # GitHub records who set every status (the statuses API's `creator`); the sign-off trusts
    # only statuses the bot created, so a world never leaves it to a default
    world = load_world(world_path)
    sha = next(iter(world["commits"]))
    world["statuses"] = {sha: [{"context": "ctx", "state": "success"}]}
    with pytest.raises(InfxError, match="creator"):
        load_world(world)
    world["statuses"][sha][0]["creator"] = "infx-signoff[bot]"
    assert load_world(world)["statuses"][sha][0]["creator"] == "infx-signoff[bot]"
