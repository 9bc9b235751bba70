"""Red team 21: the head a command was posted on when runs do not record push times
(posted_head.head_seen), and launch text the line readers misjudge after today's changes
(Check chat's raw setting after the chat one, Check draft's quoted comments)."""

from __future__ import annotations

import pytest
from lib.chat_scripts import chat_status

from infx.github.models import WorkflowRun
from infx.reuse.posted_head import HeadSeen, binding_problem, head_seen
from infx.signoff.checks.draft import _lowers_draft
from infx.signoff.model import Status

# --- head_seen: a run-bearing later commit is not proof it was pushed after the command ----------

S, X, Y = "5" * 40, "9" * 40, "7" * 40  # swept-and-evil, reviewed-and-honest, evil again
BRANCH, REPO = "mallory/bump", "acme/inferencex"
POSTED = "2026-09-29T11:00:00Z"
ENTRY = "- config-keys: [k]\n  description: [{}]\n  pr-link: XXX\n"
TREES = {S: {"perf-changelog.yaml": ENTRY.format("one"), "runners/launch_x.sh": "serve --fake\n"},
         X: {"perf-changelog.yaml": ENTRY.format("one"), "runners/launch_x.sh": "serve\n"},
         Y: {"perf-changelog.yaml": ENTRY.format("one"), "runners/launch_x.sh": "serve --fake\n"},
         "base": {}}


def _run(i: int, sha: str, created: str) -> WorkflowRun:
    return WorkflowRun(id=i, event="pull_request", status="completed", conclusion="success", head_sha=sha,
                       head_branch=BRANCH, created_at=created, head_repo=REPO)


PARENT = {S: "base", X: S, Y: X}  # pushed in this order: S, then X, then Y


def _committed(sha: str) -> dict:
    return {"event": "committed", "sha": sha, "message": "change", "parents": [{"sha": PARENT[sha]}]}


def _seen(runs, timeline) -> HeadSeen:
    return head_seen(runs, POSTED, branch=BRANCH, head_repo=REPO, timeline=timeline)


def _bound(found: HeadSeen) -> str | None:
    return binding_problem(comment_ref="/use 5 (comment 7 by root)", seen=found.sha, head=Y,
                           pr_commits=(S, X, Y), base="base", tree=TREES.__getitem__, unknown=found.problem,
                           later=found.later)


def test_control_a_run_less_head_between_runs_is_unknown():
    """X pushed with no run (the PR's workflows at X do not listen to synchronize), the
    maintainer posts on X, Y is pushed with a run: X is one of the heads the command may bind."""
    runs = [_run(1, S, "2026-09-29T10:00:00Z"), _run(3, Y, "2026-09-29T12:00:00Z")]
    found = _seen(runs, [_committed(S), _committed(X), _committed(Y)])
    assert found.later == (X, Y)
    assert "such as 999999999999" in _bound(found)


def test_a_head_whose_first_run_came_after_the_command_is_not_skipped():
    runs = [_run(1, S, "2026-09-29T10:00:00Z"), _run(2, X, "2026-09-29T11:30:00Z"),
            _run(3, Y, "2026-09-29T12:00:00Z")]
    found = _seen(runs, [_committed(S), _committed(X), _committed(Y)])
    assert found.later == (X, Y)  # X may have been the head: it was (its only run is after POSTED)
    assert "such as 999999999999" in _bound(found)


def test_a_back_dated_run_less_head_is_not_before_the_run():
    runs = [_run(1, S, "2026-09-29T10:00:00Z"), _run(3, Y, "2026-09-29T12:00:00Z")]
    found = _seen(runs, [_committed(X), _committed(S), _committed(Y)])
    assert found.later == (X, Y)  # listed first, X still descends from S
    assert "such as 999999999999" in _bound(found)


# --- Check chat: the raw override given through a variable, not as a literal on the line --------

@pytest.mark.parametrize("client", [
    'ARGS=(--backend openai --endpoint /v1/completions)\n'
    'vllm bench serve --backend openai-chat --endpoint /v1/chat/completions "${ARGS[@]}" --model x\n',
    'RB=openai\nRAW_EP=/v1/completions\n'
    'vllm bench serve --backend openai-chat --endpoint /v1/chat/completions --backend "$RB" '
    '--endpoint "$RAW_EP" --model x\n',
])
def test_a_raw_override_through_a_variable_is_raw(client):
    assert chat_status(client) == Status.FAIL


def test_control_the_literal_override_is_raw():
    assert chat_status("vllm bench serve --backend openai-chat --endpoint /v1/chat/completions "
                       "--backend openai --endpoint /v1/completions --model x\n") == Status.FAIL


# --- Check draft: code that strip_quoted_comments takes for a quoted comment -----------------------

@pytest.mark.parametrize("patch", [
    'sed -i "s/ #x/y/; s/draft_dtype = None/draft_dtype = torch.float8_e4m3fn\\n/" eagle.py',
    'f.write("    tag = \' #\'; self.draft_dtype = torch.float8_e4m3fn\\n")',
    'printf \'x=" #"; draft_dtype=fp8\\n\' >> eagle.py',
])
def test_draft_dtype_code_after_a_quoted_hash_lowers_the_draft(patch):
    assert _lowers_draft(patch)


def test_control_the_plain_draft_dtype_rewrite_lowers_the_draft():
    assert _lowers_draft('sed -i "s/draft_dtype = None/draft_dtype = torch.float8_e4m3fn/" eagle.py')
