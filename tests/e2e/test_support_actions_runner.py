"""The local workflow runner (tests/lib/actions_runner.py) on small synthetic workflows."""

from __future__ import annotations

import shutil
import textwrap

import pytest
from lib.actions_runner import (
    ArtifactStore,
    DeploymentEnvironment,
    Event,
    LocalRunner,
    RunnerError,
    StepFailure,
    _parse_env_file,
)
from lib.sweep_loop import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CHECKOUT = "actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd"
UPLOAD = "actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f"
DOWNLOAD = "actions/download-artifact@37930b1c2abaa49bbe596cd826c3c89aef350131"


def run(tmp_path, files: dict[str, str], event_name: str = "push", payload: dict | None = None,
        ref: str = "refs/heads/main", **options):
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "--quiet", "--initial-branch=main")
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "test")
    sha = git(repo, "rev-parse", "HEAD").strip()
    event = Event(event_name, payload or {"after": sha}, sha, ref)
    runner = LocalRunner(repo_dir=repo, repository="acme/demo", event=event, run_id=42,
                         work_dir=tmp_path / "work", runners={"gpu": ["gpu-node_07"]}, **options)
    return runner.run(".github/workflows/main.yml")


def test_needs_order_outputs_matrix_from_json_and_reusable_names(tmp_path):
    record = run(tmp_path, {
        ".github/workflows/main.yml": """
            name: Main
            on: push
            jobs:
              fan:
                name: fan out
                needs: plan
                if: needs.plan.outputs.rows != '[]'
                strategy:
                  matrix:
                    row: ${{ fromJSON(needs.plan.outputs.rows) }}
                uses: ./.github/workflows/called.yml
                with:
                  row: ${{ toJSON(matrix.row) }}
              plan:
                runs-on: ubuntu-latest
                outputs:
                  rows: ${{ steps.p.outputs.rows }}
                steps:
                  - id: p
                    run: |
                      echo 'rows=[{"n":1},{"n":2}]' >> "$GITHUB_OUTPUT"
              never:
                needs: fan
                if: github.event_name == 'pull_request'
                runs-on: ubuntu-latest
                steps:
                  - run: exit 1
            """,
        ".github/workflows/called.yml": """
            on:
              workflow_call:
                inputs:
                  row: {type: string, required: true}
            jobs:
              work:
                name: ${{ format('row {0}', fromJSON(inputs.row).n) }}
                runs-on: gpu
                env:
                  ROW: ${{ inputs.row }}
                steps:
                  - run: test "$RUNNER_NAME" = gpu-node_07 && echo "$ROW" > row.json
        """})
    assert [j.name for j in record.jobs] == ["plan", "fan out / row 1", "fan out / row 2", "never"]
    assert [j.conclusion for j in record.jobs] == ["success", "success", "success", "skipped"]
    assert record.results == {"plan": "success", "fan": "success", "never": "skipped"}
    assert record.jobs[1].runner_name == "gpu-node_07" and record.jobs[1].labels == ["gpu"]
    assert record.conclusion == "success"


def test_progress_shows_the_run_so_far_before_each_job_starts(tmp_path):
    """What GitHub's API lists while a run goes on: the jobs that finished (the loop's fake
    GitHub shows them to later jobs, such as the sweep report)."""
    seen = []
    run(tmp_path, {".github/workflows/main.yml": """
        on: push
        jobs:
          first:
            runs-on: ubuntu-latest
            steps:
              - run: "true"
          second:
            needs: first
            runs-on: ubuntu-latest
            steps:
              - run: "true"
        """}, on_progress=lambda record: seen.append([(j.name, j.conclusion) for j in record.jobs]))
    assert seen == [[], [], [("first", "success")]]


def test_fail_fast_cancels_the_rest_of_the_matrix_and_always_steps_run(tmp_path):
    record = run(tmp_path, {".github/workflows/main.yml": """
        on: push
        jobs:
          m:
            strategy:
              fail-fast: true
              matrix:
                n: [1, 2, 3]
            runs-on: ubuntu-latest
            steps:
              - id: s
                run: test ${{ matrix.n }} != 2
              - if: always() && steps.s.outcome == 'failure'
                run: echo "cleaning up"
              - run: echo "not after a failure"
          after:
            needs: m
            if: ${{ !cancelled() }}
            runs-on: ubuntu-latest
            steps:
              - run: echo "${{ needs.m.result }}" | grep -q failure
        """})
    assert [(j.name, j.conclusion) for j in record.jobs] == [
        ("m (1)", "success"), ("m (2)", "failure"), ("m (3)", "cancelled"), ("after", "success")]
    failed = record.jobs[1]
    assert [s.outcome for s in failed.steps] == ["failure", "success", "skipped"]
    assert "exit code 1" in failed.steps[0].log
    assert record.conclusion == "failure"


