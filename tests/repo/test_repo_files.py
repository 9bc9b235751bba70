"""Our own repository files: the changelog parses strictly and plans against our configs."""

from __future__ import annotations

from infx.changelog.strict import parse_changelog
from infx.plan.planner import PlanFlags, build_plan, file_sources, parse_additions


def test_our_changelog_passes_the_strict_parser(repo_root):
    raw = (repo_root / "perf-changelog.yaml").read_bytes()
    parsed = parse_changelog(raw, "perf-changelog.yaml")
    assert len(parsed.entries) >= 1
    assert raw.endswith(b"\n") and not raw.endswith(b"\n\n")


def test_our_changelog_plans_every_mi355x_key(repo_root):
    text = (repo_root / "perf-changelog.yaml").read_text(encoding="utf-8")
    entries = parse_additions(text, "perf-changelog.yaml")
    sources = file_sources([str(repo_root / "configs" / "amd-master.yaml")],
                           str(repo_root / "configs" / "runners.yaml"))
    plan = build_plan(entries, base_ref="base", head_ref="head", flags=PlanFlags(),
                      sources=sources).to_json()
    runners = {row["runner"] for bucket in ("single_node", "multi_node")
               for rows in plan[bucket].values() for row in rows}
    assert runners == {"mi355x", "mi355x-disagg", "cluster:mi355x-amds"}


def test_every_file_the_review_checklist_names_is_in_the_repository(repo_root):
    """Reviewers follow the checklist: a repository file it names (a path with a folder, or
    an upper-case document such as MODELS.md) must exist here."""
    import re

    text = (repo_root / "PR_REVIEW_CHECKLIST.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(?<![\w./-])([.\w-]+/[\w./-]+\.(?:md|ya?ml|json|py|sh)|[A-Z_]+\.md)\b",
                           text))
    rules = text.split("```")[0]  # the instructions before the template
    # a file the template's fixed wording names from elsewhere needs a rule saying where it is
    unexplained = sorted(name for name in named if not (repo_root / name).exists()
                         and not any(name in line and any((repo_root / path).is_file() for path in
                                                          re.findall(r"`([\w./-]+)`", line))
                                     for line in _sentences(rules)))
    assert unexplained == []


def _sentences(text: str) -> list[str]:
    return [" ".join(item.split()) for item in text.split("\n- ")]


def test_the_world_format_reference_is_in_the_repository(repo_root):
    doc = (repo_root / "docs" / "world-format.md").read_text(encoding="utf-8")
    for field in ("check_runs:", "workflow_runs:", "faults:", "run_attempt", "role_name",
                  "head_repository", "files_from"):
        assert field in doc, field
    for pointer in ("README.md", "infx/github/fake/README.md"):
        assert "docs/world-format.md" in (repo_root / pointer).read_text(encoding="utf-8")


def test_dependabot_updates_the_pinned_actions_and_every_python_lock_weekly(repo_root):
    """Dependabot covers the SHA-pinned actions and each folder with a hash lock (and the
    pyproject bounds at the root), weekly; zizmor finds nothing in its configuration."""
    import subprocess

    from lib import tools

    from infx.yamlio import load_file

    path = repo_root / ".github" / "dependabot.yml"
    config = load_file(path)
    assert config["version"] == 2
    updates = {u["package-ecosystem"]: u for u in config["updates"]}
    assert set(updates) == {"github-actions", "pip"}
    assert all(u["schedule"]["interval"] == "weekly" for u in updates.values())
    actions = {"/" + a.parent.relative_to(repo_root).as_posix() for a in repo_root.glob(".github/actions/*/action.yml")}
    assert actions and set(updates["github-actions"]["directories"]) == actions | {"/"}
    locks = {"/" + lock.parent.relative_to(repo_root).as_posix()
             for lock in repo_root.glob(".*/requirements-*.txt")}
    assert locks and set(updates["pip"]["directories"]) == locks | {"/"}
    exe = tools.need(tools.zizmor)
    done = subprocess.run([exe, "--offline", "--color", "never", "--persona", "auditor", str(path)],
                          cwd=repo_root, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0 and "No findings to report" in done.stdout + done.stderr, (
        done.stdout + done.stderr)


def test_the_changelog_keeps_a_changelog_with_an_unreleased_section(repo_root):
    import re

    text = (repo_root / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n") and "keepachangelog.com" in text
    releases = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert releases and releases[0] == "Unreleased"
    kinds = set(re.findall(r"^### (.+)$", text, re.MULTILINE))
    assert kinds and kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_ci_run_calls_pip_through_the_python_on_path(repo_root):
    """Issue 24: .ci/run called a bare `pip`, which needs an active virtualenv."""
    import re

    script = (repo_root / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line.strip() for line in script.splitlines() if not line.lstrip().startswith("#")]
    assert any(line.startswith("python -m pip install") for line in commands)
    assert not [line for line in commands if re.search(r"(^|[;&|]\s*)pip3?\s", line)]


def test_the_checklist_says_what_signoff_preview_needs(repo_root):
    """Issue 24: `infx signoff preview` needs a repository and a token nobody documented."""
    rules = " ".join((repo_root / "PR_REVIEW_CHECKLIST.md").read_text(encoding="utf-8")
                     .split("```")[0].split())
    assert "infx signoff preview --repo" in rules and "$GITHUB_REPOSITORY" in rules
    assert "GITHUB_TOKEN" in rules and "read access" in rules
