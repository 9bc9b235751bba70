"""infx.signoff.trigger.binding over GitHub's own answers: which PR a sign-off is on, who may dispatch
its re-verification, and whether a later head inherits it (the PR's own changes, patch by patch)."""

from __future__ import annotations

import re

from infx.github.models import Comment, WorkflowRun
from infx.signoff.evidence import changed_file
from infx.signoff.model import unposted
from infx.signoff.trigger import binding

A, B, C = "a" * 40, "b" * 40, "c" * 40

# a PR's change as GitHub's pulls/files and compare answers list it
RECIPE_PATCH = ("@@ -10,7 +10,8 @@ serve() {\n   --tp 8 \\\n-  --max-num-seqs 256\n"
                "+  --max-num-seqs 512\n+  --enable-prefix-caching\n }\n")
README_PATCH = "@@ -1,2 +1,3 @@\n # InferenceX\n+One more line.\n"


def files(*items: dict) -> list:
    return [changed_file(item) for item in items]


def recipe(patch: str = RECIPE_PATCH, **extra: object) -> dict:
    return {"filename": "benchmarks/sglang/dsr1_fp4.sh", "status": "modified", "additions": 2,
            "deletions": 1, "changes": 3, "patch": patch, **extra}


def readme(patch: str = README_PATCH) -> dict:
    return {"filename": "README.md", "status": "modified", "additions": 1, "deletions": 0,
            "changes": 1, "patch": patch}


def shifted(patch: str, by: int) -> str:
    """The same change further down the file: what a merge of the default branch that adds
    lines above it does to the PR's diff (only the hunk headers move)."""
    return re.sub(r"^@@ -(\d+),(\d+) \+(\d+),(\d+) @@",
                  lambda m: f"@@ -{int(m[1]) + by},{m[2]} +{int(m[3]) + by},{m[4]} @@", patch,
                  flags=re.MULTILINE)


# --- which PR, which dispatcher ---------------------------------------------------------------


def on(data: dict, repo: str, kind: str = "issue_comment") -> int | None:
    """The PR of `repo` GitHub's answer for a comment of `kind` names (binding.signoff_pr)."""
    return binding.signoff_pr(Comment.from_json({"id": 1, **data}, kind), repo)


def test_a_comment_is_on_the_pr_its_issue_url_names() -> None:
    comment = {"id": 9, "issue_url": "https://api.github.com/repos/SemiAnalysisAI/InferenceX/issues/3412",
               "html_url": "https://github.com/SemiAnalysisAI/InferenceX/pull/3412#issuecomment-9"}
    assert on(comment, "semianalysisai/inferencex") == 3412
    review = {"id": 10, "pull_request_url": "https://api.github.com/repos/SemiAnalysisAI/InferenceX/pulls/77"}
    assert on(review, "SemiAnalysisAI/InferenceX", "review") == 77
    assert on(review, "SemiAnalysisAI/InferenceX", "review_comment") == 77


def test_a_comment_of_another_repository_or_without_a_url_names_no_pr() -> None:
    other = {"issue_url": "https://api.github.com/repos/fork/InferenceX/issues/3412"}
    assert Comment.from_json({"id": 1, **other}).issue_number == 3412  # the model keeps it ...
    assert on(other, "SemiAnalysisAI/InferenceX") is None  # ... binding sees it is another repo's
    assert on({}, "o/r") is None
    for url in ("https://api.github.com/repos/o/r/issues/4/comments",  # not the issue itself
                "https://api.github.com/repos/o/r/issues/",  # no number
                "https://api.github.com/repos/o/r/commits/4",
                "https://api.github.com/repos//r/issues/4",
                "https://api.github.com/repos/o/r/x/issues/4"):
        assert on({"issue_url": url}, "o/r") is None, url
    assert on({"issue_url": "https://api.github.com/repos/o/r/issues/1234"}, "o/r") == 1234
    assert binding.signoff_pr(unposted("alice", "draft"), "o/r") is None  # a draft is on no PR