def test_env_files_summary_and_event_path(tmp_path):
    record = run(tmp_path, {".github/workflows/main.yml": """
        on: push
        jobs:
          j:
            runs-on: ubuntu-latest
            outputs:
              text: ${{ steps.a.outputs.text }}
              seen: ${{ steps.b.outputs.seen }}
            steps:
              - uses: actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd
              - id: a
                run: |
                  { echo 'text<<EOF'; echo 'two'; echo 'lines'; echo 'EOF'; } >> "$GITHUB_OUTPUT"
                  echo "FROM_ENV=set" >> "$GITHUB_ENV"
                  echo "### hello" >> "$GITHUB_STEP_SUMMARY"
              - run: python -m pip install --require-hashes -r missing.txt || echo "$?" > pip-status
              - id: b
                run: |
                  test "$(cat pip-status)" = 1
                  test -f .github/workflows/main.yml
                  after=$(python -c 'import json,os; print(json.load(open(os.environ["GITHUB_EVENT_PATH"]))["after"])')
                  test "$after" = "$GITHUB_SHA"
                  echo "seen=$FROM_ENV" >> "$GITHUB_OUTPUT"
        """})
    job = record.job("j")
    assert job.conclusion == "success", job.log
    assert job.outputs == {"text": "two\nlines", "seen": "set"}
    assert job.summary == "### hello\n"


def test_self_hosted_jobs_get_the_machine_environment_and_tools(tmp_path):
    tools = tmp_path / "node-bin"
    tools.mkdir()
    (tools / "node-tool").write_text("#!/bin/sh\necho from-the-node\n")
    (tools / "node-tool").chmod(0o755)
    record = run(tmp_path, {".github/workflows/main.yml": """
        on: push
        jobs:
          hosted:
            runs-on: ubuntu-latest
            outputs:
              seen: ${{ steps.a.outputs.seen }}
            steps:
              - id: a
                run: echo "seen=${MODEL_CACHE:-none} $(command -v node-tool || echo missing)" >> "$GITHUB_OUTPUT"
          gpu:
            runs-on: gpu
            env:
              JOB_SETTING: job
            outputs:
              seen: ${{ steps.a.outputs.seen }}
            steps:
              - id: a
                run: echo "seen=$MODEL_CACHE $JOB_SETTING $(node-tool)" >> "$GITHUB_OUTPUT"
        """}, self_hosted_env={"MODEL_CACHE": "/models", "JOB_SETTING": "machine"},
        self_hosted_path=[str(tools)])
    assert record.job("hosted").outputs == {"seen": "none missing"}
    # the job's own env: wins over the machine's
    assert record.job("gpu").outputs == {"seen": "/models job from-the-node"}


def test_artifact_names_are_unique_within_a_run(tmp_path):
    record = run(tmp_path, {".github/workflows/main.yml": f"""
        on: push
        jobs:
          a:
            strategy:
              matrix:
                n: [1, 2]
            runs-on: ubuntu-latest
            steps:
              - run: |
                  mkdir out && echo '{{"n": ${{{{ matrix.n }}}}}}' > out/r.json
              - uses: {UPLOAD}
                with:
                  name: same-name
                  path: out/
          b:
            needs: a
            if: always()
            runs-on: ubuntu-latest
            steps:
              - uses: {DOWNLOAD}
                with:
                  pattern: "same-*"
                  path: got
              - run: |
                  test "$(cat got/same-name/r.json)" = '{{"n": 1}}'
        """})
    assert [j.conclusion for j in record.jobs] == ["success", "failure", "success"]
    assert "(409) Conflict" in record.jobs[1].log
    assert list(record.artifacts.items) == ["same-name"]


