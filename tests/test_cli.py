"""Tests for the command router: lazy commands and exit codes."""

import click

from infx import cli


def test_every_routed_command_imports():
    group = cli.cli
    ctx = click.Context(group)
    for name in cli.COMMANDS:
        assert group.get_command(ctx, name) is not None, name


def test_exit_code_of_ctx_exit_is_propagated(monkeypatch):
    @click.command()
    @click.pass_context
    def failing(ctx):
        ctx.exit(3)

    monkeypatch.setitem(cli.COMMANDS, "failing-for-test", "tests_cli_probe:failing")
    monkeypatch.setattr(cli.LazyGroup, "get_command",
                        lambda self, ctx, name: failing if name == "failing-for-test" else None)
    assert cli.main(["failing-for-test"]) == 3


def test_unknown_command_is_a_usage_error(capsys):
    assert cli.main(["no-such-command"]) == 2
    assert "No such command" in capsys.readouterr().err
