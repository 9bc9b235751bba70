"""Git plumbing: file bytes at refs, batch reads, diffs, index stages."""

from __future__ import annotations

import subprocess

import pytest

from infx.changelog import gitio
from infx.changelog.diff import added_text
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


def test_blobs_exist(repo):
    assert gitio.blobs_exist(["HEAD:a.txt", "HEAD:dir", "HEAD:nope", "nope:a.txt"], repo) == [
        True, False, False, False]


def test_diff_follows_a_move_into_the_nested_layout(repo):
    """§5 item 51: a pure move adds nothing; a line appended after the move is the addition."""
    git(repo, "mv", "a.txt", "x")
    (repo / gitio.NESTED_ROOT).mkdir()
    git(repo, "mv", "x", f"{gitio.NESTED_ROOT}/a.txt")
    git(repo, "commit", "-q", "-m", "move")
    pure = gitio.diff_following_nesting("HEAD~1", "HEAD", "a.txt", repo)
    assert added_text(pure, "a.txt") == ""
    (repo / gitio.NESTED_ROOT / "a.txt").write_bytes(b"one\ntwo\nthree\n")
    git(repo, "commit", "-q", "-am", "append")
    moved_and_appended = gitio.diff_following_nesting("HEAD~2", "HEAD", "a.txt", repo)
    assert added_text(moved_and_appended, "a.txt") == "three"
    plain = gitio.diff_following_nesting("HEAD~3", "HEAD~2", "a.txt", repo)
    assert added_text(plain, "a.txt") == "two"
