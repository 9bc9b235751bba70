"""Shared pytest fixtures: locations of bundled and shared reference data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# fixtures shared by test modules live in tests/lib
pytest_plugins = [
    "lib.loop_scenarios",
    "lib.report_charts",
    "lib.workflow_gating",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = Path(__file__).resolve().parent / "data"
SHARED = REPO_ROOT.parent / "shared"
UPSTREAM = SHARED / "fixtures" / "upstream-inferencex"


@pytest.fixture(scope="session", autouse=True)
def _shared_code_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One compiled-code cache for every process the local workflow runner starts in this
    session (tests/lib/code_cache), beside the xdist workers' temporary folders."""
    root = tmp_path_factory.getbasetemp()
    shared = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    os.environ["INFX_TEST_CODE_CACHE"] = str(shared / "code-cache")


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def test_data() -> Path:
    return TEST_DATA


@pytest.fixture
def shared_dir() -> Path:
    """../shared, or skip the test cleanly when it is absent (a bare clone)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture
def upstream_dir() -> Path:
    """The reference repository's real data files, or skip when absent."""
    if not UPSTREAM.is_dir():
        pytest.skip("../shared/fixtures/upstream-inferencex is not present")
    return UPSTREAM


# --- fake GitHub (owned by the GitHub layer) ---------------------------------------------


@pytest.fixture
def fake_github():
    """Factory: ``fake_github(world)`` starts a FakeGitHub on a free loopback port.

    ``world`` is a dict or a path to a world file. The handle has ``.url``,
    ``.requests`` (the request log; ``.count(method, path_regex)`` / ``.matching``),
    ``.world`` (live state), ``.github()`` (a raw PyGithub client), ``.client(**policy)``
    (an ``infx.github.client.GitHubClient`` whose retries never really sleep),
    ``.env()`` (GITHUB_API_URL/GITHUB_TOKEN for ``GitHubClient.from_env``),
    ``.add_fault(...)`` and ``.dump(path)``. Every server started here is stopped at
    teardown.
    """
    from infx.github.fake import FakeGitHub

    started: list[FakeGitHub] = []

    def start(world):
        fake = FakeGitHub(world).start()
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test under tests/e2e (the loop, workflow runs, faults, trust worlds) is marked `e2e`:
    `pytest -m "not e2e"` runs the unit tests alone; .ci/run runs both."""
    e2e = Path(__file__).resolve().parent / "e2e"
    for item in items:
        if e2e in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)