def test_store_and_env_file_errors():
    store = ArtifactStore()
    store.upload("x", {"a": b"1"}, "job")
    with pytest.raises(StepFailure, match="409"):
        store.upload("x", {"a": b"2"}, "other")
    with pytest.raises(StepFailure, match="not valid"):
        store.upload("bad/name", {"a": b"1"}, "job")


def test_env_file_needs_its_delimiter(tmp_path):
    path = tmp_path / "out"
    path.write_text("a=1\nb<<END\nx\n", encoding="utf-8")
    with pytest.raises(StepFailure, match="delimiter"):
        _parse_env_file(path)


def test_unknown_actions_and_remote_workflows_are_refused(tmp_path):
    with pytest.raises(RunnerError, match="no local stand-in"):
        run(tmp_path, {".github/workflows/main.yml": """
            on: push
            jobs:
              j:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/cache@0057852bfaa89a56745cba8c7296529d2fc39830
            """})


def test_unpinned_actions_fail_the_step(tmp_path):
    record = run(tmp_path, {".github/workflows/main.yml": """
        on: push
        jobs:
          j:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
        """})
    assert record.job("j").conclusion == "failure"
    assert "full commit SHA" in record.job("j").log


def test_checkouts_by_path_and_ref_and_pip_installs_what_a_folder_holds(tmp_path):
    """Two checkouts side by side; `pip install .` copies that folder's infx into the job's own
    site folder (recorded), the only infx a step imports; before it, importing infx fails."""
    record = run(tmp_path, {
        "pyproject.toml": "[project]\nname = 'infx'\n",
        "lock.txt": "pyyaml==6.0.2\n",
        "infx/__init__.py": "WHERE = 'main'\n",
        ".github/workflows/main.yml": f"""
        on: push
        env:
          FROM_WORKFLOW: "1"
        jobs:
          j:
            runs-on: ubuntu-latest
            outputs:
              before: ${{{{ steps.before.outputs.seen }}}}
              seen: ${{{{ steps.after.outputs.seen }}}}
            steps:
              - uses: {CHECKOUT}
                with:
                  path: data
              - uses: {CHECKOUT}
                with:
                  ref: main
                  path: code
              - id: before
                run: echo "seen=$(python -c 'import infx' 2>&1 | tail -1)" >> "$GITHUB_OUTPUT"
              - working-directory: code
                run: |
                  python -m pip install --require-hashes -r lock.txt
                  python -m pip install --no-deps --no-build-isolation .
              - id: after
                working-directory: data
                run: |
                  echo "WHERE = 'edited later'" > ../code/infx/__init__.py
                  echo "seen=$(python -c 'import infx; print(infx.WHERE)') $FROM_WORKFLOW" >> "$GITHUB_OUTPUT"
        """})
    job = record.job("j")
    assert job.conclusion == "success", job.log
    assert "infx is not installed in this job" in job.outputs["before"]
    assert job.outputs["seen"] == "main 1"  # the installed copy, and the workflow's env
    package, = [i for i in job.installs if i["kind"] == "package"]
    lock, = [i for i in job.installs if i["kind"] == "requirements"]
    assert package["source"] == "code" and package["clean"] and len(package["commit"]) == 40
    assert lock["file"] == "code/lock.txt"
    assert [s.outcome for s in job.steps[:2]] == ["success", "success"]


def test_a_checkout_outside_the_workspace_and_an_uninstallable_folder_fail(tmp_path):
    record = run(tmp_path, {".github/workflows/main.yml": f"""
        on: push
        jobs:
          outside:
            runs-on: ubuntu-latest
            steps:
              - uses: {CHECKOUT}
                with:
                  path: ../elsewhere
          nothing:
            runs-on: ubuntu-latest
            steps:
              - uses: {CHECKOUT}
              - run: python -m pip install --no-deps .
        """})
    assert "is not under" in record.job("outside").log
    assert "is not installable" in record.job("nothing").log
    assert {j.conclusion for j in record.jobs} == {"failure"}


