"""Reusable (workflow_call) bot workflows, and the adopter's callers generated from our own callers.

The sign-off and reuse bots live in reusable workflows, `.github/workflows/infx-<stem>.yml`, the one
place where their jobs, `if:` gates, job concurrency and permissions are written. This repository's
own `<stem>.yml` calls it locally (`uses: ./.github/workflows/infx-<stem>.yml`) as one job with the
triggers, the workflow-level concurrency and the union of the called jobs' permissions (a caller
caps what the called jobs may have), naming its own default branch as the infx to run. The
adopter's caller, shipped as `infx/adopt/starter/<stem>.yml`, is that file with the call pinned:
`uses: <infx repository>/.github/workflows/infx-<stem>.yml@<commit>` and the same repository and
commit as inputs (`caller_text`), so an adopter calls them exactly as we do.

The sweep (run-sweep.yml) still goes the other way: `infx-run-sweep.yml` is generated from
run-sweep.yml and benchmark-tmpl.yml (`sweep_reusable_text`). Its shard jobs call the template
locally, and a called workflow can call another only at a ref written in the file (`./` would be
read in the caller's repository), which this file cannot know of its own commit; so the reusable
sweep carries the template's job inlined into each shard job, named `<shard caller> / <row>` as
GitHub names the nested call; the adopter's caller is one job `sweep`
(infx.plan.identity.ADOPTED_SWEEP_JOB), so its rows' check runs are `sweep / <shard caller> /
<row>`, which the sign-off reads as ours (identity.sweep_job_name).

It also copies the policy files and the checklist template into the starter (`COPIED`).

`python -m infx.adopt.reusable --check` (a test runs it) or `--write` to refresh.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from infx.config.policy import POLICY_NAMES, policy_path
from infx.plan.identity import ADOPTED_SWEEP_JOB

WORKFLOWS = Path(".github/workflows")
STARTER = Path(__file__).resolve().parent / "starter"
# placeholders `infx init` fills in (never `${{ }}`: they must not look like expressions)
REPOSITORY, REF, VERSION = "@@INFX_REPOSITORY@@", "@@INFX_REF@@", "@@INFX_VERSION@@"


@dataclass(frozen=True)
class Bot:
    """One of our workflows that an adopter calls by reference."""

    stem: str  # our workflow file's stem; the caller keeps it, the reusable is infx-<stem>.yml
    caller_job: str  # the job id of the caller's one job

    @property
    def ours(self) -> Path:
        return WORKFLOWS / f"{self.stem}.yml"

    @property
    def reusable(self) -> Path:
        return WORKFLOWS / f"infx-{self.stem}.yml"

    @property
    def caller(self) -> Path:
        return STARTER / f"{self.stem}.yml"


SWEEP = Bot("run-sweep", ADOPTED_SWEEP_JOB)
TEMPLATE = WORKFLOWS / "benchmark-tmpl.yml"  # the one job each shard job of the sweep runs per row
BOTS = (Bot("signoff-verify", "signoff"), Bot("signoff-head-status", "head-status"),
        Bot("reuse-command", "reuse"), SWEEP)

# the sweep's trusted install: the default branch checked out to `trusted`, installed from there
_TRUSTED_INSTALL = re.compile(
    r"(?P<i> +)- uses: (?P<checkout>actions/checkout@[0-9a-f]{40} # v[\d.]+)\n"
    r"(?P=i)  with:\n"
    r"(?P=i)    persist-credentials: false\n"
    r"(?P=i)    ref: \$\{\{ github\.event\.repository\.default_branch \}\}\n"
    r"(?P=i)    path: trusted\n"
    r"(?P=i)- uses: actions/setup-python@[0-9a-f]{40} # v[\d.]+\n"
    r"(?P=i)  with:\n"
    r"(?P=i)    python-version: \"(?P<python>[\d.]+)\"\n"
    r"(?P=i)- name: Install infx from the default branch\n"
    r"(?P=i)  working-directory: trusted\n"
    r"(?P=i)  run: \|\n"
    r"(?P=i)    python -m pip install [^\n]*-r \.github/requirements-workflows\.txt\n"
    r"(?P=i)    python -m pip install [^\n]* \.\n")

# a shard job of run-sweep.yml (and the canary): a matrix over rows, each calling the template
_TEMPLATE_CALL = re.compile(
    r"^  (?P<id>[\w-]+):\n    name: (?P<name>[^\n$]+)\n(?P<mid>(?:(?!    uses:)    [^\n]*\n)*)"
    r"    uses: \./\.github/workflows/benchmark-tmpl\.yml\n"
    r"    with:\n      config: \$\{\{ toJSON\(matrix\.config\) \}\}\n"
    r"    secrets:\n      HF_TOKEN: \$\{\{ secrets\.HF_TOKEN \}\}\n", re.MULTILINE)

_SHARD_GRANT = "contents: read  # the template checks out the PR (data) and the default branch (its infx)"
_INLINED_GRANT = "contents: read  # check out the PR (data, launcher, recipes) and infx at the pinned commit"

_INSTALL_FROM_INFX = """\
{i}- name: Refuse an infx version that is not a full commit SHA
{i}  env:
{i}    INFX_REPOSITORY: ${{{{ inputs.infx-repository }}}}
{i}    INFX_REF: ${{{{ inputs.infx-ref }}}}
{i}    DEFAULT_BRANCH: ${{{{ github.event.repository.default_branch }}}}
{i}  # a full SHA; only this repository calling its own reusable workflow may name its default branch
{i}  run: |
{i}    if ! [[ "$INFX_REF" =~ ^[0-9a-f]{{40}}$ ]] \\
{i}        && ! [[ "$INFX_REPOSITORY" == "$GITHUB_REPOSITORY" && "$INFX_REF" == "$DEFAULT_BRANCH" ]]; then
{i}      echo "::error::infx-ref must be the full commit SHA of the infx version to run, not '$INFX_REF'"
{i}      exit 1
{i}    fi
{i}- name: Check out infx at the caller's pinned commit
{i}  uses: {checkout}
{i}  with:
{i}    repository: ${{{{ inputs.infx-repository }}}}
{i}    ref: ${{{{ inputs.infx-ref }}}}
{i}    path: .infx
{i}    persist-credentials: false
{i}- uses: ./.infx/.github/actions/install-infx  # zizmor: ignore[self-repository] the infx checkout above
{i}  with:
{i}    python-version: "{python}"
"""

_CALL_INPUTS = """\
on:
  workflow_call:
    inputs:
      infx-repository:
        description: The infx repository (owner/name) whose code runs
        required: true
        type: string
      infx-ref:
        description: Full commit SHA of infx to run (the commit the caller's `uses:` pins); this
          repository's own callers name its default branch instead
        required: true
        type: string
"""


_SWEEP_SECRETS = """\
    secrets:
      HF_TOKEN:
        description: Read-only Hugging Face token for gated model downloads
        required: false
"""


class GenerationError(Exception):
    """Our workflow no longer has the shape the generator rewrites (fail loudly, never guess)."""


def _top_level_block(text: str, key: str) -> str:
    """The text of a top-level `key:` block: its line and the indented or blank lines after it."""
    lines = text.splitlines(keepends=True)
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
    except StopIteration:
        raise GenerationError(f"no top-level `{key}:` block") from None
    end = start + 1
    while end < len(lines) and (lines[end].startswith(" ") or not lines[end].strip()):
        end += 1
    return "".join(lines[start:end]).rstrip("\n") + "\n"


def _template_job(template: str) -> str:
    """The benchmark template's one job without its name and permissions (the shard job has
    them), `inputs.config` read from the shard job's matrix row as the call passed it."""
    try:
        body = template[template.index("\n  benchmark:\n") + len("\n  benchmark:\n"):]
    except ValueError:
        raise GenerationError(f"{TEMPLATE}: no job `benchmark`") from None
    body, named = re.subn(r"\A(?:    #[^\n]*\n)*    name: [^\n]*\n", "", body)
    body, granted = re.subn(r"^    permissions:\n      contents: read[^\n]*\n", "", body, flags=re.MULTILINE)
    if (named, granted) != (1, 1) or re.search(r"^  \S", body, re.MULTILINE):
        raise GenerationError(f"{TEMPLATE}: the job `benchmark` no longer opens with its name, has one "
                              "`permissions: contents: read` and is the only job")
    body = body.replace("fromJSON(inputs.config)", "matrix.config")
    return re.sub(r"(?<![\w.-])inputs\.config\b", "toJSON(matrix.config)", body)


