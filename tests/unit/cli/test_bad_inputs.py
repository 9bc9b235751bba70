"""Every command of the command table, on bad arguments and bad environments: one error line, never a traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from infx.cli import COMMANDS, main
from infx.cli.router import cli

# The environment of every case: no token, no repository, no Actions files, and a GitHub API
# that refuses connections at once (port 9), with retries that never sleep.
BASE_ENV = {"GITHUB_API_URL": "http://127.0.0.1:9", "INFX_GITHUB_MAX_WAIT": "0"}
CLEARED = ("GITHUB_TOKEN", "GH_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME",
           "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_RUN_ID", "GITHUB_SHA",
           "GITHUB_RUN_ATTEMPT", "INFX_APP_ID", "INFX_APP_PRIVATE_KEY", "INFX_APP_INSTALLATION_ID",
           "INFX_MAX_YAML_BYTES", "INFX_DEBUG", "INFX_BOT_LOGIN")
BAD_ENVS = {
    "yaml-limit-5MB": {"INFX_MAX_YAML_BYTES": "5MB"},
    "yaml-limit-negative": {"INFX_MAX_YAML_BYTES": "-1"},
    "app-key-not-pem": {"INFX_APP_ID": "123", "INFX_APP_PRIVATE_KEY": "notapem",
                        "GITHUB_REPOSITORY": "o/r"},
    "app-id-not-a-number": {"INFX_APP_ID": "abc", "INFX_APP_PRIVATE_KEY": "notapem"},
    "token-no-network": {"GITHUB_TOKEN": "x", "GITHUB_REPOSITORY": "o/r"},
    "max-wait-not-a-number": {"GITHUB_TOKEN": "x", "INFX_GITHUB_MAX_WAIT": "soon"},
    "event-path-missing": {"GITHUB_EVENT_PATH": "/nonexistent/event.json", "GITHUB_EVENT_NAME": "push"},
}
# Commands whose bare invocation is a valid run (the demo), or serves until stopped.
RUNS_BARE = {("demo",), ("reuse", "parse")}


def leaf_commands() -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every runnable command under the table of infx.cli, by its words."""
    def walk(command: click.Command, words: tuple[str, ...]):
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                yield from walk(command.get_command(ctx, name), (*words, name))
        else:
            yield words, command

    ctx = click.Context(cli)
    for name in COMMANDS:
        yield from walk(cli.get_command(ctx, name), (name,))


def junk_value(param: click.Parameter, junk_file: Path) -> str:
    kind = param.type
    if isinstance(kind, click.Choice):
        return str(kind.choices[0])
    if isinstance(kind, (click.types.IntParamType, click.types.IntRange)):
        return "1"
    if isinstance(kind, (click.Path, click.File)):
        return str(junk_file)
    return "x"


def required_args(command: click.Command, junk_file: Path) -> list[str]:
    args: list[str] = []
    for param in command.params:
        if isinstance(param, click.Option) and param.required:
            args += [param.opts[0], junk_value(param, junk_file)]
    return args


def cases(junk_file: Path) -> Iterator[tuple[str, tuple[str, ...], list[str], dict[str, str]]]:
    for words, command in leaf_commands():
        name = " ".join(words)
        filled = required_args(command, junk_file)
        if words not in RUNS_BARE:
            yield f"{name}: no arguments", words, [], {}
        yield f"{name}: unknown option", words, [*filled, "--no-such-option"], {}
        for param in command.params:
            if not isinstance(param, click.Option) or param.is_flag:
                continue
            rest = [a for i, a in enumerate(filled) if not (
                a == param.opts[0] or (i and filled[i - 1] == param.opts[0]))]
            if isinstance(param.type, (click.types.IntParamType, click.types.IntRange)):
                yield f"{name}: {param.opts[0]} not a number", words, [*rest, param.opts[0], "x"], {}
            if isinstance(param.type, (click.Path, click.File)):
                yield (f"{name}: {param.opts[0]} missing file", words,
                       [*rest, param.opts[0], "/nonexistent/input"], {})
        if words in RUNS_BARE and words != ("reuse", "parse"):
            continue
        for env_name, env in BAD_ENVS.items():
            yield f"{name}: env {env_name}", words, filled, env


def run_case(words: tuple[str, ...], args: list[str], env: dict[str, str],
             monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             tmp_path: Path) -> tuple[int, str, str]:
    with monkeypatch.context() as patch:
        for name in CLEARED:
            patch.delenv(name, raising=False)
        for name, value in {**BASE_ENV, **env}.items():
            patch.setenv(name, value)
        patch.chdir(tmp_path)
        patch.setattr("sys.stdin", open(os.devnull))  # noqa: SIM115 - closed with the process
        capsys.readouterr()
        code = main([*words, *args])
        out, err = capsys.readouterr()
    return code, out, err