def _tools_repo(path) -> str:
    """Another repository, `acme/tools`: a reusable workflow with outputs, a composite action."""
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch=main")
    files = {
        ".github/workflows/lib.yml": f"""
            on:
              workflow_call:
                inputs:
                  who:
                    type: string
                    required: true
                secrets:
                  TOKEN:
                    required: true
                outputs:
                  greeting:
                    value: ${{{{ jobs.greet.outputs.text }}}}
                  result:
                    value: ${{{{ jobs.greet.result }}}}
            jobs:
              greet:
                runs-on: ubuntu-latest
                outputs:
                  text: ${{{{ steps.hello.outputs.said }}}}
                steps:
                  - uses: {CHECKOUT}
                    with:
                      repository: acme/tools
                      ref: v1
                      path: tools
                  - id: hello
                    uses: ./tools/.github/actions/hello
                    with:
                      who: ${{{{ inputs.who }}}}
                  - env:
                      TOKEN: ${{{{ secrets.TOKEN }}}}
                      SAID: ${{{{ steps.hello.outputs.said }}}}
                    run: test "$TOKEN" = s3cret && test "$SAID" = "hello ${{{{ inputs.who }}}} from tools"
            """,
        ".github/actions/hello/action.yml": """
            name: Hello
            inputs:
              who:
                required: true
              punctuation:
                default: "!"
            outputs:
              said:
                value: ${{ steps.say.outputs.said }}
            runs:
              using: composite
              steps:
                - uses: actions/setup-python@e797f83bcb11b83ae66e0230d6156d7c80228e7c
                - id: say
                  shell: bash
                  env:
                    WHO: ${{ inputs.who }}
                  run: |
                    echo "said=hello $WHO from $(cat "$GITHUB_ACTION_PATH/../../../NAME")" >> "$GITHUB_OUTPUT"
                    echo "PUNCT=${{ inputs.punctuation }}" >> "$GITHUB_ENV"
            """,
        "NAME": "tools\n",
    }
    for rel, text in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")
    git(path, "add", "--all")
    git(path, "commit", "--quiet", "-m", "tools")
    git(path, "tag", "v1")
    return git(path, "rev-parse", "HEAD").strip()


def test_remote_reusable_workflows_composite_actions_and_other_checkouts(tmp_path):
    """`owner/name/.github/workflows/f.yml@ref` runs that repository's file with `with:`,
    `secrets:` and `outputs`; a composite action runs from a checkout (`./path`) or by
    reference (`owner/name/path@SHA`), its env file reaching the job's later steps."""
    sha = _tools_repo(tmp_path / "tools")
    record = run(tmp_path, {".github/workflows/main.yml": f"""
        on: push
        jobs:
          call:
            uses: acme/tools/.github/workflows/lib.yml@v1
            with:
              who: octo
            secrets:
              TOKEN: s3cret
          after:
            needs: call
            runs-on: ubuntu-latest
            steps:
              - id: direct
                uses: acme/tools/.github/actions/hello@{sha}
                with:
                  who: direct
              - env:
                  GREETING: ${{{{ needs.call.outputs.greeting }}}}
                  RESULT: ${{{{ needs.call.outputs.result }}}}
                  DIRECT: ${{{{ steps.direct.outputs.said }}}}
                run: |
                  test "$GREETING" = "hello octo from tools" && test "$RESULT" = success
                  test "$DIRECT" = "hello direct from tools" && test "$PUNCT" = "!"
        """}, repositories={"acme/tools": tmp_path / "tools"})
    assert record.conclusion == "success", {j.name: j.log for j in record.jobs}
    assert [j.name for j in record.jobs] == ["call / greet", "after"]