def sweep_reusable_text(ours: str, template: str) -> str:
    """infx-run-sweep.yml from run-sweep.yml's and benchmark-tmpl.yml's text."""
    job = _template_job(template)
    jobs = ours[ours.index("\njobs:\n") + 1:]
    jobs, calls = _TEMPLATE_CALL.subn(
        lambda m: (f"  {m['id']}:\n    name: {m['name']} / ${{{{ matrix.config.job-name }}}}\n"
                   f"{m['mid'].replace(_SHARD_GRANT, _INLINED_GRANT)}{job}"), jobs)
    if not calls or "benchmark-tmpl.yml" in jobs:
        raise GenerationError(f"{SWEEP.ours}: a shard job no longer calls {TEMPLATE.name} in the shape "
                              "the generator inlines")
    jobs, installs = _TRUSTED_INSTALL.subn(lambda m: _INSTALL_FROM_INFX.format(**m.groupdict()), jobs)
    steps_jobs = sum(1 for j in yaml.safe_load(jobs)["jobs"].values() if j.get("steps"))
    if installs != steps_jobs or re.search(r"(path|working-directory): trusted$", jobs, re.MULTILINE):
        raise GenerationError(f"{SWEEP.ours}: {steps_jobs} jobs have steps but {installs} open with the "
                              "trusted install block (or `trusted` is still read)")
    env = _top_level_block(ours, "env")
    header = (f"# GENERATED from {SWEEP.ours} and {TEMPLATE} by `python -m infx.adopt.reusable --write`: edit those.\n"
              f"# The reusable form of {SWEEP.ours.name} for other repositories (README: Adopting infx): the\n"
              f"# same jobs, running the infx version the caller pins; the template's job is inlined into\n"
              "# each shard job (see infx/adopt/reusable.py). `infx init` writes the caller.\n")
    workflow = yaml.safe_load(ours)
    return (f"{header}name: {workflow['name']} (reusable)\n\n{_CALL_INPUTS}{_SWEEP_SECRETS}\n"
            f"permissions: {{}}\n\n# `python -m` in the PR's checkout never imports the PR's own infx\n{env}\n{jobs}")


