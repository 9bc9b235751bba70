"""The command router: a table of commands with summaries, imported only when run."""

import subprocess
import sys

import click
import pytest

from infx import __version__, cli


def test_every_routed_command_imports():
    group = cli.cli
    ctx = click.Context(group)
    for name in cli.COMMANDS:
        assert isinstance(group.get_command(ctx, name), click.Command), name


def test_exit_code_of_ctx_exit_is_propagated(monkeypatch):
    @click.command()
    @click.pass_context
    def failing(ctx):
        ctx.exit(3)

    monkeypatch.setitem(cli.COMMANDS, "failing-for-test", cli.Command("tests_cli_probe:failing", "-"))
    monkeypatch.setattr(cli.LazyGroup, "get_command",
                        lambda self, ctx, name: failing if name == "failing-for-test" else None)
    assert cli.main(["failing-for-test"]) == 3


def test_unknown_command_is_a_usage_error(capsys):
    assert cli.main(["no-such-command"]) == 2
    assert "No such command" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["infx.no_such_module:command", "infx.errors:no_such_command",
                                    "infx.errors:Problem"])
def test_a_command_that_cannot_be_loaded_is_an_error_not_a_missing_command(monkeypatch, capsys,
                                                                           target):
    monkeypatch.setitem(cli.COMMANDS, "broken", cli.Command(target, "Broken on purpose."))
    assert cli.main(["broken"]) == 1
    err = capsys.readouterr().err
    assert "command 'broken' could not be loaded" in err or "is not a click command" in err
    assert "No such command" not in err


def test_help_lists_every_command_with_its_summary_and_imports_none():
    code = ("import sys\nfrom infx.cli import COMMANDS, main\n"
            "code = main(['--help'])\n"
            "loaded = [c.target.split(':')[0] for c in COMMANDS.values()\n"
            "          if c.target.split(':')[0] in sys.modules]\n"
            "print('LOADED', loaded, code)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "LOADED [] 0" in out
    for name, command in cli.COMMANDS.items():
        assert name in out
        assert command.summary and "\n" not in command.summary
    assert " ".join(cli.COMMANDS["signoff"].summary.split()) in " ".join(out.split())


def test_short_help_option_and_version(capsys):
    assert cli.main(["-h"]) == 0
    assert "Commands:" in capsys.readouterr().out
    assert cli.main(["plan", "-h"]) == 0
    assert "--base-ref" in capsys.readouterr().out
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"infx, version {__version__}"


def test_python_dash_m_matrix_plan_is_the_plan_command(capsys):
    from infx.matrix import plan

    assert plan.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: python -m infx.matrix.plan") and "--base-ref" in out