def test_remote_calls_fail_closed(tmp_path):
    """Unknown repositories and refs, unpinned remote actions and a `./` call inside another
    repository's workflow (GitHub reads it in the calling repository) are refused."""
    sha = _tools_repo(tmp_path / "tools")
    tools = {"repositories": {"acme/tools": tmp_path / "tools"}}
    with pytest.raises(RunnerError, match="unable to find version"):
        run(tmp_path / "a", {".github/workflows/main.yml": """
            on: push
            jobs:
              call:
                uses: acme/tools/.github/workflows/lib.yml@v9
            """}, **tools)
    with pytest.raises(RunnerError, match="repository not found"):
        run(tmp_path / "b", {".github/workflows/main.yml": """
            on: push
            jobs:
              call:
                uses: acme/other/.github/workflows/lib.yml@v1
            """}, **tools)
    git(tmp_path / "tools", "checkout", "--quiet", "-b", "nested")
    (tmp_path / "tools" / ".github" / "workflows" / "nested.yml").write_text(textwrap.dedent("""
        on: workflow_call
        jobs:
          inner:
            uses: ./.github/workflows/lib.yml
        """), encoding="utf-8")
    git(tmp_path / "tools", "add", "--all")
    git(tmp_path / "tools", "commit", "--quiet", "-m", "nested")
    with pytest.raises(RunnerError, match="inside a workflow of acme/tools"):
        run(tmp_path / "c", {".github/workflows/main.yml": """
            on: push
            jobs:
              call:
                uses: acme/tools/.github/workflows/nested.yml@nested
            """}, **tools)
    record = run(tmp_path / "d", {".github/workflows/main.yml": f"""
        on: push
        jobs:
          tag:
            runs-on: ubuntu-latest
            steps:
              - uses: acme/tools/.github/actions/hello@v1
          elsewhere:
            runs-on: ubuntu-latest
            steps:
              - uses: {CHECKOUT}
                with:
                  repository: acme/secret
          missing:
            runs-on: ubuntu-latest
            steps:
              - uses: ./not-checked-out
          ok:
            runs-on: ubuntu-latest
            steps:
              - uses: acme/tools/.github/actions/hello@{sha}
                with:
                  who: x
        """}, **tools)
    logs = {j.name: (j.conclusion, j.log) for j in record.jobs}
    assert "full commit SHA" in logs["tag"][1]
    assert "Not Found: the repository 'acme/secret'" in logs["elsewhere"][1]
    assert "Can't find 'action.yml'" in logs["missing"][1]
    assert [c for c, _ in logs.values()] == ["failure", "failure", "failure", "success"]


ENVIRONMENT_WORKFLOW = """
    on: [push, pull_request_review]
    jobs:
      deploy:
        runs-on: ubuntu-latest
        environment: app
        steps:
          - run: echo deployed > "$RUNNER_TEMP/deployed"
      named:
        runs-on: ubuntu-latest
        environment:
          name: ${{ 'app' }}
          url: https://example.com
        steps:
          - run: "true"
      open:
        runs-on: ubuntu-latest
        environment: scratch
        steps:
          - run: "true"
      plain:
        runs-on: ubuntu-latest
        steps:
          - run: "true"
      after:
        needs: deploy
        runs-on: ubuntu-latest
        steps:
          - run: "true"
    """


@pytest.mark.parametrize(("ref", "refused"), [
    ("refs/heads/main", None), ("refs/heads/release/1", None),
    ("refs/pull/7/merge", 'Branch "refs/pull/7/merge"'), ("refs/heads/feature", 'Branch "feature"'),
    ("refs/heads/release/1/hotfix", 'Branch "release/1/hotfix"'),  # `*` never matches `/`
    ("refs/tags/v1.2", None), ("refs/tags/nightly", 'Tag "nightly"')])
def test_an_environment_deploys_only_from_the_refs_its_rule_allows(tmp_path, ref, refused):
    """A job whose environment refuses the run's ref fails before any step (GitHub: "... is not
    allowed to deploy to app due to environment protection rules."), as do the jobs that need
    it; an environment without a rule, and jobs without one, run."""
    rule = DeploymentEnvironment(branches=("main", "release/*"), tags=("v*",))
    record = run(tmp_path, {".github/workflows/main.yml": ENVIRONMENT_WORKFLOW}, ref=ref,
                 environments={"app": rule})
    assert record.job("open").conclusion == record.job("plain").conclusion == "success"
    for name in ("deploy", "named"):
        job = record.job(name)
        if refused is None:
            assert (job.conclusion, job.annotations) == ("success", []), job.log
            continue
        assert job.conclusion == "failure" and job.steps == []
        assert job.annotations == [f"{refused} is not allowed to deploy to app due to environment "
                                   "protection rules."]
        assert job.annotations[0] in job.log
    assert record.job("after").conclusion == ("success" if refused is None else "skipped")
    assert record.conclusion == ("success" if refused is None else "failure")


def test_without_environments_every_environment_deploys(tmp_path):
    record = run(tmp_path, {".github/workflows/main.yml": ENVIRONMENT_WORKFLOW}, ref="refs/pull/7/merge")
    assert {j.conclusion for j in record.jobs} == {"success"}
    assert record.job("deploy").steps[0].outcome == "success"
