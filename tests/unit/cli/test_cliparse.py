"""Tests of infx.cli.options: the click-free parser gives click's arguments, or leaves the line to click."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.cli import matrix_batch as commands
from infx.cli import plan_batch as plan_command
from infx.cli.args import fast_command
from infx.cli.options import FastCommand, Opt, UsageProblem, parse_fast

SPECS = {"plan": plan_command.OPTIONS, "full-sweep": commands.FULL_SWEEP_OPTIONS,
         "test-config": commands.TEST_CONFIG_OPTIONS}


def click_arguments(options, argv: list[str]):
    """What click passes to the command for ``argv`` (None when click refuses the line)."""
    seen = {}

    def capture(**kwargs):
        """Capture."""
        seen.update(kwargs)

    command = fast_command("probe", FastCommand(tuple(options), capture))
    try:
        command.main(args=list(argv), standalone_mode=False)
    except click.ClickException:
        return None
    return seen


TOKENS = ["--base-ref", "--head-ref", "--he", "--h", "--config-files", "--conc", "--step-size", "--min-conc",
          "--max-c", "--all-evals", "--seq-lens", "--scenario-type", "--config-keys", "--summ",
          "--runner-config=r.yaml", "--step-size=3", "--no-evals=1", "-h", "--help", "--", "--x",
          "a.yaml", "b.yaml", "main", "HEAD", "1k1k", "8k1k", "agentic-coding", "fixed-seq-len",
          "4", "-1", "0x10", "1_000", "", "-", "a b", "*"]


@settings(max_examples=600, deadline=None)
@given(spec=st.sampled_from(sorted(SPECS)), argv=st.lists(st.sampled_from(TOKENS), max_size=9))
def test_every_line_the_fast_parser_takes_gets_clicks_arguments(spec, argv):
    fast = parse_fast(SPECS[spec], argv)
    if fast is not None:
        assert fast == click_arguments(SPECS[spec], argv)


@pytest.mark.parametrize(("spec", "argv"), [
    ("plan", ["--base-ref", "main", "--head-ref", "HEAD"]),
    ("plan", ["--base-ref=main", "--head-ref", "HEAD", "--config-files", "a.yaml", "b.yaml",
              "--all-evals", "--trim"]),
    ("full-sweep", ["--config-files", "a.yaml", "b.yaml", "--runner-config", "r.yaml",
                    "--seq-lens", "1k1k", "8k1k", "--max-c", "64", "--step-size", "4"]),
    ("test-config", ["--config-files", "a.yaml", "--config-keys", "k*", "--conc", "4", "8",
                     "--config-files", "c.yaml"]),
])
def test_the_usual_lines_run_without_click(spec, argv):
    fast = parse_fast(SPECS[spec], argv)
    assert fast is not None and fast == click_arguments(SPECS[spec], argv)


@pytest.mark.parametrize("argv", [
    ["--help"], ["-h"], ["--head-ref", "HEAD"], ["--base-ref"], ["--base-ref", "main", "x"],
    ["--base-ref", "main", "--head-ref", "HEAD", "--nope"], ["--base-ref", "--head-ref", "HEAD"],
    ["--base-ref", "main", "--head-ref", "HEAD", "--all-evals=yes"],
    ["--base-ref", "main", "--he", "HEAD"],  # ambiguous with --help for click and argparse
])
def test_help_and_malformed_lines_are_left_to_click(argv):
    assert parse_fast(plan_command.OPTIONS, argv) is None


def test_bad_values_are_left_to_click():
    base = ["--config-files", "a.yaml"]
    for extra in (["--step-size", "two"], ["--seq-lens", "2k2k"], ["--min-conc", "-1"]):
        assert parse_fast(commands.FULL_SWEEP_OPTIONS, base + extra) is None


def test_a_usage_problem_is_a_click_usage_error():
    def refuse(**_):
        raise UsageProblem("--a and --b are mutually exclusive")

    command = fast_command("probe", FastCommand((Opt("--a", "flag"),), refuse))
    with pytest.raises(click.UsageError, match="mutually exclusive"):
        command.main(args=["--a"], standalone_mode=False)


def test_plan_and_full_sweep_never_import_click(tmp_path):
    code = ("import sys\nfrom infx.cli import main\n"
            "code = main(sys.argv[1:])\n"
            "sys.stderr.write('CLICK ' + str('click' in sys.modules) + ' ' + str(code))\n")
    runners = tmp_path / "runners.yaml"
    runners.write_text("h100: [h100-1]\n")
    config = tmp_path / "a-master.yaml"
    config.write_text("")
    argv = ["matrix", "full-sweep", "--config-files", str(config), "--runner-config", str(runners)]
    result = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert result.stderr.endswith("CLICK False 0") or "CLICK False 1" in result.stderr
    result = subprocess.run([sys.executable, "-c", code, "matrix", "full-sweep", "--help"],
                            capture_output=True, text=True)
    assert "CLICK True 0" in result.stderr and "--config-files" in result.stdout
