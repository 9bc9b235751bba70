"""Git plumbing for the changelog tools: file bytes at a ref, batch reads, file diffs."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from infx.errors import InfxError, Problem

_GIT = ("git", "-c", "core.quotepath=off")


def _run(args: Sequence[str], cwd: str | Path | None, stdin: bytes | None = None
         ) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([*_GIT, *args], cwd=cwd, input=stdin, capture_output=True,
                              check=False)
    except FileNotFoundError:
        raise InfxError(Problem("git is not installed or not on PATH")) from None


def show_file(ref: str, path: str, cwd: str | Path | None = None) -> bytes:
    """Bytes of ``path`` at ``ref`` (``:1``/``:2``/``:3`` address index stages)."""
    result = _run(["show", f"{ref}:{path}"], cwd)
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip()
        raise InfxError(Problem(f"could not read {path} at {ref}: {detail}", file=path,
                                fix="check that the ref exists and the file is committed"))
    return result.stdout


def read_blobs(ref: str, paths: Sequence[str], cwd: str | Path | None = None
               ) -> dict[str, bytes | None]:
    """Read several files at ``ref`` with one ``git cat-file --batch``; missing -> None."""
    request = "".join(f"{ref}:{p}\n" for p in paths).encode()
    result = _run(["cat-file", "--batch"], cwd, stdin=request)
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip()
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
        detail = result.stderr.decode(errors="replace").strip()
        raise InfxError(Problem(f"git diff {base} {head} failed: {detail}", file=path,
                                fix="check that both refs exist (fetch full history)"))
    return result.stdout.decode("utf-8", errors="replace")


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
