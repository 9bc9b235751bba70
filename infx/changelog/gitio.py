"""Git plumbing for the changelog tools: file bytes at a ref, batch reads, file diffs."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from infx.errors import InfxError, Problem

_GIT = ("git", "-c", "core.quotepath=off")
NESTED_ROOT = "inferencex-e2e"  # newer layouts nest the whole project in this directory


def _run(args: Sequence[str], cwd: str | Path | None, stdin: bytes | None = None
         ) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([*_GIT, *args], cwd=cwd, input=stdin, capture_output=True,
                              check=False)
    except FileNotFoundError:
        raise InfxError(Problem("git is not installed or not on PATH")) from None


def git_message(stderr: bytes | str) -> str:
    """Git's stderr as one line (its messages span lines; a report line must not)."""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def show_file(ref: str, path: str, cwd: str | Path | None = None) -> bytes:
    """Bytes of ``path`` at ``ref`` (``:1``/``:2``/``:3`` address index stages)."""
    result = _run(["show", f"{ref}:{path}"], cwd)
    if result.returncode != 0:
        detail = git_message(result.stderr)
        raise InfxError(Problem(f"could not read {path} at {ref}: {detail}", file=path,
                                fix="check that the ref exists and the file is committed"))
    return result.stdout


def read_blobs(ref: str, paths: Sequence[str], cwd: str | Path | None = None
               ) -> dict[str, bytes | None]:
    """Read several files at ``ref`` with one ``git cat-file --batch``; missing -> None."""
    request = "".join(f"{ref}:{p}\n" for p in paths).encode()
    result = _run(["cat-file", "--batch"], cwd, stdin=request)
    if result.returncode != 0:
        detail = git_message(result.stderr)
        raise InfxError(Problem(f"git cat-file failed at {ref}: {detail}"))
    out: dict[str, bytes | None] = {}
    data = result.stdout
    pos = 0
    for path in paths:
        end = data.index(b"\n", pos)
        header = data[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[path] = data[pos:pos + size]
            pos += size + 1  # content is followed by one LF
        else:
            out[path] = None
    return out


def diff_file(base: str, head: str, path: str, cwd: str | Path | None = None) -> str:
    """Unified diff of one file between two refs (plain format, no colour or renames)."""
    result = _run(["diff", "--no-color", "--no-ext-diff", "--no-renames", base, head, "--",
                   path], cwd)
    if result.returncode != 0:
        detail = git_message(result.stderr)
        raise InfxError(Problem(f"git diff {base} {head} failed: {detail}", file=path,
                                fix="check that both refs exist (fetch full history)"))
    return result.stdout.decode("utf-8", errors="replace")


def blobs_exist(objects: Sequence[str], cwd: str | Path | None = None) -> list[bool]:
    """Whether each ``<ref>:<path>`` names a blob (one ``git cat-file --batch-check``)."""
    request = "".join(f"{name}\n" for name in objects).encode()
    result = _run(["cat-file", "--batch-check"], cwd, stdin=request)
    if result.returncode != 0:
        detail = git_message(result.stderr)
        raise InfxError(Problem(f"git cat-file failed: {detail}"))
    answers = result.stdout.decode(errors="replace").splitlines()
    return [len(line.split()) == 3 and line.split()[1] == "blob" for line in answers]


def diff_following_nesting(base: str, head: str, path: str,
                           cwd: str | Path | None = None) -> str:
    """Diff of ``path`` between refs, looking first under the nested project directory.

    Each ref's file is ``inferencex-e2e/<path>`` when that exists there, else ``<path>``,
    so moving the changelog into the nested layout is not mistaken for deleting it.
    """
    if Path(path).is_absolute() or path.startswith(f"{NESTED_ROOT}/"):
        return diff_file(base, head, path, cwd)
    candidates = (f"{NESTED_ROOT}/{path}", path)
    found = blobs_exist([f"{ref}:./{c}" for ref in (base, head) for c in candidates], cwd)
    at_base = next((c for c, ok in zip(candidates, found[:2], strict=True) if ok), None)
    at_head = next((c for c, ok in zip(candidates, found[2:], strict=True) if ok), None)
    if at_base and at_head and at_base != at_head:
        result = _run(["diff", "--no-color", "--no-ext-diff", f"{base}:./{at_base}",
                       f"{head}:./{at_head}"], cwd)
        if result.returncode != 0:
            detail = git_message(result.stderr)
            raise InfxError(Problem(f"git diff {base} {head} failed: {detail}", file=path))
        return result.stdout.decode("utf-8", errors="replace")
    return diff_file(base, head, at_head or at_base or path, cwd)


def read_following_nesting(ref: str, path: str, cwd: str | Path | None = None) -> bytes | None:
    """Bytes of ``path`` at ``ref``, preferring the nested project directory; None if absent."""
    if Path(path).is_absolute() or path.startswith(f"{NESTED_ROOT}/"):
        candidates = [path]
    else:
        candidates = [f"{NESTED_ROOT}/{path}", path]
    blobs = read_blobs(ref, [f"./{c}" for c in candidates], cwd)
    return next((blob for blob in blobs.values() if blob is not None), None)


def rev_parse(ref: str, cwd: str | Path | None = None) -> str:
    """Full commit id of ``ref``."""
    result = _run(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd)
    if result.returncode != 0:
        raise InfxError(Problem(f"unknown git ref '{ref}'", fix="fetch the ref first"))
    return result.stdout.decode().strip()


def toplevel(cwd: str | Path | None = None) -> Path | None:
    """Root of the working tree, or None outside a repository."""
    result = _run(["rev-parse", "--show-toplevel"], cwd)
    text = result.stdout.decode().strip()
    return Path(text) if result.returncode == 0 and text else None


def read_tree(ref: str, wanted: Callable[[str], bool] | None = None, cwd: str | Path | None = None
              ) -> dict[str, str] | None:
    """path -> text of the files at ``ref`` that ``wanted`` picks (every one by default; UTF-8
    only); None when the commit is not in this clone (e.g. force-pushed away)."""
    listing = _run(["ls-tree", "-r", "-z", "--name-only", ref], cwd)
    if listing.returncode != 0:
        return None
    paths = [p for p in listing.stdout.decode("utf-8", "replace").split("\0") if p and (wanted is None or wanted(p))]
    out: dict[str, str] = {}
    for path, data in read_blobs(ref, paths, cwd).items():
        if data is None:
            continue
        try:
            out[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return out
