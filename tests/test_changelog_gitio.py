"""Git plumbing: file bytes at refs, batch reads, diffs, index stages."""

from __future__ import annotations

import subprocess

import pytest

from infx.changelog import gitio
from infx.errors import InfxError


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True).stdout


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "a.txt").write_bytes(b"one\n")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "b.bin").write_bytes(b"\x00\x01\n\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    (tmp_path / "a.txt").write_bytes(b"one\ntwo\n")
    git(tmp_path, "commit", "-q", "-am", "head")
    return tmp_path


def test_show_file_and_errors(repo):
    assert gitio.show_file("HEAD~1", "a.txt", repo) == b"one\n"
    assert gitio.show_file("HEAD", "a.txt", repo) == b"one\ntwo\n"
    with pytest.raises(InfxError, match="could not read missing.txt at HEAD"):
        gitio.show_file("HEAD", "missing.txt", repo)


def test_read_blobs_batch(repo):
    blobs = gitio.read_blobs("HEAD~1", ["a.txt", "dir/b.bin", "nope"], repo)
    assert blobs == {"a.txt": b"one\n", "dir/b.bin": b"\x00\x01\n\n", "nope": None}


def test_diff_file(repo):
    diff = gitio.diff_file("HEAD~1", "HEAD", "a.txt", repo)
    assert "+two" in diff.split("\n")
    with pytest.raises(InfxError, match="git diff"):
        gitio.diff_file("nope", "HEAD", "a.txt", repo)


def test_rev_parse(repo):
    assert len(gitio.rev_parse("HEAD", repo)) == 40
    with pytest.raises(InfxError, match="unknown git ref"):
        gitio.rev_parse("nope", repo)
