"""Shared pytest fixtures: locations of bundled and shared reference data."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest
from lib.tools import cache_root


def _bytecode_outside_the_tree() -> None:
    """Under PYTHONDONTWRITEBYTECODE (or -B) each xdist worker rewrote and compiled every test
    module and the package again, and each `infx` subprocess compiled the package again (about
    two thirds of a worker's collection CPU): the session writes that bytecode under the user's
    cache instead (sys.pycache_prefix, PYTHONPYCACHEPREFIX for subprocesses), so the checkout
    still gets no .pyc files and a later session or process reads what an earlier one compiled."""
    if not sys.dont_write_bytecode:
        return
    prefix = sys.pycache_prefix or str(cache_root() / "pycache")
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_bytecode_outside_the_tree()

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


# A test session writes and deletes a few hundred thousand small files (each loop test checks
# out the project for every job it runs: about 180 MB, 25,000 files). On a disk file system that
# is much of the suite's CPU (measured on the CI machine's kind of disk, ext4 mounted with
# `discard`: 32% of a loop test's CPU, system time 24 -> 10 s), so when no TMPDIR was chosen and
# a memory file system has room, the session's temporary folders and its processes' temporary
# files go there. INFX_TEST_TMPFS=0 keeps the default.
MEMORY_FS = Path("/dev/shm")
MEMORY_FS_ROOM = 2 * 1024 ** 3  # bytes free that a session may count on (it needs about 0.5 GB)


def _memory_tmpdir() -> Path | None:
    """A folder for this session's temporary files on the memory file system, or None."""
    if os.environ.get("TMPDIR") or os.environ.get("INFX_TEST_TMPFS", "1") == "0":
        return None
    try:
        stats = os.statvfs(MEMORY_FS)
    except OSError:
        return None
    if stats.f_bavail * stats.f_frsize < MEMORY_FS_ROOM or not os.access(MEMORY_FS, os.W_OK | os.X_OK):
        return None
    folder = MEMORY_FS / f"infx-tests-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.is_symlink() or folder.stat().st_uid != os.getuid():
        return None  # somebody else's folder: not ours to write into
    return folder


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """With `-n` and no `--dist` of the caller's, an idle worker takes tests from the other's
    queue (`worksteal`) instead of xdist's default fixed chunks, where a worker that drew the
    slow tests ran them alone at the end (unit tests on 2 cores: 61-65 s against 55 s). Runs
    before xdist's own hook, which would turn the unset mode into `load`; an explicit `--dist`
    is kept, and without xdist (`-p no:xdist`) nothing changes."""
    option = config.option
    if (getattr(option, "numprocesses", None) and getattr(option, "dist", None) == "no"
            and not getattr(option, "distload", False)):
        option.dist = "worksteal"


def pytest_configure(config: pytest.Config) -> None:
    """Temporary files on a memory file system when one has room (see MEMORY_FS). The
    controller sets TMPDIR before it starts xdist workers, which inherit it."""
    folder = _memory_tmpdir()
    if folder is not None:
        os.environ["TMPDIR"] = str(folder)
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again


@pytest.fixture(scope="session", autouse=True)
def _shared_code_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One compiled-code cache for every process the local workflow runner starts in this
    session (tests/lib/code_cache), and one cache of identical sweep runs
    (sweep_loop.run_with_github), beside the xdist workers' temporary folders."""
    root = tmp_path_factory.getbasetemp()
    shared = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    os.environ["INFX_TEST_CODE_CACHE"] = str(shared / "code-cache")
    # runs of the sweep several scenarios start with, run once (tests/lib/sweep_loop.py)
    os.environ["INFX_TEST_RUN_CACHE"] = str(shared / "run-cache")


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


E2E = Path(__file__).resolve().parent / "e2e"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`-m "not e2e"` (the unit-test command) does not import tests/e2e at all: every item there
    is marked `e2e` (below), so that expression deselects them all after collection anyway."""
    if collection_path == E2E and " ".join(str(config.option.markexpr).split()) == "not e2e":
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test under tests/e2e (the loop, workflow runs, faults, trust worlds) is marked `e2e`:
    `pytest -m "not e2e"` runs the unit tests alone; .ci/run runs both."""
    under_e2e: dict[Path, bool] = {}  # per test file: a file holds many items
    for item in items:
        if item.path not in under_e2e:
            under_e2e[item.path] = E2E in Path(str(item.path)).resolve().parents
        if under_e2e[item.path]:
            item.add_marker(pytest.mark.e2e)