def test_every_command_of_the_table_fails_cleanly_on_bad_input(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    junk = tmp_path / "junk.yaml"
    junk.write_text("not: [valid\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    failures: list[str] = []
    count = 0
    for label, words, args, env in cases(junk):
        count += 1
        try:
            code, out, err = run_case(words, args, env, monkeypatch, capsys, work)
        except BaseException as exc:  # noqa: BLE001 - the finding is the exception itself
            failures.append(f"{label}: raised {type(exc).__name__}: {exc}")
            continue
        lines = [line for line in err.splitlines() if line.strip()]
        if "Traceback" in err:
            failures.append(f"{label}: traceback on stderr")
        elif code == 0:
            continue  # a bad environment this command never reads
        elif code not in (1, 2):
            failures.append(f"{label}: exit {code}")
        elif out.strip():
            failures.append(f"{label}: exit {code} with stdout {out[:80]!r}")
        elif code == 2 and not any(line.startswith("Error: ") for line in lines):
            failures.append(f"{label}: a usage error without click's Error line: {lines}")
        elif code == 1 and not (lines and lines[-1].startswith("error: ")):
            failures.append(f"{label}: last stderr line is not an error: {lines[-1:]}")
        elif code == 1 and not any("(fix: " in line for line in lines):
            failures.append(f"{label}: no fix in {lines[-1]!r}")
    print(f"bad-input matrix: {count} cases over {len(list(leaf_commands()))} commands")
    assert count > 150
    assert not failures, "\n".join(failures)


# --- the reproductions of issue 24, one each -------------------------------------------------

def _run(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
         tmp_path: Path, **env: str) -> tuple[int, str, str]:
    return run_case(tuple(args[:1]), args[1:], env, monkeypatch, capsys, tmp_path)


@pytest.mark.parametrize("args", [["plan"], ["plan", "--base-ref", "HEAD"],
                                  ["plan", "--head-ref", "HEAD"]])
def test_plan_without_its_refs_is_a_usage_error(args, monkeypatch, capsys, tmp_path) -> None:
    code, out, err = _run(args, monkeypatch, capsys, tmp_path)
    assert (code, out) == (2, "")
    assert "Error: Missing option '--" in err and "Traceback" not in err


def test_the_plan_module_entry_without_refs_is_a_usage_error(monkeypatch, capsys) -> None:
    from infx.cli import run_named

    code = run_named("plan", [], "python -m infx.matrix.plan")
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "Missing option '--base-ref'" in err


@pytest.mark.parametrize("value", ["5MB", "-1", "0"])
@pytest.mark.parametrize("args", [["matrix", "full-sweep", "--config-files", "c.yaml"],
                                  ["signoff", "verify", "--world", "w.yaml", "--pr", "1",
                                   "--comment-id", "2"]])
def test_a_bad_yaml_limit_names_the_variable_and_a_value(value, args, monkeypatch, capsys,
                                                         tmp_path) -> None:
    (tmp_path / "c.yaml").write_text("a: 1\n", encoding="utf-8")
    (tmp_path / "w.yaml").write_text("a: 1\n", encoding="utf-8")
    code, out, err = _run(args, monkeypatch, capsys, tmp_path, INFX_MAX_YAML_BYTES=value)
    assert (code, out) == (1, "")
    assert err.startswith(f"error: INFX_MAX_YAML_BYTES='{value}' is not a positive whole number")
    assert "reinstall" not in err and err.count("\n") == 1


def test_a_github_app_key_that_is_not_pem_is_named(monkeypatch, capsys, tmp_path) -> None:
    code, out, err = _run(["signoff", "verify", "--repo", "o/r", "--pr", "1", "--comment-id", "2"],
                          monkeypatch, capsys, tmp_path, INFX_APP_ID="123",
                          INFX_APP_PRIVATE_KEY="notapem")
    assert (code, out) == (1, "")
    assert "INFX_APP_PRIVATE_KEY cannot sign a GitHub App token" in err and "(fix: " in err


def test_the_app_installation_is_found_on_the_repo_option(monkeypatch) -> None:
    """--repo reaches the App's installation lookup (it was ignored: GITHUB_REPOSITORY only)."""
    from infx.cli import signoff as signoff_cli
    from infx.github.client import GitHubClient

    seen: list[str | None] = []
    monkeypatch.setattr(GitHubClient, "from_env",
                        classmethod(lambda cls, repo=None, **_: seen.append(repo) or object()))
    with signoff_cli._github(None, "o/r"):
        pass
    assert seen == ["o/r"]


def test_no_network_is_one_located_line(monkeypatch, capsys, tmp_path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode()
    code, out, err = _run(["signoff", "verify", "--repo", "o/r", "--pr", "1", "--comment-id", "2"],
                          monkeypatch, capsys, tmp_path, INFX_APP_ID="123", INFX_APP_PRIVATE_KEY=key)
    assert (code, out) == (1, "")
    assert err.startswith("error: [GITHUB_API_URL]: cannot reach the GitHub API at 127.0.0.1:9")