def _union_permissions(workflow: dict) -> dict[str, str]:
    rank = {"none": 0, "read": 1, "write": 2}
    union: dict[str, str] = {}
    for job in workflow["jobs"].values():
        for scope, level in (job.get("permissions") or {}).items():
            if rank[level] > rank.get(union.get(scope, "none"), 0):
                union[scope] = level
    return dict(sorted(union.items()))


# what this repository's own callers pass: its own default branch's infx (the reusable workflow
# accepts a branch name only from the repository that calls its own reusable workflow)
OWN_REPOSITORY = "${{ github.repository }}"
OWN_REF = "${{ github.event.repository.default_branch }}"


def _own_call(bot: Bot) -> str:
    return f"./{bot.reusable.as_posix()}"


def caller_problems(bot: Bot, ours: str, called: str) -> list[str]:
    """What is wrong with our caller `ours` of the reusable workflow `called` (both as text): it is
    one job `bot.caller_job` calling the local reusable workflow with our repository and default
    branch, granting exactly the union of the called jobs' permissions."""
    workflow, reusable = yaml.safe_load(ours), yaml.safe_load(called)
    jobs = workflow.get("jobs") or {}
    if list(jobs) != [bot.caller_job]:
        return [f"{bot.ours}: has the jobs {sorted(jobs)}, not the one job `{bot.caller_job}` calling {bot.reusable.name}"]
    job = jobs[bot.caller_job]
    problems = []
    if workflow.get("permissions") != {}:
        problems.append(f"{bot.ours}: the workflow grants permissions (write `permissions: {{}}`; the job grants them)")
    if job.get("uses") != _own_call(bot):
        problems.append(f"{bot.ours}: job `{bot.caller_job}` does not call `{_own_call(bot)}`")
    if job.get("with") != {"infx-repository": OWN_REPOSITORY, "infx-ref": OWN_REF}:
        problems.append(f"{bot.ours}: job `{bot.caller_job}` must pass infx-repository: {OWN_REPOSITORY} and "
                        f"infx-ref: {OWN_REF}, and nothing else")
    wanted = _union_permissions(reusable)
    if (job.get("permissions") or {}) != wanted:
        problems.append(f"{bot.ours}: job `{bot.caller_job}` grants {job.get('permissions') or {}}, but the called "
                        f"jobs need exactly {wanted}")
    return problems


