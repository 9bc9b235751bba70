"""Shared pytest fixtures: locations of bundled and shared reference data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = Path(__file__).resolve().parent / "data"
SHARED = REPO_ROOT.parent / "shared"
UPSTREAM = SHARED / "fixtures" / "upstream-inferencex"


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
