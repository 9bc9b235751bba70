"""Every `infx …` command the README shows runs as written (from a checkout, on bundled data)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from lib.changelog_support import git, init_repo

from infx.cli import COMMANDS
from infx.cli.router import cli

ROOT = Path(__file__).resolve().parents[2]
SPANS = sorted(set(re.findall(r"`(infx [^`]+)`", (ROOT / "README.md").read_text(encoding="utf-8"))))


def command_paths() -> set[tuple[str, ...]]:
    """The words of every command and group of the table (`plan`, `signoff report`, …)."""
    found: set[tuple[str, ...]] = set()

    def walk(command: click.Command, words: tuple[str, ...]) -> None:
        found.add(words)
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), (*words, name))

    ctx = click.Context(cli)
    for name in COMMANDS:
        walk(cli.get_command(ctx, name), (name,))
    return found


def command_lines(span: str) -> list[list[str]]:
    """The command lines a span stands for: a command line as written; a bare command name
    (`infx plan`), or names listed with ' / ', each run with --help; `infx workflow …` too."""
    words = shlex.split(span)[1:]
    if " / " in span:
        first, *others = span.removeprefix("infx ").split(" / ")
        group = first.split()[:-1]
        return [[*first.split(), "--help"]] + [[*group, other.strip(), "--help"] for other in others]
    if words and words[-1] == "…":
        words = words[:-1]
    if tuple(words) in command_paths():
        return [[*words, "--help"]]
    return [words]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """The files the examples read, in a git repository whose HEAD appends the demo's
    changelog entry to perf-changelog.yaml, with origin/main at the commit before it."""
    repo = init_repo(tmp_path_factory.mktemp("checkout"))
    for name in ("configs", "runners", "benchmarks", "infx/cli/demodata"):
        shutil.copytree(ROOT / name, repo / name)
    for name in ("perf-changelog.yaml", "PR_REVIEW_CHECKLIST.md", "CODEOWNERS"):
        shutil.copy(ROOT / name, repo / name)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    entry = (ROOT / "infx/cli/demodata/pr-entry.yaml").read_text(encoding="utf-8")
    with (repo / "perf-changelog.yaml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + entry)
    git(repo, "commit", "-qam", "append the demo's entry")
    return repo


def test_the_readme_shows_commands() -> None:
    assert len(SPANS) >= 15
    assert any(span.startswith("infx signoff report --world") for span in SPANS)


@pytest.mark.parametrize("span", SPANS)
def test_a_readme_command_runs_as_written(span: str, checkout: Path) -> None:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GITHUB_", "INFX_", "GH_"))}
    env["PYTHONPATH"] = str(ROOT)
    for words in command_lines(span):
        argv = [sys.executable, "-m", "infx", *words]
        if words[:1] == ["fake-github"]:
            # serves until stopped: it must come up and print its URL (on a free port, so
            # that parallel test runs never collide on the README's 8765)
            with subprocess.Popen([*argv[:-1], "0"], cwd=checkout, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) as server:
                first = server.stdout.readline()
                server.terminate()
                _, banner = server.communicate(timeout=30)
            assert first.startswith("http://127.0.0.1:"), (span, first)
            assert "GITHUB_API_URL=" in banner and "GITHUB_TOKEN=" in banner, banner
            continue
        run = subprocess.run(argv, cwd=checkout, env=env, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, f"{span}: exit {run.returncode}\n{run.stderr[-2000:]}"
        assert "Traceback" not in run.stderr
