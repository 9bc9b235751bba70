"""`python -m pip install` for the local workflow runner (tests only, never installed).

The host already has infx's dependencies, so nothing is downloaded; what a job installs is
modelled as GitHub's runner would leave it: `-r FILE` must name a readable file, and
`[-e] DIR` copies DIR's `infx` package into the job's own site folder (`LOCAL_RUNNER_SITE`, the
only infx on the job's PYTHONPATH), so later steps import exactly what was installed and later
edits of DIR do not reach them. Every install is appended to `LOCAL_RUNNER_INSTALLS` (JSON
lines) with what it read, for tests to assert on: the requirements file's digest, the source
folder, its git commit and whether its work tree was clean.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

# options of `pip install` that take a value (the value is not a package to install)
_VALUED = {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--target", "-t"}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _git(folder: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _shown(path: Path, workspace: Path) -> str:
    """A path as the job sees it: relative to its workspace when inside it."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(workspace.resolve()).as_posix() or "."
    except ValueError:
        return str(resolved)


def _record(entry: dict) -> None:
    with open(os.environ["LOCAL_RUNNER_INSTALLS"], "a", encoding="utf-8") as out:
        out.write(json.dumps(entry, sort_keys=True) + "\n")


def _install_folder(folder: Path, workspace: Path, editable: bool) -> str | None:
    if not (folder / "pyproject.toml").is_file() and not (folder / "setup.py").is_file():
        return (f"ERROR: Directory '{folder}' is not installable. Neither 'setup.py' nor "
                "'pyproject.toml' found.")
    package = folder / "infx"
    if not (package / "__init__.py").is_file():
        return f"ERROR: {folder} has no infx package (the local runner installs only infx)"
    site = Path(os.environ["LOCAL_RUNNER_SITE"])
    shutil.rmtree(site / "infx", ignore_errors=True)
    shutil.copytree(package, site / "infx", ignore=shutil.ignore_patterns("__pycache__"))
    shown = _shown(folder, workspace)
    _record({"kind": "package", "source": shown, "commit": _git(folder, "rev-parse", "HEAD"),
             "clean": _git(folder, "status", "--porcelain", "--untracked-files=no") == "",
             "pyproject_sha256": _digest(folder / "pyproject.toml") if (folder / "pyproject.toml").is_file() else "",
             "editable": editable})
    print(f"local runner: installed infx from {shown} (nothing downloaded)")
    return None


def main(argv: list[str]) -> int:
    workspace = Path(os.environ.get("GITHUB_WORKSPACE", "."))
    args = iter(argv)
    targets: list[tuple[Path, bool]] = []
    editable = False
    for arg in args:
        if arg in ("-r", "--requirement"):
            name = next(args, "")
            path = Path(name)
            if not path.is_file():
                print(f"ERROR: Could not open requirements file: {name}", file=sys.stderr)
                return 1
            _record({"kind": "requirements", "file": _shown(path, workspace), "sha256": _digest(path)})
            print(f"local runner: requirements {name} read (the host has the packages)")
        elif arg in _VALUED:
            next(args, None)
        elif arg in ("-e", "--editable"):
            editable = True
        elif not arg.startswith("-"):
            targets.append((Path(arg), editable))
            editable = False
    for folder, is_editable in targets:
        if not folder.is_dir():
            print(f"ERROR: the local runner installs only folders, not {folder}", file=sys.stderr)
            return 1
        problem = _install_folder(folder, workspace, is_editable)
        if problem:
            print(problem, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
