"""CODEOWNERS semantics: GitHub's documented examples, edge cases and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.signoff.trigger import codeowners

# (pattern, path, matches) — the examples from GitHub's "About code owners" page
DOC_EXAMPLES = [
    ("*", "README.md", True),
    ("*", "deep/nested/file.py", True),
    ("*.js", "app.js", True),
    ("*.js", "src/web/app.js", True),
    ("*.js", "src/web/app.ts", False),
    ("/build/logs/", "build/logs/today.log", True),
    ("/build/logs/", "build/logs/2026/09/x.log", True),
    ("/build/logs/", "other/build/logs/x.log", False),
    ("/build/logs/", "build/logs", False),  # a trailing slash matches directories only
    ("docs/*", "docs/getting-started.md", True),
    ("docs/*", "docs/build-app/troubleshooting.md", False),
    ("apps/", "apps/web/index.js", True),
    ("apps/", "services/apps/x.py", True),
    ("/docs/", "docs/a/b.md", True),
    ("/docs/", "src/docs/a.md", False),
    ("**/logs", "build/logs/x", True),
    ("**/logs", "scripts/logs/y", True),
    ("**/logs", "deeply/nested/logs/z", True),
    ("**/logs", "logs/top.log", True),
    ("/apps/github", "apps/github/x.rb", True),
    ("/apps/github", "apps/github", True),
    ("/apps/github", "apps/githubber/x.rb", False),
    ("MODELS.md", "MODELS.md", True),
    ("MODELS.md", "docs/MODELS.md", True),
    ("configs/amd-master.yaml", "configs/amd-master.yaml", True),
    ("configs/amd-master.yaml", "x/configs/amd-master.yaml", False),
    ("src/**/test", "src/test/a.py", True),
    ("src/**/test", "src/a/b/test/c.py", True),
    ("data/**", "data/x/y.csv", True),
    ("file?.txt", "file1.txt", True),
    ("file?.txt", "file10.txt", False),
    ("Docs/", "docs/x.md", False),  # paths are case-sensitive
]


@pytest.mark.parametrize("pattern,path,expected", DOC_EXAMPLES)
def test_documented_pattern_semantics(pattern: str, path: str, expected: bool) -> None:
    rule = codeowners.parse(f"{pattern} @owner\n").rules[0]
    assert rule.matches(path) is expected


DOC_FILE = """\
# This is a comment.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
"""


@pytest.mark.parametrize("path,owners", [
    ("README.md", ("@global-owner1", "@global-owner2")),
    ("src/app.js", ("@js-owner",)),
    ("main.go", ("docs@example.com",)),
    ("notes.txt", ("@octo-org/octocats",)),
    ("scripts/run.sh", ("@doctocat", "@octocat")),
    ("apps/web/x.py", ("@octocat",)),
    ("apps/github/x.py", ()),  # a matching line without owners means: no owner
    ("docs/readme.js", ("@doctocat",)),  # the later /docs/ line wins over *.js
])
def test_last_matching_line_wins_on_the_documented_file(path: str, owners: tuple) -> None:
    assert codeowners.parse(DOC_FILE).owners_for(path) == owners


def test_inline_comment_is_not_an_owner() -> None:
    assert codeowners.parse(DOC_FILE).owners_for("x.js") == ("@js-owner",)


@pytest.mark.parametrize("line,problem", [
    ("!docs/ @a", "negation"),
    ("docs/[ab].md @a", "character ranges"),
    ("\\#file @a", "escaping"),
    ("docs/ not-an-owner", "invalid owner"),
])
def test_unsupported_lines_are_skipped_and_reported(line: str, problem: str) -> None:
    parsed = codeowners.parse(f"* @core\n{line}\n")
    assert len(parsed.rules) == 1
    assert problem in parsed.errors[0].message and parsed.errors[0].line == 2


def test_catch_all_detection_and_owner_set() -> None:
    parsed = codeowners.parse("* @Org/Core\nconfigs/amd-master.yaml @Alice @org/amd\n")
    assert parsed.rules[0].is_catch_all and not parsed.rules[1].is_catch_all
    assert parsed.all_owners() == {"@org/core", "@alice", "@org/amd"}
    assert parsed.rule_for("nowhere/else.py").line == 1


def test_teams_are_listed_catch_all_first_then_in_file_order() -> None:
    parsed = codeowners.parse("a/ @Org/A @bob\n* @org/Core\nb/ @org/b @org/a\n/* @org/top\n")
    assert parsed.teams() == ("org/core", "org/a", "org/b", "org/top")
    assert codeowners.parse("* @alice\n/docs/ @bob\n").teams() == ()
    assert parsed.rule_for("README.md").pattern == "/*" and not parsed.rule_for("README.md").is_catch_all
    assert parsed.rule_for("x/README.md").is_catch_all


def test_upstream_file_assigns_the_amd_owners(upstream_dir) -> None:
    parsed = codeowners.parse((upstream_dir / "CODEOWNERS").read_text())
    assert "@chunfangamd" in parsed.owners_for("configs/amd-master.yaml")
    assert parsed.rule_for("utils/foo.py").is_catch_all
    assert parsed.owners_for("experimental/operatorx/x/y.py") == ("@hbarclay",)


def test_our_own_codeowners_parses_cleanly(repo_root) -> None:
    parsed = codeowners.parse((repo_root / "CODEOWNERS").read_text())
    assert not parsed.errors
    assert parsed.rule_for("configs/amd-master.yaml").owners[-1].endswith("mi355x-owners")
    assert parsed.rule_for("infx/signoff/verdict.py").pattern == "/infx/signoff/"


segment = st.text(alphabet="abcxyz019_-", min_size=1, max_size=6)
paths = st.lists(segment, min_size=1, max_size=5).map("/".join)


@settings(max_examples=100, deadline=None)
@given(paths)
def test_a_literal_path_owns_itself_and_the_catch_all_owns_everything(path: str) -> None:
    parsed = codeowners.parse(f"* @core\n/{path} @owner\n")
    assert parsed.owners_for(path) == ("@owner",)
    assert codeowners.parse("* @core\n").owners_for(path) == ("@core",)


@settings(max_examples=100, deadline=None)
@given(paths, paths)
def test_a_directory_pattern_owns_everything_below_it(directory: str, rest: str) -> None:
    parsed = codeowners.parse(f"/{directory}/ @team\n")
    assert parsed.owners_for(f"{directory}/{rest}") == ("@team",)
    assert parsed.owners_for(directory) == ()


@settings(max_examples=100, deadline=None)
@given(paths, st.permutations(["* @a", "*.py @b", "/src/ @c"]))
def test_the_winner_is_always_the_last_matching_line(path: str, lines: list[str]) -> None:
    parsed = codeowners.parse("\n".join(lines) + "\n")
    matching = [r for r in parsed.rules if r.matches(path + ".py")]
    assert parsed.rule_for(path + ".py") == matching[-1]


# --- differential test against an independent implementation (PyPI `codeowners`) ----------

oracle = pytest.importorskip("codeowners", reason="test dependency 'codeowners' is missing")

# The spaces both differential tests draw from; benchmarks/bench_codeowners_oracle.py draws
# 100,000 more pairs and files from the same spaces (the suite runs 600 and 200)
GLOB_SEGMENTS = ("a", "b", "a.js", "src", "*", "**", "*.js", "?", "a*", "*b", "x?z")
PATH_SEGMENTS = ("a", "b", "a.js", "src", "xyz", "b.js", "ab")
OWNERS = ("@a", "@b", "@org/c", "d@example.com")
glob_segment = st.sampled_from(GLOB_SEGMENTS)
patterns = st.builds(lambda lead, segs, trail: lead + "/".join(segs) + trail,
                     st.sampled_from(["", "/"]), st.lists(glob_segment, min_size=1, max_size=4),
                     st.sampled_from(["", "/"]))
path_segment = st.sampled_from(PATH_SEGMENTS)
tree_paths = st.lists(path_segment, min_size=1, max_size=5).map("/".join)


def oracle_owners(text: str, path: str) -> tuple[str, ...]:
    return tuple(owner for _, owner in oracle.CodeOwners(text).of(path))


@pytest.mark.parametrize("pattern", ["**", "/**", "*", "/*"])
def test_catch_all_patterns_match_every_file(pattern: str) -> None:
    rule = codeowners.parse(f"{pattern} @core\n").rules[0]
    # `/*` owns top-level files only: a line for them, not a catch-all
    assert rule.is_catch_all == (pattern != "/*")
    for path in ("README.md", "a/b/c.py", "configs/amd-master.yaml"):
        assert rule.matches(path) == (pattern not in ("/*",) or "/" not in path)
        assert rule.matches(path) == bool(oracle_owners(f"{pattern} @core", path))


@settings(max_examples=600, deadline=None)
@given(patterns, tree_paths)
def test_patterns_agree_with_the_oracle(pattern: str, path: str) -> None:
    ours = codeowners.parse(f"{pattern} @o\n").rules[0].matches(path)
    assert ours == bool(oracle_owners(f"{pattern} @o", path)), (pattern, path)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(patterns, st.sampled_from(OWNERS)),
                min_size=1, max_size=6), tree_paths)
def test_whole_files_agree_with_the_oracle(lines: list[tuple[str, str]], path: str) -> None:
    text = "\n".join(f"{pattern} {owner}" for pattern, owner in lines) + "\n"
    assert codeowners.parse(text).owners_for(path) == oracle_owners(text, path)


# --- owner syntax, parsing and matching details mutation testing found unasserted ------------


@pytest.mark.parametrize("owner", ["@user!!", "@org/", "@example.com", "a@.com", "a@b.", "@org/team x"])
def test_malformed_owners_make_the_line_an_error(owner: str) -> None:
    parsed = codeowners.parse(f"docs/ {owner}\n* @core\n")
    assert [r.pattern for r in parsed.rules] == ["*"]
    assert parsed.errors[0].line == 1 and "invalid owner" in parsed.errors[0].message


@pytest.mark.parametrize("owner", ["@u", "@user-1", "@Org/Team_x.y-z", "a.b@example.co"])
def test_well_formed_owners_are_accepted(owner: str) -> None:
    assert codeowners.parse(f"docs/ {owner}\n").rules[0].owners == (owner,)


def test_an_error_line_never_hides_the_lines_after_it() -> None:
    parsed = codeowners.parse("docs/ not-an-owner\n!x @a\ndocs/a]b @a\ndocs/ @docs\n")
    assert [r.pattern for r in parsed.rules] == ["docs/"] and [e.line for e in parsed.errors] == [1, 2, 3]
    assert "character ranges" in parsed.errors[2].message


def test_blank_and_indented_comment_lines_are_skipped() -> None:
    parsed = codeowners.parse("   \n\t# indented comment\n  docs/ @a   # why\n")
    assert not parsed.errors and [(r.pattern, r.owners, r.line) for r in parsed.rules] == [("docs/", ("@a",), 3)]


def test_catch_all_owners_are_those_of_the_last_catch_all_line() -> None:
    text = "* @a @org/t x@y.com\n/docs/ @b\n** @c @org/d e@f.com\n/docs/x @g\n"
    assert codeowners.parse(text).catch_all_owners() == ("c", "org/d")
    assert codeowners.parse("/docs/ @b\n").catch_all_owners() == ()


def test_a_path_with_a_newline_is_still_owned_by_its_directory() -> None:
    """Git allows a newline in a file name; `*` and `**` must match it like any character."""
    parsed = codeowners.parse("* @core\ndocs/ @docs\n/infra/** @ops\n")
    assert parsed.owners_for("docs/a\nb.md") == ("@docs",)
    assert parsed.owners_for("infra/x\ny/z") == ("@ops",)


def test_leading_and_trailing_slashes_of_a_path_are_ignored() -> None:
    rule = codeowners.parse("/docs/ @a\n").rules[0]
    assert rule.matches("/docs/a.md") and rule.matches("docs/a/")


def test_teams_start_with_the_last_catch_all_and_never_include_emails() -> None:
    parsed = codeowners.parse("* @org/old\na/ @org/a a/b@example.com\n** @org/new\n")
    assert parsed.teams() == ("org/new", "org/old", "org/a")
    assert codeowners.parse("a/ @org/x x/y@example.com\n").teams() == ("org/x",)


@pytest.mark.parametrize("pattern", ["docs/[draft.md", "[", "src/a[", "docs/draft].md", "]"])
def test_a_lone_bracket_makes_the_line_an_error_never_a_rule(pattern: str) -> None:
    # a `[` (or `]`) without its pair is no character range either: the line is reported and
    # skipped, so the catch-all keeps owning the path the broken line names
    parsed = codeowners.parse(f"* @core\n{pattern} @mallory\n")
    assert [r.line for r in parsed.rules] == [1]
    assert [e.line for e in parsed.errors] == [2]
    assert "character ranges" in parsed.errors[0].message
    assert parsed.owners_for(pattern) == ("@core",)
    assert "@mallory" not in parsed.all_owners()
