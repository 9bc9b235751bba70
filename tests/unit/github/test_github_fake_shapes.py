"""Fake server responses carry at least the keys of real recorded GitHub responses."""

import copy
import json
import re

import pytest
import requests

from infx.github.fake.world import load_world

HEAD = "beef010000000000000000000000000000000000"
AUTH = {"Authorization": "token fake-token"}


@pytest.fixture
def rest(test_data):
    def load(name):
        return json.loads((test_data / "github" / "rest" / name).read_text())
    return load


@pytest.fixture
def fake(fake_github, test_data):
    world = load_world(test_data / "github" / "worlds" / "basic.yaml")
    world["pulls"][0]["comments"] = [{"id": 1000 + i, "user": "bob", "body": str(i)}
                                     for i in range(13)]
    return fake_github(world)


def missing_keys(recorded, served, depth=2):
    """Keys of the recording absent from our answer, descending into nested objects."""
    if not isinstance(recorded, dict) or not isinstance(served, dict):
        return []
    gaps = [k for k in recorded if k not in served]
    if depth > 0:
        for key, value in recorded.items():
            if isinstance(value, dict) and isinstance(served.get(key), dict):
                gaps += [f"{key}.{k}" for k in missing_keys(value, served[key], depth - 1)]
    return gaps


def first(value):
    return value[0] if isinstance(value, list) else value


def test_status_create_list_and_combined(fake, rest):
    recorded = rest("create-status.json")
    api = f"{fake.url}/repos/acme/inferencex"
    created = requests.post(f"{api}/statuses/{HEAD}", headers=AUTH, timeout=5,
                            json=recorded[0]["body"])
    assert created.status_code == recorded[0]["status"] == 201
    assert missing_keys(recorded[0]["response"], created.json()) == []
    listed = requests.get(f"{api}/commits/{HEAD}/statuses", timeout=5).json()
    assert missing_keys(first(recorded[2]["response"]), first(listed)) == []
    combined = requests.get(f"{api}/commits/{HEAD}/status", timeout=5).json()
    assert missing_keys(recorded[3]["response"], combined) == []
    assert missing_keys(first(recorded[3]["response"]["statuses"]), first(combined["statuses"])) == []


def test_contents_listing_and_raw_file(fake, rest):
    listing, raw = rest("get-content.json")
    api = f"{fake.url}/repos/acme/inferencex"
    served = requests.get(f"{api}/contents/", timeout=5).json()
    assert missing_keys(first(listing["response"]), first(served)) == []
    text = requests.get(f"{api}/contents/CODEOWNERS", timeout=5,
                        headers={"Accept": raw["reqheaders"]["accept"]})
    assert text.text.startswith("* @acme/core")


def test_labels(fake, rest):
    recorded = rest("labels.json")
    served = requests.get(f"{fake.url}/repos/acme/inferencex/labels", timeout=5).json()
    assert missing_keys(first(recorded[0]["response"]), first(served)) == []
    added = rest("add-labels-to-issue.json")[1]
    response = requests.post(f"{fake.url}/repos/acme/inferencex/issues/12/labels", headers=AUTH,
                             json=added["body"], timeout=5)
    assert response.status_code == added["status"]
    assert [label["name"] for label in response.json()][-3:] == added["body"]["labels"]
    assert missing_keys(first(added["response"]), first(response.json())) == []


def test_issue_shape(fake, rest):
    recorded = first(rest("paginate-issues.json")[0]["response"])
    served = requests.get(f"{fake.url}/repos/acme/inferencex/issues/12", timeout=5).json()
    assert missing_keys(recorded, served) == []


def test_validation_error_shape(fake, rest):
    recorded = rest("errors.json")[0]
    response = requests.post(f"{fake.url}/repos/acme/inferencex/issues/12/comments", headers=AUTH,
                             json={"body": "x" * 70_000}, timeout=5)
    assert response.status_code == recorded["status"] == 422
    assert missing_keys(recorded["response"], response.json()) == []
    assert set(recorded["response"]["errors"][0]) <= set(response.json()["errors"][0])


def rels(link):
    return re.findall(r'rel="(\w+)"', link)


def pages(link):
    return [int(p) for p in re.findall(r"[?&]page=(\d+)", link)]


def test_link_header_matches_the_recorded_pagination(fake, rest):
    recorded = rest("paginate-issues.json")  # 13 issues, 3 per page, pages 1..5
    url = f"{fake.url}/repos/acme/inferencex/issues/12/comments"
    for page, exchange in enumerate(recorded, start=1):
        served = requests.get(url, params={"per_page": 3, "page": page}, timeout=5)
        assert len(served.json()) == len(exchange["response"])
        link = served.headers.get("Link", "")
        assert rels(link) == rels(exchange["headers"]["link"])
        assert pages(link) == pages(exchange["headers"]["link"])
        assert link.startswith(f"<{fake.url}/")


def test_per_page_is_capped_at_100(fake_github, test_data):
    world = load_world(test_data / "github" / "worlds" / "basic.yaml")
    world["pulls"][0]["comments"] = [{"id": 1000 + i, "user": "bob", "body": str(i)}
                                     for i in range(150)]
    fake = fake_github(copy.deepcopy(world))
    served = requests.get(f"{fake.url}/repos/acme/inferencex/issues/12/comments",
                          params={"per_page": 500}, timeout=5)
    assert len(served.json()) == 100 and 'rel="next"' in served.headers["Link"]
    default = requests.get(f"{fake.url}/repos/acme/inferencex/issues/12/comments", timeout=5)
    assert len(default.json()) == 30


@pytest.mark.parametrize("payload,pick,endpoint", [
    ("pull_request/opened.payload.json", "pull_request", "/pulls/12"),
    ("pull_request/opened.payload.json", "repository", ""),
    ("issue_comment/created.payload.json", "comment", "/issues/comments/1000"),
    ("issue_comment/created.payload.json", "issue", "/issues/12"),
    ("pull_request_review/submitted.payload.json", "review", "/pulls/12/reviews"),
    ("pull_request_review_comment/created.payload.json", "comment", "/pulls/12/comments"),
    ("workflow_run/completed.with-pull-requests.payload.json", "workflow_run",
     "/actions/runs/35873197630"),
])
def test_objects_have_the_keys_of_real_webhook_objects(fake, test_data, payload, pick, endpoint):
    recorded = json.loads((test_data / "github" / "webhooks" / payload).read_text())[pick]
    served = first(requests.get(f"{fake.url}/repos/acme/inferencex{endpoint}", timeout=5).json())
    assert missing_keys(recorded, served) == []