def test_only_a_reviews_commit_is_the_head_it_was_signed_on() -> None:
    answer = {"commit_id": A, "original_commit_id": B}
    assert binding.reviewed_head(Comment.from_json({"id": 1, **answer}, "review")) == A
    assert binding.reviewed_head(Comment.from_json({"id": 1, **answer}, "review_comment")) is None
    assert binding.reviewed_head(Comment.from_json({"id": 1, **answer})) is None
    assert binding.reviewed_head(Comment.from_json({"id": 1}, "review")) is None


def test_a_signoff_belongs_only_to_its_own_pr() -> None:
    assert binding.belongs_problem(12, 12, "comment 5") is None
    problem = binding.belongs_problem(11, 12, "comment 5")
    assert problem == ("comment 5 is on PR #11, not on PR #12: a sign-off only speaks for the PR it "
                       "was posted on")
    assert "is on no pull request of this repository, not on PR #12" in binding.belongs_problem(None, 12, "x")


def test_a_reverification_is_dispatched_by_the_signer_or_a_maintainer_or_admin() -> None:
    assert binding.dispatch_problem("Alice", "alice", None) is None
    assert binding.dispatch_problem("alice", "ALICE", {"permission": "write", "role_name": "write"}) is None
    for role in ("maintain", "admin"):
        assert binding.dispatch_problem("bob", "alice", {"permission": "admin", "role_name": role}) is None
    for record, shown in (({"permission": "write", "role_name": "write"}, "write"),
                          ({"permission": "write", "role_name": "triage"}, "triage"),
                          ({"permission": "admin", "role_name": None}, "no"), (None, "no")):
        problem = binding.dispatch_problem("bob", "alice", record)
        assert problem == (f"bob has {shown} access and is not the signer (@alice); a re-verification "
                           "of a sign-off is dispatched by its signer or by a maintainer or admin")


# --- which head ---------------------------------------------------------------------------------


def runs(*items: tuple[int, str, str]) -> list:
    return [WorkflowRun.from_json({"id": i, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
                          "event": "pull_request", "status": "completed", "conclusion": "success",
                          "head_sha": sha, "head_branch": "carol/bump", "created_at": when,
                          "head_repository": {"full_name": "o/r"}}) for i, sha, when in items]


def test_decide_binds_to_the_head_of_the_newest_run_before_the_signoff() -> None:
    branch = runs((1, A, "2026-09-29T10:00:00Z"), (2, B, "2026-09-29T12:00:00Z"))
    kwargs = {"runs": branch, "head": B, "head_ref": "carol/bump", "head_repo": "o/r",
              "timeline": [{"event": "committed", "sha": A}, {"event": "committed", "sha": B}]}
    same = binding.decide(posted_at="2026-09-29T12:30:00Z", head_files=None, signed_files=None, **kwargs)
    assert (same.covered, same.seen) == (True, B)
    assert same.reason == f"the sign-off was posted on the assessed head {B[:12]}"
    assert same.carried_from == B
    earlier = binding.decide(posted_at="2026-09-29T11:00:00Z", head_files=None, signed_files=None, **kwargs)
    assert (earlier.covered, earlier.seen, earlier.carried_from) == (False, A, None)
    assert earlier.reason == (f"the sign-off was posted when the PR head was {A[:12]}; the PR's changes "
                              f"then and now could not be compared; {binding.NEW_SIGNOFF}")
    none = binding.decide(posted_at="2026-09-29T09:00:00Z", head_files=None, signed_files=None, **kwargs)
    assert (none.covered, none.seen, none.carried_from) == (False, None, None)
    assert none.reason.startswith("the head the sign-off covers is unknown: no pull_request workflow "
                                  "run was created before it")
    merged = binding.decide(posted_at="2026-09-29T11:00:00Z", head_files=files(recipe()),
                            signed_files=files(recipe()), **kwargs)
    assert (merged.covered, merged.carried_from) == (True, A)