def pinned_caller_text(bot: Bot, ours: str) -> str:
    """The adopter's caller: our caller with the call pinned to `infx init`'s placeholders."""
    pinned = ours
    for old, new in ((f"    uses: {_own_call(bot)}\n",
                      f"    uses: {REPOSITORY}/{bot.reusable.as_posix()}@{REF} # {VERSION}\n"),
                     (f"      infx-repository: {OWN_REPOSITORY}\n", f"      infx-repository: {REPOSITORY}\n"),
                     (f"      infx-ref: {OWN_REF}\n", f"      infx-ref: {REF}\n")):
        if pinned.count(old) != 1:
            raise GenerationError(f"{bot.ours}: the line {old.strip()!r} is not there exactly once")
        pinned = pinned.replace(old, new)
    return (f"# Written by `infx init` (infx {VERSION}): infx's own {bot.ours.name}, calling {bot.reusable.name}\n"
            f"# of {REPOSITORY} at a pinned commit. Upgrade with `infx init --force` from a newer infx.\n"
            + pinned)


def _permission_reason(ours: str, scope: str, level: str) -> str:
    """The comment our workflow gives the first job granting `scope: level`."""
    match = re.search(rf"^ +{re.escape(scope)}: {level} +# (.+)$", ours, re.MULTILINE)
    if not match:
        raise GenerationError(f"`{scope}: {level}` has no explanatory comment in our workflow")
    return match.group(1).strip()


def caller_text(bot: Bot, ours: str) -> str:
    """The adopter's workflow that calls the reusable one (placeholders for `infx init`)."""
    workflow = yaml.safe_load(ours)
    perms = _union_permissions(workflow)
    lines = "".join(f"      {scope}: {level}  # {_permission_reason(ours, scope, level)}\n"
                    for scope, level in perms.items())
    permissions = f"    permissions:\n{lines}" if lines else "    permissions: {}\n"
    on_block = _top_level_block(ours, "on")
    # the comment lines right above `on:` say why a privileged trigger is safe: keep them
    preamble = re.search(r"((?:^#.*\n)*)^on:", ours, re.MULTILINE).group(1)
    run_name = re.search(r"^run-name: .*\n", ours, re.MULTILINE)
    # the run's concurrency is the caller's (a called workflow's own group would meet the caller's)
    concurrency = ""
    if "concurrency" in workflow:
        comments = re.search(r"((?:^#.*\n)*)^concurrency:", ours, re.MULTILINE).group(1)
        concurrency = f"{comments}{_top_level_block(ours, 'concurrency')}\n"
    secrets = ""
    if bot == SWEEP:  # the secrets its jobs read, passed on by name
        secrets = "    secrets:\n      HF_TOKEN: ${{ secrets.HF_TOKEN }}\n"
    return (f"# Written by `infx init` (infx {VERSION}): calls {bot.reusable.name} of {REPOSITORY}\n"
            f"# at a pinned commit. Upgrade with `infx init --force` from a newer infx.\n"
            f"name: {workflow['name']}\n{run_name.group(0) if run_name else ''}\n{preamble}{on_block}\n"
            f"{concurrency}permissions: {{}}\n\n"
            f"jobs:\n  {bot.caller_job}:\n"
            f"    uses: {REPOSITORY}/{bot.reusable.as_posix()}@{REF} # {VERSION}\n"
            f"{permissions}"
            f"    with:\n      infx-repository: {REPOSITORY}\n      infx-ref: {REF}\n{secrets}")


# our own files an adopter starts from, copied as they are (repository path -> starter file name)
COPIED = {"PR_REVIEW_CHECKLIST.md": "PR_REVIEW_CHECKLIST.md"} | {
    policy_path(name): f"policy-{name}.yaml" for name in POLICY_NAMES}


def generated(root: Path) -> dict[Path, str]:
    """Every generated file: the reusable workflows under `root`, the starter files in the package."""
    out: dict[Path, str] = {}
    for bot in BOTS:
        ours = (root / bot.ours).read_text(encoding="utf-8")
        if bot == SWEEP:
            out[root / bot.reusable] = sweep_reusable_text(ours, (root / TEMPLATE).read_text(encoding="utf-8"))
            out[bot.caller] = caller_text(bot, ours)
            continue
        problems = caller_problems(bot, ours, (root / bot.reusable).read_text(encoding="utf-8"))
        if problems:
            raise GenerationError("; ".join(problems))
        out[bot.caller] = pinned_caller_text(bot, ours)
    for source, name in COPIED.items():
        out[STARTER / name] = (root / source).read_text(encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infx.adopt.reusable", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail if a generated file is out of date")
    mode.add_argument("--write", action="store_true", help="rewrite the generated files")
    args = parser.parse_args(argv)
    try:
        files = generated(Path.cwd())
    except (GenerationError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stale = [path for path, text in files.items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if args.write:
        for path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(files[path], encoding="utf-8")
        return 0
    for path in stale:
        print(f"error: {path} is out of date: run python -m infx.adopt.reusable --write", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
