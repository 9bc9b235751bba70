"""Additions extracted from a unified diff."""

from __future__ import annotations

import pytest

from infx.changelog.diff import added_text, additions
from infx.errors import InfxError

DIFF = """diff --git a/perf-changelog.yaml b/perf-changelog.yaml
index 1..2 100644
--- a/perf-changelog.yaml
+++ b/perf-changelog.yaml
@@ -5,0 +6,3 @@
+
+- config-keys:
+    - k
@@ -20,0 +24,1 @@
+  pr-link: XXX
"""


def test_added_lines_across_hunks():
    assert added_text(DIFF, "perf-changelog.yaml") == "\n- config-keys:\n    - k\n  pr-link: XXX"


def test_deleted_blank_lines_are_tolerated():
    diff = DIFF + "@@ -30,1 +30,0 @@\n-   \n-\n"
    assert added_text(diff, "p").endswith("pr-link: XXX")


def test_deleted_content_is_an_error_quoting_the_line():
    diff = DIFF + "@@ -30,1 +30,0 @@\n-  pr-link: https://x/pull/1798\n"
    with pytest.raises(InfxError) as caught:
        added_text(diff, "perf-changelog.yaml")
    assert caught.value.problems[0].line == 30
    assert caught.value.problems[0].message.startswith(
        "Deletions are not allowed in perf-changelog.yaml. Only additions "
        "to the changelog are permitted. Found deleted line:   pr-link: https://x/pull/1798")


def test_empty_diff_has_no_additions():
    assert added_text("", "p") == ""


def test_added_lines_know_their_head_line_numbers():
    found = additions(DIFF, "p")
    assert found.lines == (6, 7, 8, 24)
    assert found.file_line(4) == 24 and found.file_line(9) == 24
    assert found.file_line(0) is None
    context = "@@ -1,2 +1,3 @@\n a\n+b\n c\n+d\n"
    assert additions(context, "p").lines == (2, 4)