def test_carried_from_needs_coverage_and_a_known_head() -> None:
    assert binding.Binding(True, "r", A).carried_from == A
    assert binding.Binding(False, "r", A).carried_from is None
    assert binding.Binding(True, "r").carried_from is None


# --- what a later head inherits -----------------------------------------------------------------


def test_the_same_head_is_covered_whatever_the_files() -> None:
    bound = binding.inherits(A, A, None, None)
    assert bound.covered and bound.seen == A


def test_a_plain_merge_of_the_default_branch_inherits() -> None:
    """The merge adds lines above the PR's hunks: the patches keep their text, only the hunk
    headers' line numbers move, in every hunk of the file."""
    two_hunks = RECIPE_PATCH + "@@ -40,3 +41,3 @@ bench() {\n-  --num-prompts 100\n+  --num-prompts 200\n }\n"
    signed = files(recipe(two_hunks), readme())
    head = files(readme(shifted(README_PATCH, 3)), recipe(shifted(two_hunks, 12)))
    changed_since = {"benchmarks/sglang/dsr1_fp4.sh": inserted_on_top(12), "README.md": inserted_on_top(3),
                     "other.txt": "@@ -1 +1 @@\n-a\n+b\n"}
    bound = binding.inherits(A, B, head, signed, changed_since)
    assert bound.covered and bound.carried_from == A
    assert bound.reason == (f"carried from {A[:12]}: the PR's own changes (its diff against the merge "
                            "base, path by path) are identical to what was signed")
    # Windows line ends in one answer only do not make a change either
    assert binding.inherits(A, B, files(recipe(two_hunks.replace("\n", "\r\n"))),
                            files(recipe(two_hunks))).covered


def test_a_new_change_of_the_author_is_not_inherited() -> None:
    signed = files(recipe(), readme())
    for head, named in ((files(recipe(RECIPE_PATCH.replace("512", "4096")), readme()), "benchmarks/sglang/dsr1_fp4.sh"),
                        (files(recipe(), readme(), readme() | {"filename": "docs/x.md"}), "docs/x.md"),
                        (files(recipe()), "README.md"),
                        (files(recipe(status="added"), readme()), "benchmarks/sglang/dsr1_fp4.sh")):
        bound = binding.inherits(A, B, head, signed)
        assert not bound.covered and bound.carried_from is None, named
        assert bound.reason == (f"the sign-off was posted when the PR head was {A[:12]}; since then the "
                                f"PR's own changes differ in {named}; {binding.NEW_SIGNOFF}")


def test_a_header_like_text_inside_a_changed_line_is_content_not_a_hunk_header() -> None:
    signed = files(recipe(RECIPE_PATCH + "+echo '@@ -1,2 +1,2 @@'\n"))
    head = files(recipe(RECIPE_PATCH + "+echo '@@ -7,2 +7,2 @@'\n"))
    assert not binding.inherits(A, B, head, signed).covered


def test_a_hunk_header_with_its_section_heading_changed_is_a_change() -> None:
    """Only the numbers are dropped: the function heading GitHub prints after the header is
    the file's own text (a renamed function above the hunk is a change)."""
    head = files(recipe(RECIPE_PATCH.replace("serve() {", "serve_v2() {")))
    assert not binding.inherits(A, B, head, files(recipe())).covered
    assert binding.normalised_patch("@@ -1 +1 @@\n-a\n+b\n@@ -5,2 +5 @@ f()\n x\n") == "@@\n-a\n+b\n@@ f()\n x\n"


