"""Red team 21: executed content that benchmark_content.executed_paths leaves neutral, so a
file the sweep job ran can be edited after the sweep without drift (Check sweep), without
unbinding a reuse command (posted_head.binding_problem) and without moving the fingerprint.

Every scenario has the same shape: the launcher (executed content, identical at the swept
commit and at the head) runs a second file; the PR edits only that second file after the sweep
(it is the PR's own change: it is in ``own``). The honest answer names the second file.
"""

from __future__ import annotations

import pytest

from infx.plan.benchmark_content import differences, executed_paths

NAMING_TEXT_LIMIT = 256 * 1024  # the limit a launcher's text was once read up to

LAUNCH = "runners/launch_mi355x.sh"


def _drift(launch: str, target: str, extra: dict[str, str] | None = None) -> list[str]:
    """What differs when only ``target`` changes after the sweep, the PR's own edit."""
    swept = {LAUNCH: launch, target: "serve --honest\n", **(extra or {})}
    head = swept | {target: "serve --fake-scores\n"}
    return differences(swept, head, swept, own=frozenset({target}))


# --- controls: the setup does see a named neutral file and a plain executed one -----------------

@pytest.mark.parametrize(("launch", "target"), [
    ("bash docs/warm.sh\n", "docs/warm.sh"),
    ('source "$(dirname "$0")/../docs/warm.sh"\n', "docs/warm.sh"),
    ("python3 -m tests.warm\n", "tests/warm.py"),
    ("python3 benchmarks/run.py\n", "benchmarks/helpers.py"),  # not neutral: always executed
])
def test_control_a_neutral_file_the_launcher_names_or_an_executed_one_is_drift(launch, target):
    assert _drift(launch, target) == [target]


# --- findings --------------------------------------------------------------------------------

@pytest.mark.parametrize("target", [".github/actions/warm/run.sh", ".github/workflows/warm.sh"])
def test_a_script_under_github_actions_the_launcher_runs_is_drift(target):
    assert _drift(f"bash {target}\n", target) == [target]


def test_a_launcher_padded_past_the_naming_limit_still_names_what_it_runs():
    launch = "bash docs/warm.sh\n" + "# padding\n" * (NAMING_TEXT_LIMIT // 10 + 1)
    assert len(launch) > NAMING_TEXT_LIMIT
    assert _drift(launch, "docs/warm.sh") == ["docs/warm.sh"]


@pytest.mark.parametrize("launch", ['source "${BASH_SOURCE%/*}/../docs/warm.sh"\n',
                                    'source "${BASH_SOURCE[0]%/*}/../docs/warm.sh"\n'])
def test_a_script_sourced_relative_to_bash_source_is_drift(launch):
    assert _drift(launch, "docs/warm.sh") == ["docs/warm.sh"]


@pytest.mark.parametrize(("launch", "target", "extra"), [
    ("python3 -c 'from tests import warm; warm.go()'\n", "tests/warm.py", {}),
    ("python3 -m tests.warm\n", "tests/helper.py", {"tests/warm.py": "from .helper import go\ngo()\n"}),
])
def test_a_neutral_module_imported_by_its_package_or_relatively_is_drift(launch, target, extra):
    assert _drift(launch, target, extra) == [target]


def test_a_benchmark_module_whose_name_starts_with_notice_is_executed():
    extra = {"benchmarks/run.py": "import notice_helpers\nnotice_helpers.serve()\n"}
    assert _drift("python3 benchmarks/run.py\n", "benchmarks/notice_helpers.py", extra) == \
        ["benchmarks/notice_helpers.py"]


def test_what_a_license_named_script_runs_is_drift():
    extra = {"runners/licensed_setup.sh": "bash docs/inner.sh\n"}
    assert _drift("bash runners/licensed_setup.sh\n", "docs/inner.sh", extra) == ["docs/inner.sh"]


def test_a_document_an_executed_neutral_script_runs_is_drift():
    extra = {"docs/a.sh": "bash docs/steps.md\n"}
    assert _drift("bash docs/a.sh\n", "docs/steps.md", extra) == ["docs/steps.md"]


def test_a_document_a_kernel_includes_is_drift():
    extra = {"benchmarks/k.cu": '#include "kernel.md"\n__global__ void k() {}\n'}
    assert _drift("nvcc -o k benchmarks/k.cu && ./k\n", "benchmarks/kernel.md", extra) == ["benchmarks/kernel.md"]


@pytest.mark.parametrize("launch", [
    'for f in docs/*.sh; do bash "$f"; done\n',
    "cd docs && bash warm.sh\n",
    "python3 -c \"import os; os.system('bash ' + os.path.join('docs', 'warm.sh'))\"\n",
])
def test_a_neutral_script_run_without_its_literal_path_is_drift(launch):
    assert _drift(launch, "docs/warm.sh") == ["docs/warm.sh"]


def test_the_build_file_a_launcher_installs_from_is_drift():
    assert _drift("pip install . && python3 -m bench_entry\n", "pyproject.toml") == ["pyproject.toml"]


def test_control_the_same_files_count_when_named_plainly():
    """The findings' files are seen when the launcher names them the way _names expects."""
    assert "docs/steps.md" in executed_paths({LAUNCH: "bash docs/steps.md\n", "docs/steps.md": "x\n"})
    assert "tests/helper.py" in executed_paths({LAUNCH: "python3 -m tests.helper\n", "tests/helper.py": "x\n"})
    assert "benchmarks/notice_helpers.py" in executed_paths(
        {LAUNCH: "python3 benchmarks/notice_helpers.py\n", "benchmarks/notice_helpers.py": "x\n"})
