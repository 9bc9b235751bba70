"""The fake server enforces the token's permissions from one route table, as GitHub does."""

import copy

import pytest
import requests

from infx.adopt import app
from infx.github.fake import permissions, routes
from infx.github.fake.world import load_world

REPO = "acme/inferencex"


@pytest.fixture
def world(test_data):
    return load_world(test_data / "github" / "worlds" / "basic.yaml")


def _get(fake, method: str, path: str, token: str = "fake-token", **body):
    return requests.request(method, fake.url + path, json=body or None, timeout=10,
                            headers={"Authorization": f"token {token}"})


def test_every_route_the_api_serves_is_in_the_table_and_nothing_else() -> None:
    served = {(method, pattern) for method, pattern in routes.route_templates("api")}
    table = {permissions.compiled_key(m, p, routes.REPO) for m, p in permissions.TABLE}
    assert served - table == set(), "routes with no permission in infx/github/fake/permissions.py"
    assert table - served == set(), "table entries no route registers"


def test_the_app_manifest_asks_for_what_routes_need_in_the_same_names() -> None:
    needed: dict[str, set[str]] = {}
    for need in permissions.TABLE.values():
        for name, level in need:
            needed.setdefault(name, set()).add(level)
    for name, level in app.PERMISSIONS.items():
        assert name in needed, f"the manifest asks for {name}, which no route needs"
        assert level in needed[name], f"the manifest asks for {name}: {level}, no route needs it"
    assert permissions.ALWAYS.items() <= app.PERMISSIONS.items()


def test_a_world_without_token_permissions_grants_everything(fake_github, world) -> None:
    fake = fake_github(world)
    assert _get(fake, "POST", f"/repos/{REPO}/issues/12/comments", body="hi").status_code == 201


def test_a_call_the_token_may_not_make_is_githubs_403(fake_github, world) -> None:
    fake = fake_github(copy.deepcopy(world) | {"token_permissions": {"pull_requests": "read"}})
    assert _get(fake, "GET", f"/repos/{REPO}/pulls/12").status_code == 200
    assert _get(fake, "GET", f"/repos/{REPO}/issues/12/comments").status_code == 200  # either
    assert _get(fake, "GET", f"/repos/{REPO}").status_code == 200  # metadata: always held
    refused = _get(fake, "POST", f"/repos/{REPO}/issues/12/comments", body="hi")
    assert refused.status_code == 403
    assert refused.json()["message"] == "Resource not accessible by integration"
    assert refused.headers["X-Accepted-GitHub-Permissions"] == "issues=write; pull_requests=write"
    assert not fake.world["pulls"][0]["comments"][1:]  # nothing was written
    assert _get(fake, "GET", f"/repos/{REPO}/commits/{'c0ffee' + '0' * 34}/check-runs").status_code == 403


def test_write_includes_read_and_the_denial_is_logged(fake_github, world) -> None:
    fake = fake_github(copy.deepcopy(world) | {"token_permissions": {"statuses": "write"}})
    assert _get(fake, "GET", f"/repos/{REPO}/commits/{'c0ffee' + '0' * 34}/statuses").status_code == 200
    assert _get(fake, "GET", f"/repos/{REPO}/pulls/12").status_code == 403
    assert fake.matching("GET", "/pulls/12$")[-1]["status"] == 403


def test_an_app_token_holds_what_it_asked_for_within_the_installation(fake_github, world) -> None:
    installed = {"installation_id": 77, "permissions": {"pull_requests": "read", "issues": "write"}}
    fake = fake_github(copy.deepcopy(world) | {"app": installed})
    jwt = {"Authorization": "Bearer a.b.c"}
    minted = requests.post(f"{fake.url}/app/installations/77/access_tokens", headers=jwt, timeout=10,
                           json={"permissions": {"pull_requests": "read"}})
    assert minted.status_code == 201 and minted.json()["permissions"] == {"pull_requests": "read"}
    token = minted.json()["token"]
    assert _get(fake, "GET", f"/repos/{REPO}/pulls/12", token).status_code == 200
    assert _get(fake, "POST", f"/repos/{REPO}/issues/12/comments", token, body="x").status_code == 403
    everything = requests.post(f"{fake.url}/app/installations/77/access_tokens", headers=jwt, timeout=10)
    whole = everything.json()["token"]
    assert _get(fake, "POST", f"/repos/{REPO}/issues/12/comments", whole, body="x").status_code == 201
    assert _get(fake, "GET", f"/repos/{REPO}/actions/runs", whole).status_code == 403
    too_much = requests.post(f"{fake.url}/app/installations/77/access_tokens", headers=jwt, timeout=10,
                             json={"permissions": {"statuses": "write"}})
    assert too_much.status_code == 422


def test_the_client_names_the_missing_permission(fake_github, world) -> None:
    from infx.github.failures import GitHubError

    fake = fake_github(copy.deepcopy(world) | {"token_permissions": {"issues": "write"}})
    client = fake.client()
    with pytest.raises(GitHubError) as refused:
        client.get_pull(client.repo(REPO), 12)
    assert "pull-requests: read" in str(refused.value)