def test_more_paths_differing_than_shown_are_counted() -> None:
    signed = files(*(readme() | {"filename": f"docs/{i}.md"} for i in range(5)))
    head = files(*(readme(README_PATCH + "+x\n") | {"filename": f"docs/{i}.md"} for i in range(6)))
    reason = binding.inherits(A, B, head, signed).reason
    assert "differ in docs/0.md, docs/1.md, docs/2.md, docs/3.md, docs/4.md and 1 more;" in reason
    head = files(*(readme(README_PATCH + "+x\n") | {"filename": f"docs/{i}.md"} for i in range(5)))
    reason = binding.inherits(A, B, head, signed).reason
    assert "differ in docs/0.md, docs/1.md, docs/2.md, docs/3.md, docs/4.md; " in reason


def test_a_path_without_a_patch_is_never_proven_identical() -> None:
    """GitHub leaves `patch` out for binary files and very large diffs."""
    binary = {"filename": "docs/plot.png", "status": "modified", "additions": 0, "deletions": 0,
              "changes": 0}
    for signed, head in ((files(recipe(), binary), files(recipe(), binary)),
                         (files(recipe()), files(recipe(), binary)),
                         (files(recipe(), binary), files(recipe()))):
        bound = binding.inherits(A, B, head, signed)
        assert not bound.covered
        assert bound.reason == (f"the sign-off was posted when the PR head was {A[:12]}; GitHub gives "
                                "no patch for docs/plot.png, so the changes cannot be proven identical; "
                                f"{binding.NEW_SIGNOFF}")
    many = [changed_file(binary | {"filename": f"bin/{i}.png"}) for i in range(5)]
    reason = binding.inherits(A, B, many, []).reason
    assert "no patch for bin/0.png, bin/1.png, bin/2.png, so" in reason


def test_a_pure_rename_compares_by_its_names() -> None:
    """A rename without content change has no patch but nothing to compare inside; a rename
    with changes but no patch (too large) is unknown; renamed from elsewhere is a change."""
    moved = {"filename": "benchmarks/new.sh", "previous_filename": "benchmarks/old.sh",
             "status": "renamed", "additions": 0, "deletions": 0, "changes": 0}
    assert binding.inherits(A, B, files(moved, readme()), files(readme(), moved)).covered
    changes, unknown = binding.own_changes(files(moved))
    assert changes == {"benchmarks/new.sh": ("renamed", "benchmarks/old.sh", "")} and unknown == []
    elsewhere = moved | {"previous_filename": "benchmarks/other.sh"}
    bound = binding.inherits(A, B, files(elsewhere), files(moved))
    assert not bound.covered and "differ in benchmarks/new.sh;" in bound.reason
    for big in (moved | {"additions": 4}, moved | {"deletions": 4}):
        _, unknown = binding.own_changes(files(big))
        assert unknown == ["benchmarks/new.sh"]
    # a mode change has no patch either, and is not a rename: unknown
    mode = {"filename": "runners/launch.sh", "status": "modified", "additions": 0, "deletions": 0}
    assert binding.own_changes(files(mode)) == ({}, ["runners/launch.sh"])
    # several paths: every one is kept, the unknown ones listed in order
    changes, unknown = binding.own_changes(files(mode, moved, recipe(), mode | {"filename": "z.sh"}))
    assert sorted(changes) == ["benchmarks/new.sh", "benchmarks/sglang/dsr1_fp4.sh"]
    assert unknown == ["runners/launch.sh", "z.sh"]


def test_changed_paths_lists_every_differing_path_sorted() -> None:
    signed = files(readme() | {"filename": "z.md"}, readme() | {"filename": "a.md"}, recipe())
    head = files(readme(README_PATCH + "+x\n") | {"filename": "z.md"}, recipe(),
                 readme(README_PATCH + "+y\n") | {"filename": "a.md"})
    assert binding.changed_paths(signed, head) == ["a.md", "z.md"]
    assert binding.changed_paths(signed, list(reversed(signed))) == []


