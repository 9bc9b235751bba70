"""Pull request files from two trees: statuses, renames, patches and counts."""

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from infx.github.fake.pr_files import full_diff, tree_changes, unified_patch


def test_modified_added_removed():
    base = {"a.txt": "1\n2\n3\n", "gone.txt": "bye\n"}
    head = {"a.txt": "1\ntwo\n3\n", "new.txt": "hi\n"}
    changes = {c.filename: c for c in tree_changes(base, head)}
    assert {k: c.status for k, c in changes.items()} == {
        "a.txt": "modified", "gone.txt": "removed", "new.txt": "added"}
    assert (changes["a.txt"].additions, changes["a.txt"].deletions) == (1, 1)
    assert changes["a.txt"].patch.startswith("@@ -1,3 +1,3 @@")
    assert changes["new.txt"].patch == "@@ -0,0 +1 @@\n+hi"
    assert changes["gone.txt"].deletions == 1


def test_exact_rename_has_previous_filename_and_no_patch():
    text = "same\ncontent\n"
    (change,) = tree_changes({"old/x.md": text}, {"new/x.md": text})
    assert (change.status, change.previous_filename, change.patch) == ("renamed", "old/x.md", "")
    assert change.changes == 0


def test_similar_rename_keeps_the_edit():
    old = "".join(f"line {i}\n" for i in range(20))
    new = old.replace("line 3\n", "line three\n")
    (change,) = tree_changes({"a.yaml": old}, {"b.yaml": new})
    assert change.status == "renamed" and change.previous_filename == "a.yaml"
    assert (change.additions, change.deletions) == (1, 1)


def test_rename_score_is_gits_content_over_the_larger_file():
    """git scores a rename by the content found again (order aside) over the larger size."""
    old = "".join(f"key_{i}: value number {i}\n" for i in range(20))
    reordered = "".join(reversed(old.splitlines(keepends=True)))
    (change,) = tree_changes({"a.yaml": old}, {"b.yaml": reordered})
    assert change.status == "renamed" and change.previous_filename == "a.yaml"
    # the old file inside one three times its size: a third of the larger file is no rename
    grown = old + "".join(f"other_{i}: something else entirely {i}\n" for i in range(40))
    assert sorted(c.status for c in tree_changes({"a.yaml": old}, {"b.yaml": grown})) == [
        "added", "removed"]


def test_each_added_file_pairs_with_its_most_similar_removed_file():
    body = "".join(f"line {i}\n" for i in range(30))
    base = {"old/near.yaml": body.replace("line 3\n", "line III\n"),
            "old/far.yaml": body.replace("line 3\n", "x\n").replace("line 4\n", "y\n")
            .replace("line 5\n", "z\n")}
    changes = {c.filename: c for c in tree_changes(base, {"new/a.yaml": body})}
    assert changes["new/a.yaml"].previous_filename == "old/near.yaml"
    assert changes["old/far.yaml"].status == "removed"


def test_dissimilar_files_are_add_plus_remove():
    changes = tree_changes({"a": "alpha beta gamma\n"}, {"b": "0123456789\n"})
    assert sorted(c.status for c in changes) == ["added", "removed"]


def test_unchanged_trees_have_no_changes():
    assert tree_changes({"a": "x"}, {"a": "x"}) == []


def test_full_diff_has_git_headers():
    text = full_diff(tree_changes({"a": "1\n", "r": "x\n"}, {"a": "2\n", "n": "new\n", "r2": "x\n"}))
    assert "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@" in text
    assert "rename from r\nrename to r2" in text
    assert "new file mode 100644\n--- /dev/null\n+++ b/n" in text


lines = st.lists(st.sampled_from(["a", "b", "c", "d", ""]), max_size=12)


@settings(max_examples=100, deadline=None)
@given(lines, lines)
def test_counts_match_an_independent_line_diff(old, new):
    old_text, new_text = "\n".join(old), "\n".join(new)
    patch, additions, deletions = unified_patch(old_text, new_text)
    ops = difflib.SequenceMatcher(None, old_text.splitlines(), new_text.splitlines()).get_opcodes()
    assert additions == sum(j2 - j1 for tag, _, _, j1, j2 in ops if tag in ("insert", "replace"))
    assert deletions == sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag in ("delete", "replace"))
    assert (patch == "") == (old_text.splitlines() == new_text.splitlines())