def test_a_diff_as_long_as_the_compare_limit_cannot_be_compared() -> None:
    """GitHub's compare lists at most 300 files: a list of 300 may be cut short."""
    signed = [changed_file(readme() | {"filename": f"docs/{i}.md"}) for i in range(binding.COMPARE_FILE_LIMIT)]
    bound = binding.inherits(A, B, signed, signed)
    assert not bound.covered
    assert bound.reason == (f"the sign-off was posted when the PR head was {A[:12]}; its diff lists 300 "
                            f"files, more than can be compared; {binding.NEW_SIGNOFF}")
    assert binding.inherits(A, B, signed[:-1], signed[:-1]).covered
    assert not binding.inherits(A, B, None, signed[:1]).covered
    assert not binding.inherits(A, B, signed[:1], None).covered


def inserted_on_top(lines: int) -> str:
    """The default branch's patch of a file that adds ``lines`` lines at its top."""
    return f"@@ -0,0 +1,{lines} @@\n" + "".join(f"+line {n}\n" for n in range(lines))


def test_the_same_change_at_other_lines_is_inherited_only_where_the_default_branch_moved_it() -> None:
    """A change of the same text at other lines is the merge's doing only where the default
    branch's change of the file between the two merge bases moves those lines by exactly that
    much; elsewhere the change itself moved (to another block of the same lines, say)."""
    signed = files(recipe(), readme())
    head = files(recipe(shifted(RECIPE_PATCH, 20)), readme())
    unread = binding.inherits(A, B, head, signed)
    assert not unread.covered and unread.moved == ("benchmarks/sglang/dsr1_fp4.sh",)
    assert "is the same text at other lines of the file, what the default branch changed since could not be read" \
        in unread.reason
    recipe_path = "benchmarks/sglang/dsr1_fp4.sh"
    for changes in ({"README.md": inserted_on_top(20)},  # another file
                    {recipe_path: inserted_on_top(19)},  # moves it by another amount
                    {recipe_path: "@@ -900,0 +901,20 @@\n" + "+x\n" * 20},  # below it: moves nothing
                    {recipe_path: None}):  # no patch given
        moved = binding.inherits(A, B, head, signed, changes)
        assert not moved.covered and moved.moved == (), changes
        assert moved.reason == (f"the sign-off was posted when the PR head was {A[:12]}; the PR's change to "
                                f"{recipe_path} is the same text at other lines of the file, where the default "
                                "branch's change of the file since does not move it: the change itself moved; "
                                f"{binding.NEW_SIGNOFF}")
    assert binding.inherits(A, B, head, signed, {recipe_path: inserted_on_top(20)}).covered
    # at the same lines nothing needs to be read
    same = binding.inherits(A, B, files(recipe(), readme()), signed)
    assert same.covered and same.moved == ()


def test_a_default_branch_change_of_the_lines_themselves_moves_nothing() -> None:
    """Lines the default branch removed or added between are not lines moved around the change."""
    start = binding.hunk_ranges(RECIPE_PATCH)[0][0]
    for touching in (f"@@ -{start + 1},1 +{start + 1},1 @@\n-old\n+new\n",  # one of its lines replaced
                     f"@@ -{start},0 +{start + 1},2 @@\n+a\n+b\n"):  # lines added between its lines
        assert binding.inherits(A, B, files(recipe(shifted(RECIPE_PATCH, 2)), readme()),
                                files(recipe(), readme()), {"benchmarks/sglang/dsr1_fp4.sh": touching}).covered is False


def test_hunk_positions_are_the_headers() -> None:
    patch = "@@ -1,3 +1,4 @@ a\n x\n+y\n@@ -40 +41 @@\n-p\n+q\n"
    assert binding.hunk_positions(patch) == ("@@ -1,3 +1,4 @@", "@@ -40 +41 @@")
    assert binding.hunk_positions(patch.replace("\n", "\r\n")) == binding.hunk_positions(patch)
    assert binding.hunk_positions(None) == ()
